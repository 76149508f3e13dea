"""Batch transcription of files and folders, the one loop the CLI and the GUI drive: :func:`collect_inputs`
expands the paths, :func:`run_batch` yields :class:`BatchEvent` objects; a bad file never stops the batch,
outputs are written atomically and a rerun skips the inputs already done (docs/transcribe.md, Batch)."""
from __future__ import annotations

import contextlib
import dataclasses
import errno
import logging
import os
import queue
import stat
import threading
import time
import traceback
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from speechstudio.asr.device import cpu_cores
from speechstudio.asr.types import Segment, TranscriptInfo
from speechstudio.atomic import atomic_path, folder_problem
from speechstudio.audio.decode import AudioReader, not_media
from speechstudio.audio.raw import RAW_EXTENSIONS
from speechstudio.batch import channels as chan, export, resume
from speechstudio.batch.request import TranscriptionRequest
from speechstudio.batch.subtitles import NO_SPEECH
from speechstudio.diarize.family import NO_SPEECH_NOTE
from speechstudio.diarize.speakers import SpeakerCount
from speechstudio.errors import SpeechStudioError
from speechstudio.transcript.model import whole_file_language

log = logging.getLogger(__name__)
_FATAL_ERRNOS = {errno.ENOSPC, errno.EROFS, errno.EDQUOT}       # every next file would fail the same way
_FOLDER_ERRNOS = {errno.EACCES, errno.EPERM, errno.ENOTDIR}     # the next files of that folder would

# Files in a scanned folder with these extensions are not media: listed as ignored, not tried (the others are
# tried when their name or content says audio or video: decode.not_media).
NOT_MEDIA = frozenset(
    ".md .tsv .csv .pdf .doc .docx .odt .rtf .html .htm .xml .yaml .yml .ini .cfg .xls .xlsx .ods .ppt .pptx "
    ".ass .ssa .sub .lrc .sbv .ttml .cue .m3u .m3u8 .pls .nfo .sfv .md5 .torrent .url .lnk .db .sqlite "
    ".py .sh .log .zip .tar .gz .7z .rar .jpg .jpeg .png .gif .bmp .svg .webp .tif .tiff .heic .ico "
    ".exe .dll .so .part .tmp .crdownload .onnx .bin .safetensors .pt".split())
# Transcript formats (ours, the user's, or a speech corpus's: RTTM/STM/CTM timelines, Praat TextGrid, ELAN
# .eaf, Transcriber .trs) found in scanned folders are passed over silently.
TRANSCRIPTS = frozenset(".txt .srt .vtt .json .ass .rttm .stm .ctm .textgrid .eaf .trs .lab".split())


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
    """Totals of a batch: counts, failures with reasons, audio seconds, the run's wall seconds (set by the caller
    when the run ends), RTFx, and the ``TranscriptInfo`` of each file done (language, probability, model)."""

    done: int = 0
    skipped: int = 0
    already: int = 0        #: of the skipped, those whose outputs were all there (``--overwrite`` redoes them)
    ignored: list[tuple[Path, str]] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    outputs: list[Path] = field(default_factory=list)
    audio_s: float = 0.0
    wall_s: float = 0.0
    cancelled: bool = False
    infos: list[tuple[Path, TranscriptInfo]] = field(default_factory=list)
    current: Path | None = None     #: the input started and not yet ended (the one an interruption leaves unwritten)

    @property
    def rtfx(self) -> float:
        """RTFx: audio seconds per wall second of the run (higher is better; faster-whisper's and Buzz's reading)."""
        return self.audio_s / self.wall_s if self.wall_s > 0 else 0.0

    def add(self, ev: BatchEvent) -> None:
        self.current = ev.item.path if ev.kind in ("start", "segment") else None
        if ev.kind == "done":
            self.done += 1
            self.audio_s += ev.duration_s or 0.0
            self.outputs.extend(ev.outputs)
            self.warnings.extend(ev.warnings)
            if ev.info is not None:
                self.infos.append((ev.item.path, ev.info))
        elif ev.kind == "skipped":
            self.skipped += 1
            self.already += ev.reason == "already transcribed"
            self.warnings.extend(ev.warnings)
        elif ev.kind == "failed":
            self.failed.append((ev.item.path, ev.reason))
        elif ev.kind == "ignored":
            self.ignored.append((ev.item.path, ev.reason))
        elif ev.kind == "cancelled":
            self.cancelled = True


