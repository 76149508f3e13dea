"""Batch transcription of files and folders: the one loop the CLI and the GUI both drive.

:func:`collect_inputs` expands the user's paths (folders recursively by default) into
:class:`InputItem` objects; :func:`run_batch` transcribes them one by one with a loaded recogniser and
yields :class:`BatchEvent` objects as it goes (file started / progress / done / skipped / failed),
so a progress bar, a GUI table or a log can follow along. A bad file never stops the batch: its
reason (one line) is recorded and the next file starts. Outputs are written atomically by
:mod:`speechstudio.batch.export`; inputs whose outputs all exist are skipped unless ``overwrite``
(so a stopped batch resumes where it was).
"""
from __future__ import annotations

import dataclasses
import errno
import logging
import os
import threading
import time
import traceback
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from speechstudio.asr.types import Segment, TranscriptInfo
from speechstudio.audio.decode import AudioReader
from speechstudio.audio.raw import RAW_EXTENSIONS, RawFormat
from speechstudio.batch import export, resume
from speechstudio.diarize.speakers import SpeakerCount
from speechstudio.errors import SpeechStudioError

log = logging.getLogger(__name__)
_FATAL_ERRNOS = {errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.ENOTDIR}

# Files in a scanned folder with these extensions are not media: listed as ignored, not tried.
NOT_MEDIA = frozenset(
    ".md .tsv .csv .pdf .doc .docx .odt .rtf .html .htm .xml .yaml .yml .ini .cfg .xls .xlsx .ods .ppt .pptx "
    ".ass .ssa .sub .lrc .sbv .ttml .cue .m3u .m3u8 .pls .nfo .sfv .md5 .torrent .url .lnk .db .sqlite "
    ".py .sh .log .zip .tar .gz .7z .rar .jpg .jpeg .png .gif .bmp .svg .webp .tif .tiff .heic .ico "
    ".exe .dll .so .part .tmp .crdownload .onnx .bin .safetensors .pt".split())
# Transcript formats (ours or the user's) found in scanned folders are passed over silently.
TRANSCRIPTS = frozenset({".txt", ".srt", ".vtt", ".json", ".ass"})


@dataclass(frozen=True)
class InputItem:
    """One input file; ``root`` is the folder it was found under (``None`` if given directly),
    used to mirror the folder tree under ``--output-dir``."""

    path: Path
    root: Path | None = None


@dataclass
class BatchEvent:
    """What happened: ``kind`` is one of ``start``, ``segment``, ``done``, ``skipped``,
    ``failed``, ``ignored``, ``cancelled``; ``position_s`` / ``duration_s`` in seconds of audio; ``outputs``: files
    written; ``reason``: one line for skipped/failed/ignored; ``warnings``: decode warnings;
    ``info``: (``done``) the transcript's metadata: language, its probability, model used;
    ``segments``: (``done``) the final transcript (with speaker labels when diarized: the
    ``segment`` events before it are the recogniser's, unlabelled)."""

    kind: str
    item: InputItem
    index: int = 0
    duration_s: float | None = None
    position_s: float = 0.0
    segment: Segment | None = None
    outputs: tuple[Path, ...] = ()
    reason: str = ""
    warnings: tuple[str, ...] = ()
    wall_s: float = 0.0
    info: TranscriptInfo | None = None
    segments: tuple = ()


@dataclass
class BatchSummary:
    """Totals of a batch: counts, failures with reasons, audio seconds, wall seconds, RTFx, and the
    ``TranscriptInfo`` of each file done (language, probability, model)."""

    done: int = 0
    skipped: int = 0
    ignored: list[tuple[Path, str]] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    outputs: list[Path] = field(default_factory=list)
    audio_s: float = 0.0
    compute_s: float = 0.0
    wall_s: float = 0.0
    cancelled: bool = False
    infos: list[tuple[Path, TranscriptInfo]] = field(default_factory=list)

    @property
    def rtfx(self) -> float:
        """Audio seconds transcribed per second of processing (higher is better)."""
        return self.audio_s / self.compute_s if self.compute_s > 0 else 0.0

    def add(self, ev: BatchEvent) -> None:
        if ev.kind == "done":
            self.done += 1
            self.audio_s += ev.duration_s or 0.0
            self.compute_s += ev.wall_s
            self.outputs.extend(ev.outputs)
            self.warnings.extend(ev.warnings)
            if ev.info is not None:
                self.infos.append((ev.item.path, ev.info))
        elif ev.kind == "skipped":
            self.skipped += 1
            self.warnings.extend(ev.warnings)
        elif ev.kind == "failed":
            self.failed.append((ev.item.path, ev.reason))
        elif ev.kind == "ignored":
            self.ignored.append((ev.item.path, ev.reason))
        elif ev.kind == "cancelled":
            self.cancelled = True


