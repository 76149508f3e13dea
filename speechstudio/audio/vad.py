"""Silero VAD (snakers4/silero-vad v5/v6, MIT; its ``silero_vad_16k_sequence.onnx``): speech spans at 16
kHz from silero's state machine with the package defaults, and a rough SNR."""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

__all__ = ["SileroVad", "VadResult", "VAD_RATE", "FRAME", "speech_spans"]

VAD_RATE = 16000
FRAME = 512            # samples per probability at 16 kHz (32 ms), silero-vad's window
_CONTEXT = 64          # samples of the previous frame the model sees (sequence_vad.RATE_CONFIG)
_SPEECH_P, _SILENCE_P = 0.5, 0.35
_GUARD = 3             # non-speech frames this close (~100 ms) to speech are not used as "noise"


@dataclass(frozen=True)
class VadResult:
    """``spans``: speech ``(start, end)`` sample indices at 16 kHz; ``snr_db``: speech-to-noise
    ratio in dB from frame energies (None when there are < 160 ms of non-speech or of speech to
    measure; capped at 100 dB for digital silence)."""

    spans: tuple[tuple[int, int], ...]
    snr_db: float | None
    n_samples: int

    @property
    def start(self) -> int | None:
        return self.spans[0][0] if self.spans else None

    @property
    def end(self) -> int | None:
        return self.spans[-1][1] if self.spans else None


class SileroVad:
    """The Silero VAD sequence model on ONNX Runtime (CPU, ``threads`` intra-op threads).

    ``vad(audio16k)`` -> :class:`VadResult` for ``np.ndarray[float32]`` shape (n,), 16 kHz,
    range [-1, 1]. One instance may be shared by threads (calls are serialised)."""

    def __init__(self, threads: int = 2) -> None:
        import onnxruntime as ort
        from importlib import resources

        _silero("silero_vad.data")
        path = resources.files("silero_vad.data").joinpath("silero_vad_16k_sequence.onnx")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, int(threads))
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        self._lock = threading.Lock()

    def probs(self, audio16k: np.ndarray, max_frames: int = 512) -> np.ndarray:
        """Speech probability per 32 ms frame: ``np.ndarray[float32]`` shape (ceil(n / 512),)."""
        frame_blocks = _silero("silero_vad.sequence_vad").frame_blocks

        a = np.ascontiguousarray(audio16k, dtype=np.float32).reshape(-1)
        h = np.zeros((1, 1, 128), np.float32)
        c = np.zeros((1, 1, 128), np.float32)
        out = []
        with self._lock:
            for block in frame_blocks(a, FRAME, _CONTEXT, max_frames):
                p, h, c = self.session.run(["speech_probs", "hn", "cn"], {"input": block, "h": h, "c": c})
                out.append(p.reshape(-1))
        return np.concatenate(out).astype(np.float32) if out else np.zeros(0, np.float32)

    def __call__(self, audio16k: np.ndarray) -> VadResult:
        a = np.asarray(audio16k, dtype=np.float32).reshape(-1)
        if a.size < FRAME:
            return VadResult((), None, int(a.size))
        probs = self.probs(a)
        return VadResult(speech_spans(probs, int(a.size)), _snr_db(a, probs), int(a.size))


def speech_spans(probs: np.ndarray, n_samples: int, pad_ms: int = 0) -> tuple[tuple[int, int], ...]:
    """Speech ``(start, end)`` sample indices at 16 kHz from per-frame ``probs`` (see
    :meth:`SileroVad.probs`) of ``n_samples`` of audio: silero's state machine, each span widened by
    ``pad_ms`` (silero's ``speech_pad_ms``)."""
    get_speech_timestamps_from_probs = _silero("silero_vad.utils_vad").get_speech_timestamps_from_probs

    stamps = get_speech_timestamps_from_probs(
        np.asarray(probs, np.float32).tolist(), sampling_rate=VAD_RATE, threshold=_SPEECH_P,
        neg_threshold=_SILENCE_P, min_speech_duration_ms=250, min_silence_duration_ms=100,
        speech_pad_ms=pad_ms, audio_length_samples=int(n_samples))
    return tuple((int(s["start"]), int(s["end"])) for s in stamps)


def _silero(module: str):
    """Import a ``silero_vad`` submodule, putting back the thread count its package import sets to 1
    (``torch.set_num_threads(1)``)."""
    import importlib
    import sys

    if "silero_vad" not in sys.modules:
        import torch

        threads = torch.get_num_threads()
        try:
            importlib.import_module("silero_vad")
        finally:
            torch.set_num_threads(threads)
    return importlib.import_module(module)


def _snr_db(audio: np.ndarray, probs: np.ndarray) -> float | None:
    """10*log10((P_speech - P_noise) / P_noise) with P = mean frame power of speech frames
    (p >= 0.5) and of non-speech frames (p < 0.35, at least ~100 ms away from speech)."""
    n = min(probs.shape[0], audio.shape[0] // FRAME)
    if n == 0:
        return None
    power = (audio[: n * FRAME].astype(np.float64).reshape(n, FRAME) ** 2).mean(axis=1)
    p = probs[:n]
    speech = p >= _SPEECH_P
    near = np.convolve(speech.astype(np.float32), np.ones(2 * _GUARD + 1, np.float32), mode="same") > 0
    quiet = (p < _SILENCE_P) & ~near
    if speech.sum() < 5 or quiet.sum() < 5:
        return None
    ps, pn = float(power[speech].mean()), float(power[quiet].mean())
    if pn <= 1e-12:
        return 100.0
    return float(min(100.0, 10.0 * np.log10(max(ps - pn, 1e-12) / pn)))