def collect_inputs(paths: Sequence[str | os.PathLike], recursive: bool = True
                   ) -> tuple[list[InputItem], list[tuple[Path, str]]]:
    """``(items, ignored)``: files and folders expanded into input items (sorted, de-duplicated; hidden and
    transcript files passed over; named files always tried); ``ignored``: ``(path, reason)`` of folder entries that
    are not media or broken links, and of paths that do not exist (reason :data:`MISSING`: the CLI fails those)."""
    found: dict[Path, InputItem] = {}         # by resolved path: each input once, as first named
    ignored: list[tuple[Path, str]] = []
    for raw in paths:
        p = Path(raw)
        if str(raw) != "-" and p.is_dir():    # "-": standard input, decoded as a stream
            for f in sorted(_folder_files(p, recursive, ignored), key=lambda q: str(q).lower()):
                if f.name.startswith("."):
                    continue
                if f.is_symlink() and not f.exists():
                    ignored.append((f, "broken link (its target does not exist)"))
                    continue
                if not f.is_file():
                    ignored.append((f, "not a regular file (a pipe, socket or device: name it to read from it)"))
                    continue
                if f.suffix.lower() in TRANSCRIPTS:
                    continue
                why = "not a media file (by its extension)" if f.suffix.lower() in NOT_MEDIA else not_media(f)
                if why:
                    ignored.append((f, why))
                    continue
                found.setdefault(f.resolve(), InputItem(f, p))
        elif str(raw) == "-" or p.exists():
            found.setdefault(p.resolve(), InputItem(p, None))
        else:
            ignored.append((p, MISSING))
    return list(found.values()), ignored


MISSING = "no such file or folder"


def _folder_files(folder: Path, recursive: bool, ignored: list[tuple[Path, str]]) -> list[Path]:
    """The files in ``folder`` (and, ``recursive``, its subfolders, linked ones followed, each real folder once;
    hidden folders passed over); a folder that cannot be read, or a link to a folder above ``folder`` (it would
    take in every file around it: ``up -> ..``), is added to ``ignored`` with the reason."""
    seen, files, root = set(), [], os.path.join(os.path.realpath(folder), "")

    def around(top: str, d: str) -> bool:
        real = os.path.join(os.path.realpath(os.path.join(top, d)), "")
        if real != root and root.startswith(real):          # (a link to the folder itself: read once, said nothing)
            ignored.append((Path(top) / d, "a link to a folder above the one given: not followed"))
            return True
        return False

    for top, dirs, names in os.walk(folder, followlinks=True, onerror=lambda e: ignored.append(
            (Path(e.filename), f"cannot read the folder ({e.strerror})"))):
        real = os.path.realpath(top)
        keep = recursive and real not in seen
        dirs[:] = [d for d in dirs if not d.startswith(".") and not around(top, d)] if keep else []
        if real not in seen:
            seen.add(real)
            files += [Path(top) / n for n in names]
    return files


