"""Signal levels of a take or clip: peak / RMS in dBFS (``20 * log10(x)``, full scale 1.0: a full-scale sine
reads -3.01 dBFS RMS; silence ``FLOOR_DBFS``) and clipping (flat tops at full scale; docs/transcribe.md,
Levels)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: Level reported for digital silence (dBFS).
FLOOR_DBFS = -120.0
#: A flat top only counts as clipping at or above this magnitude (-0.9 dBFS).
CLIP_LEVEL = 0.9
#: Shortest run of equal samples that counts as a flat top (1 or 2 equal samples happen naturally).
CLIP_RUN = 3
#: Equal within one 16-bit quantisation step.
_STEP = 1.0 / 32768.0


class TakeLevels(NamedTuple):
    """``peak_dbfs``, ``rms_dbfs`` (dBFS, >= ``FLOOR_DBFS``), ``clipping`` (bool)."""

    peak_dbfs: float
    rms_dbfs: float
    clipping: bool


def _db(value: float) -> float:
    return float(max(FLOOR_DBFS, 20.0 * np.log10(value))) if value > 0 else FLOOR_DBFS


def peak_dbfs(audio: np.ndarray) -> float:
    """Sample peak of ``audio`` (float, any rate, range [-1, 1]) in dBFS."""
    a = np.asarray(audio, dtype=np.float32).reshape(-1)
    return _db(float(np.max(np.abs(a)))) if a.size else FLOOR_DBFS


def rms_dbfs(audio: np.ndarray) -> float:
    """RMS level of ``audio`` (float, range [-1, 1]) in dBFS."""
    a = np.asarray(audio, dtype=np.float64).reshape(-1)
    return _db(float(np.sqrt(np.mean(a * a)))) if a.size else FLOOR_DBFS


def clipped_samples(audio: np.ndarray) -> int:
    """Number of samples inside flat tops: runs of >= ``CLIP_RUN`` consecutive samples with
    ``|x| >= CLIP_LEVEL``, the same sign and values equal within one 16-bit step."""
    a = np.asarray(audio, dtype=np.float32).reshape(-1)
    if a.size < CLIP_RUN:
        return 0
    high = np.abs(a) >= CLIP_LEVEL
    if not high.any():
        return 0
    same = np.zeros(a.shape[0], dtype=bool)        # same[i]: x[i] continues the flat top of x[i-1]
    same[1:] = high[1:] & high[:-1] & (np.abs(np.diff(a)) <= _STEP) & (np.sign(a[1:]) == np.sign(a[:-1]))
    # run lengths of consecutive "same" -> a run of k True values is a flat top of k + 1 samples
    padded = np.concatenate(([0], same.astype(np.int8), [0]))
    edges = np.flatnonzero(np.diff(padded))
    starts, ends = edges[0::2], edges[1::2]
    lengths = ends - starts + 1
    return int(lengths[lengths >= CLIP_RUN].sum())


def is_clipping(audio: np.ndarray, fraction: float = 1e-4) -> bool:
    """True when at least ``max(CLIP_RUN, fraction * n)`` samples sit in flat tops (default: 0.01 %
    of the samples, i.e. a few flat tops in a 5 s clip)."""
    a = np.asarray(audio).reshape(-1)
    return clipped_samples(a) >= max(CLIP_RUN, fraction * a.size)


def take_levels(audio: np.ndarray) -> TakeLevels:
    """Levels for the recording meter: ``audio`` is ``np.ndarray[float32]`` shape (n,), any rate,
    range [-1, 1]. ``clipping`` is True as soon as one flat top is present (the wizard then asks
    for a re-take with the input gain lowered)."""
    a = np.asarray(audio, dtype=np.float32).reshape(-1)
    return TakeLevels(peak_dbfs(a), rms_dbfs(a), clipped_samples(a) >= CLIP_RUN)


#: Seconds per frame of :class:`LevelMeter`.
FRAME_S = 0.1


class LevelMeter:
    """Level in dBFS (10 log10 of the mean square; -120 for silence) of each ``FRAME_S`` frame of mono float32
    blocks at ``sample_rate`` Hz, pushed as they are read: ``db`` (one per whole frame so far)."""

    def __init__(self, sample_rate: int) -> None:
        self.frame = max(1, int(round(FRAME_S * sample_rate)))
        self._rest = np.zeros(0, np.float32)
        self.db: list[float] = []

    def push(self, block: np.ndarray) -> None:
        a = np.concatenate([self._rest, np.asarray(block, np.float32).reshape(-1)])
        n = a.size // self.frame
        if n:
            p = (a[: n * self.frame].astype(np.float64).reshape(n, self.frame) ** 2).mean(axis=1)
            self.db.extend((10 * np.log10(p + 1e-12)).tolist())
        self._rest = a[n * self.frame:]

    def level(self, start_s: float, end_s: float) -> float:
        """Mean power over ``start_s..end_s`` in dBFS (-120 when outside what was measured)."""
        a = int(start_s / FRAME_S)
        b = max(a + 1, int(np.ceil(end_s / FRAME_S)))
        part = np.asarray(self.db[a:b])
        if not part.size:
            return -120.0
        return float(10 * np.log10(np.mean(10 ** (part / 10))))

    def seconds_at(self, dbfs: float) -> float:
        """Seconds of frames at or above ``dbfs``."""
        return sum(d >= dbfs for d in self.db) * FRAME_S
