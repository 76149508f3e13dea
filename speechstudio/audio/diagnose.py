"""Input diagnostics around the decode (:mod:`speechstudio.audio.decode`), each said in one line naming
the file: missing / unreadable / empty (:func:`check_file`), one-pass streams, truncation, damaged MP4 / FLAC
(:func:`damaged_container`), channels that cancel when mixed, speech level."""
from __future__ import annotations

import os
import stat
import struct
from pathlib import Path
from typing import Iterator

import numpy as np

from speechstudio.errors import AudioDecodeError

# Channel cancellation (one channel in opposite polarity): when the mix of the first CHANNEL_PROBE_S seconds
# has under CANCEL_RATIO of the channels' mean energy (-10 dB; uncorrelated equal channels give 0.5) and a
# channel is above QUIET_RMS (-50 dBFS), the strongest channel is transcribed instead of the mix.
CHANNEL_PROBE_S = 30.0
CANCEL_RATIO = 0.1
QUIET_RMS = 10 ** (-50 / 20)
# Speech level for the "loud audio but no text" check: 100 ms frames at or above -35 dBFS RMS.
LOUD_DBFS = -35.0


def is_stream(path: str | os.PathLike) -> bool:
    """Whether ``path`` is read as a one-pass stream: ``-`` (stdin), a FIFO, a character device
    or any other non-regular file (its size says nothing and it can be read only once)."""
    if str(path) == "-":
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode) and not stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def check_file(path: Path) -> None:
    """Raise :class:`AudioDecodeError` ("<path>: <reason>") for a missing, folder, unreadable or
    empty (0 bytes) file; a stream (:func:`is_stream`) is not checked."""
    if is_stream(path):
        return
    if not path.exists():
        raise AudioDecodeError(f"{path}: file not found")
    if path.is_dir():
        raise AudioDecodeError(f"{path}: is a folder, not an audio file")
    try:
        size = path.stat().st_size
    except OSError as e:
        raise AudioDecodeError(f"{path}: cannot read ({e.strerror})") from e
    if size == 0:
        raise AudioDecodeError(f"{path}: empty file (0 bytes)")
    if not os.access(path, os.R_OK):
        raise AudioDecodeError(f"{path}: permission denied")


# ---------------------------------------------------------------- truncation
def has_vbr_header(path: Path) -> bool:
    """Whether an MP3 carries a Xing/Info or VBRI frame (exact length) in its first 64 KiB; without
    one FFmpeg estimates the duration from the first frame's bitrate (wrong for VBR files)."""
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError:
        return False
    return any(tag in head for tag in (b"Xing", b"Info", b"VBRI"))


