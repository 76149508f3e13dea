"""``speechstudio audiobook`` (``tts.audiobook``) and ``speechstudio lexicon`` (``tts.lexicon``):
argparse wiring, called by ``tts.cli.register``."""
from __future__ import annotations

import sys
from pathlib import Path

from speechstudio.errors import UsageError


def register(subparsers) -> None:
    """Add ``audiobook`` and ``lexicon`` to an ``argparse`` subparsers object."""
    ap = subparsers.add_parser(
        "audiobook", help="turn a long document (txt, Markdown, EPUB) into a chaptered audiobook",
        description="Synthesize BOOK chapter by chapter into FOLDER: one audio file per chapter, one TITLE.m4b "
                    "with chapter marks and the cover (what audiobook players open), a playlist and chapters.json. "
                    "Run it again after an interruption: finished chapters are kept.")
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
    ap.add_argument("--voice", metavar="NAME|HF_ID|DIR|PIPER.onnx", help="voice (default as in speak)")
    ap.add_argument("--speaker", metavar="ID|NAME")
    ap.add_argument("--length-scale", type=float, default=None, metavar="1.0")
    ap.add_argument("--noise-scale", type=float, default=None, metavar="0.667")
    ap.add_argument("--noise-w", type=float, default=None, metavar="0.8")
    ap.add_argument("--pitch", type=float, default=None, metavar="SEMITONES",
                    help="pitch shift in semitones (-12..12, formants kept); default: the voice's")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--precision", default="auto", choices=["auto", "fp32", "fp16"])
    ap.set_defaults(func=audiobook_command)

    lp = subparsers.add_parser("lexicon", help="pronunciations the voices use (word -> respelling or /IPA/)",
                               description="Edit the user lexicon of a language: WORD is replaced by a respelling, "
                                           "or said with IPA phonemes written between slashes (/ŋwˈɪn/).")
    lsub = lp.add_subparsers(dest="lexicon_command", metavar="{list,add,remove,path}")
    for name, hlp in (("list", "show the entries"), ("path", "print the lexicon file's path")):
        p = lsub.add_parser(name, help=hlp)
        p.add_argument("--language", default="en", help="voice language (en, de, ...; default en)")
    pa = lsub.add_parser("add", help="add or replace an entry")
    pa.add_argument("word")
    pa.add_argument("pronunciation", help="a respelling, or IPA between slashes")
    pa.add_argument("--language", default="en")
    pr = lsub.add_parser("remove", help="remove an entry")
    pr.add_argument("word")
    pr.add_argument("--language", default="en")
    lp.set_defaults(func=lexicon_command, language="en")


def audiobook_command(args) -> int:
    """Handler of ``speechstudio audiobook``. Returns 0 on success."""
    from tqdm import tqdm

    from speechstudio.tts.audiobook import make_audiobook, prepare_cover
    from speechstudio.tts.documents import read_book
    from speechstudio.tts.family import SynthesisSettings, check_settings
    from speechstudio.tts.voices import load_named

    settings = SynthesisSettings(speaker=args.speaker, noise_scale=args.noise_scale, noise_w=args.noise_w,
                                 length_scale=args.length_scale, seed=args.seed, pitch=args.pitch)
    check_settings(settings, flags=True)
    book = read_book(args.book)  # fail on a bad document before the voice loads
    title, chapters = book.title, book.chapters
    if getattr(args, "list_chapters", False):
        for note in book.warnings:
            print(f"warning: {note}", file=sys.stderr)
        print(f"{title}" + (f" by {book.author}" if book.author else "") + f": {len(chapters)} chapter(s)")
        for ch in chapters:
            print(f"{ch.index + 1:3d}  {ch.title}  ({len(ch.text.split())} words)")
        return 0
    if not args.out:
        raise UsageError("audiobook needs --out FOLDER (or --list-chapters to only show the chapters)")
    cover = _read_cover(args.cover) if getattr(args, "cover", None) else None
    if cover is not None:
        cover = prepare_cover(cover, args.cover)
    from speechstudio.atomic import check_folder_destination

    check_folder_destination(args.out)  # and on a folder that cannot be written
    ref, voice = load_named(args.voice, args.device, args.precision)
    print(f"voice: {ref.name} ({ref.reason}); {voice.sample_rate} Hz, {voice.device} {voice.dtype}")
    print(f"{title}: {len(chapters)} chapter(s), {sum(len(c.text) for c in chapters)} characters")

    bar = tqdm(total=sum(len(c.text) for c in chapters), unit="char", file=sys.stderr, desc="audiobook",
               disable=not sys.stderr.isatty())
    seen: set[int] = set()

    def progress(p) -> None:
        if p.chapter not in seen:
            seen.add(p.chapter)
            note = " (done before, kept)" if p.skipped else ""
            bar.write(f"chapter {p.chapter + 1}/{p.chapters}: {p.title}{note}", file=sys.stderr)
        bar.update(p.chars_done - bar.n)

    try:
        result = make_audiobook(voice, args.book, args.out, args.format, settings, progress, restart=args.restart,
                                voice_loader=lambda name: load_named(name, args.device, args.precision)[1],
                                book_file=getattr(args, "m4b", True), cover=cover)
    finally:
        bar.close()
    total = sum(result.durations_s)
    for note in result.warnings:
        print(f"warning: {note}", file=sys.stderr)
    book = f", {result.book_file.name} ({len(result.files)} chapter marks)" if result.book_file else ""
    print(f"wrote {len(result.files)} chapter file(s) to {args.out} ({total / 60:.1f} min of audio; "
          f"{result.skipped} kept from an earlier run); playlist.m3u8, chapters.json{book}")
    return 0


def _read_cover(path: str) -> bytes:
    """The bytes of ``--cover IMAGE``; ``UsageError`` naming it when it cannot be read."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{p}: cover image not found")
    try:
        return p.read_bytes()
    except OSError as exc:
        raise UsageError(f"{p}: cannot read the cover image ({exc.strerror or exc})") from None


def lexicon_command(args) -> int:
    """Handler of ``speechstudio lexicon list|add|remove|path``. Returns 0 on success."""
    from speechstudio.tts.lexicon import Lexicon, lexicon_path, load_lexicon, save_lexicon

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
