"""Playback speed with the pitch kept: Praat's "Lengthen (overlap-add)" (PSOLA) through parselmouth;
:class:`TempoStream` stretches piece by piece and maps output samples to source seconds."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from speechstudio.errors import SpeechStudioError

#: The speeds offered (1.0 = as recorded; 2.0 = twice as fast, half the length).
SPEEDS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
MIN_SPEED, MAX_SPEED = 0.25, 4.0
#: Praat's pitch range for finding the periods (Hz): its defaults for speech.
MIN_PITCH_HZ, MAX_PITCH_HZ = 75.0, 600.0
SHORTEST_S = 3 / MIN_PITCH_HZ  # shorter audio (a sliver of a file) is resampled in time instead
CONTEXT_S = 0.25   # source audio stretched on each side of a piece, then cut away
CROSSFADE_S = 0.01


class TempoError(SpeechStudioError):
    """A speed out of range or audio Praat cannot stretch."""


def check_speed(speed: float) -> float:
    """``speed`` as a float; raises :class:`TempoError` outside [0.25, 4]."""
    try:
        s = float(speed)
    except (TypeError, ValueError):
        raise TempoError(f"playback speed {speed!r} is not a number") from None
    if not (MIN_SPEED <= s <= MAX_SPEED):
        raise TempoError(f"playback speed {s:g}x is out of range ({MIN_SPEED:g}x to {MAX_SPEED:g}x)")
    return s


def stretch(audio: np.ndarray, sample_rate: int, speed: float) -> np.ndarray:
    """Play ``audio`` (``np.ndarray[float32]`` (n,), mono, ``sample_rate`` Hz) at ``speed`` with its pitch kept:
    float32 ``(≈ n / speed,)`` at the same rate (within a pitch period or two). ``speed == 1`` copies; under 40 ms is
    resampled in time. Raises :class:`TempoError` for a speed outside [0.25, 4] or audio Praat cannot stretch."""
    speed = check_speed(speed)
    x = np.asarray(audio, dtype=np.float32).reshape(-1)
    if speed == 1.0 or len(x) == 0:
        return x.copy()
    if len(x) < SHORTEST_S * sample_rate:  # under three periods of the lowest pitch Praat looks for
        n = max(1, int(round(len(x) / speed)))
        return np.interp(np.linspace(0, len(x) - 1, n), np.arange(len(x)), x).astype(np.float32)
    import parselmouth
    from parselmouth.praat import call

    try:
        sound = parselmouth.Sound(x.astype(np.float64), sampling_frequency=float(sample_rate))
        out = call(sound, "Lengthen (overlap-add)", MIN_PITCH_HZ, MAX_PITCH_HZ, 1.0 / speed)
    except parselmouth.PraatError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else "Praat refused it"
        raise TempoError(f"cannot play {len(x) / sample_rate:.2f} s of audio at {speed:g}x: {first}") from None
    return np.asarray(out.values[0], dtype=np.float32)


@dataclass(frozen=True)
class Piece:
    """Output samples ``[out_start, out_start + out_len)`` play source ``[source_start_s, source_end_s)``."""

    out_start: int
    out_len: int
    source_start_s: float
    source_end_s: float


class TempoStream:
    """``audio`` ((n,) float32 at ``sample_rate`` Hz, by reference) from ``start_s`` on at ``speed``, one chunk at a
    time: :meth:`next_piece` returns the next ``chunk_s`` (first: ``first_chunk_s``) stretched, or ``None`` at the
    end; :meth:`source_time` maps samples played to source seconds (readable from other threads). One producer only."""

    def __init__(self, audio: np.ndarray, sample_rate: int, speed: float, start_s: float = 0.0,
                 chunk_s: float = 10.0, first_chunk_s: float = 2.0) -> None:
        self.audio = np.asarray(audio, dtype=np.float32).reshape(-1)
        self.sample_rate = int(sample_rate)
        self.speed = check_speed(speed)
        self.start_s = min(max(0.0, float(start_s)), len(self.audio) / self.sample_rate)
        self.chunk = max(1, int(chunk_s * self.sample_rate))
        self._first = max(1, int(first_chunk_s * self.sample_rate))
        self._next = int(round(self.start_s * self.sample_rate))  # next source sample to stretch
        self.pieces: list[Piece] = []
        self.produced = 0   # output samples handed out so far
        self._tail = np.zeros(0, np.float32)  # the last piece's overrun, faded into the next one

    @property
    def done(self) -> bool:
        return self._next >= len(self.audio)

    def next_piece(self) -> np.ndarray | None:
        """The next stretched piece (float32, at ``sample_rate``), ``None`` when the source is done."""
        n, sr = len(self.audio), self.sample_rate
        a = self._next
        if a >= n:
            return None
        b = min(n, a + (self._first if not self.pieces else self.chunk))
        if n - b < sr // 10:  # no sliver of a last piece
            b = n
        last = b >= n
        if self.speed == 1.0:
            out = self.audio[a:b].copy()
        else:
            ctx = int(CONTEXT_S * sr)
            ca, cb = max(0, a - ctx), min(n, b + ctx)
            y = stretch(self.audio[ca:cb], sr, self.speed)
            ratio = len(y) / (cb - ca)
            s, e = int(round((a - ca) * ratio)), int(round((b - ca) * ratio))
            fade = int(CROSSFADE_S * sr)
            out = y[s:e].copy()
            if len(self._tail):
                k = min(len(self._tail), len(out))
                w = np.linspace(0.0, 1.0, k, endpoint=False, dtype=np.float32)
                out[:k] = self._tail[:k] * (1.0 - w) + out[:k] * w
            self._tail = y[e:e + fade].copy() if not last else np.zeros(0, np.float32)
        self.pieces.append(Piece(self.produced, len(out), a / sr, b / sr))
        self.produced += len(out)
        self._next = b
        return out

    def source_time(self, played: int) -> float:
        """Source seconds reached after ``played`` output samples (linear within a piece)."""
        pieces = self.pieces
        if not pieces or played <= 0:
            return self.start_s
        for p in reversed(pieces):
            if played >= p.out_start:
                if p.out_len == 0:
                    return p.source_end_s
                f = min(1.0, (played - p.out_start) / p.out_len)
                return p.source_start_s + f * (p.source_end_s - p.source_start_s)
        return self.start_s
