"""The three ``librosa`` calls Resemblyzer makes, for installs without librosa (numba + llvmlite, ~180
MB): ``feature.melspectrogram`` (librosa 0.10 defaults, Slaney mel; parity: tests/test_diarize.py),
``resample`` (soxr VHQ), ``load`` (raises)."""
from __future__ import annotations

import types

import numpy as np

from speechstudio.audio.mel import power_mel


def melspectrogram(*, y: np.ndarray, sr: int = 22050, n_fft: int = 2048, hop_length: int = 512,
                   n_mels: int = 128, **unsupported) -> np.ndarray:
    """librosa's power mel spectrogram with its defaults; see the module docstring."""
    if unsupported:
        raise TypeError(f"melspectrogram stand-in: unsupported arguments {sorted(unsupported)}")
    y = np.asarray(y, np.float32).reshape(-1)
    return power_mel(np.pad(y, n_fft // 2, mode="constant"), sr, n_fft, hop_length, n_mels).T.astype(np.float32)


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
