"""Silero VAD (snakers4/silero-vad v5/v6, MIT; its ``silero_vad_16k_sequence.onnx``): speech spans at 16
kHz from silero's state machine with the package defaults, and a rough SNR."""
from __future__ import annotations

import importlib.util
import os
import threading
from dataclasses import dataclass

import numpy as np

VAD_RATE = 16000
FRAME = 512            # samples per probability at 16 kHz (32 ms), silero-vad's window
_CONTEXT = 64          # samples of the previous frame the model sees (sequence_vad.RATE_CONFIG)
_SPEECH_P, _SILENCE_P = 0.5, 0.35
_GUARD = 3             # non-speech frames this close (~100 ms) to speech are not used as "noise"
#: faster-whisper's ``VadOptions`` defaults (its ``vad_filter``): the speech Whisper decodes and detects languages
#: on, found by this package's model (docs/transcribe.md, "Voice activity")
WHISPER_SPANS = dict(min_speech_ms=0, min_silence_ms=2000, pad_ms=400)


@dataclass(frozen=True)
class VadResult:
    """``spans``: speech ``(start, end)`` samples at 16 kHz; ``snr_db``: speech-to-noise in dB (None under 160
    ms of either; at most 100 dB)."""

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
    """The Silero VAD sequence model on ONNX Runtime (CPU, ``threads``): ``vad(audio16k)`` -> :class:`VadResult`
    for float32 (n,) 16 kHz in [-1, 1]; shareable by threads (calls serialised)."""

    def __init__(self, threads: int = 2) -> None:
        import onnxruntime as ort

        # found without importing the silero_vad package, which imports torch (tests/test_cold_start.py)
        where = importlib.util.find_spec("silero_vad").submodule_search_locations[0]
        path = os.path.join(where, "data", "silero_vad_16k_sequence.onnx")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, int(threads))
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        self._lock = threading.Lock()

    def probs(self, audio16k: np.ndarray, max_frames: int = 512) -> np.ndarray:
        """Speech probability per 32 ms frame: ``np.ndarray[float32]`` shape (ceil(n / 512),)."""
        a = np.ascontiguousarray(audio16k, dtype=np.float32).reshape(-1)
        h = np.zeros((1, 1, 128), np.float32)
        c = np.zeros((1, 1, 128), np.float32)
        count, context = (a.size + FRAME - 1) // FRAME, np.zeros(_CONTEXT, np.float32)
        out = []
        with self._lock:
            # the model's input: (frames, 64 + 512) blocks of at most max_frames frames, each led by the last 64
            # samples of the frame before (zeros first), the last frame zero-padded (silero_vad.sequence_vad's
            # frame_blocks, whose module imports torch)
            for first in range(0, count, max_frames):
                frames = np.zeros((min(max_frames, count - first), FRAME), np.float32)
                part = a[first * FRAME:(first + frames.shape[0]) * FRAME]
                frames.reshape(-1)[:part.size] = part
                block = np.concatenate([np.concatenate([context[None], frames[:-1, -_CONTEXT:]]), frames], axis=1)
                context = frames[-1, -_CONTEXT:].copy()
                p, h, c = self.session.run(["speech_probs", "hn", "cn"], {"input": block, "h": h, "c": c})
                out.append(p.reshape(-1))
        return np.concatenate(out).astype(np.float32) if out else np.zeros(0, np.float32)

    def __call__(self, audio16k: np.ndarray) -> VadResult:
        a = np.asarray(audio16k, dtype=np.float32).reshape(-1)
        if a.size < FRAME:
            return VadResult((), None, int(a.size))
        probs = self.probs(a)
        return VadResult(speech_spans(probs, int(a.size)), _snr_db(a, probs), int(a.size))


_SHARED: SileroVad | None = None


def default_probs(audio16k: np.ndarray) -> np.ndarray:
    """:meth:`SileroVad.probs` of float32 16 kHz ``audio16k`` on one shared :class:`SileroVad` (one thread)."""
    global _SHARED
    if _SHARED is None:
        _SHARED = SileroVad(threads=1)
    return _SHARED.probs(audio16k)


