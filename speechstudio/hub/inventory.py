"""What is installed (``list_models``) and removing it (``remove_model``)."""
from __future__ import annotations

import json
from pathlib import Path

from speechstudio.disk import dir_size_bytes, format_size
from speechstudio.errors import ModelNotFoundError, UsageError
from speechstudio.hub.assemble import companion_files, find_parts, remove_assembled
from speechstudio.hub.cache import cached_models, delete_cached
from speechstudio.hub.catalog import CATALOG, canonical_id, find_entry
from speechstudio.hub.detect import detect_engine
from speechstudio.hub.packages import (PACKAGE_MODELS, PackageModel, find_package_model, installed_package_models,
                                       main_dir, package_model_assembled, package_model_dir, package_problem)
from speechstudio.hub.store import imported_models, remove_imported
from speechstudio.hub.types import ModelEntry

_MB = 1_000_000


def _whisper_languages(path: Path) -> tuple[str, ...]:
    """``("en",)`` or ``("multi",)`` for a CTranslate2 Whisper folder, by its vocabulary's size (multilingual at
    51,865 tokens or more: openai/whisper ``Whisper.is_multilingual``); ``()`` when it has no vocabulary file."""
    for name in ("vocabulary.txt", "vocabulary.json"):
        f = path / name
        if f.is_file():
            text = f.read_text(encoding="utf-8", errors="replace")
            size = len(json.loads(text)) if name.endswith(".json") else len(text.splitlines())
            return ("multi",) if size >= 51865 else ("en",)
    return ()


def list_models(*, include_catalog: bool = True) -> list[ModelEntry]:
    """``ModelEntry`` list without network: imported, package, runnable HF-cache models, then (``include_catalog``)
    the catalog's others; an imported folder that no longer validates has ``engine="?"``."""
    entries: list[ModelEntry] = []
    listed: set[str] = set()

    for name, path in imported_models():
        try:
            engine = detect_engine(path)
        except ModelNotFoundError as exc:
            entries.append(ModelEntry(name, "?", False, "imported", path, None, (), f"not usable: {exc}"))
            continue
        entries.append(ModelEntry(name, engine, True, "imported", path, dir_size_bytes(path) / _MB,
                                  _whisper_languages(path) if engine == "whisper" else (), ""))

    for model, path in installed_package_models():
        entries.append(ModelEntry(model.name, model.engine, True, model.source, path, _package_size(model, path) / _MB,
                                  model.languages, _package_description(model), model.license))
    for model in PACKAGE_MODELS:
        problem = package_problem(model)
        if problem:
            entries.append(ModelEntry(model.name, model.engine, False, model.source, None, None,
                                      model.languages, f"not usable: {problem}", model.license))

    for cached in cached_models():
        try:
            engine = detect_engine(cached.path)
        except ModelNotFoundError:
            continue
        known = find_entry(cached.repo_id)
        entries.append(ModelEntry(cached.repo_id, engine, True, "hf cache", cached.path, cached.size_bytes / _MB,
                                  known.languages if known else (), known.description if known else ""))
        listed.add(cached.repo_id.lower())

    if include_catalog:
        for entry in CATALOG:
            if entry.model_id.lower() in listed:
                continue
            stand_in = find_package_model(entry.model_id)
            try:
                path = package_model_dir(stand_in, assemble_parts=False) if stand_in is not None else None
            except ModelNotFoundError:
                path = None
            if stand_in is not None and path is not None:
                entries.append(ModelEntry(entry.model_id, entry.engine, True, stand_in.source, path,
                                          _package_size(stand_in, path) / _MB, entry.languages,
                                          f"{entry.description}; provided by {stand_in.name}"))
            else:
                entries.append(ModelEntry(entry.model_id, entry.engine, False, "catalog", None, float(entry.size_mb),
                                          entry.languages, entry.description))
    return entries


def _package_size(model: PackageModel, path) -> int:
    """Bytes on disk: the folder, or for a split model not yet assembled, its parts + companions (what the
    joined folder will hold)."""
    if not model.parts or package_model_assembled(model):
        return dir_size_bytes(path)
    files = [f.path for f in find_parts(model.name, model.parts)] + companion_files(main_dir(model),
                                                                                    model.assembled_file)
    return sum(f.stat().st_size for f in files)


def _package_description(model: PackageModel) -> str:
    text = model.description
    if model.license:
        text += f"; license {model.license}"
    if model.origin:
        text += f"; source {model.origin}"
    if model.parts and not package_model_assembled(model):
        text += f"; {model.assembled_file} is joined from its {len(model.parts)} packages on first use"
    return text


def remove_model(name: str) -> str:
    """Remove an imported model or HF-cache entry; a one-line message with the space freed. Raises
    ``UsageError`` (a package model), ``ModelNotFoundError``, ``OSError``."""
    clean = name.strip()
    freed = remove_imported(clean)
    if freed is not None:
        return f"removed imported model {clean} ({format_size(freed)} freed)"
    repo_id = canonical_id(clean)
    if "/" in repo_id:
        freed = delete_cached(repo_id)
        if freed is not None:
            return f"removed {repo_id} from the Hugging Face cache ({format_size(freed)} freed)"
    package = find_package_model(clean)
    if package is not None:
        dists = " ".join(package.distributions)
        if package.parts:
            freed = remove_assembled(package.name)
            if freed is not None:
                return (f"removed the assembled copy of {package.name} ({format_size(freed)} freed); its packages "
                        f"stay installed (`pip uninstall {dists}` removes them; otherwise it is rebuilt on next use)")
        what = "Python packages" if len(package.distributions) > 1 else "Python package"
        raise UsageError(f"{clean} is provided by the {what} {dists}; remove it with `pip uninstall {dists}`")
    removable = [n for n, _ in imported_models()] + [m.repo_id for m in cached_models()]
    have = ", ".join(removable) if removable else "none"
    raise ModelNotFoundError(f"no imported or cached model named {clean!r} (removable: {have})")
