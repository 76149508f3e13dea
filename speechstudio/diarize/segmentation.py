"""Who speaks when inside 10 s: pyannote's segmentation-3.0 network (PyanNet: SincNet, 4 BiLSTM layers,
2 linear layers, a powerset classifier) in plain torch, without pyannote.audio.

Architecture and weights: pyannote.audio (MIT, (c) 2020-2023 CNRS); Bredin 2023, "pyannote.audio 2.1
speaker diarization pipeline"; Plaquet & Bredin 2023, "Powerset multi-class cross entropy loss for
neural speaker diarization". The weights ship in ``weights/segmentation-3.0.safetensors`` (5.9 MB, MIT:
``weights/SEGMENTATION_LICENSE``; how they were made: ``bench/make_segmentation_weights.py``).

A chunk is float32 16 kHz mono, 10 s (160000 samples). Per frame (every 16.875 ms, each 61.9 ms long)
the network says which of up to 3 local speakers talk, at most 2 at once. Local speakers are only
names inside one chunk: :mod:`.cluster` says who they are across the recording.
"""
from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

RATE = 16000
CHUNK_S = 10.0                   #: the network's input length (s)
FRAMES = 589                     #: output frames per chunk
FRAME_STEP_S = 0.016875          #: 270 samples: SincNet stride 10 x three max-pools of 3
FRAME_DURATION_S = 0.0619375     #: receptive field, 991 samples
LOCAL_SPEAKERS = 3
WEIGHTS = Path(__file__).with_name("weights") / "segmentation-3.0.safetensors"

_NET = None


def powerset() -> np.ndarray:
    """float32 (7, 3): which local speakers each powerset class holds: {}, {0}, {1}, {2}, {0,1}, {0,2},
    {1,2} (pyannote.audio ``utils/powerset.py``)."""
    rows = []
    for size in range(3):
        for s in combinations(range(LOCAL_SPEAKERS), size):
            r = np.zeros(LOCAL_SPEAKERS, np.float32)
            r[list(s)] = 1
            rows.append(r)
    return np.stack(rows)


def network():
    """The process-wide network on the CPU, in eval mode (loaded once, ~0.1 s). Raises ``OSError``
    when the weights file is missing (a broken install)."""
    global _NET
    if _NET is None:
        import torch.nn as nn
        import torch.nn.functional as F
        from safetensors.torch import load_file

        class PyanNet(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.wav_norm = nn.InstanceNorm1d(1, affine=True)
                self.register_buffer("sinc", torch.zeros(80, 1, 251))
                self.conv1 = nn.Conv1d(80, 60, 5)
                self.conv2 = nn.Conv1d(60, 60, 5)
                self.norms = nn.ModuleList([nn.InstanceNorm1d(80, affine=True), nn.InstanceNorm1d(60, affine=True),
                                            nn.InstanceNorm1d(60, affine=True)])
                self.lstm = nn.LSTM(60, 128, num_layers=4, bidirectional=True, batch_first=True)
                self.linear = nn.ModuleList([nn.Linear(256, 128), nn.Linear(128, 128)])
                self.classifier = nn.Linear(128, 7)

            def forward(self, wav):
                x = self.wav_norm(wav.unsqueeze(1))
                x = F.conv1d(x, self.sinc, stride=10).abs()
                x = F.leaky_relu(self.norms[0](F.max_pool1d(x, 3)))
                x = F.leaky_relu(self.norms[1](F.max_pool1d(self.conv1(x), 3)))
                x = F.leaky_relu(self.norms[2](F.max_pool1d(self.conv2(x), 3)))
                x, _ = self.lstm(x.transpose(1, 2))
                for lin in self.linear:
                    x = F.leaky_relu(lin(x))
                return self.classifier(x)

        import torch

        if not WEIGHTS.is_file():
            raise OSError(f"{WEIGHTS}: the speaker segmentation weights are missing: reinstall SpeechStudio")
        net = PyanNet()
        net.load_state_dict(load_file(str(WEIGHTS)), strict=True)
        _NET = net.eval()
    return _NET


def activity(chunks: np.ndarray) -> np.ndarray:
    """bool (b, 589, 3): which local speakers talk in each frame of float32 (b, 160000) chunks (the most
    likely powerset class per frame, as pyannote's speaker-diarization-3.1 binarizes it)."""
    import torch

    with torch.inference_mode():
        classes = network()(torch.from_numpy(np.ascontiguousarray(chunks, np.float32))).argmax(-1).numpy()
    return powerset()[classes].astype(bool)
