"""The three ``librosa`` calls Resemblyzer makes, for installs without librosa (the desktop app).

Resemblyzer (``resemblyzer/audio.py``) imports librosa at the top for ``librosa.load`` (paths; we
never pass one), ``librosa.resample`` (only when the rate is not 16 kHz; we always resample with
soxr first) and ``librosa.feature.melspectrogram`` (its 40-bin mel frames). librosa pulls numba
and llvmlite (~180 MB), which the packaged app leaves out (``packaging/trim.py``), so when librosa
cannot be imported :func:`module` stands in for it while Resemblyzer imports:

* ``feature.melspectrogram(y, sr, n_fft, hop_length, n_mels)``: librosa 0.10/0.11's defaults
  (``center=True`` with ``pad_mode="constant"``, periodic Hann window, power 2, Slaney mel
  filters with Slaney area norm from 0 Hz to sr/2: ``speechstudio.audio.mel.mel_filter_bank``);
  float32 ``(n_mels, 1 + len(y) // hop_length)``. Parity with librosa: ``tests/test_diarize.py``.
* ``resample(y, orig_sr, target_sr)``: soxr (VHQ).
* ``load``: raises ``RuntimeError`` (Resemblyzer is always given arrays here).
"""
from __future__ import annotations

import types

import numpy as np

from speechstudio.audio.mel import mel_filter_bank


def melspectrogram(*, y: np.ndarray, sr: int = 22050, n_fft: int = 2048, hop_length: int = 512,
                   n_mels: int = 128, **unsupported) -> np.ndarray:
    """librosa's power mel spectrogram with its defaults; see the module docstring."""
    if unsupported:
        raise TypeError(f"melspectrogram stand-in: unsupported arguments {sorted(unsupported)}")
    y = np.asarray(y, np.float32).reshape(-1)
    padded = np.pad(y, n_fft // 2, mode="constant")
    n_frames = 1 + (len(padded) - n_fft) // hop_length
    idx = np.arange(n_fft)[None, :] + hop_length * np.arange(n_frames)[:, None]
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)
    power = np.abs(np.fft.rfft(padded[idx] * window, axis=1)) ** 2
    return (power @ mel_filter_bank(sr, n_fft, n_mels).astype(np.float64)).T.astype(np.float32)


def resample(y: np.ndarray, *, orig_sr: int, target_sr: int, **_ignored) -> np.ndarray:
    import soxr

    return soxr.resample(np.asarray(y, np.float32), orig_sr, target_sr, quality="VHQ").astype(np.float32)


def load(*_args, **_kwargs):
    raise RuntimeError("librosa.load is not available in this install (pass audio arrays)")


def module() -> types.ModuleType:
    """A module object with ``feature.melspectrogram``, ``resample`` and ``load``."""
    mod = types.ModuleType("librosa")
    mod.feature = types.SimpleNamespace(melspectrogram=melspectrogram)
    mod.resample = resample
    mod.load = load
    mod.__speechstudio_stand_in__ = True
    return mod