def run_batch(items: Iterable[InputItem], recognizer, request: TranscriptionRequest, *,
              cancel: threading.Event | None = None, debug: bool = False) -> Iterator[BatchEvent]:
    """Transcribe ``items`` with a loaded ``recognizer`` as ``request`` asks and yield their events in input
    order; ``cancel`` (or closing the generator) stops the files in flight, which write nothing. Never raises
    for a single bad file; ``UsageError`` before the first file when the diarizer cannot run. Speaker labels,
    several files at once (``recognizer.workers``), the write order: docs/transcribe.md, Batch."""
    labeller = request.speakers.labeller() if request.speakers is not None else None
    items = list(items)
    plan = plan_outputs(items, request.formats, Path(request.output_dir) if request.output_dir else None)
    workers = getattr(recognizer, "workers", 1) if labeller is None else 1
    pool = ThreadPoolExecutor(workers, thread_name_prefix="batch") if workers > 1 and len(items) > 1 else None
    stop = threading.Event()
    halt = SimpleNamespace(is_set=lambda: stop.is_set() or (cancel is not None and cancel.is_set()))
    channels: dict[int, tuple] = {}             # index -> (its events, targets to write, notes)
    wanted = resume.asked(request, recognizer)  # what a transcript it keeps must have been made with
    unwritable: dict[Path, str | None] = {}     # folder -> why it cannot be written (None: it can): not transcribed

    def events(index: int, item: InputItem) -> Iterator:
        """The file's ``start`` / ``segment`` events, then ``(FileTranscript, seconds it took)`` or its
        ``cancelled`` / ``failed`` event."""
        t0 = time.perf_counter()
        try:
            done = yield from transcribe_file(item, recognizer, request, labeller, halt, index)
            yield done, time.perf_counter() - t0
        except _Cancelled:
            yield BatchEvent("cancelled", item, index, reason="cancelled (nothing written)")
        except Exception as e:  # noqa: BLE001 - never let one file end the batch
            yield failed_event(item, index, e, time.perf_counter() - t0, debug)

    def work(index: int, item: InputItem, out: queue.SimpleQueue) -> None:
        try:
            for ev in events(index, item):
                out.put(ev)
        except BaseException as e:  # noqa: BLE001 - never hang the batch
            out.put(failed_event(item, index, e, 0.0, debug))

    def fill(upto: int) -> None:        # plan the files up to index ``upto``; on threads, start them
        while len(channels) + index < min(upto + 1, len(items)):
            n = index + len(channels)
            planned = resume.plan_work(items[n].path, plan[n], request.overwrite, asked=wanted)
            todo, notes = planned.todo, planned.notes
            for folder in {t.parent for t in todo.values()} - unwritable.keys():    # checked once, before the work
                unwritable[folder] = (why := folder_problem(folder)) and f"{folder}: {why}"
            refused = next((unwritable[t.parent] or f"cannot write {t}: a folder of that name is there"
                            for t in todo.values() if unwritable[t.parent] or t.is_dir()), None)
            if todo and not refused:                # its bytes come in while the one before is decoded
                read_ahead(items[n].path)
            if refused:
                evs = iter([BatchEvent("failed", items[n], n, reason=f"{refused} (not transcribed)")])
            elif not todo:
                evs = iter([BatchEvent("skipped", items[n], n, reason=planned.skip, outputs=tuple(plan[n].values()),
                                       warnings=notes)])
            elif pool is None:
                evs = events(n, items[n])           # decoded here, as the events are read
            else:
                evs = queue.SimpleQueue()
                pool.submit(work, n, items[n], evs)
                evs = iter(evs.get, None)
            channels[n] = (evs, todo, notes)

    evs = None
    try:
        for index, item in enumerate(items):
            if halt.is_set():
                return
            fill(index + (2 * workers if pool is not None else 1))
            evs, todo, kept = channels.pop(index)
            for ev in evs:
                if halt.is_set() and (isinstance(ev, tuple) or ev.kind == "segment"):  # decoded after the cancel: not shown, not written
                    ev = BatchEvent("cancelled", item, index, reason="cancelled (nothing written)")
                elif isinstance(ev, tuple):                 # (FileTranscript, seconds it took): write it
                    ev = write_outputs(item, index, ev[0], todo, request, time.perf_counter() - ev[1], kept, debug)
                yield ev
                if ev.kind not in ("start", "segment"):
                    break
            if ev.kind == "cancelled" or ev.reason.startswith(FATAL_PREFIX):
                return
            if ev.kind == "failed" and ev.reason.startswith(FOLDER_PREFIX):
                for t in todo.values():             # the first file's reason (a refused one says it again)
                    unwritable[t.parent] = unwritable.get(t.parent) or ev.reason
    finally:
        stop.set()
        for pending in [evs] + [c[0] for c in channels.values()]:
            if hasattr(pending, "close"):
                pending.close()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


MAX_WORKERS = 4     # files decoded at once at most, each on cores // workers threads


def batch_workers(files: int) -> int:
    """Files a local batch of ``files`` inputs decodes at once: one per CPU core this process may use, at most
    :data:`MAX_WORKERS`; 1 for one file (it keeps every core). Measured: bench/bench_folder.py, docs/cluster.md."""
    return max(1, min(files, cpu_cores(), MAX_WORKERS))


READ_AHEAD_BYTES = 64 << 20      # 64 MiB: a short file whole, the first hour of a 128 kbit/s MP3


