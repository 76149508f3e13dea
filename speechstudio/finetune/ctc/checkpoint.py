"""CTC run folder on top of ``finetune.run.RunFolder``: resume state and export.

Adds ``processor/`` (config, feature extractor, ``vocab.json``, ``vocabulary.txt``: a model folder
without weights), ``checkpoints/latest.pt`` (full resume state), ``checkpoints/best.pt`` (lowest WER,
then CER) and ``model/`` (the best as a transformers folder, what gets registered). Checkpoints are
written atomically (``atomic_torch_save``; a full disk raises ``RunError``, the previous file stays) and
load with ``weights_only=True``."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from speechstudio.atomic import atomic_folder, atomic_write_json

PROCESSOR = "processor"
MODEL = "model"


def save_model_files(folder: str | os.PathLike, model_config, feature_extractor, tokenizer) -> Path:
    """Write the model's ``config.json`` and the processor files (``preprocessor_config.json``,
    ``vocab.json``, ``tokenizer_config.json``) into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model_config.save_pretrained(folder)
    feature_extractor.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def cpu_state_dict(model) -> dict:
    """A copy of ``model.state_dict()`` on the CPU (what checkpoints store)."""
    return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}


def model_from_state(files_dir: str | os.PathLike, state_dict: dict):
    """``AutoModelForCTC`` built from ``files_dir/config.json`` with ``state_dict`` loaded (FP32)."""
    import torch
    from transformers import AutoConfig, AutoModelForCTC

    model = AutoModelForCTC.from_config(AutoConfig.from_pretrained(files_dir), dtype=torch.float32)
    model.load_state_dict(state_dict, strict=True)
    return model


def export_best(run) -> Path | None:
    """Write ``RUN/model`` from the best checkpoint (safetensors + processor files) atomically; ``run``:
    a ``RunFolder``. Returns the folder or None when there is no best yet; raises ``RunError`` /
    ``OSError``."""
    if not run.checkpoint_path("best").is_file():
        return None
    best = run.load_checkpoint("best")
    files = run.path / PROCESSOR
    model = model_from_state(files, best["model"])
    out = run.path / MODEL
    with atomic_folder(out) as tmp:
        model.save_pretrained(tmp, safe_serialization=True)
        for name in os.listdir(files):
            if name != "config.json":
                shutil.copy2(files / name, tmp / name)
    atomic_write_json(run.path / "model.json", {"step": int(best["step"]), "wer": float(best["wer"]),
                                                "cer": float(best["cer"])})
    return out
