"""``speechstudio gui [FILES...]`` and the no-argument start of the desktop app."""
from __future__ import annotations

import os
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser("gui", help="open the desktop application",
                              description="Open the SpeechStudio window (optionally with files/folders queued).")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to queue on the Transcribe page")
    p.add_argument("--startup-time", "--quit-after-shown", dest="startup_time", action="store_true",
                   help="print the time from process start to the window shown, then quit (benchmark, smoke test)")
    p.set_defaults(func=run_gui)


def run_gui(args) -> int:
    """Open the main window; returns the exit status. Imports Qt only here (not torch)."""
    try:
        import PySide6  # noqa: F401
    except ImportError as e:
        from speechstudio.errors import UsageError

        raise UsageError(f"the desktop app needs PySide6 ({e}); pip install PySide6-Essentials pyqtgraph") from e
    from speechstudio.gui.app import process_start_time, run

    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY") and \
            not os.environ.get("QT_QPA_PLATFORM") and os.name == "posix" and sys.platform != "darwin":
        print("speechstudio: error: no display found (DISPLAY / WAYLAND_DISPLAY unset); "
              "run it in a desktop session, or use the command line (speechstudio --help)", file=sys.stderr)
        return 1
    timing = bool(getattr(args, "startup_time", False))
    return run(files=list(getattr(args, "paths", None) or []),
               startup_t0=process_start_time() if timing else None, quit_after_shown=timing)
