"""Streaming CTC window geometry at 16 kHz (multiples of ``frame_len``): chunk ``C``, left ``L``,
lookahead ``R``, window ``W = L + C + R``; chunk ``k`` commits frames ``[k*C, (k+1)*C)``, one shape, one
CUDA Graph. Per-window normalisation makes offline windows equal (tested)."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
import numpy as np

from speechstudio.errors import UsageError

# Window defaults per device (seconds: chunk, left context, lookahead): bench/bench_streaming.py,
# figures in docs/transcribe.md (CPU compute grows with the window, so longer chunks, shorter context).
DEVICE_DEFAULTS = {"cuda": (0.5, 1.5, 0.24), "cpu": (1.0, 0.5, 0.24)}
DEFAULT_ENDPOINT_S = 1.0
# Previews (tail before the first full window) cost one window per chunk; skip them for long windows.
PREVIEW_MAX_WINDOW_S = 8.0


@dataclass(frozen=True)
class StreamConfig:
    """Streaming settings (s, dBFS): ``chunk_s`` / ``left_context_s`` / ``lookahead_s`` (None: ``DEVICE_DEFAULTS``),
    ``endpoint_s``, ``threshold_db``, ``min_speech_s``, ``preroll_s``, ``use_cuda_graph``."""

    chunk_s: float | None = None
    left_context_s: float | None = None
    lookahead_s: float | None = None
    endpoint_s: float | None = DEFAULT_ENDPOINT_S
    threshold_db: float = -45.0
    min_speech_s: float = 0.06
    preroll_s: float = 0.3
    use_cuda_graph: bool | str = "auto"

    def resolved(self, device: str) -> "StreamConfig":
        """This config with the unset window lengths (``None``) taken from ``DEVICE_DEFAULTS``
        for ``device`` (``"cpu"``, ``"cuda"``, ``"cuda:N"``)."""
        c, l, r = DEVICE_DEFAULTS["cuda" if str(device).startswith("cuda") else "cpu"]
        return replace(self, chunk_s=c if self.chunk_s is None else self.chunk_s,
                       left_context_s=l if self.left_context_s is None else self.left_context_s,
                       lookahead_s=r if self.lookahead_s is None else self.lookahead_s)


@dataclass(frozen=True)
class WindowGeometry:
    """Window arithmetic in samples at the model rate: ``chunk``, ``left``, ``lookahead`` multiples of
    ``frame_len``; defaults (320, 400) are the standard conv stack."""

    chunk: int
    left: int
    lookahead: int
    frame_len: int = 320
    receptive_field: int = 400

    @classmethod
    def from_seconds(cls, chunk_s: float, left_s: float, lookahead_s: float, *, sample_rate: int = 16000,
                     frame_len: int = 320, receptive_field: int = 400) -> "WindowGeometry":
        """Round each length to whole frames. Raises :class:`UsageError` for a chunk under one
        frame, a negative length, or a lookahead too short to finish the chunk's last frame."""
        if chunk_s <= 0 or left_s < 0 or lookahead_s < 0:
            raise UsageError(f"chunk must be positive and context non-negative (chunk {chunk_s} s, "
                             f"left {left_s} s, lookahead {lookahead_s} s)")

        def frames(s: float) -> int:
            return int(math.floor(s * sample_rate / frame_len + 0.5)) * frame_len  # half up

        geo = cls(max(frame_len, frames(chunk_s)), frames(left_s), frames(lookahead_s), frame_len, receptive_field)
        if geo.n_frames(geo.window) * frame_len < geo.window - geo.lookahead:
            need = (receptive_field - frame_len + frame_len - 1) // frame_len * frame_len / sample_rate
            raise UsageError(f"lookahead {lookahead_s} s is too short: the chunk's last frame needs "
                             f"{receptive_field - frame_len} samples after it (use at least {need:g} s)")
        return geo

    @property
    def window(self) -> int:
        """Model input length W = left + chunk + lookahead (samples)."""
        return self.left + self.chunk + self.lookahead

    def n_frames(self, n_samples: int) -> int:
        """CTC frames the feature encoder makes from ``n_samples`` samples."""
        return 0 if n_samples < self.receptive_field else (n_samples - self.receptive_field) // self.frame_len + 1

    def window_start(self, k: int) -> int:
        """First sample of chunk ``k``'s window (start-aligned while left context is short)."""
        return max(0, k * self.chunk - self.left)

    def final_window_start(self, n: int) -> int:
        """First sample of the flush window for ``n`` received samples (0 when ``n <= W``)."""
        if n <= self.window:
            return 0
        return -(-(n - self.window) // self.frame_len) * self.frame_len


class BlockResampler:
    """Device blocks ((n,) or (n, channels), float or int PCM) -> float32 mono (m,) at ``out_rate``
    (soxr "HQ", channels averaged); ``last=True`` flushes."""

    def __init__(self, in_rate: int, out_rate: int = 16000) -> None:
        self.in_rate, self.out_rate = int(in_rate), int(out_rate)
        if self.in_rate <= 0:
            raise UsageError(f"input sample rate must be positive, got {in_rate}")
        self._rs = None
        if self.in_rate != self.out_rate:
            import soxr

            self._rs = soxr.ResampleStream(self.in_rate, self.out_rate, 1, dtype="float32", quality="HQ")

    def __call__(self, block: np.ndarray, last: bool = False) -> np.ndarray:
        x = to_mono_float32(block)
        if self._rs is None:
            return x
        return np.ascontiguousarray(self._rs.resample_chunk(x, last=last), dtype=np.float32)


def to_mono_float32(block: np.ndarray) -> np.ndarray:
    """``np.ndarray`` (n,) or (n, channels), float or integer PCM -> float32 (n,) in [-1, 1]."""
    x = np.asarray(block)
    if x.dtype.kind in "iu":
        half = float(2 ** (8 * x.dtype.itemsize - 1))
        x = x.astype(np.float32) / half if x.dtype.kind == "i" else (x.astype(np.float32) - half) / half
    x = x.astype(np.float32, copy=False)
    if x.ndim == 2:
        x = x[:, 0] if x.shape[1] == 1 else x.mean(axis=1, dtype=np.float32)
    elif x.ndim != 1:
        raise ValueError(f"audio block must have shape (n,) or (n, channels), got {x.shape}")
    return np.ascontiguousarray(x)