def read_ahead(path: Path, limit: int = READ_AHEAD_BYTES) -> None:
    """Ask the OS to start reading the first ``limit`` bytes of regular file ``path`` into its page cache
    (``posix_fadvise(POSIX_FADV_WILLNEED)``, asynchronous), so the next file arrives while this one is decoded.
    Silent where unsupported (macOS, Windows) and for what cannot be opened (its decoder says why)."""
    advise = getattr(os, "posix_fadvise", None)
    try:
        if advise is None or not stat.S_ISREG(os.stat(path).st_mode):
            return
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    with contextlib.suppress(OSError):
        advise(fd, 0, limit, os.POSIX_FADV_WILLNEED)
    os.close(fd)


FATAL_PREFIX = "cannot write outputs: "
FOLDER_PREFIX = "cannot write in "      #: the folder's next files fail without being transcribed; the others go on
# A transcript with no text from at least this much audio at speech level (diagnose.LOUD_DBFS) is
# done but warned about: the user would otherwise trust an empty file.
LOUD_WITHOUT_TEXT_S = 1.0


def plan_outputs(items: Sequence[InputItem], formats: Sequence[str],
                 output_dir: Path | None) -> list[dict[str, Path]]:
    """Output path per item and format, all distinct (case-insensitively) and stable across reruns: inputs that
    would clash keep more of their names (``talk.wav.srt``, ``a_talk.wav.srt``, ``talk.wav~2.srt``; the rule:
    docs/transcribe.md, Batch)."""
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
        return base.with_name(export.fit_name(f"{full}.{fmt}"))

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

    def names(i: int, level: int) -> set[str]:
        return {str(name(items[i], fmt, level)).casefold() for fmt in formats}

    while True:         # levels 0-2; inputs that clash at level 2 get a number below
        owners: dict[str, list[int]] = {}
        for i in (i for i in range(len(items)) if levels[i] < 3):
            for n in names(i, levels[i]):
                owners.setdefault(n, []).append(i)
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
    taken = set().union(*(names(i, levels[i]) for i in range(len(items)) if levels[i] < 3))
    for i in (i for i in range(len(items)) if levels[i] == 3):     # ~2, ~3, ...: the first free, in input order
        while names(i, levels[i]) & taken:
            levels[i] += 1
        taken |= names(i, levels[i])
    return [{fmt: name(it, fmt, levels[i]) for fmt in formats} for i, it in enumerate(items)]


def finished_info(info: TranscriptInfo, audio, duration_s: float) -> TranscriptInfo:
    """``info`` as the JSON records it: ``duration_s`` (seconds, rounded to ms) and the input's
    audio (``audio``: an ``AudioReader.info``: the track read, the file's tracks, the start offset,
    channels, source rate, codec)."""
    return dataclasses.replace(info, duration_s=round(duration_s, 3), audio={
        "track": audio.track, "tracks": audio.tracks, "start_offset_s": round(audio.start_offset_s, 3),
        "channels": audio.channels, "source_rate": audio.source_rate, "codec": audio.codec})


class _Cancelled(Exception):
    pass


class ChannelPass(NamedTuple):
    """One channel transcribed on its own (:func:`speechstudio.batch.channels.merge` reads these)."""

    channel: int
    segments: list
    info: TranscriptInfo
    diarization: object          # the channel's Diarization, None without speaker labels
    reader: AudioReader          # its levels: what the crosstalk check compares


@dataclass
class FileTranscript:
    """One input transcribed: ``segments``, ``info`` (as the JSON records it), ``warnings`` (each
    naming the file), ``source`` (:func:`speechstudio.batch.resume.fingerprint`, taken before
    decoding), ``decoded_s`` / ``loud_s``: seconds of audio decoded / at speech level."""

    segments: list
    info: TranscriptInfo
    warnings: list
    source: dict
    decoded_s: float
    loud_s: float


class Blocks:
    """``reader``'s blocks, each also pushed to ``session`` (a diarizer or None), ending once ``stopped()``. A
    recogniser that works a while between two blocks (the language router detecting a piece's languages) asks
    ``stopped`` itself (:data:`speechstudio.asr.types.STOPPED`)."""

    def __init__(self, reader, session, stopped) -> None:
        self.reader, self.session, self.stopped = reader, session, stopped

    def __iter__(self):
        for block in self.reader.blocks():
            if self.stopped():
                return
            if self.session is not None:
                self.session.push(block)
            yield block