def wav_truncation_warning(path: Path) -> str | None:
    """The warning for a RIFF/WAVE file whose header announces more bytes of ``data`` than the file holds,
    else ``None`` (also when the size field is the streaming placeholder)."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(12)
        if len(head) < 12 or head[:4] not in (b"RIFF", b"RIFX") or head[8:12] != b"WAVE":
            return None
        endian = "<" if head[:4] == b"RIFF" else ">"
        pos = 12
        while pos + 8 <= size:
            f.seek(pos)
            cid, clen = struct.unpack(endian + "4sI", f.read(8))
            if cid == b"data":
                short = pos + 8 + clen - size
                if clen in (0, 0xFFFFFFFF) or short <= 0:      # complete, or unknown length (streamed WAV)
                    return None
                return (f"{path}: the WAV header announces {short} more bytes of audio "
                        "than the file holds (file truncated?); decoded as far as it was valid")
            pos += 8 + clen + (clen & 1)
    return None


# ---------------------------------------------------------------- damaged containers
_ISO_KINDS = {".mov": "MOV", ".m4a": "M4A", ".m4v": "M4V", ".3gp": "3GP"}


def damaged_container(path: Path) -> str | None:
    """Why FFmpeg read no audio from ``path``, when its signature says what it was meant to be: an MP4 /
    QuickTime file (an ``ftyp`` box first) without a whole ``moov`` box (the index, written last: the
    recording was interrupted), or a FLAC (``fLaC``, after any ID3v2 tag) that ends in or right after its
    metadata; else None (also for a stream or an unreadable file)."""
    if is_stream(path):
        return None
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(12)
            if head[4:8] == b"ftyp":
                if _has_box(f, size, b"moov"):
                    return None
                kind = _ISO_KINDS.get(Path(path).suffix.lower(), "MP4")
                return f"damaged or unfinished {kind} (no index: the recording may have been interrupted)"
            start = 0
            if head[:3] == b"ID3" and len(head) >= 10:     # an ID3v2 tag: 10 bytes + its syncsafe size (+ footer)
                start = 10 + sum((b & 0x7F) << (7 * (3 - k)) for k, b in enumerate(head[6:10])) + (
                    10 if head[5] & 0x10 else 0)
            f.seek(start)
            if f.read(4) == b"fLaC" and not _flac_audio_bytes(f, start + 4, size):
                return "truncated FLAC: no audio after the header"
    except OSError:
        return None
    return None


def _has_box(f, size: int, kind: bytes) -> bool:
    """Whether the ISO BMFF file ``f`` (``size`` bytes) has a top-level box ``kind`` that ends inside the file."""
    pos = 0
    while pos + 8 <= size:
        f.seek(pos)
        n, typ = struct.unpack(">I4s", f.read(8))
        if n == 1:                                   # a 64-bit size follows
            n = struct.unpack(">Q", f.read(8))[0]
        elif n == 0:                                 # to the end of the file
            n = size - pos
        if n < 8:
            return False
        if typ == kind:
            return pos + n <= size
        pos += n
    return False


def _flac_audio_bytes(f, pos: int, size: int) -> int:
    """Bytes after the metadata blocks of a FLAC file ``f`` (``size`` bytes) whose first block is at ``pos``;
    0 when the file ends inside them."""
    while True:
        f.seek(pos)
        block = f.read(4)
        if len(block) < 4:
            return 0
        pos += 4 + int.from_bytes(block[1:4], "big")
        if pos > size:
            return 0
        if block[0] & 0x80:                          # the last metadata block
            return size - pos


# ---------------------------------------------------------------- channels
def channel_energy(planes: Iterator[np.ndarray], limit: int | None = None) -> tuple[np.ndarray, float, np.ndarray]:
    """``(energy, mixed, rms_hz)`` over ``planes`` (``(frame, rate)``, frames float32 (channels, n)), at most
    ``limit`` samples: per-channel mean square float64 (channels,), that of their mean, and each channel's RMS
    frequency in Hz (channels,): ``rate / pi * asin(sqrt(r) / 2)`` with ``r`` the mean square of the first
    difference over the mean square (exact for a sine; the power-weighted spread of a sound's spectrum; 0 for
    silence)."""
    energy = slope = np.zeros(0)
    mixed, n, rate = 0.0, 0, 1
    for p, rate in planes:
        p = p.astype(np.float64)
        e, d = np.einsum("cn,cn->c", p, p), np.diff(p, axis=1)
        s = np.einsum("cn,cn->c", d, d)
        energy, slope = (e, s) if energy.shape != e.shape else (energy + e, slope + s)
        m = p.mean(axis=0)
        mixed += float(np.dot(m, m))
        n += p.shape[1]
        if limit is not None and n >= limit:
            break
    ratio = np.divide(slope, energy, out=np.zeros_like(energy), where=energy > 0)
    rms_hz = rate / np.pi * np.arcsin(np.minimum(1.0, np.sqrt(ratio) / 2))
    return (energy / n, mixed / n, rms_hz) if n else (energy, 0.0, rms_hz)


def cancels(energy: np.ndarray, mixed: float) -> bool:
    """Whether channels with mean squares ``energy`` cancel out when averaged (``mixed``: the
    mean square of their mean): a channel above -50 dBFS and the mix 10 dB below their mean."""
    if energy.size < 2 or not np.all(np.isfinite(energy)):
        return False
    return bool(energy.max() >= QUIET_RMS ** 2 and mixed < CANCEL_RATIO * float(energy.mean()))
