"""Who speaks when inside 10 s: pyannote's segmentation-3.0 network (PyanNet: SincNet, 4 BiLSTM layers,
2 linear layers, a powerset classifier) run by ONNX Runtime, without pyannote.audio or torch.

Architecture and weights: pyannote.audio (MIT, (c) 2020-2023 CNRS); Bredin 2023, "pyannote.audio 2.1
speaker diarization pipeline"; Plaquet & Bredin 2023, "Powerset multi-class cross entropy loss for
neural speaker diarization". The weights ship in ``weights/segmentation-3.0.onnx`` (5.9 MB, MIT:
``weights/SEGMENTATION_LICENSE``; how they were made: ``bench/make_segmentation_weights.py``).

A chunk is float32 16 kHz mono, 10 s (160000 samples). Per frame (every 16.875 ms, each 61.9 ms long)
the network says which of up to 3 local speakers talk, at most 2 at once. Local speakers are only
names inside one chunk: :mod:`.cluster` says who they are across the recording.
"""
from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from speechstudio.runtime import shared_session

RATE = 16000
CHUNK_S = 10.0                   #: the network's input length (s)
FRAMES = 589                     #: output frames per chunk
FRAME_STEP_S = 0.016875          #: 270 samples: SincNet stride 10 x three max-pools of 3
FRAME_DURATION_S = 0.0619375     #: receptive field, 991 samples
LOCAL_SPEAKERS = 3
WEIGHTS = Path(__file__).with_name("weights") / "segmentation-3.0.onnx"


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
    """The process-wide ONNX Runtime session on the CPU (loaded once, ~0.1 s). Raises ``OSError`` when the
    weights file is missing (a broken install)."""
    return shared_session(WEIGHTS, "speaker segmentation")


def activity(chunks: np.ndarray) -> np.ndarray:
    """bool (b, 589, 3): which local speakers talk in each frame of float32 (b, 160000) chunks (the most
    likely powerset class per frame, as pyannote's speaker-diarization-3.1 binarizes it)."""
    classes = network().run(None, {"wav": np.ascontiguousarray(chunks, np.float32)})[0].argmax(-1)
    return powerset()[classes].astype(bool)