def _one_pass(reader, recognizer, request, cancel, item, index, duration, session):
    """Transcribe ``reader`` (one channel or the mix), feeding ``session`` (diarizer or None) the same blocks.
    Yields ``segment`` events; returns ``(segments, info)``. Raises ``_Cancelled``."""
    stopped = cancel.is_set if cancel is not None else (lambda: False)     # once set, never cleared
    segments: list[Segment] = []
    stream, info = recognizer.transcribe(Blocks(reader, session, stopped), duration_s=duration,
                                         **request.decode_options())
    try:
        for seg in stream:
            # between segments too: Whisper reads a whole piece (up to 20 min) before its first
            # segment, so the block check alone would let it decode the piece to the end
            if stopped():
                break
            segments.append(seg)
            yield BatchEvent("segment", item, index, duration_s=duration, position_s=seg.end_s, segment=seg)
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    if stopped():
        raise _Cancelled
    return segments, info


def transcribe_file(item: InputItem, recognizer, request: TranscriptionRequest, labeller=None,
                    cancel: threading.Event | None = None, index: int = 0):
    """Transcribe one input as ``request`` asks (channels, track, raw layout; speaker labels with
    ``labeller``, a :class:`~speechstudio.diarize.speakers.Labeller`): yields its ``start`` and
    ``segment`` events, returns a :class:`FileTranscript`. Raises ``SpeechStudioError`` (an
    unreadable file) and ``_Cancelled``."""
    raw = request.raw if item.path.suffix.lower() in RAW_EXTENSIONS or str(item.path) == "-" else None   # "-": stdin
    reader = AudioReader(item.path, recognizer.sample_rate, raw=raw, track=request.audio_track)
    source = resume.fingerprint(item.path)      # before decoding: what this transcript is of
    duration = reader.info.duration_s
    yield BatchEvent("start", item, index, duration_s=duration)
    plan, plan_notes = chan.plan(reader, request.channels)
    warnings: list[str] = [f"{item.path}: {n}" for n in plan_notes]
    if plan is None:                            # the mix: one pass
        session = labeller.start(item.path) if labeller is not None else None
        segments, info = yield from _one_pass(reader, recognizer, request, cancel, item, index, duration, session)
        warnings += reader.warnings
        if session is not None:
            found = session.finish()
            segments, info = found.apply(segments, info)
            warnings += [f"{item.path}: {note}" for note in found.notes]
        decoded, loud = reader.decoded_s, reader.loud_s
    else:                                       # one pass per channel, one speaker each
        passes: list[ChannelPass] = []
        for ch in plan:
            r = AudioReader(item.path, recognizer.sample_rate, raw=raw, track=request.audio_track)
            r.channel = ch
            session = labeller.start(item.path, SpeakerCount(1, 1)) if labeller is not None else None
            segs, info = yield from _one_pass(r, recognizer, request, cancel, item, index, duration, session)
            passes.append(ChannelPass(ch, segs, info, session.finish() if session is not None else None, r))
        segments, info, extra = chan.merge(passes, reader.info.channels)
        warnings += [f"{item.path}: {n}" for n in extra]
        decoded = max(p.reader.decoded_s for p in passes)
        loud = max(p.reader.loud_s for p in passes)
        warnings = list(dict.fromkeys(warnings + [w for p in passes for w in p.reader.warnings]))  # each said once
    if labeller is not None:
        warnings += labeller.take_problems()    # library problems: said once per batch
    info = finished_info(whole_file_language(info, segments), reader.info, decoded)   # most spoken language
    return FileTranscript(segments, info, warnings, source, decoded, loud)


def transcribe_whole(item: InputItem, recognizer, request: TranscriptionRequest, labeller=None,
                     index: int = 0) -> FileTranscript:
    """:func:`transcribe_file` run to its end, its events dropped: the :class:`FileTranscript`."""
    work = transcribe_file(item, recognizer, request, labeller, None, index)
    while True:
        try:
            next(work)
        except StopIteration as done:
            return done.value


