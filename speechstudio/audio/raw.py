"""Headerless raw PCM (``.raw``/``.pcm``): its layout (:class:`RawFormat`, default signed 16-bit
little-endian, 16 kHz, mono, as CMU Sphinx ships it) and the ``--raw-format`` spec parser; FFmpeg's raw
demuxers read the bytes (:class:`~speechstudio.audio.decode.AudioReader`)."""
from __future__ import annotations

from dataclasses import dataclass

from speechstudio.errors import AudioDecodeError

RAW_EXTENSIONS = (".raw", ".pcm")
MIN_RATE, MAX_RATE = 1000, 768000   #: Hz: below, a mistyped rate turns kilobytes into days of audio
MAX_CHANNELS = 64                   #: FFmpeg's raw demuxers refuse an unordered layout of more
RAW_DTYPES = {
    "s16le": "<i2", "s16be": ">i2", "s32le": "<i4", "s32be": ">i4", "u8": "u1", "s8": "i1",
    "f32le": "<f4", "f32be": ">f4", "f64le": "<f8",
}


@dataclass(frozen=True)
class RawFormat:
    """Layout of a headerless PCM file: ``sample_rate`` in Hz, ``channels``, ``sample_format``
    one of s16le, s16be, s32le, s32be, u8, s8, f32le, f32be, f64le (FFmpeg's names)."""

    sample_rate: int = 16000
    channels: int = 1
    sample_format: str = "s16le"

    def __post_init__(self) -> None:
        if self.sample_format not in RAW_DTYPES:
            raise AudioDecodeError(
                f"unknown raw sample format {self.sample_format!r}; use one of {', '.join(RAW_DTYPES)}")
        if not MIN_RATE <= self.sample_rate <= MAX_RATE:
            raise AudioDecodeError(f"raw sample rate must be {MIN_RATE} to {MAX_RATE} Hz (got {self.sample_rate})")
        if not 1 <= self.channels <= MAX_CHANNELS:
            raise AudioDecodeError(f"raw channel count must be 1 to {MAX_CHANNELS} (got {self.channels})")

def parse_raw_format(spec: str) -> RawFormat:
    """Parse ``"16000:1:s16le"`` (rate:channels:format) or ``"16000"`` into a :class:`RawFormat`. Raises
    ``AudioDecodeError`` for a missing or extra field, a rate outside 1 to 768 kHz or over 64 channels."""
    parts = spec.split(":")
    try:
        if len(parts) > 3 or "" in parts:
            raise ValueError(spec)
        rate = int(parts[0])
        ch = int(parts[1]) if len(parts) > 1 else 1
    except ValueError as e:
        raise AudioDecodeError(f"bad raw format {spec!r}: expected RATE[:CHANNELS[:FORMAT]], e.g. 16000:1:s16le") from e
    fmt = parts[2] if len(parts) > 2 else "s16le"
    return RawFormat(rate, ch, fmt)
