"""Transcript exporters (txt, srt, vtt, json) and where their files go.

Design:

- ``render(fmt, segments, info)`` builds the whole file content in memory (a ``str``); it never
  touches the disk, so a bad segment can never leave a half-written file.
- ``write_transcript(target, segments, info, fmt)`` renders, then writes with
  :func:`speechstudio.atomic.atomic_write_text` (temp file in the target's folder, fsync, rename,
  fsync of the folder; permissions and symbolic links kept). On any error (disk full, encoding,
  interrupt) the temporary file is removed and ``target`` is untouched: old content or absent.
- ``output_path(input_path, fmt, input_root, output_dir)`` maps an input file to its output
  path, mirroring the folder tree under ``output_dir``.

Formats:

- ``txt``: one segment per line (text stripped), UTF-8, trailing newline; empty file when there
  is no speech.
- ``srt`` / ``vtt`` / ``ass``: cues laid out by :mod:`speechstudio.batch.subtitles` (line width
  and count, at most 7 s, no zero-length or overlapping cues, optional word karaoke in vtt/ass),
  written by pysubs2; times in milliseconds; ``vtt`` escapes ``& < >`` as the WebVTT spec requires.
- ``json``: :func:`speechstudio.transcript.model.transcript_dict` (the one JSON writer).
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from speechstudio import atomic
from speechstudio.asr.types import Segment, TranscriptInfo
from speechstudio.batch.subtitles import (
    SUBTITLE_FORMATS,
    SubtitleOptions,
    render_subtitles,
)
from speechstudio.errors import UsageError
from speechstudio.transcript.model import render_json

FORMATS = ("txt", "srt", "vtt", "json", "ass")

_WS = re.compile(r"\s+")


def parse_formats(spec: str | Iterable[str]) -> tuple[str, ...]:
    """Parse ``"txt,srt"`` (or a list of names) into a tuple of formats.

    Case-insensitive, spaces and a leading dot are ignored, duplicates dropped (first order
    kept); ``"all"`` means every format.

    Args:
        spec: comma-separated names, or an iterable of names.

    Returns:
        A non-empty tuple of names from ``FORMATS``.

    Raises:
        UsageError: empty list or an unknown format (the message lists the valid ones).
    """
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


def output_path(
    input_path: str | os.PathLike[str],
    fmt: str,
    input_root: str | os.PathLike[str] | None = None,
    output_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """Return where the ``fmt`` transcript of ``input_path`` goes.

    The name is the input's name with its last extension replaced: ``talk.v2.final.mp3`` ->
    ``talk.v2.final.srt``; ``README`` -> ``README.srt``. If that equals the input itself (an input
    named ``x.txt`` and ``fmt="txt"``), ``.<fmt>`` is appended instead (``x.txt.txt``), so an input
    is never overwritten.

    Args:
        input_path: the audio/video file.
        fmt: one of ``FORMATS``.
        input_root: the folder the input was found under (``None`` if given directly).
        output_dir: where outputs go; ``None`` puts them next to the input.

    Returns:
        ``output_dir / <input's path relative to input_root>.parent / <stem>.<fmt>`` when both
        are given and the input is inside ``input_root`` (``root/a/b.wav`` -> ``out/a/b.srt``);
        ``output_dir / <stem>.<fmt>`` when only ``output_dir`` is given (or the input is outside
        ``input_root``); ``<input's folder> / <stem>.<fmt>`` without ``output_dir``.

    Raises:
        UsageError: unknown ``fmt``.
    """
    if fmt not in FORMATS:
        raise UsageError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")
    src = Path(input_path)
    name = f"{src.stem}.{fmt}" if src.suffix else f"{src.name}.{fmt}"
    if name == src.name:
        name = f"{src.name}.{fmt}"
    if output_dir is None:
        return src.with_name(name)
    out = Path(output_dir)
    if input_root is not None:
        src_abs = Path(os.path.abspath(src))
        root_abs = Path(os.path.abspath(input_root))
        try:
            rel = src_abs.parent.relative_to(root_abs)
        except ValueError:
            rel = None
        if rel is not None:
            return out / rel / name
    return out / name


def _clean(text: str) -> str:
    return _WS.sub(" ", text).strip()


def render_txt(segments: Sequence[Segment], info: TranscriptInfo | None = None) -> str:
    """Plain text: one stripped segment per line (empty segments skipped), trailing newline.

    With speaker labels (diarization): one paragraph per speaker turn, ``"Speaker 1: text"``,
    paragraphs separated by a blank line; consecutive segments of one speaker share a paragraph."""
    kept = [(s.speaker, _clean(s.text)) for s in segments]
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


def render_srt(segments: Sequence[Segment], info: TranscriptInfo | None = None,
               subtitles: SubtitleOptions | None = None) -> str:
    """SubRip: numbered cues ``HH:MM:SS,mmm --> HH:MM:SS,mmm`` (:mod:`speechstudio.batch.subtitles`)."""
    return render_subtitles(segments, "srt", subtitles or SubtitleOptions())


def render_vtt(segments: Sequence[Segment], info: TranscriptInfo | None = None,
               subtitles: SubtitleOptions | None = None) -> str:
    """WebVTT: ``WEBVTT`` header, cues ``HH:MM:SS.mmm --> HH:MM:SS.mmm``, optional karaoke timestamps."""
    return render_subtitles(segments, "vtt", subtitles or SubtitleOptions())


def render_ass(segments: Sequence[Segment], info: TranscriptInfo | None = None,
               subtitles: SubtitleOptions | None = None) -> str:
    """Advanced SubStation Alpha: pysubs2's default header and style, optional ``\\k`` karaoke."""
    return render_subtitles(segments, "ass", subtitles or SubtitleOptions())


