"""The loaded voice of a non-VITS family (SpeechT5, FastSpeech2-Conformer): ``FamilyVoice`` implements
:class:`speechstudio.tts.family.Voice`; ``controls`` are the settings it uses (others warned about). A Hub
download becomes a store folder of hard links into the HF cache (copies where refused), built aside and renamed in."""
from __future__ import annotations

import json
import os
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from speechstudio.atomic import atomic_folder
from speechstudio.errors import ModelNotFoundError, SpeechStudioError
from speechstudio.tts.family import TtsFamily, VoiceSource, check_options
from speechstudio.tts.voice_text import VoiceText


@dataclass
class FamilyVoice(VoiceText):
    """A loaded non-VITS voice: subclasses implement ``_tokenize`` (text -> token ids) and ``_run`` (ids -> a
    waveform tensor); calls on one model hold a lock its shallow copies share (``stream_speech`` copies per worker)."""

    family: str = ""
    controls: tuple = ()
    lock: object = field(default_factory=threading.Lock, repr=False)

    bucketed = reads_ipa = False  # letter / ARPAbet front ends

    def _check(self, settings) -> None:
        self.warnings.extend(check_options(self, settings))

    def _run_ids(self, ids: list[int], settings) -> np.ndarray:
        import torch

        with self.lock, torch.inference_mode():
            wav = self._run(ids, settings)
        return np.ascontiguousarray(wav.float().cpu().numpy().reshape(-1), dtype=np.float32)


def link_tree(src: Path, dest: Path) -> None:
    """Hard-link (else copy) every file under ``src`` into ``dest``, keeping relative paths; the
    HF cache's symbolic links are followed to their blobs. Hidden entries (``.cache``) are skipped."""
    for path in sorted(Path(src).rglob("*")):
        rel = path.relative_to(src)
        if any(part.startswith(".") for part in rel.parts) or path.is_dir():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        real = os.path.realpath(path)
        try:
            os.link(real, target)
        except OSError:
            shutil.copyfile(real, target)



def to_device(model, device: str, precision: str):
    """``model.eval()`` on ``device`` in FP16 (``precision == "fp16"``) or FP32."""
    import torch

    model.eval()
    return model.to(device=device, dtype=torch.float16 if precision == "fp16" else torch.float32)


@dataclass
class TransformersFamily(TtsFamily):
    """A family that is one transformers ``model_type``: ``loader(spec, config, device, precision, name,
    local_files_only)`` builds the voice, ``parts(folder, snapshot_fn)`` adds a Hub download's companions."""

    model_type: str = ""
    loader: Callable | None = None
    parts: Callable | None = None

    def detect(self, source: VoiceSource) -> bool:
        return source.model_type == self.model_type

    def load(self, source: VoiceSource, *, device: str, precision: str, name: str | None,
             local_files_only: bool = True, optimize: bool = True, runtime: str = "auto"):
        from transformers import AutoConfig

        try:
            config = AutoConfig.from_pretrained(source.spec, local_files_only=local_files_only)
            return self.loader(source.spec, config, device, precision, name, local_files_only)
        except (OSError, ValueError) as exc:
            if isinstance(exc, SpeechStudioError):
                raise
            raise ModelNotFoundError(f"{source.spec}: {self.model_type} checkpoint incomplete "
                                     f"({str(exc).splitlines()[0][:120]})") from exc

    def assemble(self, hf_id: str, snapshot: Path, dest: Path, snapshot_fn) -> Path:
        with atomic_folder(dest) as tmp:
            link_tree(snapshot, tmp)
            self.parts(tmp, snapshot_fn)
            meta = {"kind": "transformers", "family": self.name, "hf_id": hf_id, "path": str(dest),
                    "source": f"downloaded from {hf_id}"}
            (tmp / "voice.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        return dest
