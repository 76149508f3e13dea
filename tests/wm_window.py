"""Run by tests/test_gui_window_manager.py under Xvfb + openbox (``QT_QPA_PLATFORM=xcb``): open the
main window on a fresh data folder, wait for the window manager's frame, show every page and print
one JSON line: the screen's available area, the frame, and per page the visible widgets outside the
window or the screen. ``--shots DIR``: a PNG of the whole screen per page (the frame included).

Usage: python tests/wm_window.py [--shots DIR]"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def _rect(r) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def _outside(win, avail) -> list[str]:
    """Visible widgets whose on-screen part leaves the window's client area or the screen's
    available area (content scrolled out of a scroll area's viewport is clipped there, not lost)."""
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import QAbstractScrollArea, QWidget

    client = QRect(win.mapToGlobal(QPoint(0, 0)), win.size())
    bad = []
    for w in win.findChildren(QWidget):
        if not w.isVisible() or w.isWindow() or w.width() <= 0 or w.height() <= 0:
            continue
        rect, p = QRect(w.mapToGlobal(QPoint(0, 0)), w.size()), w.parentWidget()
        while p is not None and p is not win:  # what the ancestors let show
            if isinstance(p.parentWidget(), QAbstractScrollArea):
                rect = rect.intersected(QRect(p.mapToGlobal(QPoint(0, 0)), p.size()))
            p = p.parentWidget()
        if rect.isEmpty():
            continue
        if not client.contains(rect) or not avail.contains(rect):
            name = w.accessibleName() or w.objectName() or type(w).__name__
            bad.append(f"{name} {_rect(rect)}")
    return bad


def main() -> int:
    shots = Path(sys.argv[sys.argv.index("--shots") + 1]) if "--shots" in sys.argv else None
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    from fake_audio_backend import FakeBackend
    from speechstudio.gui.main_window import MainWindow
    from speechstudio.gui.window_menus import PAGES

    win = MainWindow(audio_backend=FakeBackend(), start_monitor=False)
    win.show()

    def settle(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.02)

    t0 = time.monotonic()
    while win.frameGeometry().size() == win.size() and time.monotonic() - t0 < 5:
        settle(0.05)
    settle(1.0)  # the window's own fit runs after the frame is known
    avail = win.screen().availableGeometry()
    out = {"avail": _rect(avail), "frame": _rect(win.frameGeometry()), "client": _rect(win.geometry()),
           "framed": win.frameGeometry().size() != win.size(), "pages": {}}
    for name in PAGES:
        win.show_page(name)
        settle(0.4)
        out["pages"][name] = _outside(win, avail)
        if shots is not None:
            shots.mkdir(parents=True, exist_ok=True)
            win.screen().grabWindow(0).save(str(shots / f"{name.lower().replace(' ', '_')}.png"))
    print(json.dumps(out), flush=True)
    win.shutdown()
    from speechstudio.worker.worker import wait_for_busy_workers

    wait_for_busy_workers()  # as the app does: a voice still loading would abort the exit
    return 0


if __name__ == "__main__":
    sys.exit(main())
