"""Python's cycle collector runs on the GUI thread only (a collection in a worker thread can free Qt
objects there and crash), as pyqtgraph's ``GarbageCollector``."""
from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QCoreApplication, QObject, QTimer

#: How often the GUI thread looks at the allocation counts (ms).
INTERVAL_MS = 250

_installed: "GuiThreadCollector | None" = None


class GuiThreadCollector(QObject):
    """A timer in the GUI thread that runs the collections CPython would have run elsewhere."""

    def __init__(self, parent: QObject, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        self.collected = 0                  # objects found unreachable so far (for tests / diagnostics)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.check)
        self._timer.start(interval_ms)
        gc.disable()

    def check(self) -> int:
        """Collect the generations past their thresholds, as CPython's automatic collector does; returns
        the unreachable objects found."""
        c0, c1, c2 = gc.get_count()
        t0, t1, t2 = self.threshold
        found = 0
        if c0 > t0:
            found = gc.collect(0)
            if c1 > t1:
                found += gc.collect(1)
                if c2 > t2:
                    found += gc.collect(2)
        self.collected += found
        return found


def _stopped(*_args) -> None:
    global _installed
    _installed = None
    gc.enable()


def collect_on_gui_thread() -> GuiThreadCollector | None:
    """Install the collector once per application, from the GUI thread before starting a worker. Returns
    it, or None when there is no ``QCoreApplication`` or this is not its thread."""
    global _installed
    app = QCoreApplication.instance()
    if app is None or threading.current_thread() is not threading.main_thread():
        return _installed
    if _installed is None:
        _installed = GuiThreadCollector(app)
        _installed.destroyed.connect(_stopped)
    return _installed
