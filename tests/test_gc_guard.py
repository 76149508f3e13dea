"""Cyclic garbage is collected in the GUI thread, never in a worker thread (a Qt object freed in a
worker thread crashes the process: a segfault seen in test_gui_dictate while a worker loaded a model)."""
from __future__ import annotations

import gc
import threading


class _Cycle:
    """Part of a reference cycle; remembers which thread finalised it."""

    finalised_in: list = []

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        _Cycle.finalised_in.append(threading.current_thread().name)


def test_a_worker_that_allocates_a_lot_never_runs_the_collector(qtbot):
    from speechstudio.worker import gc_guard
    from speechstudio.worker.gc_guard import INTERVAL_MS, collect_on_gui_thread
    from speechstudio.worker.worker import Worker

    worker = Worker("gc-test")  # starting a worker installs the collector
    collector = gc_guard._installed
    assert collector is not None and collect_on_gui_thread() is collector  # one per application
    assert not gc.isenabled()
    gc.collect()
    _Cycle.finalised_in.clear()
    _Cycle()  # unreachable at once, freed only by a collection

    loaded: list = []

    def allocate() -> None:  # a model load: far past every generation threshold, and kept
        loaded.extend([{"weights": [i]} for i in range(100_000)])

    t = threading.Thread(target=allocate, name="model-loader")
    t.start()
    t.join()
    assert _Cycle.finalised_in == []  # no automatic collection ran in the loading thread
    qtbot.waitUntil(lambda: _Cycle.finalised_in != [], timeout=20 * INTERVAL_MS)
    assert _Cycle.finalised_in == [threading.main_thread().name]
    assert collector.collected >= 1
    del loaded
    worker.shutdown()
