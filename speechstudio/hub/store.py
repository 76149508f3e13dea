"""Imported models: copies of local model directories under ``<data_dir>/models/<name>/``, copied to a
hidden ``.importing-<name>-<random>`` sibling and renamed in (listings ignore leftovers)."""
from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from speechstudio.atomic import atomic_folder
from speechstudio.disk import discard_folder
from speechstudio.errors import UnknownModelError, UsageError
from speechstudio.hub.detect import detect_engine
from speechstudio.hub.packages import find_package_model
from speechstudio.hub.paths import models_dir
from speechstudio.hub.types import ResolvedModel

_FORBIDDEN_CHARS = set('/\\:*?"<>|\0')


def validate_name(name: str) -> str:
    """Return an imported model's name stripped: no path separators or Windows-forbidden characters, no
    leading ``.``, not a package model name. Raises ``UsageError`` saying why."""
    clean = name.strip()
    if not clean:
        raise UsageError("model name must not be empty")
    bad = sorted(c for c in set(clean) if c in _FORBIDDEN_CHARS or ord(c) < 32)
    if bad:
        shown = " ".join(repr(c) for c in bad)
        raise UsageError(f"model name {clean!r} contains characters that are not allowed: {shown}")
    if clean.startswith("."):
        raise UsageError(f"model name {clean!r} must not start with '.'")
    if find_package_model(clean, include_aliases=False) is not None:
        raise UsageError(f"model name {clean!r} is reserved for an installed package model; choose another --name")
    return clean


def imported_dir(name: str) -> Path | None:
    """Return the directory of the imported model ``name``, or ``None`` if there is none."""
    try:
        clean = validate_name(name)
    except UsageError:
        return None
    path = models_dir() / clean
    return path if path.is_dir() else None


def imported_models() -> list[tuple[str, Path]]:
    """Return ``(name, dir)`` for every imported model, sorted by name (temporary dirs skipped)."""
    root = models_dir()
    if not root.is_dir():
        return []
    found = [(p.name, p) for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")]
    return sorted(found, key=lambda item: item[0].lower())


def import_model(src: str | os.PathLike[str], name: str | None = None, *, replace: bool = False) -> ResolvedModel:
    """Copy model folder ``src`` into the store as ``name`` (``replace`` swaps once complete); a
    ``ResolvedModel`` with ``source="imported"``. Raises ``ModelNotFoundError``, ``UsageError`` (bad or
    taken name), ``OSError`` (nothing left behind)."""
    src_path = Path(src).expanduser()
    if not src_path.exists():  # a path the user typed: a usage error (exit 2), as for transcribe's inputs
        raise UnknownModelError(f"model directory {src_path} does not exist")
    engine = detect_engine(src_path)
    src_abs = src_path.resolve()
    clean = validate_name(name if name is not None else src_abs.name)
    root = models_dir()
    final = root / clean
    if final.exists() and not replace:
        raise UsageError(f"a model named {clean!r} is already imported; remove it first "
                         f"(`speechstudio models remove {shlex.quote(clean)}`) or choose another --name")
    root_abs = root.resolve() if root.exists() else root.absolute()
    if root_abs == src_abs or src_abs in root_abs.parents:
        raise UsageError(f"cannot import {src_abs}: it contains the model store {root_abs}")
    with atomic_folder(final, overwrite=replace) as tmp:
        shutil.copytree(src_abs, tmp, symlinks=False, dirs_exist_ok=True)
        detect_engine(tmp)
    return ResolvedModel(final, clean, engine, "imported")


def remove_imported(name: str) -> int | None:
    """Delete the imported model ``name`` (renamed to a hidden name first); returns bytes freed, or
    ``None`` if absent."""
    path = imported_dir(name)
    return None if path is None else discard_folder(path)


def resolve_imported(name: str) -> ResolvedModel | None:
    """The imported model ``name`` as a ``ResolvedModel``, ``None`` if not imported. Raises
    ``ModelNotFoundError`` if its folder is no longer a valid model."""
    path = imported_dir(name)
    return None if path is None else ResolvedModel(path, path.name, detect_engine(path), "imported")


