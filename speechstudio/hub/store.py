"""Imported models: copies of local model directories under ``<data_dir>/models/<name>/``.

An import is atomic: the directory is copied to a hidden temporary sibling
(``.importing-<name>-<random>``) and renamed into place, so a crash never leaves a half-copied
model under a usable name. Leftover temporary dirs are ignored by listings.
"""
from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

from speechstudio.atomic import atomic_folder
from speechstudio.errors import UsageError
from speechstudio.hub.detect import detect_engine
from speechstudio.hub.packages import find_package_model
from speechstudio.hub.paths import models_dir
from speechstudio.hub.types import ResolvedModel

_FORBIDDEN_CHARS = set('/\\:*?"<>|\0')


def validate_name(name: str) -> str:
    """Check an imported model's name and return it stripped.

    Names may hold any Unicode letters, digits, spaces, dots, dashes, ``#``... but no path
    separators or characters Windows forbids, must not start with ``.`` and must not equal a
    package model name (``whisper-tiny.en``). Having no ``/`` they never shadow a Hugging Face id.

    Raises:
        UsageError: the name is empty or not allowed (message says why).
    """
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


def dir_size_bytes(path: Path) -> int:
    """Total size in bytes of the regular files under ``path`` (symlinks followed)."""
    total = 0
    for dirpath, _dirs, files in os.walk(path, followlinks=True):
        for f in files:
            try:
                total += os.stat(os.path.join(dirpath, f)).st_size
            except OSError:
                pass
    return total


def import_model(src: str | os.PathLike[str], name: str | None = None, *, replace: bool = False) -> ResolvedModel:
    """Copy a local model directory into the store under ``name``.

    Args:
        src: a Wav2Vec2 CTC checkpoint dir or a CTranslate2 Whisper dir (validated with
            ``detect_engine``); symlinks (e.g. a Hugging Face cache snapshot) are followed.
        name: the name to use with ``--model``; default: the directory's own name.
        replace: an imported model of that name is replaced once the copy is complete
            (until then the old one stays usable).

    Returns:
        ``ResolvedModel(path=<data_dir>/models/<name>, model_id=name, engine, source="imported")``.

    Raises:
        ModelNotFoundError: ``src`` is not a model SpeechStudio can run.
        UsageError: bad name, a model with that name is already imported, or ``src`` is the
            store itself.
        OSError: copying failed (disk full...); nothing is left behind.
    """
    src_path = Path(src).expanduser()
    engine = detect_engine(src_path)
    src_abs = src_path.resolve()
    clean = validate_name(name if name is not None else src_abs.name)
    root = models_dir()
    final = root / clean
    if final.exists() and not replace:
        raise UsageError(
            f"a model named {clean!r} is already imported; remove it first (`speechstudio models remove {clean}`) "
            "or choose another --name"
        )
    root_abs = root.resolve() if root.exists() else root.absolute()
    if root_abs == src_abs or src_abs in root_abs.parents:
        raise UsageError(f"cannot import {src_abs}: it contains the model store {root_abs}")
    with atomic_folder(final, overwrite=replace) as tmp:
        shutil.copytree(src_abs, tmp, symlinks=False, dirs_exist_ok=True)
        detect_engine(tmp)
    return ResolvedModel(final, clean, engine, "imported")


def remove_imported(name: str) -> int | None:
    """Delete the imported model ``name``; return the bytes freed, or ``None`` if it does not exist.

    The directory is first renamed to a hidden name, so a crash mid-delete never leaves a
    half-deleted model under its name.
    """
    path = imported_dir(name)
    if path is None:
        return None
    size = dir_size_bytes(path)
    trash = path.with_name(f".removing-{path.name}-{uuid.uuid4().hex[:8]}")
    os.rename(path, trash)
    shutil.rmtree(trash, ignore_errors=True)
    return size


def resolve_imported(name: str) -> ResolvedModel | None:
    """Return the imported model ``name`` as a ``ResolvedModel``, ``None`` if not imported.

    Raises:
        ModelNotFoundError: the imported dir exists but is no longer a valid model.
    """
    path = imported_dir(name)
    if path is None:
        return None
    return ResolvedModel(path, path.name, detect_engine(path), "imported")