def collect_inputs(paths: Sequence[str | os.PathLike], recursive: bool = True
                   ) -> tuple[list[InputItem], list[tuple[Path, str]]]:
    """Expand files and folders into input items (sorted, de-duplicated).

    Returns ``(items, ignored)`` where ``ignored`` lists ``(path, reason)`` for folder entries that
    are clearly not media (documents, images, subtitles, playlists) or broken links. Transcript
    files (txt/srt/vtt/json) and hidden files and folders (``.name``) are passed over silently.
    Files given by name are always tried; a path that does not exist is listed in ``ignored``
    with the reason :data:`MISSING` (the CLI counts those as failed).
    """
    items: list[InputItem] = []
    ignored: list[tuple[Path, str]] = []
    seen: set[Path] = set()

    def add(item: InputItem) -> None:
        key = item.path.resolve()
        if key not in seen:
            seen.add(key)
            items.append(item)

    for raw in paths:
        p = Path(raw)
        if str(raw) == "-":                   # standard input, decoded as a stream
            add(InputItem(p, None))
        elif p.is_dir():
            it = p.rglob("*") if recursive else p.glob("*")
            for f in sorted(it, key=lambda q: str(q).lower()):
                rel = f.relative_to(p)
                if any(part.startswith(".") for part in rel.parts):
                    continue
                if f.is_symlink() and not f.exists():
                    ignored.append((f, "broken link (its target does not exist)"))
                    continue
                if not f.is_file() or f.suffix.lower() in TRANSCRIPTS:
                    continue
                if f.suffix.lower() in NOT_MEDIA:
                    ignored.append((f, "not a media file (by its extension)"))
                    continue
                add(InputItem(f, p))
        elif p.exists():
            add(InputItem(p, None))
        else:
            ignored.append((p, MISSING))
    return items, ignored


MISSING = "no such file or folder"


def run_batch(items: Iterable[InputItem], recognizer, *, formats: Sequence[str] = ("txt",),
              output_dir: str | os.PathLike | None = None, overwrite: bool = False,
              language: str | None = None, raw: RawFormat | None = None,
              cancel: threading.Event | None = None, debug: bool = False, task: str = "transcribe",
              initial_prompt: str | None = None, hotwords: str | None = None,
              subtitles: export.SubtitleOptions | None = None, diarize=None,
              channels: str = "mix", audio_track: int | str | None = None) -> Iterator[BatchEvent]:
    """Transcribe ``items`` with ``recognizer`` (a loaded :class:`~speechstudio.asr.types.Recognizer`:
    CTC, Whisper or the language router of :func:`~speechstudio.asr.load.load_recognizer`) and
    yield events.

    ``formats``: any of txt, srt, vtt, json; ``output_dir``: mirror the input tree there (default:
    next to each input); ``language``: ISO code or ``None`` to detect; ``task``,
    ``initial_prompt``, ``hotwords``: passed to ``recognizer.transcribe``; ``cancel``: set it to stop;
    the running file is abandoned between two decoded blocks and writes nothing. Errors are never
    raised for a single bad file. Each ``done`` event carries the file's ``TranscriptInfo``
    (language, its probability, the model used). ``diarize``: a
    :class:`~speechstudio.diarize.speakers.DiarizeOptions` to label speakers (the diarizer reads the
    blocks the recogniser reads: one decode per file); its family must be available (raises
    ``UsageError`` before the first file otherwise). Unreadable known-voice files are reported as
    warnings of the first file done. ``channels``: ``"mix"`` (the mean of the channels),
    ``"split"`` (each channel transcribed on its own and labelled as one speaker, merged in time
    order, words that bleed in from another channel dropped) or ``"auto"`` (split when the
    channels hold different voices: :mod:`speechstudio.batch.channels`). ``audio_track``: which
    audio track of a file with several (a 1-based number or a language code; ``None``: the one
    marked as the default, else the loudest); a file without it fails with the tracks it has.
    """
    options = dict(language=language, task=task, initial_prompt=initial_prompt, hotwords=hotwords)
    speakers = diarize.labeller() if diarize is not None else None
    layout = subtitles
    out_dir = Path(output_dir) if output_dir else None
    items = list(items)
    plan = plan_outputs(items, formats, out_dir)
    for index, item in enumerate(items):
        if cancel is not None and cancel.is_set():
            return
        targets = plan[index]
        todo, notes = resume.plan_work(item.path, targets, overwrite)
        if not todo:
            yield BatchEvent("skipped", item, index, reason="already transcribed (use --overwrite to redo)",
                             outputs=tuple(targets.values()), warnings=tuple(notes))
            continue
        kept = tuple(notes)
        item_raw = raw if item.path.suffix.lower() in RAW_EXTENSIONS else None
        fatal = False
        for ev in _transcribe_one(item, index, recognizer, todo, options, item_raw, cancel, debug, layout, speakers,
                                  channels, audio_track):
            if ev.kind == "done" and kept:
                ev.warnings = ev.warnings + kept
            fatal = fatal or ev.reason.startswith(FATAL_PREFIX)
            yield ev
        if fatal:
            return


