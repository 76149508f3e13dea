"""Start the Qt application and show the main window (torch is not imported on this path)."""
from __future__ import annotations

import os
import sys
import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from speechstudio.gui import preferences
from speechstudio.gui.main_window import MainWindow
from speechstudio.gui.single_instance import SingleInstance, serve_window
from speechstudio.hub.paths import data_dir
from speechstudio.worker.gc_guard import collect_on_gui_thread
from speechstudio.worker.worker import wait_for_busy_workers


def run(argv: list[str] | None = None, files: list[str] | None = None, startup_t0: float | None = None,
        quit_after_shown: bool = False) -> int:
    """Show :class:`MainWindow` and run the event loop; returns the exit code. ``files``: paths to queue;
    ``quit_after_shown``: print ``SPEECHSTUDIO_STARTUP <seconds since startup_t0>`` once shown, then quit."""
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("SpeechStudio")
    app.setOrganizationName("SpeechStudio")
    app.setApplicationDisplayName("SpeechStudio")
    collect_on_gui_thread()  # cyclic garbage holding Qt objects is never freed in a worker thread
    prefs = preferences.load()
    preferences.apply_startup(prefs)  # data/cache folders from Settings, before any model code
    if prefs.theme != "system":
        preferences.apply_theme(prefs.theme, app)
    instance = SingleInstance(data_dir())   # one window per data folder
    try:
        first = instance.acquire()
    except OSError:                         # a data folder that cannot be written: the window says so
        first = True
    if not first:
        pid = instance.owner_pid()
        if instance.send(list(files or [])):
            sent = f"; {len(files)} file(s) queued there" if files else ""
            print(f"SpeechStudio is already open (process {pid}) for {data_dir()}: its window was brought to the "
                  f"front{sent}", flush=True)
            return 0
        print(f"speechstudio: error: another SpeechStudio (process {pid}) holds {instance.lock_path} and does not "
              "answer; close it, or wait for it to finish starting", file=sys.stderr)
        return 1
    win = MainWindow()
    serve_window(instance, win)
    win.show()
    if files:  # shown on the Transcribe page, where they were queued
        QTimer.singleShot(0, lambda: win.open_paths(files))
    if quit_after_shown:
        def report() -> None:
            t0 = startup_t0 if startup_t0 is not None else time.perf_counter()
            heavy = [m for m in ("torch", "transformers", "faster_whisper") if m in sys.modules]
            print(f"SPEECHSTUDIO_STARTUP {time.perf_counter() - t0:.3f} shown_at={time.time():.3f} "
                  f"heavy_imported={','.join(heavy) or 'none'}", flush=True)
            win.close()
            app.quit()

        def wait_exposed() -> None:
            handle = win.windowHandle()
            if handle is not None and handle.isExposed():
                report()
            else:
                QTimer.singleShot(5, wait_exposed)

        QTimer.singleShot(0, wait_exposed)
    rc = app.exec()
    wait_for_busy_workers()      # a voice still loading when the window closed: exit cleanly
    instance.release()
    return int(rc)


def process_start_time() -> float | None:
    """``time.perf_counter()``-based estimate of when this process started (Linux /proc), or None."""
    try:
        import psutil

        created = psutil.Process(os.getpid()).create_time()
        return time.perf_counter() - (time.time() - created)
    except Exception:
        return None
