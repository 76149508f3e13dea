"""Encode float32 mono audio block by block (``AudioEncoder``) into WAV / FLAC (16-bit), Ogg Vorbis, MP3
(soundfile), Opus (48 kHz), M4A / M4B (AAC, chapters, cover; PyAV), by suffix (``OUTPUT_FORMATS``).
Raises ``UsageError`` for an unknown suffix, a bad cover, or chapters where none fit."""
from __future__ import annotations

import io
import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from speechstudio.errors import UsageError


@dataclass(frozen=True)
class OutputFormat:
    """How one suffix is written: ``backend`` ``"soundfile"`` (``major`` / ``subtype``: libsndfile's) or
    ``"av"`` (FFmpeg muxer / encoder, ``rate``: the encoder's, None = the audio's)."""

    backend: str
    major: str
    subtype: str
    rate: int | None = None
    options: tuple[tuple[str, str], ...] = ()
    rates: tuple[int, ...] = ()


#: Rates the MPEG encoders take (MP3: MPEG-1/2/2.5 Layer III; AAC: ISO/IEC 14496-3's common rates).
#: Audio at another rate is resampled to the next one up (soxr), never down.
MPEG_RATES = (8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000)

#: Output suffix -> format. Opus: 48 kHz (RFC 6716 sec. 2), 32 kbit/s mono (the Opus FAQ's fullband
#: speech range); AAC: 64 kbit/s mono (FFmpeg's AAC encoding guide).
OUTPUT_FORMATS: dict[str, OutputFormat] = {
    ".wav": OutputFormat("soundfile", "WAV", "PCM_16"),
    ".flac": OutputFormat("soundfile", "FLAC", "PCM_16"),
    ".ogg": OutputFormat("soundfile", "OGG", "VORBIS"),
    ".mp3": OutputFormat("soundfile", "MP3", "MPEG_LAYER_III", rates=MPEG_RATES),
    ".opus": OutputFormat("av", "ogg", "libopus", 48000, (("b", "32000"),)),
    ".m4a": OutputFormat("av", "mp4", "aac", None, (("b", "64000"),), MPEG_RATES),
    ".m4b": OutputFormat("av", "mp4", "aac", None, (("b", "64000"),), MPEG_RATES),
}
_CHAPTER_SUFFIXES = (".m4a", ".m4b")
#: soundfile's string fields -> FFmpeg metadata keys (MP4 atoms / Vorbis comments).
_AV_KEYS = {"title": "title", "artist": "artist", "album": "album", "comment": "comment", "date": "date",
            "genre": "genre", "tracknumber": "track", "copyright": "copyright", "license": "copyright"}


@dataclass(frozen=True)
class Chapter:
    """A chapter mark: ``title`` and ``start_s`` (seconds from the start of the file)."""

    title: str
    start_s: float


def check_output_suffix(path: str | os.PathLike) -> OutputFormat:
    """The ``OutputFormat`` for ``path``'s suffix; ``UsageError`` naming the file when unsupported."""
    fmt = OUTPUT_FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise UsageError(f"{path}: unsupported output format (use {', '.join(OUTPUT_FORMATS)})")
    return fmt


def cover_mime(data: bytes) -> str:
    """``"image/jpeg"`` or ``"image/png"`` from the file's magic bytes; ``UsageError`` otherwise
    (MP4 ``covr`` holds only JPEG, PNG or BMP, ISO/IEC 14496-12 / Apple's QuickTime metadata)."""
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    raise UsageError("cover: not a JPEG or PNG image")


def encoder_errors() -> tuple[type[BaseException], ...]:
    """What writing a file can raise besides bugs: ``OSError`` (disk full, folder gone), libsndfile's
    and FFmpeg's (PyAV) write errors; for ``except`` clauses that turn them into one line. A library not
    imported yet raised nothing: it is left out, not imported (PyAV takes a third of a second)."""
    import sys

    sf, av = sys.modules.get("soundfile"), sys.modules.get("av")
    return (OSError, *((sf.LibsndfileError,) if sf is not None else ()),
            *((av.error.FFmpegError,) if av is not None else ()))