def write_outputs(item: InputItem, index: int, done: FileTranscript, targets: dict[str, Path],
                  request: TranscriptionRequest, t0: float, notes: Sequence[str] = (), debug: bool = False) -> BatchEvent:
    """Write ``done`` to ``targets`` (format -> path) atomically, the JSON last: the ``done`` event (``wall_s`` since
    ``t0``, a ``time.perf_counter()``; ``notes`` added to its warnings) or a ``failed`` one (its reason starts with
    :data:`FATAL_PREFIX` when the next files would fail the same way). Local batches and a cluster's driver."""
    try:
        ev = _write(item, index, done, targets, request, t0)
    except Exception as e:  # noqa: BLE001 - reported like a decode failure
        return failed_event(item, index, e, time.perf_counter() - t0, debug)
    if ev.kind == "done" and notes:
        ev.warnings = ev.warnings + tuple(notes)
    return ev


def _write(item, index, done, targets, request, t0) -> BatchEvent:
    segments, info, warnings = done.segments, done.info, list(done.warnings)
    if done.loud_s >= LOUD_WITHOUT_TEXT_S and not any(s.text.strip() for s in segments):
        unlabelled = f"{item.path}: {NO_SPEECH_NOTE}"            # the diarizer's, said in this one warning
        labels = "; no speaker labels" if unlabelled in warnings else ""
        warnings = [w for w in warnings if w != unlabelled]
        warnings.append(f"{item.path}: no text recognised in {done.loud_s:.1f} s of audio at speech level "
                        f"(music or noise, a language the model does not know, or channels that cancel?){labels}")
    elif not any(s.text.strip() for s in segments) and not any("no speech found" in w for w in warnings):
        warnings.append(f"{item.path}: no speech found: the transcript is empty and the subtitles say {NO_SPEECH}")
    if (folder := next((t for t in targets.values() if t.is_dir()), None)) is not None:
        return BatchEvent("failed", item, index, reason=f"cannot write {folder}: a folder of that name is there")
    # every output goes to a temporary file first and all are put in place at the end, the JSON (which lists the
    # others) last: a failed write leaves the outputs of the run before, never a mix of the two runs
    order = sorted(targets, key=lambda f: f == "json")
    target = None
    try:
        with contextlib.ExitStack() as commit:      # exits run in reverse: the JSON's, entered first, is the last
            tmps = {fmt: commit.enter_context(atomic_path(targets[fmt])) for fmt in reversed(order)}
            for fmt in order:
                target = targets[fmt]
                if fmt == "json":
                    names = [t.name for t in targets.values() if t.parent == target.parent]
                    resume.write_json(tmps[fmt], segments, info, done.source, names, request)
                else:
                    export.write_transcript(tmps[fmt], segments, info, fmt, request.subtitles)
            target = None
    except OSError as e:
        why = e.strerror or type(e).__name__
        where = target or Path(e.filename or next(iter(targets.values())))
        if e.errno in _FATAL_ERRNOS:     # the next files would fail the same way: stop
            return BatchEvent("failed", item, index, reason=f"{FATAL_PREFIX}{where.parent}: {why}")
        if e.errno in _FOLDER_ERRNOS:
            return BatchEvent("failed", item, index, reason=f"{FOLDER_PREFIX}{where.parent}: {why}")
        return BatchEvent("failed", item, index, reason=f"cannot write {where}: {why}")
    return BatchEvent("done", item, index, duration_s=done.decoded_s, position_s=done.decoded_s,
                      outputs=tuple(targets.values()), warnings=tuple(warnings),
                      wall_s=time.perf_counter() - t0, info=info, segments=tuple(segments))


def failed_event(item: InputItem, index: int, error: BaseException, wall_s: float, debug: bool = False) -> BatchEvent:
    """The ``failed`` event of a file whose transcription raised ``error``: its message for a
    ``SpeechStudioError``, "out of memory", else "unexpected error: Type: first line" (with the
    traceback when ``debug``)."""
    if isinstance(error, SpeechStudioError):
        reason = str(error)
    elif isinstance(error, MemoryError):
        reason = f"{item.path}: out of memory"
    else:
        reason = f"{item.path}: unexpected error: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        if debug:  # the traceback goes with the reason (printed once by the CLI)
            reason += "\n" + "".join(traceback.format_exception(error))
        else:
            log.debug("unexpected error on %s", item.path, exc_info=error)
    return BatchEvent("failed", item, index, reason=reason, wall_s=wall_s)
