"""GE2E speaker embeddings (Resemblyzer, Apache-2.0; Wan et al. 2018; the d-vector of Wang et al. 2018)
for diarization, known voices and the clone check: a 3-layer LSTM on 40 log-mel bins at 16 kHz (25 ms /
10 ms), 256-d unit-norm output; weights ship in the wheel (offline)."""
from __future__ import annotations

import importlib.metadata
import sys
import threading
import types

import numpy as np

from speechstudio.audio import librosa_stand_in

RATE = 16000            #: Hz the encoder reads
FRAME_S = 0.01          #: mel hop (Resemblyzer mel_window_step 10 ms)
EMBEDDING_SIZE = 256
TARGET_DBFS = -30       #: Resemblyzer's audio_norm_target_dBFS

_LOCK = threading.Lock()
_ENCODER = None


def _pkg_resources_stand_in() -> types.ModuleType:
    mod = types.ModuleType("pkg_resources")
    mod.get_distribution = lambda name: types.SimpleNamespace(version=importlib.metadata.version(name))
    return mod


def import_resemblyzer():
    """``import resemblyzer`` with stand-ins for ``pkg_resources`` (setuptools >= 81) and, when absent,
    ``librosa`` while it imports. Raises ``ModuleNotFoundError``."""
    stand_ins = {"pkg_resources": _pkg_resources_stand_in, "librosa": librosa_stand_in.module}
    added: list[str] = []
    try:
        for _ in range(len(stand_ins) + 1):
            try:
                import resemblyzer
                return resemblyzer
            except ModuleNotFoundError as exc:
                if exc.name not in stand_ins or exc.name in added:
                    raise
                for name in [n for n in sys.modules if n == "resemblyzer" or n.startswith("resemblyzer.")]:
                    del sys.modules[name]
                sys.modules[exc.name] = stand_ins[exc.name]()
                added.append(exc.name)
        raise ModuleNotFoundError("resemblyzer could not be imported", name="resemblyzer")
    finally:
        for name in added:
            sys.modules.pop(name, None)


def unavailable_reason() -> str | None:
    """``None`` when the encoder can be built, else why not (one line)."""
    try:
        encoder()
    except ModuleNotFoundError as exc:
        return f"Resemblyzer is not installed ({exc.name}): pip install resemblyzer"
    except Exception as exc:  # weights missing in a trimmed bundle, ...
        return f"the speaker encoder cannot load: {type(exc).__name__}: {exc}"
    return None


def encoder():
    """The process-wide Resemblyzer ``VoiceEncoder`` on the CPU (loaded once, ~0.1 s)."""
    global _ENCODER
    with _LOCK:
        if _ENCODER is None:
            _ENCODER = import_resemblyzer().VoiceEncoder("cpu", verbose=False)
        return _ENCODER


def mel_frames(audio16k: np.ndarray) -> np.ndarray:
    """Resemblyzer's log-mel frames of float32 16 kHz ``audio16k`` normalised up to -30 dBFS: float32
    (n // 160 + 1, 40); digital silence gives zeros."""
    ra = import_resemblyzer().audio
    wav = np.asarray(audio16k, np.float32).reshape(-1)
    if not np.any(wav):
        return np.zeros((wav.size // 160 + 1, 40), np.float32)
    wav = ra.normalize_volume(wav, TARGET_DBFS, increase_only=True)
    return np.asarray(ra.wav_to_mel_spectrogram(wav), np.float32)


def embed_mels(mels: np.ndarray, batch: int = 64) -> np.ndarray:
    """Embeddings of windows ``mels`` float32 (n, frames, 40) -> float32 (n, 256), unit norm."""
    import torch

    enc = encoder()
    out = []
    with _LOCK, torch.inference_mode():
        for i in range(0, len(mels), batch):
            out.append(enc(torch.from_numpy(np.ascontiguousarray(mels[i:i + batch]))).numpy())
    return np.concatenate(out).astype(np.float32) if out else np.zeros((0, EMBEDDING_SIZE), np.float32)


def embed_speech(audio16k: np.ndarray, min_s: float = 1.0) -> np.ndarray:
    """A unit-norm float32 (256,) speaker embedding of one voice's float32 16 kHz speech (Resemblyzer
    ``preprocess_wav`` + ``embed_utterance``). Raises ``ValueError`` under ``min_s`` seconds of speech."""
    rz = import_resemblyzer()
    wav = rz.preprocess_wav(np.asarray(audio16k, np.float32).reshape(-1), source_sr=RATE)
    if len(wav) < RATE * min_s:
        raise ValueError(f"only {len(wav) / RATE:.1f} s of speech (need at least {min_s:g} s)")
    enc = encoder()
    with _LOCK:
        return np.asarray(enc.embed_utterance(wav), np.float32)
