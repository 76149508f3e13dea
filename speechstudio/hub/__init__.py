"""Model store (Qt-free): catalog, Hugging Face download, imports (``<home>/models``), package models
(split ones joined in ``<home>/packages``); ``<home>`` is :func:`data_dir`."""
from speechstudio.hub.catalog import CATALOG, DEFAULT_MODEL_ID, CatalogEntry, find_entry
from speechstudio.hub.detect import detect_engine
from speechstudio.hub.download import download_model, hub_offline, hub_reachable
from speechstudio.hub.inventory import list_models, remove_model
from speechstudio.hub.paths import data_dir, hf_cache_dir, models_dir
from speechstudio.hub.resolve import default_asr_model, resolve_model
from speechstudio.hub.store import import_model
from speechstudio.hub.types import ModelEntry, ResolvedModel
