"""Bytes on disk, for people: :func:`format_size` is the one way a size or free space is written."""
from __future__ import annotations


def format_size(n_bytes: int) -> str:
    """``"612 MB"``, ``"1.3 GB"``, ``"48 kB"`` (decimal units, as file managers show)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            value = n_bytes / scale
            return f"{value:.1f} {unit}" if value < 10 and unit == "GB" else f"{value:.0f} {unit}"
    return f"{n_bytes} B"
