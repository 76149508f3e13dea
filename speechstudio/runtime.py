"""Process-wide settings made before torch is imported: ``configure_openmp()`` sets
``GOMP_SPINCOUNT=10000`` unless the user chose one (figures: docs/tts.md, Performance)."""
from __future__ import annotations

import os
import sys
from typing import MutableMapping

#: Busy-wait iterations of an idle libgomp worker before it sleeps (libgomp default: 300,000).
GOMP_SPIN_COUNT = 10_000


def configure_openmp(environ: MutableMapping[str, str] = os.environ) -> str:
    """Set ``GOMP_SPINCOUNT`` unless ``OMP_WAIT_POLICY`` / ``GOMP_SPINCOUNT`` is set; returns the policy in
    force (``"GOMP_SPINCOUNT=10000"``). No effect once libgomp is loaded."""
    for name in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT"):
        if environ.get(name):
            return f"{name}={environ[name]} (user)"
    environ["GOMP_SPINCOUNT"] = str(GOMP_SPIN_COUNT)
    return f"GOMP_SPINCOUNT={GOMP_SPIN_COUNT}"


def app_command() -> list[str]:
    """The command that runs this program's CLI in a child process: ``[python, "-m", "speechstudio"]``,
    or the PyInstaller app's own executable (which takes the subcommands directly, not ``-m``)."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "speechstudio"]
