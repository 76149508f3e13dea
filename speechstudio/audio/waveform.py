"""Waveform peaks: the lowest and highest sample in each column of a drawing (as audio editors
and wavesurfer.js draw a waveform). Computed once per file at :data:`BASE_COLUMNS` columns, then
regrouped to the width on screen (one column per pixel) without going back to the audio."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from speechstudio.audio.decode import load_audio

#: Columns computed per file (a 1-hour file: 0.9 s a column; regrouped to the pixels drawn).
BASE_COLUMNS = 4000


def _columns(low: np.ndarray, high: np.ndarray, columns: int) -> np.ndarray:
    """The min of ``low`` and the max of ``high`` over ``columns`` equal stretches: float32 ``(columns, 2)``
    (empty input: zeros). Raises ``ValueError`` when ``columns < 1``."""
    if columns < 1:
        raise ValueError(f"a waveform needs at least one column, not {columns}")
    if len(low) == 0:
        return np.zeros((columns, 2), np.float32)
    edges = (np.arange(columns, dtype=np.int64) * len(low)) // columns
    return np.stack([np.minimum.reduceat(low, edges), np.maximum.reduceat(high, edges)], axis=1).astype(np.float32)


def peaks(audio: np.ndarray, columns: int = BASE_COLUMNS) -> np.ndarray:
    """Min and max of ``columns`` equal stretches of float32 ``(n,)`` ``audio``: float32 ``(columns, 2)``
    (empty audio: zeros). Raises ``ValueError`` when ``columns < 1``."""
    x = np.asarray(audio, dtype=np.float32).reshape(-1)
    return _columns(x, x, columns)


def regroup(base: np.ndarray, columns: int) -> np.ndarray:
    """``base`` peaks ``(m, 2)`` regrouped to float32 ``(columns, 2)``: each column the min / max of the base
    columns it covers."""
    base = np.asarray(base, dtype=np.float32).reshape(-1, 2)
    return _columns(base[:, 0], base[:, 1], columns)


def load_with_peaks(path: str | Path, sample_rate: int = 16000,
                    columns: int = BASE_COLUMNS) -> tuple[np.ndarray, int, np.ndarray]:
    """Decode ``path`` (float32 mono at ``sample_rate`` Hz) and its :func:`peaks`; returns ``(audio, sample_rate,
    peaks)``. Raises :class:`~speechstudio.errors.AudioDecodeError` for a file that cannot be decoded."""
    audio = load_audio(path, sample_rate)
    return audio, sample_rate, peaks(audio, columns)
