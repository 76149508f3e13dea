"""The Hugging Face hub cache, read and pruned without network; ``cache_dir=paths.hf_cache_dir()`` is
passed explicitly so later ``HF_HUB_CACHE`` / ``HF_HOME`` changes count."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from speechstudio.errors import ModelNotFoundError
from speechstudio.hub.detect import detect_engine
from speechstudio.hub.paths import hf_cache_dir
from speechstudio.hub.types import ResolvedModel


@dataclass(frozen=True)
class CachedModel:
    """A model repo in the Hugging Face cache: ``repo_id``, the snapshot dir used, size on disk (bytes)."""

    repo_id: str
    path: Path
    size_bytes: int


def cached_snapshot(repo_id: str) -> Path | None:
    """The cached ``main`` snapshot folder of ``repo_id`` (``snapshot_download(local_files_only=True)``; a filtered
    snapshot counts, the caller validates it), or ``None`` when nothing usable is cached or the id is invalid."""
    if not (hf_cache_dir() / ("models--" + repo_id.replace("/", "--"))).is_dir():
        return None  # nothing of it cached: said without importing huggingface_hub (half a second of a CLI start)
    import huggingface_hub as hf
    from huggingface_hub import errors as hf_errors

    incomplete = getattr(hf_errors, "IncompleteSnapshotError", None)
    try:
        path = hf.snapshot_download(repo_id, local_files_only=True, cache_dir=str(hf_cache_dir()))
    except Exception as exc:  # noqa: BLE001 - any failure means "not usable from the cache"
        snapshot = getattr(exc, "snapshot_path", None)
        if incomplete is not None and isinstance(exc, incomplete) and snapshot and os.path.isdir(snapshot):
            return Path(snapshot)
        return None
    return Path(path) if path and os.path.isdir(path) else None


def cached_model(repo_id: str) -> ResolvedModel | None:
    """The cached snapshot of ``repo_id`` as a ``ResolvedModel`` (source ``"hf cache"``), ``None`` if not cached.
    Raises ``ModelNotFoundError`` when cached but not runnable."""
    path = cached_snapshot(repo_id)
    if path is None:
        return None
    try:
        engine = detect_engine(path)
    except ModelNotFoundError as exc:
        raise ModelNotFoundError(f"{repo_id} is in the Hugging Face cache but cannot be used: {exc}") from exc
    return ResolvedModel(path, repo_id, engine, "hf cache")


def _scan():
    import huggingface_hub as hf

    cache_dir = hf_cache_dir()
    if not cache_dir.is_dir():
        return None
    try:
        return hf.scan_cache_dir(cache_dir=str(cache_dir))
    except Exception:  # noqa: BLE001 - CacheNotFound, CorruptedCacheException, OSError
        return None


def cached_models() -> list[CachedModel]:
    """Every model repo in the HF cache with its ``main`` (else newest) snapshot, as ``CachedModel``
    sorted by ``repo_id`` (not checked for being ASR models)."""
    info = _scan()
    if info is None:
        return []
    found = [CachedModel(repo.repo_id, Path(max(repo.revisions, key=lambda r: ("main" in r.refs, r.last_modified))
                                            .snapshot_path), int(repo.size_on_disk))
             for repo in info.repos if repo.repo_type == "model" and repo.revisions]
    return sorted(found, key=lambda m: m.repo_id.lower())


def delete_cached(repo_id: str) -> int | None:
    """Delete every cached revision of ``repo_id`` (case-insensitive); returns bytes freed, or ``None``
    if not cached. Raises ``OSError``."""
    info = _scan()
    if info is None:
        return None
    for repo in info.repos:
        if repo.repo_type == "model" and repo.repo_id.lower() == repo_id.lower():
            strategy = info.delete_revisions(*[r.commit_hash for r in repo.revisions])
            strategy.execute()
            return int(strategy.expected_freed_size)
    return None
