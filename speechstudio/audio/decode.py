"""Decode any file FFmpeg reads (PyAV) to float32 mono at a target rate, in blocks of at most ``block_s``
(30 s): channels mixed as players do (:mod:`.downmix`), rates converted with soxr HQ. Raw PCM:
:mod:`.raw`; checks: :mod:`.diagnose`; tracks: :mod:`.tracks`."""
from __future__ import annotations

import logging
import mimetypes
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np

from speechstudio.audio import diagnose
from speechstudio.audio.diagnose import CHANNEL_PROBE_S, LOUD_DBFS, cancels, channel_energy, check_file, is_stream
from speechstudio.audio.downmix import Downmix, choose
from speechstudio.audio.levels import LevelMeter
from speechstudio.audio.raw import RAW_DTYPES, RAW_EXTENSIONS, RawFormat
from speechstudio.audio.tracks import (choose_track, first_start, prefer_speech, start_offset, track_info,
                                       track_label)
from speechstudio.audio.vad import VAD_RATE, default_spans
from speechstudio.errors import AudioDecodeError

log = logging.getLogger(__name__)

# How much audio (seconds) of each stream to look at when a file has several audio streams.
_STREAM_PROBE_S = 20.0
# How much of the chosen track (seconds) must hold no speech before another track with speech is read.
_SPEECH_PROBE_S = 120.0
# A jump in the timestamps longer than _GAP_S is decoded as silence (up to _MAX_GAP_S), so the
# times after it stay right.
_GAP_S = 0.1
_MAX_GAP_S = 600.0
# Float samples beyond +-_FLOAT_LIMIT (+40 dBFS) are no audio any file holds (integer PCM read as float, say): read
# as silence, like NaN, before their squares overflow float32 in the features.
_FLOAT_LIMIT = 100.0
#: Seconds a named pipe (FIFO) input may stay without data before it is refused (its open would wait forever).
FIFO_WAIT_S = 10.0


@dataclass
class AudioInfo:
    """What the container says: ``duration_s`` (seconds, may be ``None`` when unknown),
    ``source_rate`` (Hz), ``channels``, ``codec``, ``stream_index`` (of the chosen audio stream)."""

    path: Path
    duration_s: float | None
    source_rate: int
    channels: int
    codec: str
    stream_index: int
    warnings: list[str] = field(default_factory=list)
    # True when the container's duration is a guess (MP3 without a VBR header, raw AAC, the whole
    # container's): then decoding less than it is no sign of truncation.
    duration_estimated: bool = False
    # the file's audio tracks, 1-based: {"number", "language", "title", "default", "channels", "codec"}
    tracks: list[dict] = field(default_factory=list)
    track: int = 1                 # the number of the track read
    start_offset_s: float = 0.0    # the audio starts this late after the file's first stream (video)
    layout: str = ""               # FFmpeg's channel layout name: "mono", "stereo", "5.1", "6 channels"
    channel_names: list[str] = field(default_factory=list)   # "FL", "FR", "FC", "LFE", ...; "NONE" unnamed


