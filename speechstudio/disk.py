"""Bytes on disk: what a folder holds, removing one, and :func:`format_size`, the one way a size is written."""
from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from pathlib import Path


def dir_size_bytes(path: str | os.PathLike[str]) -> int:
    """Total bytes of the regular files under ``path`` (symlinks followed); a file: its own size; missing: 0."""
    path = Path(path)
    if path.is_file():
        return path.stat().st_size
    total = 0
    for dirpath, _dirs, files in os.walk(path, followlinks=True):
        for f in files:
            with contextlib.suppress(OSError):  # removed meanwhile
                total += os.stat(os.path.join(dirpath, f)).st_size
    return total


def discard_folder(path: Path) -> int:
    """Remove the folder ``path``, renamed to a hidden name first so nothing sees it half removed; returns
    the bytes it held. Raises ``OSError`` when it cannot be renamed (a leftover of the removal is ignored)."""
    size = dir_size_bytes(path)
    trash = path.with_name(f".removing-{path.name}-{uuid.uuid4().hex[:8]}")
    os.rename(path, trash)
    shutil.rmtree(trash, ignore_errors=True)
    return size


def format_size(n_bytes: int) -> str:
    """``"612 MB"``, ``"1.3 GB"``, ``"48 kB"`` (decimal units, as file managers show)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            value = n_bytes / scale
            return f"{value:.1f} {unit}" if value < 10 and unit == "GB" else f"{value:.0f} {unit}"
    return f"{n_bytes} B"
