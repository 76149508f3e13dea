"""Speaker embeddings for diarization and known voices: CAM++ (Wang et al. 2023, arXiv:2303.00332;
3D-Speaker's model ``iic/speech_campplus_sv_zh_en_16k-common_advanced``, Apache-2.0:
``weights/CAMPPLUS_LICENSE``), run by ONNX Runtime from ``weights/campplus.onnx`` (made by
``bench/make_campplus_weights.py``). Input: Kaldi log-mel filter banks (80 bins, 25 ms / 10 ms,
``kaldi-native-fbank``) mean-normalised over the frames embedded, as 3D-Speaker computes them; output
192-d, unit norm here (why CAM++: docs/diarization.md).
"""
from __future__ import annotations

from pathlib import Path

import kaldi_native_fbank as knf
import numpy as np

from speechstudio.audio.vad import default_spans
from speechstudio.runtime import shared_session

RATE = 16000
SIZE = 192                  #: embedding size
FRAME_S = 0.01              #: filter-bank hop (s); frame i covers samples [160 i, 160 i + 400)
WEIGHTS = Path(__file__).with_name("weights") / "campplus.onnx"


def network():
    """The process-wide CAM++ session on the CPU (input ``fbank`` float32 (n, frames, 80), output float32
    (n, 192)), loaded once. Raises ``OSError`` when the weights are missing (a broken install)."""
    return shared_session(WEIGHTS, "speaker embedding")


def fbank(audio16k: np.ndarray) -> np.ndarray:
    """float32 (frames, 80) Kaldi log-mel filter banks of float32 16 kHz ``audio16k`` (no dither, edges
    snipped: ``(n - 400) // 160 + 1`` frames)."""
    opts = knf.FbankOptions()
    opts.frame_opts.dither = 0.0
    opts.frame_opts.samp_freq = RATE
    opts.mel_opts.num_bins = 80
    bank = knf.OnlineFbank(opts)
    bank.accept_waveform(RATE, np.asarray(audio16k, np.float32).reshape(-1) * 32768)
    bank.input_finished()
    n = bank.num_frames_ready
    return np.stack([bank.get_frame(i) for i in range(n)]).astype(np.float32) if n else np.zeros((0, 80), np.float32)


def embed(frames: np.ndarray) -> np.ndarray:
    """Unit-norm float32 (192,) embedding of filter-bank ``frames`` float32 (n, 80), n >= 1."""
    x = frames - frames.mean(axis=0)
    e = network().run(None, {"fbank": x[None].astype(np.float32)})[0][0]
    return (e / max(float(np.linalg.norm(e)), 1e-9)).astype(np.float32)


def embed_speech(audio16k: np.ndarray, min_s: float = 1.0) -> np.ndarray:
    """Unit-norm float32 (192,) embedding of one voice's float32 16 kHz audio, its speech only (Silero VAD).
    Raises ``ValueError`` under ``min_s`` seconds of speech."""
    audio = np.asarray(audio16k, np.float32).reshape(-1)
    speech = [audio[a:b] for a, b in default_spans(audio)]
    total = sum(len(s) for s in speech) / RATE
    if total < min_s:
        raise ValueError(f"only {total:.1f} s of speech (need at least {min_s:g} s)")
    return embed(fbank(np.concatenate(speech)))