class AudioReader:
    """Reads one file as float32 mono blocks at ``sample_rate`` Hz (None: the file's own)::

        reader = AudioReader("talk.mp4", sample_rate=16000)
        for block in reader.blocks():   # np.ndarray[float32] (n,), range ~[-1, 1]
            ...

    ``info.duration_s`` (container, or None), ``decoded_s`` (after ``blocks()``), ``warnings``. Raises
    :class:`AudioDecodeError` (names file and reason) for a missing / empty / unrecognised file or no
    audio stream; corruption after valid audio stops decoding with a warning."""

    def __init__(self, path: str | os.PathLike, sample_rate: int | None = 16000, *,
                 raw: RawFormat | None = None, block_s: float = 30.0, track: int | str | None = None) -> None:
        self.path = Path(path)
        self.track_choice = track
        self.block_s = float(block_s)
        self.decoded_s = 0.0
        self.loud_s = 0.0      # seconds of 100 ms windows at speech level (after blocks())
        self.levels: LevelMeter | None = None     # the level of every 100 ms read (after blocks())
        self.channel: int | None = None   # None: the channels mixed (self.downmix); k: channel k only
        self.downmix: Downmix | None = None
        # A pipe is read once: the container stays open from the probe on, and the frames a probe
        # reads are kept in _head and decoded again from there.
        self.streaming = is_stream(self.path)
        self._container = None
        self._live: Iterator[np.ndarray] | None = None
        self._head: list[np.ndarray] = []
        check_file(self.path)
        if raw is None and self.path.suffix.lower() in RAW_EXTENSIONS:
            raw = RawFormat()
        self.raw = raw
        self.info = self._probe()
        self.sample_rate = int(sample_rate or self.info.source_rate or 16000)
        #: sample_rate None (the file's own rate): no more samples than the container's duration (AAC's
        #: encoder padding dropped), so WAV / FLAC give libsndfile's samples exactly
        self.exact = (round(self.info.duration_s * self.sample_rate) if not sample_rate and self.info.duration_s
                      and not (self.info.duration_estimated or self.info.start_offset_s) else None)
        self.warnings = self.info.warnings

    # ---------------------------------------------------------------- probing
    def _open(self):
        import av

        raw = {} if self.raw is None else dict(format=self.raw.sample_format, options={   # headerless: as stated
            "sample_rate": str(self.raw.sample_rate), "ch_layout": f"{self.raw.channels} channels"})
        stdin = str(self.path) == "-"
        try:
            source = (sys.stdin.buffer if stdin else
                      _open_fifo(self.path) if stat.S_ISFIFO(os.stat(self.path).st_mode) else str(self.path))
            if stdin and hasattr(source, "peek") and not source.peek(1):
                raise AudioDecodeError("-: empty input (0 bytes on standard input)")
            return av.open(source, mode="r", metadata_errors="ignore", **raw)
        except av.error.FFmpegError as e:  # InvalidDataError, etc.
            why = diagnose.damaged_container(self.path) or f"not a recognised audio or video file ({_ffmpeg_reason(e)})"
            if stdin and self.raw is None:
                why += "; headerless PCM on standard input needs --raw-format RATE[:CH[:FMT]] (e.g. 16000:1:s16le)"
            raise AudioDecodeError(f"{self.path}: {why}") from e
        except (OSError, UnicodeDecodeError) as e:
            raise AudioDecodeError(f"{self.path}: cannot open ({e})") from e

    def _probe(self) -> AudioInfo:
        container = self._open()
        try:
            streams = list(container.streams.audio)
            if not streams:
                raise AudioDecodeError(f"{self.path}: {_no_audio(container)}")
            tracks = [track_info(k + 1, st) for k, st in enumerate(streams)]
            stream, why = choose_track(self.path, streams, tracks, self.track_choice, self.streaming,
                                       self._pick_stream)
            if why != "asked for" and not self.streaming:
                stream, why = prefer_speech(streams, tracks, stream, why, self._speech_s)
            duration, whole_container = None, False
            if stream.duration is not None and stream.time_base is not None:
                duration = float(stream.duration * stream.time_base)
            elif container.duration is not None:
                duration = container.duration / 1_000_000
                whole_container = len(container.streams) > 1     # video and other tracks count too
            cc = stream.codec_context
            info = AudioInfo(self.path, duration, int(cc.sample_rate or 0), int(cc.channels or 0),
                             cc.name, stream.index)
            info.tracks, info.track = tracks, streams.index(stream) + 1
            layout = getattr(cc, "layout", None)
            info.layout = str(getattr(layout, "name", "") or f"{info.channels} channels")
            info.channel_names = [str(c.name) for c in getattr(layout, "channels", ())] or ["NONE"] * info.channels
            fmt = container.format.name     # a guessed duration: the whole container's, raw AAC / AC-3, VBR MP3
            info.duration_estimated = whole_container or fmt in ("aac", "ac3", "eac3") or (
                fmt == "mp3" and not self.streaming and not diagnose.has_vbr_header(self.path))
            info.start_offset_s = start_offset(container, stream)
            if len(streams) > 1 and why != "asked for":   # the user's own choice needs no word
                t = tracks[info.track - 1]
                info.warnings.append(f"{self.path}: {len(streams)} audio tracks; transcribed track {info.track} "
                                     f"({track_label(t)}, {why}); choose another with --audio-track N or a "
                                     "language code")
            if container.format.name == "wav" and not self.streaming:
                short = diagnose.wav_truncation_warning(self.path)
                if short:
                    info.warnings.append(short)
            if self.raw is not None and not self.streaming:
                size = self.path.stat().st_size     # width: bytes per frame (one sample of every channel)
                width = np.dtype(RAW_DTYPES[self.raw.sample_format]).itemsize * self.raw.channels
                info.duration_s = (size // width) / self.raw.sample_rate
                if size % width:
                    info.warnings.append(f"{self.path}: raw file size is not a whole number of frames; "
                                         f"last {size % width} bytes ignored")
            if self.streaming:
                self._container, container = container, None
            return info
        finally:
            if container is not None:
                container.close()

    def _pick_stream(self, streams) -> object:
        """Of several audio streams, the one whose first ~20 s carry the most energy (RMS of its strongest channel)."""
        best, best_rms = streams[0], -1.0
        for s in streams:
            try:
                energy, _, _ = channel_energy(self._decode_planes(s.index, limit_s=_STREAM_PROBE_S))
                rms = float(energy.max()) ** 0.5 if energy.size else 0.0
            except AudioDecodeError:
                rms = 0.0
            log.debug("%s: audio stream %d RMS %.5f", self.path, s.index, rms)
            if rms > best_rms:
                best, best_rms = s, rms
        return best

    def _speech_s(self, stream) -> float:
        """Seconds of speech Silero VAD finds in the first ``_SPEECH_PROBE_S`` of ``stream`` (its
        channels' mean at 16 kHz); 0 for a stream that does not decode."""
        import soxr

        parts = []
        try:
            for planes, rate in self._decode_planes(stream.index, limit_s=_SPEECH_PROBE_S):
                mono = planes.mean(axis=0, dtype=np.float32)
                parts.append(mono if rate == VAD_RATE else soxr.resample(mono, rate, VAD_RATE))
        except AudioDecodeError:
            return 0.0
        return sum(b - a for a, b in default_spans(np.concatenate(parts))) / VAD_RATE if parts else 0.0

    def channel_levels(self, seconds: float = 120.0) -> np.ndarray | None:
        """Per-channel dBFS per 100 ms over the first ``seconds``: float64 (channels, frames); ``None``
        for a pipe, a raw file or one that does not decode."""
        if self.streaming or self.raw is not None:
            return None
        meters: list[LevelMeter] = []
        try:
            for planes, rate in self._decode_planes(self.info.stream_index, limit_s=seconds):
                if len(meters) != planes.shape[0]:
                    meters = [LevelMeter(rate) for _ in planes]
                for meter, plane in zip(meters, planes):
                    meter.push(plane)
        except AudioDecodeError:
            return None
        return np.array([m.db for m in meters]) if meters and meters[0].db else None

    # ---------------------------------------------------------------- decoding
    def _choose_downmix(self) -> None:
        """Mix the channels (mean) unless they cancel out: then take the strongest channel and
        say so in :attr:`warnings` (see ``diagnose.CANCEL_RATIO``)."""
        planes = self._decode_planes(self.info.stream_index, limit_s=CHANNEL_PROBE_S)
        names, layout = self.info.channel_names, self.info.layout
        try:
            energy, mixed, rms_hz = channel_energy(planes, limit=int(CHANNEL_PROBE_S * self.info.source_rate))
        except AudioDecodeError:
            self.downmix = choose(names, layout)
            return            # blocks() reports a file that does not decode
        if not cancels(energy, mixed):
            measured = energy.size == len(names)
            self.downmix = choose(names, layout, energy if measured else None, mixed, rms_hz if measured else None)
            if self.downmix.channel is not None:
                self.channel = self.downmix.channel
            if self.downmix.note:
                self._warn(f"{self.path}: {self.downmix.note}")
            return
        self.channel = int(np.argmax(energy))
        self._warn(f"{self.path}: the {energy.size} channels cancel out when mixed (opposite polarity?); "
                   f"transcribed channel {self.channel + 1}, the strongest")

    def _warn(self, msg: str, logged: bool = False) -> None:
        """Add ``msg`` to :attr:`warnings` once (and to the log with ``logged``)."""
        if msg not in self.info.warnings:
            self.info.warnings.append(msg)
        if logged:
            log.info(msg)

    def _decode_planes(self, stream_index: int, limit_s: float | None = None) -> Iterator[np.ndarray]:
        """Yield ``(frame, rate)``: float32 shape (channels, n) at its own rate in Hz (not
        resampled; the rate can change mid-stream, e.g. two MP3s joined)."""
        if self.streaming:
            yield from self._stream_planes(limit_s)
            return
        container = self._open()
        try:
            yield from self._demux(container, stream_index, limit_s)
        finally:
            container.close()

    def _stream_planes(self, limit_s: float | None) -> Iterator[np.ndarray]:
        """One-pass input: frames read with a ``limit_s`` (a probe) are kept and replayed by the
        next unlimited read, which then continues with the rest of the stream."""
        if self._live is None:
            self._live = self._demux(self._container, self.info.stream_index, None)
        if limit_s is None:
            head, self._head = self._head, []
            yield from head
            try:
                yield from self._live
            finally:
                if self._container is not None:
                    self._container.close()
            return
        limit = limit_s * max(1, self.info.source_rate)
        got = 0
        for p in list(self._head):
            got += p[0].shape[1]
            yield p
        while got < limit and (p := next(self._live, None)) is not None:
            self._head.append(p)
            got += p[0].shape[1]
            yield p

    def _demux(self, container, stream_index: int, limit_s: float | None) -> Iterator[np.ndarray]:
        import av

        stream = container.streams.audio[[s.index for s in container.streams.audio].index(stream_index)]
        stream.thread_type = "AUTO"
        # packed float32: PyAV's to_ndarray crashes on planar frames of 8 or more channels (AV_NUM_DATA_POINTERS);
        # a converter per rate and layout (joined MP3s change rate mid-stream; a converter takes one)
        converter, setup = None, None
        got = 0
        rate = stream.codec_context.sample_rate or 1
        packets = container.demux(stream)
        # audio that starts after the video: silence first, so times match the video (the gap logic)
        offset = self.info.start_offset_s if hasattr(self, "info") else 0.0     # (not while probing tracks)
        gap_state: dict = {"next_t": first_start(container) if offset > _GAP_S else None}
        while True:
            try:
                packet = next(packets)
            except StopIteration:
                break
            except av.error.FFmpegError as e:
                self._corrupt(e, got, rate)
                break
            try:
                frames = packet.decode()
            except av.error.FFmpegError as e:
                # A damaged packet (e.g. an MP3 cut mid-frame): skip it, keep what is valid.
                if packet.size and packet.pts is not None:
                    self._corrupt(e, got, rate, stopping=False)
                    continue
                frames = []
            for frame in frames:
                yield from self._gap_before(frame, gap_state)
                if (frame.sample_rate, frame.layout.name, frame.format.name) != setup:
                    if converter is not None:
                        yield from _flushed(converter, rate)
                    converter = av.AudioResampler(format="flt")
                    setup = (frame.sample_rate, frame.layout.name, frame.format.name)
                for out in converter.resample(frame):
                    planes = _planes(out)
                    got += planes.shape[1]
                    yield planes, int(out.sample_rate or rate)   # each frame at its own rate
                if limit_s is not None and got >= limit_s * rate:
                    return
        if converter is not None:
            yield from _flushed(converter, rate)

    def _gap_before(self, frame, state: dict) -> Iterator[tuple[np.ndarray, int]]:
        """Silence for a timestamp jump before ``frame`` (gaps over ``_GAP_S`` filled in 10 s pieces up
        to ``_MAX_GAP_S``; longer ones warned about)."""
        rate = frame.sample_rate
        if frame.pts is None or frame.time_base is None or not rate:
            return
        t = float(frame.pts * frame.time_base)
        start = state["next_t"]
        state["next_t"] = t + frame.samples / rate
        if start is None or t - start <= _GAP_S:
            return
        if t - start > _MAX_GAP_S:
            self._warn(f"{self.path}: the timestamps jump by {t - start:.1f} s at {start:.2f} s; "
                       "the gap is not filled with silence, later times are shifted")
            return
        channels = frame.layout.nb_channels
        left = int(round((t - start) * rate))
        while left > 0:
            n = min(left, 10 * rate)
            left -= n
            yield np.zeros((channels, n), np.float32), rate

    def _corrupt(self, err: Exception, got: int, rate: int, stopping: bool = True) -> None:
        self._warn(f"{self.path}: damaged data after {got / rate:.2f} s ({_ffmpeg_reason(err)}); "
                   f"{'decoded as far as it was valid' if stopping else 'skipped a bad packet'}", logged=True)

    def blocks(self) -> Iterator[np.ndarray]:
        """Yield ``np.ndarray[float32]`` (n,) mono at ``self.sample_rate``; all but the last hold ``round(block_s *
        sample_rate)`` samples; then ``decoded_s`` is set. Raises :class:`AudioDecodeError` if no audio comes."""
        import av
        import soxr

        src_rate = self.info.source_rate
        if self.info.channels > 1 and self.channel is None:   # here, not at open: a probe decodes nothing
            self._choose_downmix()
        planes = self._decode_planes(self.info.stream_index)
        energy = np.zeros(0)
        mixed_energy, mixed_n = 0.0, 0
        nonfinite, too_loud = [0], [0]

        def mono_frames() -> Iterator[np.ndarray]:
            nonlocal energy, mixed_energy, mixed_n
            left = self.exact
            for p, rate in planes:
                if left is not None:
                    p, left = p[:, :left], left - min(left, p.shape[1])
                bad = ~(np.abs(p) <= _FLOAT_LIMIT)     # NaN / Inf would make the whole file NaN downstream
                if bad.any():
                    n_bad, n_nonfinite = int(bad.sum()), int((~np.isfinite(p[bad])).sum())
                    nonfinite[0] += n_nonfinite
                    too_loud[0] += n_bad - n_nonfinite
                    p = np.where(bad, np.float32(0.0), p)
                if p.shape[0] == 1:
                    yield p[0], rate
                    continue
                if self.channel is not None:
                    yield np.ascontiguousarray(p[min(self.channel, p.shape[0] - 1)]), rate
                    continue
                mono = self.downmix.mono(p) if self.downmix is not None else p.mean(axis=0, dtype=np.float32)
                e = np.einsum("cn,cn->c", p, p, dtype=np.float64)
                energy = e if energy.shape != e.shape else energy + e
                mixed_energy += float(np.dot(mono, mono))
                mixed_n += p.shape[1]
                yield mono, rate

        frames = mono_frames()
        resampler, rate_now, rates_seen = None, None, 0
        block_len = max(1, int(round(self.block_s * self.sample_rate)))
        pending: list[np.ndarray] = []
        pending_n = 0
        total = 0
        self.levels = LevelMeter(self.sample_rate)
        try:
            for (data, rate), last in _chain_last(frames, (np.zeros(0, np.float32), src_rate)):
                parts = []
                if rate != rate_now:          # a new rate mid-stream: flush, then a new resampler
                    if resampler is not None:
                        parts.append(resampler.resample_chunk(np.zeros(0, np.float32), last=True))
                    rate_now, rates_seen = rate, rates_seen + 1
                    resampler = None if rate == self.sample_rate else soxr.ResampleStream(
                        rate, self.sample_rate, 1, dtype="float32", quality="HQ")
                parts.append(resampler.resample_chunk(data, last=last) if resampler is not None else data)
                for data in parts:
                    if data.size:
                        pending.append(data)
                        pending_n += data.shape[0]
                        self.levels.push(data)
                while pending_n >= block_len:
                    buf = np.concatenate(pending) if len(pending) > 1 else pending[0]
                    yield np.ascontiguousarray(buf[:block_len], dtype=np.float32)
                    total += block_len
                    rest = buf[block_len:]
                    pending, pending_n = ([rest], rest.shape[0]) if rest.size else ([], 0)
        except av.error.FFmpegError as e:
            # Only FFmpeg's own decode errors mean damaged data; anything else (MemoryError, a bug,
            # a resampler failure) propagates and fails the file with its reason.
            if total + pending_n == 0:
                why = diagnose.damaged_container(self.path) or f"cannot decode audio ({_ffmpeg_reason(e)})"
                raise AudioDecodeError(f"{self.path}: {why}") from e
            self._corrupt(e, total + pending_n, self.sample_rate)
        if pending_n:
            yield np.ascontiguousarray(np.concatenate(pending), dtype=np.float32)
            total += pending_n
        self.decoded_s = total / self.sample_rate
        self.loud_s = self.levels.seconds_at(LOUD_DBFS)
        if nonfinite[0]:
            self._warn(f"{self.path}: {nonfinite[0]} samples are not numbers (NaN or infinite); read as silence",
                       logged=True)
        if too_loud[0]:
            self._warn(f"{self.path}: {too_loud[0]} samples are far out of range (beyond +-{_FLOAT_LIMIT:g}, "
                       "not float audio?); read as silence", logged=True)
        if self.channel is None and energy.size > 1 and cancels(energy / mixed_n, mixed_energy / mixed_n):
            self._warn(f"{self.path}: the {energy.size} channels cancel out when mixed (opposite polarity?) "
                       "after the first part of the file; the transcript may miss speech", logged=True)
        if total == 0:
            why = diagnose.damaged_container(self.path) or "no decodable audio (the audio stream is empty or corrupt)"
            raise AudioDecodeError(f"{self.path}: {why}")
        expected = self.info.duration_s         # a decode under 99 % (minus 50 ms) of an exact header duration
        known = expected and not (self.info.duration_estimated or rates_seen > 1)
        if known and self.decoded_s < 0.99 * expected - 0.05 and not any("truncated" in w for w in self.info.warnings):
            self._warn(f"{self.path}: decoded {self.decoded_s:.2f} s of the {expected:.2f} s the header "
                       "announces (file truncated?)", logged=True)
        elif known and self.decoded_s > 1.01 * expected + 0.05:  # a FLAC damaged mid-file decodes to more (no error)
            self._warn(f"{self.path}: decoded {self.decoded_s:.2f} s where the header announces {expected:.2f} s "
                       "(damaged data?); times after the damage may be late", logged=True)


def _open_fifo(path: Path):
    """A binary file object of the named pipe ``path``, once what writes to it has written something (at most
    :data:`FIFO_WAIT_S` seconds from now). Raises :class:`AudioDecodeError` naming it when nothing came."""
    import fcntl
    import select

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)     # a plain open would wait for a writer, forever
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP)
        if not poller.poll(FIFO_WAIT_S * 1000):
            raise AudioDecodeError(f"{path}: a named pipe (FIFO) that nothing wrote to in {FIFO_WAIT_S:g} s; start "
                                   "the program that writes to it first, or give a file")
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _flushed(converter, rate: int) -> Iterator[tuple[np.ndarray, int]]:
    """What ``converter`` (a PyAV ``AudioResampler``) still holds, as ``(planes, rate)``."""
    for out in converter.resample(None):
        yield _planes(out), int(out.sample_rate or rate)


