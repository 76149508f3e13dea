"""Python and the versions of the packages SpeechStudio runs on (read from package metadata, nothing
imported), and whether this is the packaged app (PyInstaller) or a Python install."""
from __future__ import annotations

import platform
import sys
from importlib import metadata

from speechstudio import __version__
from speechstudio.doctor.report import FAIL, OK, Check

# distribution name -> what it does for the user; all are required by pyproject.toml.
PACKAGES = {
    "torch": "runs the models", "transformers": "Wav2Vec2 and VITS", "faster-whisper": "Whisper",
    "ctranslate2": "Whisper", "av": "decodes audio and video (FFmpeg)", "numpy": "arrays",
    "PySide6-Essentials": "the window", "sounddevice": "microphone and speakers", "soundfile": "WAV/FLAC",
    "onnxruntime": "voice activity detection", "nvidia-ml-py": "GPU monitor", "huggingface-hub": "downloads",
}


def package_versions() -> dict[str, str | None]:
    """``{distribution: version or None when not installed}`` for :data:`PACKAGES`."""
    out: dict[str, str | None] = {}
    for dist in PACKAGES:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def frozen() -> bool:
    """True inside the PyInstaller-built app."""
    return bool(getattr(sys, "frozen", False))


def check_python() -> Check:
    """Python version and executable, and the required packages' versions."""
    py = f"Python {platform.python_version()} ({'packaged app' if frozen() else sys.executable})"
    versions = package_versions()
    details = {"python": platform.python_version(), "executable": sys.executable, "frozen": frozen(),
               "platform": platform.platform(), "speechstudio": __version__, "packages": versions}
    listed = ", ".join(f"{d} {v}" for d, v in versions.items() if v)
    if frozen():  # the bundle is complete by construction; PyInstaller keeps the metadata the spec copies
        return Check("Python", OK, f"{py}, speechstudio {__version__}" + (f"; {listed}" if listed else ""), "",
                     details)
    missing = [d for d, v in versions.items() if v is None]
    if missing:
        return Check("Python", FAIL, f"{py}; missing: " + ", ".join(f"{d} ({PACKAGES[d]})" for d in missing),
                     "pip install " + " ".join(missing), details)
    return Check("Python", OK, f"{py}, speechstudio {__version__}; {listed}", "", details)