def default_spans(audio16k: np.ndarray, **options) -> list[tuple[int, int]]:
    """Speech ``(start, end)`` samples of float32 16 kHz ``audio16k``: :func:`default_probs` and
    :func:`speech_spans` (its keyword ``options``; silero's defaults)."""
    n = int(np.asarray(audio16k).size)
    return list(speech_spans(default_probs(audio16k), n, **options)) if n else []


def speech_near(probs: np.ndarray, start_s: float, end_s: float, margin_s: float = 0.1) -> bool:
    """True when a frame of ``probs`` (float (frames,), :func:`default_probs` of 16 kHz audio, one per 32 ms) within
    ``margin_s`` of ``start_s`` .. ``end_s`` (s from the audio's start) reaches silero's speech threshold (0.5)."""
    a = int(max(0.0, start_s - margin_s) * VAD_RATE) // FRAME
    b = int((end_s + margin_s) * VAD_RATE) // FRAME + 1
    return bool((np.asarray(probs[a:b]) >= _SPEECH_P).any())


def speech_spans(probs: np.ndarray, n_samples: int, *, min_speech_ms: float = 250, min_silence_ms: float = 100,
                 pad_ms: float = 0, max_speech_s: float = float("inf")) -> tuple[tuple[int, int], ...]:
    """Speech ``(start, end)`` sample indices at 16 kHz from per-frame ``probs`` (see :meth:`SileroVad.probs`) of
    ``n_samples`` of audio: silero's state machine (``utils_vad.get_speech_timestamps_from_probs``, silero-vad
    6.2, whose module imports torch) at thresholds 0.5 / 0.35: spans of speech over ``min_speech_ms``, ended
    by ``min_silence_ms`` of silence, cut at their longest pause (> 98 ms) past ``max_speech_s``, widened by
    ``pad_ms`` each side (half the gap where two spans are closer). The defaults are silero's but for the
    padding (none); faster-whisper's ``VadOptions`` are ``min_speech_ms=0, min_silence_ms=2000, pad_ms=400``."""
    ms = VAD_RATE / 1000
    min_speech, min_silence, pad = min_speech_ms * ms, min_silence_ms * ms, int(pad_ms * ms)
    max_speech = VAD_RATE * max_speech_s - FRAME - 2 * pad
    spans: list[list[int]] = []
    start, quiet, pauses = None, 0, []        # quiet: where the current silence began; pauses: (at, length)
    for i, p in enumerate(np.asarray(probs, np.float32).tolist()):
        at = i * FRAME
        if p >= _SPEECH_P and quiet:
            if at - quiet > 98 * ms:
                pauses.append((quiet, at - quiet))
            quiet = 0
        if p >= _SPEECH_P and start is None:
            start = at
            continue
        if start is not None and at - start > max_speech:
            if pauses:
                end, length = max(pauses, key=lambda x: x[1])
                spans.append([start, end])
                start, quiet, pauses = end + length, 0, []
            else:
                spans.append([start, at])
                start, quiet, pauses = None, 0, []
                continue
        if p < _SILENCE_P and start is not None:
            quiet = quiet or at
            if at - quiet >= min_silence:
                spans += [[start, quiet]] if quiet - start > min_speech else []
                start, quiet, pauses = None, 0, []
    if start is not None and n_samples - start > min_speech:
        spans.append([start, n_samples])
    for i, span in enumerate(spans):            # padding: silero's
        if i == 0:
            span[0] = max(0, span[0] - pad)
        if i + 1 < len(spans):
            gap = spans[i + 1][0] - span[1]
            half = gap // 2 if gap < 2 * pad else pad
            span[1] = min(n_samples, span[1] + half)
            spans[i + 1][0] = max(0, spans[i + 1][0] - half)
        else:
            span[1] = min(n_samples, span[1] + pad)
    return tuple((int(a), int(b)) for a, b in spans)


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