def image_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` of JPEG or PNG bytes, from the header as FFmpeg (PyAV) reads it. Raises
    ``UsageError`` for other bytes or an image without a frame header."""
    import av

    cover_mime(data)
    try:
        with av.open(io.BytesIO(data)) as image:
            codec = image.streams.video[0].codec_context
            size = codec.width, codec.height
    except (av.error.FFmpegError, IndexError):
        size = (0, 0)
    if not all(size):
        raise UsageError("cover: a JPEG or PNG without a frame header")
    return size


def float_to_pcm16(audio: np.ndarray) -> np.ndarray:
    """``np.ndarray[float32]`` in [-1, 1] -> little-endian ``int16`` (x 32767, rounded, clipped; Piper's scale)."""
    return np.round(np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2")


class AudioEncoder:
    """Writes float32 mono blocks at ``sample_rate`` Hz to ``path`` in the ``suffix``'s format (a context
    manager); ``tags``, ``chapters`` (M4A/M4B; needs ``duration_s``), ``cover`` (JPEG/PNG bytes).
    ``samples`` written so far; ``file_rate`` the rate in the file."""

    def __init__(self, path: str | os.PathLike, sample_rate: int, tags: dict[str, str] | None = None, *,
                 suffix: str | None = None, chapters: list[Chapter] | None = None, cover: bytes | None = None,
                 duration_s: float | None = None):
        self.path = Path(path)
        self.suffix = (suffix or self.path.suffix).lower()
        self.format = check_output_suffix(f"x{self.suffix}")
        self.sample_rate = int(sample_rate)
        self.samples = 0
        rates = self.format.rates
        # the rate the file is written at: the audio's, or the next one the encoder takes (MPEG_RATES)
        self.file_rate = self.sample_rate if not rates or self.sample_rate in rates else \
            next((r for r in rates if r > self.sample_rate), rates[-1])
        self._resampler = None
        if self.file_rate != self.sample_rate:
            import soxr

            self._resampler = soxr.ResampleStream(self.sample_rate, self.file_rate, 1, dtype="float32", quality="HQ")
        tags = dict(tags or {})
        if (chapters or cover) and self.suffix not in _CHAPTER_SUFFIXES:
            raise UsageError(f"{self.path.name}: chapters and covers need .m4a or .m4b")
        if self.format.backend == "soundfile":
            import soundfile as sf

            unknown = sorted(set(tags) - set(sf._str_types))
            if unknown:
                raise UsageError(f"unknown audio metadata field(s) {', '.join(unknown)} "
                                 f"(use {', '.join(sf._str_types)})")
            self._sf = sf.SoundFile(str(self.path), "w", samplerate=self.file_rate, channels=1,
                                    format=self.format.major, subtype=self.format.subtype)
            for key, value in tags.items():  # before any audio: libsndfile writes them in the header
                setattr(self._sf, key, value)
            self._av = None
        else:
            self._sf = None
            self._open_av(tags, chapters or [], cover, duration_s)

    def _open_av(self, tags: dict[str, str], chapters: list[Chapter], cover: bytes | None,
                 duration_s: float | None) -> None:
        import av

        fmt = self.format
        options = {".m4b": {"brand": "M4B "}, ".m4a": {"brand": "M4A "}}.get(self.suffix, {})
        self._av = av.open(str(self.path), "w", format=fmt.major, options=options)
        try:
            rate = fmt.rate or self.file_rate
            self._stream = self._av.add_stream(fmt.subtype, rate=rate, layout="mono", options=dict(fmt.options))
            meta = {_AV_KEYS[k]: v for k, v in tags.items() if k in _AV_KEYS and v}
            if tags.get("software"):
                meta["comment"] = f"{meta['comment']}; {tags['software']}" if meta.get("comment") else tags["software"]
            if fmt.major == "ogg":
                self._stream.metadata.update(meta)  # Opus: OpusTags belong to the stream
            else:
                self._av.metadata.update(meta)
            if cover is not None:
                codec = "mjpeg" if cover_mime(cover) == "image/jpeg" else "png"
                width, height = image_size(cover)  # the MP4 track header records it
                pic = self._av.add_mux_stream(codec, width=width, height=height)
                pic.disposition = av.stream.Disposition.attached_pic
                packet = av.Packet(cover)
                packet.stream, packet.pts, packet.dts, packet.time_base = pic, 0, 0, Fraction(1, 90000)
                self._cover_packet = packet
            else:
                self._cover_packet = None
            if chapters:
                if duration_s is None:
                    raise ValueError("duration_s is needed to write chapters")
                ms = Fraction(1, 1000)
                starts = [int(round(c.start_s * 1000)) for c in chapters] + [int(round(duration_s * 1000))]
                self._av.set_chapters([{"id": i + 1, "start": starts[i], "end": max(starts[i + 1], starts[i]),
                                        "time_base": ms, "metadata": {"title": c.title}}
                                       for i, c in enumerate(chapters)])
        except BaseException:
            self._av.close()
            raise
        self._pts = 0

    def write(self, audio: np.ndarray) -> None:
        """Append ``np.ndarray[float32]`` shape ``(n,)`` at ``sample_rate`` Hz, range [-1, 1]
        (values outside are clipped)."""
        audio = np.clip(np.asarray(audio, dtype=np.float32).reshape(-1), -1.0, 1.0)
        if not len(audio):
            return
        self.samples += len(audio)
        self._emit(audio if self._resampler is None else self._resampler.resample_chunk(audio))

    def _emit(self, audio: np.ndarray) -> None:
        """Encode ``audio`` at ``file_rate``."""
        if not len(audio):
            return
        if self._sf is not None:
            self._sf.write(audio)
        else:
            import av

            if self._cover_packet is not None:  # the attached picture goes first, once
                self._av.mux(self._cover_packet)
                self._cover_packet = None
            frame = av.AudioFrame.from_ndarray(audio.reshape(1, -1), format="flt", layout="mono")
            frame.sample_rate = self.file_rate
            frame.pts, frame.time_base = self._pts, Fraction(1, self.file_rate)
            self._pts += len(audio)
            self._av.mux(self._stream.encode(frame))

    @property
    def duration_s(self) -> float:
        """Seconds written so far."""
        return self.samples / self.sample_rate

    def close(self) -> None:
        """Flush the encoder and close the file (safe to call twice)."""
        if self._resampler is not None and (self._sf is not None or self._av is not None):
            resampler, self._resampler = self._resampler, None
            self._emit(np.clip(resampler.resample_chunk(np.zeros(0, np.float32), last=True), -1.0, 1.0))
        if self._sf is not None:
            self._sf.close()
            self._sf = None
        elif self._av is not None:
            try:
                self._av.mux(self._stream.encode(None))
            finally:
                self._av.close()
                self._av = None

    def abort(self) -> None:
        """Close without caring whether the file is complete (the caller discards it)."""
        try:
            self.close()
        except Exception:  # noqa: BLE001 - the file is thrown away anyway
            self._sf = self._av = None

    def __enter__(self) -> AudioEncoder:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()
