"""Which recogniser family a model folder is for, from its files (no weights are loaded): each family
in :data:`speechstudio.registry.RECOGNISERS` answers ``detect(ModelFolder)``
(:mod:`speechstudio.asr.family_ctc`, :mod:`speechstudio.asr.family_whisper`)."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from speechstudio.errors import ModelNotFoundError
from speechstudio.registry import RECOGNISERS


@dataclass(frozen=True)
class ModelFolder:
    """A candidate model folder, read once for every family's ``detect``: ``path``, the file
    ``names`` in it, and ``config`` (its ``config.json`` as a dict, ``None`` when it has none)."""

    path: Path
    names: frozenset[str]
    config: dict | None = None


def read_folder(path: str | os.PathLike[str]) -> ModelFolder:
    """Read ``path`` into a :class:`ModelFolder`. Raises ``ModelNotFoundError``: missing, a file,
    unreadable, or a ``config.json`` that is not a JSON object."""
    p = Path(path)
    if not p.exists():
        raise ModelNotFoundError(f"model directory {p} does not exist")
    if not p.is_dir():
        raise ModelNotFoundError(f"{p} is a file, not a model directory (give the folder that holds it)")
    try:
        names = frozenset(os.listdir(p))
    except OSError as exc:
        raise ModelNotFoundError(f"cannot read model directory {p}: {exc.strerror or exc}") from exc
    config = None
    if "config.json" in names:
        try:
            with open(p / "config.json", encoding="utf-8") as fh:
                config = json.load(fh)
        except (OSError, ValueError) as exc:
            raise ModelNotFoundError(f"{p}: config.json cannot be read as JSON ({exc})") from exc
        if not isinstance(config, dict):
            raise ModelNotFoundError(f"{p}: config.json is not a JSON object")
    return ModelFolder(p, names, config)


def detect_engine(path: str | os.PathLike[str]) -> str:
    """The name of the family whose model ``path`` is. Raises ``ModelNotFoundError`` naming the folder
    and why no family runs it."""
    folder = read_folder(path)
    for family in RECOGNISERS.all():
        if family.detect(folder):
            return family.name
    p, config = folder.path, folder.config
    labels = ", ".join(f.label for f in RECOGNISERS.all())
    if config is None:
        raise ModelNotFoundError(f"{p} is not a supported ASR model: no config.json and no model file that a "
                                 f"recogniser family reads ({labels})")
    model_type = str(config.get("model_type", "")).lower().replace("_", "-")
    if model_type == "vits":
        raise ModelNotFoundError(f"{p} is a VITS text-to-speech voice, not a speech-recognition model")
    if model_type == "whisper":
        raise ModelNotFoundError(f"{p} is a transformers Whisper checkpoint; faster-whisper needs the CTranslate2 "
                                 "conversion (ct2-transformers-converter) or a Systran/faster-whisper-* model")
    architectures = config.get("architectures") or []
    kind = f"model_type {model_type!r}" if model_type else "no model_type"
    arch = f", architectures {architectures}" if architectures else ""
    raise ModelNotFoundError(
        f"{p} is not a supported ASR model ({kind}{arch}): expected a *ForCTC checkpoint (Wav2Vec2, "
        f"HuBERT, Data2Vec-Audio, Wav2Vec2-Conformer...) or a CTranslate2 Whisper directory (families: {labels})"
    )
