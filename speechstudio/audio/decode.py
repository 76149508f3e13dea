"""Decode any audio/video file to float32 mono at a target sample rate, in bounded blocks.

Decoding is PyAV (FFmpeg) from the path, so every container/codec FFmpeg reads works (WAV of any
bit depth incl. float, u8, mu-law; FLAC, MP3, OGG/Vorbis, Opus, AAC/M4A, AIFF, and the audio track
of WebM/MP4/MKV/MOV; MP4 with the index at the end is fine because the file is seekable).
Sample-format conversion is FFmpeg's (``av.AudioResampler`` to planar float), the channel downmix
is the mean of the channels, and rate conversion is soxr (``soxr.ResampleStream``, "HQ") at each
frame's own rate (a file whose rate changes part way, e.g. two MP3s joined, keeps its speed).

Memory stays bounded: :meth:`AudioReader.blocks` yields blocks of at most ``block_s`` seconds
(default 30 s), so a 3-hour file never sits in memory whole unless the caller collects it.

Headerless raw PCM (``.raw``/``.pcm``) needs its layout stated: :class:`RawFormat`
(default for those extensions: signed 16-bit little-endian, 16 kHz, mono, as CMU Sphinx ships it).
"""
from __future__ import annotations

import logging
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np

from speechstudio.errors import AudioDecodeError

log = logging.getLogger(__name__)

RAW_EXTENSIONS = (".raw", ".pcm")
_RAW_DTYPES = {
    "s16le": "<i2", "s16be": ">i2", "s32le": "<i4", "s32be": ">i4", "u8": "u1", "s8": "i1",
    "f32le": "<f4", "f32be": ">f4", "f64le": "<f8",
}
# How much audio (seconds) of each stream to look at when a file has several audio streams.
_STREAM_PROBE_S = 20.0
# Channel cancellation (a miswired recorder with one channel in opposite polarity): the mean of the
# channels is looked at over the first _CHANNEL_PROBE_S seconds; when its energy is below
# _CANCEL_RATIO of the channels' mean energy (-10 dB; uncorrelated equal channels give 0.5, in-phase
# ones 1.0, exact opposites 0) and a channel is above _QUIET_RMS (-50 dBFS), the strongest channel
# is transcribed instead of the mix.
_CHANNEL_PROBE_S = 30.0
_CANCEL_RATIO = 0.1
_QUIET_RMS = 10 ** (-50 / 20)
# Speech level for the "loud audio but no text" check: 100 ms windows above -35 dBFS RMS
# (conversational speech recorded at a usable level sits around -30 to -15 dBFS).
_LOUD_RMS = 10 ** (-35 / 20)
_LOUD_WINDOW_S = 0.1
# A jump in the timestamps longer than _GAP_S is decoded as silence (up to _MAX_GAP_S), so the
# times after it stay right.
_GAP_S = 0.1
_MAX_GAP_S = 600.0


@dataclass(frozen=True)
class RawFormat:
    """Layout of a headerless PCM file: ``sample_rate`` in Hz, ``channels``, ``sample_format``
    one of s16le, s16be, s32le, s32be, u8, s8, f32le, f32be, f64le (FFmpeg's names)."""

    sample_rate: int = 16000
    channels: int = 1
    sample_format: str = "s16le"

    def __post_init__(self) -> None:
        if self.sample_format not in _RAW_DTYPES:
            raise AudioDecodeError(
                f"unknown raw sample format {self.sample_format!r}; use one of {', '.join(_RAW_DTYPES)}")
        if self.sample_rate <= 0 or self.channels <= 0:
            raise AudioDecodeError("raw sample rate and channel count must be positive")


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
    # True when the container's duration is a guess from the bitrate (MP3 without a Xing/Info/VBRI
    # header, raw AAC), or the whole container's (the video may run longer than the audio): then
    # decoding less than it is no sign of truncation.
    duration_estimated: bool = False
    # the file's audio tracks, 1-based: {"number", "language", "title", "default", "channels", "codec"}
    tracks: list[dict] = field(default_factory=list)
    track: int = 1                 # the number of the track read
    start_offset_s: float = 0.0    # the audio starts this late after the file's first stream (video)


