"""Log-mel spectrogram for the live mel view, pure numpy (as Whisper / librosa): 25 ms periodic Hann
frames, 10 ms hop, no centering, ``|rfft|**2``, Slaney mel bank (80 bins, 0 .. sr/2), ``log10(max(mel,
1e-10))``. :class:`StreamingLogMel` gives the same frames as :func:`log_mel` for any block sizes."""
from __future__ import annotations

import numpy as np

N_MELS = 80
WINDOW_S = 0.025
HOP_S = 0.010
LOG_FLOOR = 1e-10


def frame_params(sample_rate: int) -> tuple[int, int]:
    """``(n_fft, hop)`` in samples for the 25 ms window / 10 ms hop at ``sample_rate`` Hz."""
    return int(round(WINDOW_S * sample_rate)), int(round(HOP_S * sample_rate))


# Slaney's mel scale (Auditory Toolbox): linear below 1 kHz, logarithmic above.
_F_SP = 200.0 / 3
_MIN_LOG_HZ, _MIN_LOG_MEL, _LOGSTEP = 1000.0, 1000.0 / _F_SP, np.log(6.4) / 27.0


def _hz_to_mel(f: np.ndarray) -> np.ndarray:
    f = np.asarray(f, dtype=np.float64)
    return np.where(f >= _MIN_LOG_HZ, _MIN_LOG_MEL + np.log(np.maximum(f, 1e-12) / _MIN_LOG_HZ) / _LOGSTEP, f / _F_SP)


def mel_filter_bank(sample_rate: int = 16000, n_fft: int = 400, n_mels: int = N_MELS,
                    f_min: float = 0.0, f_max: float | None = None) -> np.ndarray:
    """Slaney mel filters (librosa ``norm="slaney"``), ``np.ndarray[float32]`` ``(n_fft // 2 + 1, n_mels)``."""
    f_max = sample_rate / 2 if f_max is None else f_max
    fft_freqs = np.fft.rfftfreq(n_fft, 1.0 / sample_rate)
    mel_pts = np.linspace(_hz_to_mel(f_min), _hz_to_mel(f_max), n_mels + 2)
    hz_pts = np.where(mel_pts >= _MIN_LOG_MEL, _MIN_LOG_HZ * np.exp(_LOGSTEP * (mel_pts - _MIN_LOG_MEL)),
                      _F_SP * mel_pts)
    fdiff = np.diff(hz_pts)
    ramps = hz_pts[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (hz_pts[2:] - hz_pts[:-2]))[:, None]
    return weights.T.astype(np.float32)


_CACHE: dict[tuple[int, int, int], tuple[np.ndarray, np.ndarray]] = {}


def _tables(sample_rate: int, n_fft: int, n_mels: int) -> tuple[np.ndarray, np.ndarray]:
    key = (sample_rate, n_fft, n_mels)
    if key not in _CACHE:
        window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float64)  # periodic Hann
        _CACHE[key] = (window, mel_filter_bank(sample_rate, n_fft, n_mels).astype(np.float64))
    return _CACHE[key]


def log_mel(audio: np.ndarray, sample_rate: int = 16000, n_mels: int = N_MELS) -> np.ndarray:
    """Log10-power mel of float32 ``(n_samples,)`` ``audio`` at ``sample_rate`` Hz: float32 ``(n_frames,
    n_mels)``, ``n_frames = 1 + (n_samples - n_fft) // hop`` (0 when shorter than a window)."""
    n_fft, hop = frame_params(sample_rate)
    audio = np.asarray(audio, dtype=np.float64).reshape(-1)
    if len(audio) < n_fft:
        return np.zeros((0, n_mels), dtype=np.float32)
    return np.log10(np.maximum(power_mel(audio, sample_rate, n_fft, hop, n_mels), LOG_FLOOR)).astype(np.float32)


def power_mel(x: np.ndarray, sample_rate: int, n_fft: int, hop: int, n_mels: int) -> np.ndarray:
    """Power mel of ``x`` (``(n,)``, ``n >= n_fft``) in periodic-Hann frames, not centred: float64
    ``(frames, n_mels)`` (librosa's ``melspectrogram`` of the same frames)."""
    window, filters = _tables(sample_rate, n_fft, n_mels)
    idx = np.arange(n_fft)[None, :] + hop * np.arange(1 + (len(x) - n_fft) // hop)[:, None]
    return np.abs(np.fft.rfft(x[idx] * window, axis=1)) ** 2 @ filters


class StreamingLogMel:
    """``push(block)`` (float32 (n,) at ``sample_rate`` Hz) -> the ``(k, n_mels)`` float32 frames that
    became complete, identical to ``log_mel`` of all audio so far."""

    def __init__(self, sample_rate: int = 16000, n_mels: int = N_MELS) -> None:
        self.sample_rate = int(sample_rate)
        self.n_mels = n_mels
        self.n_fft, self.hop = frame_params(self.sample_rate)
        self.reset()

    def reset(self) -> None:
        self._buf = np.zeros(0, dtype=np.float32)
        self.frames_out = 0

    def push(self, block: np.ndarray) -> np.ndarray:
        block = np.asarray(block, dtype=np.float32).reshape(-1)
        buf = np.concatenate([self._buf, block]) if len(self._buf) else block
        out = log_mel(buf, self.sample_rate, self.n_mels)
        consumed = len(out) * self.hop
        self._buf = buf[consumed:].copy()
        self.frames_out += len(out)
        return out
