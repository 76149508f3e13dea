"""Python's cycle collector runs on the GUI thread only, once a worker thread exists.

CPython runs an automatic collection in whichever thread happens to allocate past the
generation-0 threshold: with worker threads that is usually a worker loading a model (hundreds
of thousands of objects). When that collection frees a reference cycle that holds Qt objects
(a closed dialog's widgets, a page and its signal connections), their C++ destructors run in the
worker thread, which Qt does not allow: the process dies with a segmentation fault (seen in the
test suite: "Garbage-collecting" in a worker while transformers built a Wav2Vec2 model, with the
widgets of earlier tests waiting to be collected).

The usual remedy in PySide / PyQt applications (pyqtgraph's ``GarbageCollector``, the PyQt
mailing-list recipe): turn automatic collection off (``gc.disable()``) and collect from a timer
in the GUI thread, with the same generation thresholds (``gc.get_threshold()``, default
700 / 10 / 10), so cyclic garbage is freed as often as before, but always in the GUI thread.
The collector stops (and automatic collection comes back) when the application object goes.
Long-lived objects are still kept out of full collections by the worker's ``gc.freeze()``.
"""
from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QCoreApplication, QObject, QTimer

__all__ = ["GuiThreadCollector", "collect_on_gui_thread", "INTERVAL_MS"]

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
        """Collect the generations whose counts passed their thresholds, as CPython's automatic
        collector does (``gc.get_count()``: allocations minus frees since the last generation-0
        collection, then collections of the younger generation since the last one of each older).
        Returns the number of unreachable objects found."""
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
    """Install the collector once per application (idempotent). Call it from the GUI thread
    before starting a worker thread. Returns it, or ``None`` (automatic collection left as it is)
    when there is no ``QCoreApplication`` yet or this is not its thread."""
    global _installed
    app = QCoreApplication.instance()
    if app is None or threading.current_thread() is not threading.main_thread():
        return _installed
    if _installed is None:
        _installed = GuiThreadCollector(app)
        _installed.destroyed.connect(_stopped)
    return _installed
