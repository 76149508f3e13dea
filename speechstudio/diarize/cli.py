"""``speechstudio speakers list|add|rename|remove``: the known-voice library from the command line."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

import numpy as np

from speechstudio.audio.decode import load_audio
from speechstudio.diarize import embedding as vp, library
from speechstudio.errors import UsageError
from speechstudio.transcript import TranscriptDocument


def register(subparsers) -> None:
    sp = subparsers.add_parser("speakers", help="known voices: save a speaker's voice print, list, rename, remove",
                               description="Known voices are named automatically in later transcripts "
                                           "(transcribe --speakers auto).",
                               epilog="examples:\n"
                                      "  speechstudio speakers add Ana ana_alone.wav\n"
                                      "  speechstudio speakers add Ben meeting.json --speaker 'Speaker 2'"
                                      "   (from a transcript)\n"
                                      "  speechstudio speakers list")
    sub = sp.add_subparsers(dest="speakers_command", metavar="ACTION")
    sub.add_parser("list", help="list the saved voices")
    add = sub.add_parser("add", help="save the voice in an audio file (or a stretch of it, or a transcript's "
                                     "speaker) under a name")
    add.add_argument("name", help="the speaker's name, e.g. 'Ana Lima'")
    add.add_argument("audio", help="a recording of that voice alone (10 s or more is best), or a .json transcript "
                                   "made with --speakers (then give --speaker)")
    add.add_argument("--speaker", metavar="LABEL", help="with a .json transcript: whose voice, e.g. 'Speaker 2'")
    add.add_argument("--start", type=float, default=None, metavar="SECONDS", help="start of the stretch to use")
    add.add_argument("--end", type=float, default=None, metavar="SECONDS", help="end of the stretch to use")
    add.add_argument("--overwrite", action="store_true", help="replace a saved voice of that name")
    ren = sub.add_parser("rename", help="rename a saved voice")
    ren.add_argument("old")
    ren.add_argument("new")
    rm = sub.add_parser("remove", help="delete a saved voice")
    rm.add_argument("name")
    sp.set_defaults(func=speakers_command)


def _voice_from_transcript(json_path, speaker: str | None):
    """The voice of ``speaker``'s segments in a transcript made with ``--speakers`` (its recording
    is the one the JSON's ``source`` names). Raises ``UsageError``."""
    doc = TranscriptDocument.load(json_path)
    spans = [(s.start_s, s.end_s) for s in doc.segments if speaker and s.speaker == speaker]
    if not spans:            # the transcript's speakers, as --speaker takes them
        names = ", ".join(shlex.quote(n) for n in doc.speakers()) or "none: transcribe it with --speakers"
        raise UsageError(f"{json_path}: " + (f"no segments of {speaker!r}" if speaker else "say whose voice with "
                                             "--speaker NAME") + f" (speakers: {names})")
    source = (doc.meta.get("source") or {}).get("path")
    if not source:
        raise UsageError(f"{json_path}: the transcript does not say which recording it is of")
    return voice_from_spans(source, spans)


def voice_from_file(path, start: float | None = None, end: float | None = None):
    """``(embedding (192,), seconds, source)`` of the voice in ``path`` (optionally ``start``..``end``
    seconds; ``source``: the absolute path and the stretch). Raises ``UsageError`` when the stretch is
    empty or has under 1 s of speech, the decoder's errors for an unreadable file."""
    if not Path(path).exists():  # a path the user typed: a usage error (exit 2), as for transcribe's inputs
        raise UsageError(f"{path}: file not found")
    audio = load_audio(path, vp.RATE)
    a = int(max(0.0, start or 0.0) * vp.RATE)
    b = int(end * vp.RATE) if end is not None else len(audio)
    if a >= len(audio):
        raise UsageError(f"{path}: --start {start or 0:g} s is past the end (the file is {len(audio) / vp.RATE:.1f} s)")
    if b <= a:
        raise UsageError(f"{path}: --end {end:g} s is not after --start {start or 0:g} s")
    piece = np.asarray(audio[a:b], np.float32)
    emb = _embed(path, piece)
    _one_person(path, piece)
    span = f" {a / vp.RATE:.1f}-{b / vp.RATE:.1f} s" if (start is not None or end is not None) else ""
    return emb, len(piece) / vp.RATE, f"{Path(path).absolute()}{span}"      # the library outlives the working folder


