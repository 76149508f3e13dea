"""Defaults the user chose (the dictation model): only :func:`choose` changes one, never adding a model;
``<data dir>/defaults.json`` (``{"dictation": NAME}``), written atomically."""
from __future__ import annotations

from pathlib import Path

from speechstudio.atomic import atomic_write_json, read_json_object
from speechstudio.errors import UsageError
from speechstudio.hub.paths import data_dir

STATE_FILE = "defaults.json"
#: What a default can be chosen for.
ROLES = ("dictation",)


def _path() -> Path:
    return data_dir() / STATE_FILE


def _load() -> dict:
    return read_json_object(_path())


def choice(role: str) -> str | None:
    """The model name the user chose for ``role`` (one of ``ROLES``), or ``None``."""
    value = _load().get(role)
    return value if isinstance(value, str) and value else None


def choose(role: str, name: str | None) -> None:
    """Make ``name`` the user's model for ``role`` (``None``: forget the choice, back to the
    built-in rule). Raises ``UsageError`` for an unknown role, ``OSError`` when it cannot be saved."""
    if role not in ROLES:
        raise UsageError(f"unknown default {role!r} (one of: {', '.join(ROLES)})")
    data = _load()
    if name:
        data[role] = name
    else:
        data.pop(role, None)
    atomic_write_json(_path(), data)
