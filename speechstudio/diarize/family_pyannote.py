"""pyannote.audio's speaker-diarization pipeline as the other diarizer (registry name ``pyannote``), for users who
have it: the audio streamed past the recogniser is given to it as one waveform at ``finish``, its turns label the
words. Set-up (``HF_TOKEN``, ``SPEECHSTUDIO_PYANNOTE``) and what it does not do: ``docs/diarization.md``."""
from __future__ import annotations

import importlib.util
import os

import numpy as np

from speechstudio.diarize.assign import Turn
from speechstudio.diarize.family import Diarization, DiarizerFamily, speaker_infos
from speechstudio.hub.cache import cached_snapshot

PIPELINE_ID = "pyannote/speaker-diarization-3.1"


def _source() -> str:
    return os.environ.get("SPEECHSTUDIO_PYANNOTE") or PIPELINE_ID


def _token() -> str | None:
    return os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")


class PyannoteSession:
    def __init__(self, count) -> None:
        self.count = count
        self.blocks: list[np.ndarray] = []

    def push(self, block: np.ndarray) -> None:
        self.blocks.append(np.asarray(block, np.float32).reshape(-1))

    def finish(self) -> Diarization:
        import torch
        from pyannote.audio import Pipeline

        src, token = _source(), _token()
        pipeline = Pipeline.from_pretrained(src, use_auth_token=token) if token else Pipeline.from_pretrained(src)
        audio = np.concatenate(self.blocks) if self.blocks else np.zeros(0, np.float32)
        kw = {"num_speakers": self.count.min_speakers} if self.count.exact else \
            {"min_speakers": self.count.min_speakers, "max_speakers": self.count.max_speakers}
        annotation = pipeline({"waveform": torch.from_numpy(audio).reshape(1, -1), "sample_rate": 16000}, **kw)
        order: dict[str, str] = {}
        turns = []
        for seg, _, label in sorted(annotation.itertracks(yield_label=True), key=lambda t: t[0].start):
            name = order.setdefault(label, f"Speaker {len(order) + 1}")
            turns.append(Turn(round(float(seg.start), 3), round(float(seg.end), 3), name))
        return Diarization(turns, speaker_infos(turns, list(order.values())))


class PyannoteFamily(DiarizerFamily):
    def unavailable(self) -> str | None:
        if importlib.util.find_spec("pyannote") is None or importlib.util.find_spec("pyannote.audio") is None:
            return "pyannote.audio is not installed (pip install pyannote.audio; the default diarizer needs no account)"
        src = _source()
        if not (os.path.isdir(src) or os.path.isfile(src) or _token() or cached_snapshot(src) is not None):
            return (f"{src} is gated: set HF_TOKEN after accepting its terms on huggingface.co, or "
                    "SPEECHSTUDIO_PYANNOTE=/path/to/a/local/copy")
        return None

    def start(self, count, *, library=None, path=None):
        return PyannoteSession(count)


FAMILY = PyannoteFamily("pyannote", "pyannote.audio pipeline (needs its gated weights)")
