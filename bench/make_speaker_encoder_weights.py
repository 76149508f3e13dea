"""Write ``speechstudio/audio/weights/ge2e.onnx`` from Resemblyzer 0.1.4's ``pretrained.pt`` (in its wheel;
``speechstudio/audio/weights/GE2E_LICENSE``): the GE2E network (3-layer LSTM, 256 units, a linear layer,
ReLU, L2 norm) as ONNX opset 17, input ``mels`` float32 (n, frames, 40), output ``emb`` float32 (n, 256).
ONNX Runtime gives the same embeddings within 1e-6 for 7-10x less CPU than torch on 2 cores.

    python bench/make_speaker_encoder_weights.py
"""
from __future__ import annotations

from pathlib import Path

import torch

from speechstudio.audio.speaker_encoder import WEIGHTS, import_resemblyzer

if __name__ == "__main__":
    encoder = import_resemblyzer().VoiceEncoder("cpu", verbose=False).eval()
    torch.onnx.export(encoder, (torch.zeros(2, 160, 40),), str(WEIGHTS), input_names=["mels"], output_names=["emb"],
                      dynamic_axes={"mels": {0: "n", 1: "frames"}, "emb": {0: "n"}}, opset_version=17, dynamo=False)
    print(WEIGHTS, Path(WEIGHTS).stat().st_size)