FATAL_PREFIX = "cannot write outputs: "
# A transcript with no text from at least this much audio at speech level (diagnose.LOUD_RMS) is
# done but warned about: the user would otherwise trust an empty file.
LOUD_WITHOUT_TEXT_S = 1.0


def plan_outputs(items: Sequence[InputItem], formats: Sequence[str],
                 output_dir: Path | None) -> list[dict[str, Path]]:
    """Output path per item and format, all distinct.

    When two inputs would write the same file (``talk.wav`` and ``talk.mp3`` in one folder, or
    same-named files from two folders given to one ``--output-dir``), they keep more of their
    names, step by step until every path is unique: the full file name (``talk.wav.srt``), then
    the parent folder too (``a_talk.wav.srt``), then a number (``talk.wav~2.srt``). Paths are
    compared case-insensitively (``Talk.wav`` and ``talk.mp3`` clash on macOS/Windows file
    systems). Names stay stable across reruns: an input whose JSON transcript already sits at
    the plain name keeps it, and an input never takes a plain name whose JSON records another
    input that still exists (:mod:`speechstudio.batch.resume`)."""
    def name(it: InputItem, fmt: str, level: int) -> Path:
        src = Path.cwd() / "stdin" if str(it.path) == "-" else it.path     # `-`: stdin.<fmt>
        base = export.output_path(src, fmt, input_root=it.root, output_dir=output_dir)
        if level == 0:
            return base
        full = it.path.name
        if level >= 2:
            full = f"{it.path.parent.name or 'root'}_{full}"
        if level >= 3:
            full = f"{full}~{level - 1}"
        return base.with_name(f"{full}.{fmt}")

    levels = [0] * len(items)
    pinned: set[int] = set()
    for i, it in enumerate(items):
        recorded = resume.owner(name(it, "json", 0))
        if recorded is None:
            continue
        if recorded == resume.path_text(it.path.resolve()):
            pinned.add(i)
        elif os.path.exists(recorded):
            levels[i] = 1
    for _ in range(len(items) + 4):
        owners: dict[str, list[int]] = {}
        for i, it in enumerate(items):
            for fmt in formats:
                owners.setdefault(str(name(it, fmt, levels[i])).casefold(), []).append(i)
        clashes = set()
        for idx in owners.values():
            idx = sorted(set(idx))
            if len(idx) > 1:        # a pinned input at its plain name keeps it; the others move
                keep = [i for i in idx if i in pinned and levels[i] == 0][:1]
                clashes.update(i for i in idx if i not in keep)
        if not clashes:
            break
        for i in clashes:
            levels[i] += 1
    return [{fmt: name(it, fmt, levels[i]) for fmt in formats} for i, it in enumerate(items)]


def _audio_record(ai) -> dict:
    """What the JSON says about the input's audio: the track read, the file's tracks, the start offset."""
    return {"track": ai.track, "tracks": ai.tracks, "start_offset_s": round(ai.start_offset_s, 3),
            "channels": ai.channels, "source_rate": ai.source_rate, "codec": ai.codec}


class _Cancelled(Exception):
    pass


def _one_pass(reader, recognizer, options, cancel, item, index, duration, session, levels):
    """Transcribe ``reader`` (one channel or the mix), feeding ``session`` (diarizer or None) and
    ``levels`` (a :class:`~speechstudio.batch.channels.LevelMeter` or None) the same blocks.
    Yields ``segment`` events; returns ``(segments, info)``. Raises ``_Cancelled``."""
    cancelled = False

    def blocks():
        nonlocal cancelled
        for block in reader.blocks():
            if cancel is not None and cancel.is_set():
                cancelled = True
                return
            if session is not None:
                session.push(block)
            if levels is not None:
                levels.push(block)
            yield block

    segments: list[Segment] = []
    stream, info = recognizer.transcribe(blocks(), duration_s=duration, **options)
    try:
        for seg in stream:
            # between segments too: Whisper reads a whole piece (up to 20 min) before its first
            # segment, so the block check alone would let it decode the piece to the end
            if cancelled or (cancel is not None and cancel.is_set()):
                cancelled = True
                break
            segments.append(seg)
            yield BatchEvent("segment", item, index, duration_s=duration, position_s=seg.end_s, segment=seg)
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    if cancelled or (cancel is not None and cancel.is_set()):
        raise _Cancelled
    return segments, info


