"""GE2E speaker embeddings (Resemblyzer, Apache-2.0; Wan et al. 2018) for the clone check: a 3-layer LSTM on
40 log-mel bins at 16 kHz (25 ms / 10 ms), 256-d unit-norm output, on ONNX Runtime from ``weights/ge2e.onnx``
(exported by ``bench/make_speaker_encoder_weights.py``); Resemblyzer gives the silence trimming and partials."""
from __future__ import annotations

import importlib.metadata
import sys
import threading
import types
from pathlib import Path

import numpy as np

from speechstudio.audio import librosa_stand_in
from speechstudio.runtime import cpu_session

RATE = 16000            #: Hz the encoder reads
EMBEDDING_SIZE = 256
WEIGHTS = Path(__file__).with_name("weights") / "ge2e.onnx"

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


def network():
    """The process-wide GE2E network (input ``mels`` float32 (n, frames, 40), output float32 (n, 256) unit
    norm), loaded once. Raises ``OSError`` when its weights are missing (a broken install)."""
    global _ENCODER
    with _LOCK:
        if _ENCODER is None:
            _ENCODER = cpu_session(WEIGHTS, "speaker encoder")
        return _ENCODER


def encoder():
    """:func:`network`, after checking that Resemblyzer (for :func:`embed_speech`) imports. Raises
    ``ModuleNotFoundError`` or ``OSError``."""
    import_resemblyzer()
    return network()


def _mel(wav: np.ndarray) -> np.ndarray:
    return librosa_stand_in.melspectrogram(y=wav, sr=RATE, n_fft=400, hop_length=160, n_mels=40).T


def embed_mels(mels: np.ndarray, batch: int = 64) -> np.ndarray:
    """Embeddings of mel windows float32 (n, frames, 40) (:func:`_mel`) -> float32 (n, 256), unit norm."""
    net = network()
    out = [net.run(None, {"mels": np.ascontiguousarray(mels[i:i + batch], np.float32)})[0]
           for i in range(0, len(mels), batch)]
    return np.concatenate(out).astype(np.float32) if out else np.zeros((0, EMBEDDING_SIZE), np.float32)


def embed_speech(audio16k: np.ndarray, min_s: float = 1.0) -> np.ndarray:
    """A unit-norm float32 (256,) speaker embedding of one voice's float32 16 kHz speech (Resemblyzer
    ``preprocess_wav`` + ``embed_utterance``: partials of 1.6 s at 1.3 per second, their mean). Raises
    ``ValueError`` under ``min_s`` seconds of speech, ``ModuleNotFoundError`` without Resemblyzer."""
    rz = import_resemblyzer()
    wav = rz.preprocess_wav(np.asarray(audio16k, np.float32).reshape(-1), source_sr=RATE)
    if len(wav) < RATE * min_s:
        raise ValueError(f"only {len(wav) / RATE:.1f} s of speech (need at least {min_s:g} s)")
    wav_slices, mel_slices = rz.VoiceEncoder.compute_partial_slices(len(wav), 1.3, 0.75)
    mel = _mel(np.pad(wav, (0, max(0, wav_slices[-1].stop - len(wav)))))
    partials = embed_mels(np.stack([mel[s] for s in mel_slices]))
    mean = partials.mean(0)
    return (mean / np.linalg.norm(mean)).astype(np.float32)