def _planes(frame) -> np.ndarray:
    """float32 (channels, n) of a packed ``flt`` audio frame (PyAV gives it as (1, n * channels))."""
    return np.ascontiguousarray(frame.to_ndarray().reshape(-1, frame.layout.nb_channels).T)


def _chain_last(it: Iterator, empty) -> Iterator[tuple[object, bool]]:
    """Pair each item with ``last`` (True for the final one; ``empty`` closes an empty stream)."""
    prev = None
    for x in it:
        if prev is not None:
            yield prev, False
        prev = x
    yield (prev if prev is not None else empty), True


def _no_audio(container) -> str:
    if container.format.name in ("tty", "txt"):  # FFmpeg's ANSI-art demuxer takes any text for a "video"
        return "not an audio or video file (it holds text)"
    return f"no audio stream (the file holds {', '.join(sorted({s.type for s in container.streams})) or 'nothing'})"


def not_media(path: Path) -> str | None:
    """Why a file found in a folder is no input (a folder scan passes it over), ``None`` when it is one: audio or
    video by its name (its MIME type; raw PCM) or, whatever its name, by its content (FFmpeg finds an audio stream)."""
    if (mimetypes.guess_type(path.name)[0] or "").split("/")[0] in ("audio", "video") or \
            path.suffix.lower() in RAW_EXTENSIONS:
        return None
    import av
    try:
        with av.open(str(path), metadata_errors="ignore") as container:
            return None if container.streams.audio else _no_audio(container)
    except (av.error.FFmpegError, OSError, UnicodeDecodeError) as e:
        return f"not an audio or video file ({_ffmpeg_reason(e)})"


def _ffmpeg_reason(e: Exception) -> str:
    text = getattr(e, "strerror", None) or str(e)
    return str(text).split(":")[0].strip() if text else type(e).__name__


def load_audio(path: str | os.PathLike, sample_rate: int = 16000, *, raw: RawFormat | None = None) -> np.ndarray:
    """Decode a whole file to ``np.ndarray[float32]`` (n_samples,), mono, ``sample_rate`` Hz (long
    files: :class:`AudioReader`). Raises :class:`AudioDecodeError`."""
    reader = AudioReader(path, sample_rate, raw=raw)
    parts = list(reader.blocks())
    return np.concatenate(parts) if len(parts) > 1 else parts[0]