def _transcribe_one(item, index, recognizer, targets, options, raw, cancel, debug, layout=None,
                    speakers=None, channels: str = "mix", audio_track=None) -> Iterator[BatchEvent]:
    from speechstudio.batch import channels as chan

    t0 = time.perf_counter()
    try:
        reader = AudioReader(item.path, recognizer.sample_rate, raw=raw, track=audio_track)
        source = resume.fingerprint(item.path)      # before decoding: what this transcript is of
        duration = reader.info.duration_s
        yield BatchEvent("start", item, index, duration_s=duration)
        plan, plan_notes = chan.plan(reader, channels)
        warnings: list[str] = [f"{item.path}: {n}" for n in plan_notes]
        try:
            if plan is None:                            # the mix: one pass
                session = speakers.start(item.path) if speakers is not None else None
                segments, info = yield from _one_pass(reader, recognizer, options, cancel, item, index, duration,
                                                      session, None)
                warnings += reader.warnings
                if session is not None:
                    found = session.finish()
                    segments, info = found.apply(segments, info)
                    warnings += [f"{item.path}: {note}" for note in found.notes]
                decoded, loud = reader.decoded_s, reader.loud_s
            else:                                       # one pass per channel, one speaker each
                passes = []
                for ch in plan:
                    r = AudioReader(item.path, recognizer.sample_rate, raw=raw, track=audio_track)
                    r.channel = ch
                    session = speakers.start(item.path, SpeakerCount(1, 1)) if speakers is not None else None
                    meter = chan.LevelMeter(r.sample_rate)
                    segs, info = yield from _one_pass(r, recognizer, options, cancel, item, index, duration,
                                                      session, meter)
                    passes.append((ch, segs, info, session.finish() if session is not None else None, meter, r))
                segments, info, extra = chan.merge(passes, reader.info.channels)
                warnings += [f"{item.path}: {n}" for n in extra]
                decoded = max(p[5].decoded_s for p in passes)
                loud = max(p[5].loud_s for p in passes)
                warnings += [w for p in passes for w in p[5].warnings if w not in warnings]
        except _Cancelled:
            yield BatchEvent("cancelled", item, index, reason="cancelled (nothing written)")
            return
        info = dataclasses.replace(info, duration_s=round(decoded, 3), audio=_audio_record(reader.info))
        if speakers is not None:
            warnings += speakers.take_problems()    # library problems: said once per batch
        if loud >= LOUD_WITHOUT_TEXT_S and not any(s.text.strip() for s in segments):
            warnings.append(f"{item.path}: no text recognised in {loud:.1f} s of audio at speech level "
                            "(music or noise, a language the model does not know, or channels that cancel?)")
        written = []
        order = sorted(targets, key=lambda f: f == "json")       # the JSON last: it lists the others
        for fmt in order:
            target = targets[fmt]
            try:
                if fmt == "json":
                    names = [t.name for t in written if t.parent == target.parent] + [target.name]
                    resume.write_json(target, segments, info, source, names)
                else:
                    export.write_transcript(target, segments, info, fmt, layout)
            except OSError as e:
                why = e.strerror or type(e).__name__
                if e.errno in _FATAL_ERRNOS:     # the next files would fail the same way: stop
                    yield BatchEvent("failed", item, index, reason=f"{FATAL_PREFIX}{target.parent}: {why}")
                else:
                    yield BatchEvent("failed", item, index, reason=f"cannot write {target}: {why}")
                return
            written.append(target)
        yield BatchEvent("done", item, index, duration_s=decoded, position_s=decoded,
                         outputs=tuple(t for t in targets.values() if t in written), warnings=tuple(warnings),
                         wall_s=time.perf_counter() - t0, info=info, segments=tuple(segments))
    except SpeechStudioError as e:
        yield BatchEvent("failed", item, index, reason=str(e), wall_s=time.perf_counter() - t0)
    except MemoryError:
        yield BatchEvent("failed", item, index, reason=f"{item.path}: out of memory")
    except Exception as e:  # never let one file end the batch
        reason = f"{item.path}: unexpected error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        if debug:  # the traceback goes with the reason (printed once by the CLI)
            reason += "\n" + traceback.format_exc()
        else:
            log.debug("unexpected error on %s", item.path, exc_info=True)
        yield BatchEvent("failed", item, index, reason=reason, wall_s=time.perf_counter() - t0)