#: Talk (s) of each of two voices in a recording that makes ``speakers add`` refuse it as more than one person
OTHER_TALK_S = 2.0


def _one_person(path, audio: np.ndarray) -> None:
    """Raise ``UsageError`` when the diarizer hears two or more people in float32 16 kHz ``audio``, each talking
    ``OTHER_TALK_S`` or more: a print of both would later name everyone in a transcript after one of them."""
    from speechstudio.diarize.family import get
    from speechstudio.diarize.speakers import parse_speakers

    session = get().start(parse_speakers("auto"))
    for i in range(0, len(audio), 30 * vp.RATE):
        session.push(audio[i:i + 30 * vp.RATE])
    found = session.finish()
    if sum(s.talk_s >= OTHER_TALK_S for s in found.speakers) > 1:
        raise UsageError(f"{path}: {found.summary()}; a known voice is one person's: give a stretch where only they "
                         "talk (--start S --end S), or transcribe it with --speakers and add one of them from the "
                         "transcript (speechstudio speakers add NAME FILE.json --speaker 'Speaker 2')")


def voice_from_spans(path, spans: list[tuple[float, float]], max_s: float = 90.0):
    """``(embedding (192,), seconds, source)`` of one speaker from the stretches ``spans``
    (seconds) of the recording ``path``, at most ``max_s`` seconds of them. Raises ``UsageError``
    with under 1 s of speech, the decoder's errors for an unreadable file."""
    audio = load_audio(path, vp.RATE)
    pieces, total = [], 0.0
    for a, b in sorted(spans):
        piece = audio[int(a * vp.RATE): int(b * vp.RATE)]
        if piece.size:
            pieces.append(piece)
            total += piece.size / vp.RATE
        if total >= max_s:
            break
    if not pieces:
        raise UsageError(f"{path}: no audio in the speaker's segments")
    return _embed(path, np.concatenate(pieces)), total, f"{path} ({len(pieces)} segments)"


def _embed(path, audio: np.ndarray) -> np.ndarray:
    """:func:`~speechstudio.diarize.embedding.embed_speech`, its ``ValueError`` a ``UsageError`` naming ``path``."""
    try:
        return vp.embed_speech(audio)
    except ValueError as e:
        raise UsageError(f"{path}: {e}") from None


def speakers_command(args) -> int:
    cmd = getattr(args, "speakers_command", None) or "list"
    if cmd == "list":
        lib = library.load_library()
        for p in lib.problems:
            print(f"warning: {p}", file=sys.stderr)
        if not lib.voices:
            print("no known voices (speechstudio speakers add NAME AUDIO)")
        for v in lib.voices:
            print(f"{v.name:32s} {v.seconds:6.1f} s  {v.created:19s}  {v.source}")
        return 0
    if cmd == "add":
        library.check_name(args.name)       # a bad name before the work on the audio
        json_in = str(args.audio).lower().endswith(".json")
        emb, seconds, source = (_voice_from_transcript(args.audio, args.speaker) if json_in
                                else voice_from_file(args.audio, args.start, args.end))
        try:
            v = library.save_voice(args.name, emb, seconds=seconds, source=source, overwrite=args.overwrite)
        except UsageError as e:
            raise UsageError(f"{e}, or add --overwrite to replace it" if "exists" in str(e) else str(e)) from None
        print(f"saved the voice of {v.name} ({v.seconds:.1f} s of audio) to {v.path}")
        twins = [(float(o.embedding @ v.embedding), o.name) for o in library.load_library().voices if o.name != v.name]
        close, twin = max(twins, default=(0.0, ""))
        if close >= 0.80:  # library.match needs a margin over the runner-up: two prints of one person name neither
            print(f"warning: this voice sounds like {twin!r} (similarity {close:.2f}); if they are one person, "
                  f"remove one (speechstudio speakers remove NAME): with both saved, transcripts name neither",
                  file=sys.stderr)
        if seconds < 5:
            print("note: under 5 s of audio: the voice print may not be reliable; 10 s or more is best",
                  file=sys.stderr)
        return 0
    if cmd == "rename":
        name = library.rename_voice(args.old, args.new).name
        print(f"renamed {args.old} to {name}" if name != args.old else f"{name}: already named so; nothing changed")
        return 0
    if cmd == "remove":
        print(f"removed {args.name} ({library.remove_voice(args.name)})")
        return 0
    raise UsageError(f"unknown speakers action {cmd!r}")
