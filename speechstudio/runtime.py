"""Process-wide settings made before torch is imported: ``configure_openmp()`` sets
``GOMP_SPINCOUNT=10000`` unless the user chose one (figures: docs/tts.md, Performance); the ONNX Runtime
sessions of the networks that ship in the package (:func:`cpu_session`) and the priority of the thread
that runs them (:func:`lower_thread_priority`); glibc's heap kept for speed (:func:`tune_heap_for_speed`)
or given back (:func:`trim_heap`); malloc in huge pages (:func:`restart_with_huge_pages`)."""
from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import platform
import sys
import threading
from pathlib import Path
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
    return [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "speechstudio"]


HUGE_PAGES = "glibc.malloc.hugetlb=1"


def restart_with_huge_pages() -> None:
    """Start this process again, same arguments, with glibc's malloc asking for transparent huge pages
    (``GLIBC_TUNABLES=glibc.malloc.hugetlb=1``, glibc 2.35+, read only when a process starts): Whisper's buffers
    of 32 MB and more, mapped and unmapped at every window, then cost 3x fewer page faults (a 3-minute file on 2
    cores: 3-11 % less wall time, the same peak; docs/transcribe.md, Memory pages). Returns without restarting
    when it is set already, on another system or C library, with ``SPEECHSTUDIO_NO_MALLOPT``, or when the
    restart fails."""
    library, version = platform.libc_ver()
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    if not sys.platform.startswith("linux") or library != "glibc" or os.environ.get("SPEECHSTUDIO_NO_MALLOPT") \
            or tuple(int(x) for x in version.split(".")[:2] if x.isdigit()) < (2, 35) or "malloc.hugetlb" in tunables:
        return
    os.environ["GLIBC_TUNABLES"] = f"{tunables}:{HUGE_PAGES}" if tunables else HUGE_PAGES
    argv = [sys.executable, *sys.argv[1:]] if getattr(sys, "frozen", False) else [sys.executable, *sys.orig_argv[1:]]
    sys.stdout.flush()
    sys.stderr.flush()
    with contextlib.suppress(OSError):          # go on as we are
        os.execv(sys.executable, argv)


def cpu_session(path: Path, what: str):
    """An ONNX Runtime session of the model file ``path`` on the CPU, without a memory arena, on half the
    cores (at least one; the recogniser has the other half: docs/diarization.md), threads not busy-waiting
    between calls. Raises ``OSError`` naming ``what`` when the file is missing (a broken install)."""
    import onnxruntime

    if not Path(path).is_file():
        raise OSError(f"{path}: the {what} weights are missing: reinstall SpeechStudio")
    options = onnxruntime.SessionOptions()
    options.enable_cpu_mem_arena = False
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.intra_op_num_threads = max(1, (os.cpu_count() or 2) // 2)
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


@functools.cache
def shared_session(path: Path, what: str):
    """The process-wide :func:`cpu_session` of ``path``, opened on first use (a failure is not kept)."""
    return cpu_session(path, what)


@functools.cache
def _glibc():
    """The process's own C library symbols where they are glibc's (``mallopt``, ``malloc_trim``), else None."""
    libc = ctypes.CDLL(None) if sys.platform.startswith("linux") else None
    return libc if libc is not None and hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


@functools.cache
def tune_heap_for_speed() -> bool:
    """Raise glibc's ``M_MMAP_THRESHOLD`` / ``M_TRIM_THRESHOLD`` so a PyTorch voice decoder's freed buffers
    are reused (docs/tts.md, Performance), once; skipped with ``SPEECHSTUDIO_NO_MALLOPT`` or another libc.
    True if set."""
    libc = None if os.environ.get("SPEECHSTUDIO_NO_MALLOPT") else _glibc()
    m_trim_threshold, m_mmap_threshold = -1, -3
    return libc is not None and libc.mallopt(m_mmap_threshold, 256 * 2**20) == 1 \
        and libc.mallopt(m_trim_threshold, 1024 * 2**20) == 1


def lower_thread_priority() -> bool:
    """Lower the calling thread's CPU priority (the diarizer beside the recogniser: docs/diarization.md): on
    Linux nice +10 for this thread only (``setpriority`` on its thread id), on Windows
    ``THREAD_PRIORITY_BELOW_NORMAL``; elsewhere nothing. True if lowered."""
    with contextlib.suppress(OSError):
        if sys.platform.startswith("linux"):
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + 10))
            return True
        if sys.platform == "win32":
            kernel32 = ctypes.windll.kernel32
            return bool(kernel32.SetThreadPriority(kernel32.GetCurrentThread(), -1))
    return False


def trim_heap() -> None:
    """Give the memory the C heap holds free back to the system (glibc's ``malloc_trim(0)``; nothing
    elsewhere), such as what ONNX Runtime frees between calls (docs/diarization.md)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