_RENDERERS = {"txt": render_txt, "json": render_json}


def render(fmt: str, segments: Sequence[Segment], info: TranscriptInfo,
           subtitles: SubtitleOptions | None = None) -> str:
    """Return the full content of a ``fmt`` transcript.

    Args:
        fmt: one of ``FORMATS``.
        segments: the transcript's segments (times in seconds).
        info: model/engine/duration metadata (used by ``json``).
        subtitles: cue layout for srt/vtt/ass (default ``SubtitleOptions()``: 42 x 2, <= 7 s).

    Raises:
        UsageError: unknown ``fmt``.
    """
    if fmt in SUBTITLE_FORMATS:
        return render_subtitles(list(segments), fmt, subtitles or SubtitleOptions(),
                                getattr(info, "duration_s", None) or None)
    try:
        renderer = _RENDERERS[fmt]
    except KeyError:
        raise UsageError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})") from None
    return renderer(list(segments), info)


def write_transcript(
    target: str | os.PathLike[str],
    segments: Sequence[Segment],
    info: TranscriptInfo,
    fmt: str,
    subtitles: SubtitleOptions | None = None,
) -> Path:
    """Render and atomically write one transcript file.

    Args:
        target: the output file (usually from ``output_path``); its folders are created.
        segments: the transcript (``Segment`` with ``Word`` s; times in seconds).
        info: metadata (model id, engine, device, precision, duration, language).
        fmt: one of ``FORMATS``.

    Returns:
        ``target`` as a ``Path``.

    Raises:
        UsageError: unknown ``fmt``.
        OSError: the file could not be written (nothing partial is left behind).
    """
    return atomic.atomic_write_text(target, render(fmt, segments, info, subtitles))


def write_transcripts(
    input_path: str | os.PathLike[str],
    segments: Sequence[Segment],
    info: TranscriptInfo,
    formats: Iterable[str] = FORMATS,
    *,
    input_root: str | os.PathLike[str] | None = None,
    output_dir: str | os.PathLike[str] | None = None,
    subtitles: SubtitleOptions | None = None,
) -> list[Path]:
    """Write every format of one input's transcript (``output_path`` + ``write_transcript``).

    Returns:
        The written paths, in ``formats`` order.

    Raises:
        UsageError, OSError: as ``write_transcript`` (earlier formats stay written).
    """
    segs = list(segments)
    return [
        write_transcript(output_path(input_path, fmt, input_root, output_dir), segs, info, fmt, subtitles)
        for fmt in formats
    ]