def _describe(path: Path) -> str:
    return str(path)


def is_stream(path: str | os.PathLike) -> bool:
    """Whether ``path`` is read as a one-pass stream: ``-`` (stdin), a FIFO, a character device
    or any other non-regular file (its size says nothing and it can be read only once)."""
    if str(path) == "-":
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode) and not stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def _check_file(path: Path) -> None:
    if is_stream(path):
        return
    if not path.exists():
        raise AudioDecodeError(f"{_describe(path)}: file not found")
    if path.is_dir():
        raise AudioDecodeError(f"{_describe(path)}: is a folder, not an audio file")
    try:
        size = path.stat().st_size
    except OSError as e:
        raise AudioDecodeError(f"{_describe(path)}: cannot read ({e.strerror})") from e
    if size == 0:
        raise AudioDecodeError(f"{_describe(path)}: empty file (0 bytes)")
    if not os.access(path, os.R_OK):
        raise AudioDecodeError(f"{_describe(path)}: permission denied")


class AudioReader:
    """Reads one file as float32 mono blocks at ``sample_rate`` Hz.

    Usage::

        reader = AudioReader("talk.mp4", sample_rate=16000)
        reader.info.duration_s          # from the container (None if unknown)
        for block in reader.blocks():   # np.ndarray[float32] shape (n,), 16 kHz, range ~[-1, 1]
            ...
        reader.decoded_s                # seconds actually decoded (after blocks() is exhausted)
        reader.warnings                 # e.g. truncated file: decoded as far as it was valid

    Raises :class:`AudioDecodeError` (message names the file and the reason) for a missing or
    empty file, a file FFmpeg does not recognise, or one with no audio stream. Corruption after
    some valid audio (an FFmpeg decode error) is not an error: decoding stops there and a warning is
    recorded; any other exception (MemoryError, a bug) propagates.
    """

    def __init__(self, path: str | os.PathLike, sample_rate: int = 16000, *,
                 raw: RawFormat | None = None, block_s: float = 30.0, track: int | str | None = None) -> None:
        self.path = Path(path)
        self.track_choice = track
        self.sample_rate = int(sample_rate)
        self.block_s = float(block_s)
        self.decoded_s = 0.0
        self.loud_s = 0.0      # seconds of 100 ms windows at speech level (after blocks())
        self.channel: int | None = None   # None: mean of the channels; k: channel k only
        # A pipe is read once: the container stays open from the probe on, and the frames a probe
        # reads are kept in _head and decoded again from there.
        self.streaming = is_stream(self.path)
        self._container = None
        self._live: Iterator[np.ndarray] | None = None
        self._head: list[np.ndarray] = []
        _check_file(self.path)
        if raw is None and self.path.suffix.lower() in RAW_EXTENSIONS:
            raw = RawFormat()
        self.raw = raw
        self.info = self._probe_raw() if raw is not None else self._probe()
        self.warnings = self.info.warnings

    # ---------------------------------------------------------------- probing
    def _probe_raw(self) -> AudioInfo:
        assert self.raw is not None
        width = np.dtype(_RAW_DTYPES[self.raw.sample_format]).itemsize * self.raw.channels
        if self.streaming:
            return AudioInfo(self.path, None, self.raw.sample_rate, self.raw.channels,
                             f"pcm_{self.raw.sample_format}", 0)
        size = self.path.stat().st_size
        info = AudioInfo(self.path, (size // width) / self.raw.sample_rate, self.raw.sample_rate,
                         self.raw.channels, f"pcm_{self.raw.sample_format}", 0)
        if size % width:
            info.warnings.append(f"{self.path}: raw file size is not a whole number of frames; "
                                 f"last {size % width} bytes ignored")
        return info

    def _open(self):
        import av

        try:
            if str(self.path) == "-":
                return av.open(sys.stdin.buffer, mode="r", metadata_errors="ignore")
            return av.open(str(self.path), mode="r", metadata_errors="ignore")
        except av.error.FFmpegError as e:  # InvalidDataError, etc.
            raise AudioDecodeError(
                f"{self.path}: not a recognised audio or video file ({_ffmpeg_reason(e)})") from e
        except (OSError, UnicodeDecodeError) as e:
            raise AudioDecodeError(f"{self.path}: cannot open ({e})") from e

    def _probe(self) -> AudioInfo:
        container = self._open()
        try:
            streams = list(container.streams.audio)
            if not streams:
                kinds = ", ".join(sorted({s.type for s in container.streams})) or "nothing"
                raise AudioDecodeError(f"{self.path}: no audio stream (the file holds {kinds})")
            tracks = [_track_info(k + 1, st) for k, st in enumerate(streams)]
            stream, why = self._choose_track(streams, tracks)
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
            info.duration_estimated = whole_container or container.format.name in ("aac", "ac3", "eac3") or (
                container.format.name == "mp3" and not self.streaming and not _has_vbr_header(self.path))
            info.start_offset_s = _start_offset(container, stream)
            if len(streams) > 1:
                t = tracks[info.track - 1]
                info.warnings.append(f"{self.path}: {len(streams)} audio tracks; transcribed track {info.track} "
                                     f"({_track_label(t)}, {why}); choose another with --audio-track N or a "
                                     "language code")
            if container.format.name == "wav" and not self.streaming:
                short = _wav_missing_bytes(self.path)
                if short:
                    info.warnings.append(f"{self.path}: the WAV header announces {short} more bytes of audio "
                                         "than the file holds (file truncated?); decoded as far as it was valid")
            if self.streaming:
                self._container, container = container, None
            return info
        finally:
            if container is not None:
                container.close()

    def _choose_track(self, streams, tracks):
        """``(stream, why)``: a file's only track; else the asked one (a number or a language code),
        else the one marked as the default, else (several or none marked) the loudest. Raises
        AudioDecodeError when a file with several tracks does not have the one asked for."""
        want = self.track_choice
        if len(streams) == 1:        # --audio-track is for files with several; others have one to read
            return streams[0], "the only one"
        if want is not None and str(want).strip():
            w = str(want).strip().lower()
            if w.isdigit():
                k = int(w)
                if 1 <= k <= len(streams):
                    return streams[k - 1], "asked for"
            else:
                codes = {w} | set(_ISO639_2.get(w, ())) | ({w[:2]} if len(w) == 3 and w[:2] in _ISO639_2 else set())
                hits = [st for st, t in zip(streams, tracks) if (t["language"] or "").lower() in codes
                        or (len(w) == 2 and (t["language"] or "").lower().startswith(w))]
                if hits:
                    return hits[0], "asked for"
            have = "; ".join(f"{t['number']}: {_track_label(t)}" for t in tracks)
            raise AudioDecodeError(f"{self.path}: no audio track {want!r} (the file has {len(tracks)}: {have})")
        defaults = [st for st, t in zip(streams, tracks) if t["default"]]
        if len(defaults) == 1:
            return defaults[0], "marked as the default"
        if self.streaming:        # a pipe cannot be read twice to compare streams
            return streams[0], "the first"
        return self._pick_stream(streams), "the loudest"

    def _pick_stream(self, streams) -> object:
        """Several audio streams (e.g. a video with a silent commentary track): take the one
        whose first ~20 s carry the most energy (RMS of its strongest channel, so a stream whose
        channels cancel when mixed still counts)."""
        best, best_rms = streams[0], -1.0
        for s in streams:
            rms = 0.0
            try:
                energy, _ = _channel_energy(self._decode_planes(s.index, limit_s=_STREAM_PROBE_S))
                rms = float(energy.max()) ** 0.5 if energy.size else 0.0
            except AudioDecodeError:
                rms = 0.0
            log.debug("%s: audio stream %d RMS %.5f", self.path, s.index, rms)
            if rms > best_rms:
                best, best_rms = s, rms
        return best

    def channel_levels(self, seconds: float = 120.0) -> np.ndarray | None:
        """Level in dBFS of each channel per 100 ms over the first ``seconds``: float64 (channels,
        frames); ``None`` for a pipe or a raw file (read once / no layout to probe) or one that
        does not decode."""
        if self.streaming or self.raw is not None:
            return None
        out: list[np.ndarray] = []
        rest = None
        try:
            for planes, rate in self._decode_planes(self.info.stream_index, limit_s=seconds):
                frame = max(1, int(round(0.1 * rate)))
                a = planes if rest is None or rest.shape[0] != planes.shape[0] else np.concatenate([rest, planes], axis=1)
                n = a.shape[1] // frame
                if n:
                    p = (a[:, : n * frame].astype(np.float64).reshape(a.shape[0], n, frame) ** 2).mean(axis=2)
                    out.append(10 * np.log10(p + 1e-12))
                rest = a[:, n * frame:]
        except AudioDecodeError:
            return None
        return np.concatenate(out, axis=1) if out else None

    # ---------------------------------------------------------------- decoding
    def _choose_downmix(self) -> None:
        """Mix the channels (mean) unless they cancel out: then take the strongest channel and
        say so in :attr:`warnings` (see ``_CANCEL_RATIO``)."""
        planes = (self._stream_planes(_CHANNEL_PROBE_S) if self.streaming
                  else self._raw_planes() if self.raw is not None
                  else self._decode_planes(self.info.stream_index, limit_s=_CHANNEL_PROBE_S))
        try:
            energy, mixed = _channel_energy(planes, limit=int(_CHANNEL_PROBE_S * self.info.source_rate))
        except AudioDecodeError:
            return            # blocks() reports a file that does not decode
        if not _cancels(energy, mixed):
            return
        self.channel = int(np.argmax(energy))
        msg = (f"{self.path}: the {energy.size} channels cancel out when mixed (opposite polarity?); "
               f"transcribed channel {self.channel + 1}, the strongest")
        if msg not in self.info.warnings:
            self.info.warnings.append(msg)

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
            self._live = (self._raw_planes() if self.raw is not None
                          else self._demux(self._container, self.info.stream_index, None))
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
        while got < limit:
            p = next(self._live, None)
            if p is None:
                return
            self._head.append(p)
            got += p[0].shape[1]
            yield p

    def _demux(self, container, stream_index: int, limit_s: float | None) -> Iterator[np.ndarray]:
        import av

        stream = container.streams.audio[[s.index for s in container.streams.audio].index(stream_index)]
        stream.thread_type = "AUTO"
        converter = av.AudioResampler(format="fltp")
        got = 0
        rate = stream.codec_context.sample_rate or 1
        packets = container.demux(stream)
        # audio that starts after the video: silence first, so times match the video (the gap logic)
        offset = self.info.start_offset_s if hasattr(self, "info") else 0.0     # (not while probing tracks)
        gap_state: dict = {"next_t": _first_start(container) if offset > _GAP_S else None}
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
                for out in converter.resample(frame):
                    planes = out.to_ndarray()  # (channels, n) float32
                    got += planes.shape[1]
                    yield planes, int(out.sample_rate or rate)   # each frame at its own rate
                if limit_s is not None and got >= limit_s * rate:
                    return
        for out in converter.resample(None):
            yield out.to_ndarray(), int(out.sample_rate or rate)

    def _gap_before(self, frame, state: dict) -> Iterator[tuple[np.ndarray, int]]:
        """Silence for a jump in the timestamps before ``frame`` (a recorder that paused, a
        stream with a hole), so later times do not shift: gaps over ``_GAP_S`` are filled, in
        10 s pieces, up to ``_MAX_GAP_S``; a longer jump is not filled but warned about."""
        rate = frame.sample_rate
        if frame.pts is None or frame.time_base is None or not rate:
            return
        t = float(frame.pts * frame.time_base)
        start = state["next_t"]
        state["next_t"] = t + frame.samples / rate
        if start is None or t - start <= _GAP_S:
            return
        if t - start > _MAX_GAP_S:
            msg = (f"{self.path}: the timestamps jump by {t - start:.1f} s at {start:.2f} s; "
                   "the gap is not filled with silence, later times are shifted")
            if msg not in self.info.warnings:
                self.info.warnings.append(msg)
            return
        channels = frame.layout.nb_channels
        left = int(round((t - start) * rate))
        while left > 0:
            n = min(left, 10 * rate)
            left -= n
            yield np.zeros((channels, n), np.float32), rate

    def _corrupt(self, err: Exception, got: int, rate: int, stopping: bool = True) -> None:
        msg = (f"{self.path}: damaged data after {got / rate:.2f} s "
               f"({_ffmpeg_reason(err)}); {'decoded as far as it was valid' if stopping else 'skipped a bad packet'}")
        if msg not in self.info.warnings:
            self.info.warnings.append(msg)
        log.info(msg)

    def _raw_planes(self) -> Iterator[np.ndarray]:
        """Yield ``(frame, rate)``: float32 shape (channels, n) of the raw file, its stated rate."""
        assert self.raw is not None
        dtype = np.dtype(_RAW_DTYPES[self.raw.sample_format])
        ch = self.raw.channels
        width = dtype.itemsize * ch
        step = int(self.raw.sample_rate * 10) * width           # 10 s per read
        f = sys.stdin.buffer if str(self.path) == "-" else open(self.path, "rb")  # noqa: SIM115 (closed below)
        rest = b""
        try:
            while True:
                chunk = f.read(step)
                if not chunk:
                    break
                buf = rest + chunk
                n = (len(buf) // width) * width
                rest = buf[n:]
                if not n:
                    continue
                x = np.frombuffer(buf[:n], dtype=dtype).reshape(-1, ch).astype(np.float32)
                if dtype.kind == "i":
                    x /= float(2 ** (8 * dtype.itemsize - 1))
                elif dtype.kind == "u":
                    x = (x - 128.0) / 128.0
                yield x.T, self.raw.sample_rate
        finally:
            if f is not sys.stdin.buffer:
                f.close()

    def blocks(self) -> Iterator[np.ndarray]:
        """Yield ``np.ndarray[float32]`` blocks, shape (n,), mono at ``self.sample_rate`` Hz.

        Every block but the last holds exactly ``round(block_s * sample_rate)`` samples.
        Afterwards ``self.decoded_s`` is the decoded duration in seconds. Raises
        :class:`AudioDecodeError` if the file yields no audio at all.
        """
        import soxr

        src_rate = self.info.source_rate
        if self.info.channels > 1 and self.channel is None:   # here, not at open: a probe decodes nothing
            self._choose_downmix()
        planes = (self._stream_planes(None) if self.streaming
                  else self._raw_planes() if self.raw is not None else self._decode_planes(self.info.stream_index))
        energy = np.zeros(0)
        mixed_energy, mixed_n = 0.0, 0

        def mono_frames() -> Iterator[np.ndarray]:
            nonlocal energy, mixed_energy, mixed_n
            for p, rate in planes:
                if p.shape[0] == 1:
                    yield p[0], rate
                    continue
                if self.channel is not None:
                    yield np.ascontiguousarray(p[min(self.channel, p.shape[0] - 1)]), rate
                    continue
                mono = p.mean(axis=0, dtype=np.float32)
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
        loud = _LoudMeter(self.sample_rate)
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
                        loud.feed(data)
                while pending_n >= block_len:
                    buf = np.concatenate(pending) if len(pending) > 1 else pending[0]
                    yield np.ascontiguousarray(buf[:block_len], dtype=np.float32)
                    total += block_len
                    rest = buf[block_len:]
                    pending, pending_n = ([rest], rest.shape[0]) if rest.size else ([], 0)
        except AudioDecodeError:
            raise
        except _ffmpeg_errors() as e:
            # Only FFmpeg's own decode errors mean damaged data; anything else (MemoryError, a bug,
            # a resampler failure) propagates and fails the file with its reason.
            if total + pending_n == 0:
                raise AudioDecodeError(f"{self.path}: cannot decode audio ({_ffmpeg_reason(e)})") from e
            self._corrupt(e, total + pending_n, self.sample_rate)
        if pending_n:
            yield np.ascontiguousarray(np.concatenate(pending), dtype=np.float32)
            total += pending_n
        self.decoded_s = total / self.sample_rate
        self.loud_s = loud.seconds()
        if self.channel is None and energy.size > 1 and _cancels(energy / mixed_n, mixed_energy / mixed_n):
            msg = (f"{self.path}: the {energy.size} channels cancel out when mixed (opposite polarity?) "
                   "after the first part of the file; the transcript may miss speech")
            self.info.warnings.append(msg)
            log.info(msg)
        if total == 0:
            raise AudioDecodeError(f"{self.path}: no decodable audio (the audio stream is empty or corrupt)")
        expected = self.info.duration_s
        estimated = self.info.duration_estimated or rates_seen > 1
        if (expected and not estimated and self.decoded_s < 0.99 * expected - 0.05
                and not any("truncated" in w for w in self.info.warnings)):
            msg = (f"{self.path}: decoded {self.decoded_s:.2f} s of the {expected:.2f} s the header "
                   "announces (file truncated?)")
            self.info.warnings.append(msg)
            log.info(msg)


#: ISO 639-1 -> ISO 639-2 codes (bibliographic and terminology) where they do not share a prefix
#: with the 639-1 code, so --audio-track de finds a track tagged "ger"
_ISO639_2 = {"de": ("deu", "ger"), "fr": ("fra", "fre"), "zh": ("zho", "chi"), "nl": ("nld", "dut"),
             "cs": ("ces", "cze"), "el": ("ell", "gre"), "fa": ("fas", "per"), "hy": ("hye", "arm"),
             "ka": ("kat", "geo"), "is": ("isl", "ice"), "mk": ("mkd", "mac"), "ms": ("msa", "may"),
             "ro": ("ron", "rum"), "sk": ("slk", "slo"), "sq": ("sqi", "alb"), "cy": ("cym", "wel"),
             "eu": ("eus", "baq"), "my": ("mya", "bur"), "bo": ("bod", "tib"), "ja": ("jpn",), "ko": ("kor",),
             "es": ("spa",), "en": ("eng",), "it": ("ita",), "pt": ("por",), "ru": ("rus",), "sv": ("swe",)}


def _track_info(number: int, stream) -> dict:
    meta = dict(stream.metadata or {})
    import av.stream

    try:
        default = bool(stream.disposition & av.stream.Disposition.default)
    except (AttributeError, TypeError):
        default = False
    cc = stream.codec_context
    lang = stream.language or meta.get("language")
    return {"number": number, "language": None if lang in (None, "und") else lang, "title": meta.get("title"),
            "default": default, "channels": int(cc.channels or 0), "codec": cc.name}


def _track_label(t: dict) -> str:
    parts = [t["language"] or "language not set"]
    if t.get("title"):
        parts.append(repr(t["title"]))
    return ", ".join(parts)


def _first_start(container) -> float | None:
    """The earliest start time (s) of the container's audio and video streams, ``None`` if unknown."""
    starts = [float(s.start_time * s.time_base) for s in container.streams
              if s.type in ("audio", "video") and s.start_time is not None and s.time_base is not None]
    return min(starts) if starts else None


def _start_offset(container, stream) -> float:
    """Seconds from the file's first audio/video stream start to ``stream``'s start (>= 0)."""
    first = _first_start(container)
    if first is None or stream.start_time is None or stream.time_base is None:
        return 0.0
    return max(0.0, float(stream.start_time * stream.time_base) - first)


def _has_vbr_header(path: Path) -> bool:
    """Whether an MP3 carries a Xing/Info or VBRI frame (exact length) in its first 64 KiB; without
    one FFmpeg estimates the duration from the first frame's bitrate (wrong for VBR files)."""
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError:
        return False
    return any(tag in head for tag in (b"Xing", b"Info", b"VBRI"))


def _wav_missing_bytes(path: Path) -> int:
    """For a RIFF/WAVE file: how many bytes of the ``data`` chunk its header announces beyond the
    end of the file (0 when complete, or when the size field is the streaming placeholder)."""
    import struct

    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(12)
        if len(head) < 12 or head[:4] not in (b"RIFF", b"RIFX") or head[8:12] != b"WAVE":
            return 0
        endian = "<" if head[:4] == b"RIFF" else ">"
        pos = 12
        while pos + 8 <= size:
            f.seek(pos)
            cid, clen = struct.unpack(endian + "4sI", f.read(8))
            if cid == b"data":
                if clen in (0, 0xFFFFFFFF):      # unknown length (streamed WAV)
                    return 0
                return max(0, pos + 8 + clen - size)
            pos += 8 + clen + (clen & 1)
    return 0


def _channel_energy(planes: Iterator[np.ndarray], limit: int | None = None) -> tuple[np.ndarray, float]:
    """Per-channel mean square ``np.ndarray[float64]`` shape (channels,) and the mean square of
    their mean (the downmix), over the frames of ``planes`` (at most ``limit`` samples)."""
    energy = np.zeros(0)
    mixed, n = 0.0, 0
    for p, _ in planes:
        p = p.astype(np.float64)
        e = np.einsum("cn,cn->c", p, p)
        energy = e if energy.shape != e.shape else energy + e
        m = p.mean(axis=0)
        mixed += float(np.dot(m, m))
        n += p.shape[1]
        if limit is not None and n >= limit:
            break
    return (energy / n, mixed / n) if n else (energy, 0.0)


def _cancels(energy: np.ndarray, mixed: float) -> bool:
    """Whether channels with mean squares ``energy`` cancel out when averaged (``mixed``: the
    mean square of their mean): a channel above -50 dBFS and the mix 10 dB below their mean."""
    if energy.size < 2 or not np.all(np.isfinite(energy)):
        return False
    return bool(energy.max() >= _QUIET_RMS ** 2 and mixed < _CANCEL_RATIO * float(energy.mean()))


class _LoudMeter:
    """Counts 100 ms windows whose RMS is at speech level (``_LOUD_RMS``) in a mono stream."""

    def __init__(self, rate: int) -> None:
        self.win = max(1, int(rate * _LOUD_WINDOW_S))
        self.rest = np.zeros(0, np.float32)
        self.count = 0

    def feed(self, x: np.ndarray) -> None:
        x = np.concatenate([self.rest, x]) if self.rest.size else x
        n = (x.shape[0] // self.win) * self.win
        if n:
            ms = np.mean(np.square(x[:n].reshape(-1, self.win), dtype=np.float64), axis=1)
            self.count += int(np.count_nonzero(ms >= _LOUD_RMS ** 2))
        self.rest = np.array(x[n:], dtype=np.float32)

    def seconds(self) -> float:
        return self.count * _LOUD_WINDOW_S


def _chain_last(it: Iterator, empty) -> Iterator[tuple[object, bool]]:
    """Pair each item with ``last`` (True for the final one; ``empty`` closes an empty stream)."""
    prev = None
    for x in it:
        if prev is not None:
            yield prev, False
        prev = x
    yield (prev if prev is not None else empty), True


def _ffmpeg_errors() -> tuple[type[BaseException], ...]:
    """The exception types FFmpeg (PyAV) raises for unreadable or damaged data."""
    import av

    return (av.error.FFmpegError,)


def _ffmpeg_reason(e: Exception) -> str:
    text = getattr(e, "strerror", None) or str(e)
    return str(text).split(":")[0].strip() if text else type(e).__name__


def load_audio(path: str | os.PathLike, sample_rate: int = 16000, *, raw: RawFormat | None = None) -> np.ndarray:
    """Decode a whole file: ``np.ndarray[float32]`` shape (n_samples,), mono, ``sample_rate`` Hz,
    range ~[-1, 1]. For long files prefer :class:`AudioReader` blocks (bounded memory).
    Raises :class:`AudioDecodeError` naming the file and the reason."""
    reader = AudioReader(path, sample_rate, raw=raw)
    parts = list(reader.blocks())
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def parse_raw_format(spec: str) -> RawFormat:
    """Parse ``"16000:1:s16le"`` (rate:channels:format) or ``"16000"`` into a :class:`RawFormat`."""
    parts = spec.split(":")
    try:
        rate = int(parts[0])
        ch = int(parts[1]) if len(parts) > 1 and parts[1] else 1
    except ValueError as e:
        raise AudioDecodeError(f"bad raw format {spec!r}: expected RATE[:CHANNELS[:FORMAT]], e.g. 16000:1:s16le") from e
    fmt = parts[2] if len(parts) > 2 else "s16le"
    return RawFormat(rate, ch, fmt)
