"""Transcript exporters (txt, srt, vtt, ass, json: cues by :mod:`.subtitles`, JSON by
:func:`speechstudio.transcript.model.transcript_dict`), written atomically, and where their files go."""
from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from speechstudio import atomic
from speechstudio.asr.types import Segment, TranscriptInfo
from speechstudio.batch.subtitles import SUBTITLE_FORMATS, SubtitleOptions, render_subtitles
from speechstudio.errors import UsageError
from speechstudio.transcript.model import render_json

FORMATS = ("txt", "srt", "vtt", "json", "ass")

def parse_formats(spec: str | Iterable[str]) -> tuple[str, ...]:
    """Parse ``"txt,srt"`` (or an iterable of names) into a non-empty tuple from ``FORMATS``.

    Case-insensitive, spaces and a leading dot ignored, duplicates dropped; ``"all"`` is every format.
    Raises ``UsageError`` for an empty list or an unknown format."""
    parts = spec.split(",") if isinstance(spec, str) else list(spec)
    chosen: list[str] = []
    for part in parts:
        name = str(part).strip().lower().lstrip(".")
        if not name:
            continue
        names = FORMATS if name == "all" else (name,)
        for n in names:
            if n not in FORMATS:
                raise UsageError(f"unknown output format {str(part).strip()!r} (choose from {', '.join(FORMATS)})")
            if n not in chosen:
                chosen.append(n)
    if not chosen:
        raise UsageError(f"no output format given (choose from {', '.join(FORMATS)})")
    return tuple(chosen)


#: The longest file name most file systems take, in bytes (ext4, XFS, Btrfs: 255 bytes; NTFS, APFS: 255 characters).
NAME_MAX = 255


def fit_name(name: str) -> str:
    """``name`` itself, or when over :data:`NAME_MAX` bytes its stem cut (on a character) and an 8-hex digest of
    the whole name added before the extension: ``<first bytes>~1a2b3c4d.srt``, the same on every run (a
    downloaded video's title of 85 Japanese characters is 255 bytes before ``.srt``)."""
    digest = hashlib.sha1(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return atomic.short_name(name, NAME_MAX, f"~{digest}")


def output_path(input_path: str | os.PathLike[str], fmt: str, input_root: str | os.PathLike[str] | None = None,
                output_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where the ``fmt`` transcript of ``input_path`` goes: the last extension replaced (``talk.v2.mp3`` ->
    ``talk.v2.srt``; ``x.txt`` as txt -> ``x.txt.txt``, never the input), next to it or under ``output_dir``
    mirroring the tree below ``input_root``. Raises ``UsageError`` for an unknown ``fmt``."""
    _check(fmt)
    src = Path(input_path)
    name = f"{src.stem}.{fmt}" if src.suffix else f"{src.name}.{fmt}"
    if name == src.name:
        name = f"{src.name}.{fmt}"
    name = fit_name(name)
    if output_dir is None:
        return src.with_name(name)
    out = Path(output_dir)
    if input_root is not None:
        with contextlib.suppress(ValueError):       # outside the root: straight under output_dir
            return out / Path(os.path.abspath(src)).parent.relative_to(os.path.abspath(input_root)) / name
    return out / name


def render_txt(segments: Sequence[Segment], info: TranscriptInfo | None = None) -> str:
    """Plain text: one stripped segment per line, trailing newline; with speaker labels one ``"Speaker 1:
    text"`` paragraph per turn, separated by a blank line; ``""`` without a word."""
    kept = [(s.speaker, " ".join(s.text.split())) for s in segments]
    kept = [(who, line) for who, line in kept if line]
    if not kept:
        return ""
    if all(who is None for who, _ in kept):
        return "\n".join(line for _, line in kept) + "\n"
    paragraphs: list[list[str]] = []
    last = object()
    for who, line in kept:
        if who != last:
            paragraphs.append([f"{who}:" if who else ""])
            last = who
        paragraphs[-1].append(line)
    return "\n\n".join(" ".join(p).strip() for p in paragraphs) + "\n"


def render(fmt: str, segments: Sequence[Segment], info: TranscriptInfo,
           subtitles: SubtitleOptions | None = None) -> str:
    """Return the full content of a ``fmt`` transcript (times in seconds; ``info`` is used by ``json``).
    Raises ``UsageError`` for an unknown ``fmt``."""
    if fmt in SUBTITLE_FORMATS:
        return render_subtitles(list(segments), fmt, subtitles or SubtitleOptions(),
                                getattr(info, "duration_s", None) or None)
    _check(fmt)
    return (render_txt if fmt == "txt" else render_json)(list(segments), info)


def _check(fmt: str) -> None:
    if fmt not in FORMATS:
        raise UsageError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")


def write_transcript(target: str | os.PathLike[str], segments: Sequence[Segment], info: TranscriptInfo, fmt: str,
                     subtitles: SubtitleOptions | None = None) -> Path:
    """Render and atomically write one transcript to ``target`` (folders created); returns ``target``.

    Raises ``UsageError`` (unknown ``fmt``) or ``OSError`` (nothing partial is left)."""
    return atomic.atomic_write_text(target, render(fmt, segments, info, subtitles))
