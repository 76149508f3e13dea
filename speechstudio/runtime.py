"""Process-wide settings that must be made before torch is imported (OpenMP thread waiting).

PyTorch's CPU wheels run intra-op parallel regions on GNU OpenMP (libgomp). Between two parallel
regions, libgomp's idle workers either spin (``OMP_WAIT_POLICY=ACTIVE``, or by default for
``GOMP_SPINCOUNT`` = 300,000 iterations) or sleep at once (``PASSIVE``). A VITS sentence or a
Wav2Vec2 window is thousands of short back-to-back ops:

* ``PASSIVE``: every region pays a futex wake-up; the joe voice at 2 threads ran at RTFx 8.3-9.8,
  hardly better than 1 thread (bench/bench_tts.py, 2-core VM);
* libgomp's default / ``ACTIVE``: idle workers keep spinning long after the work is done and
  steal the cores from the GUI thread, the audio callback and other models' threads (measured earlier on
  a busy 2-core VM: time to first audio 1.6-4.8 s instead of 0.2-0.3 s);
* ``GOMP_SPINCOUNT=10000`` (a few tens of microseconds, then sleep): RTFx 15-17 at 2 threads,
  with less CPU time than ``PASSIVE`` (6.3 s vs 7.6-8.0 s for the same 20 sentences).

``configure_openmp()`` sets the last one unless the user chose a policy. libgomp reads these
variables when it is loaded, so this must run before ``import torch`` (the CLI's ``main`` does).
"""
from __future__ import annotations

import os
from typing import MutableMapping

__all__ = ["GOMP_SPIN_COUNT", "configure_openmp"]

#: Busy-wait iterations of an idle libgomp worker before it sleeps (libgomp default: 300,000).
GOMP_SPIN_COUNT = 10_000


def configure_openmp(environ: MutableMapping[str, str] = os.environ) -> str:
    """Set ``GOMP_SPINCOUNT`` in ``environ`` unless ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` is set.

    Returns a short description of the policy in force, e.g. ``"GOMP_SPINCOUNT=10000"`` or
    ``"OMP_WAIT_POLICY=PASSIVE (user)"``. No effect on a libgomp that is already loaded.
    """
    for name in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT"):
        if environ.get(name):
            return f"{name}={environ[name]} (user)"
    environ["GOMP_SPINCOUNT"] = str(GOMP_SPIN_COUNT)
    return f"GOMP_SPINCOUNT={GOMP_SPIN_COUNT}"


def app_command() -> list[str]:
    """The command that runs this program's CLI in a child process: ``[python, "-m",
    "speechstudio"]`` from a source or pip install; the app's own executable in the PyInstaller
    app, where ``sys.executable`` *is* SpeechStudio and takes the subcommands directly (given
    ``-m`` it answered "invalid choice": no download worked in the installed app)."""
    import sys

    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "speechstudio"]
