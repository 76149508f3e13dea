"""Worker robustness (issue 12, faults 8 and 9): a replaced model is freed; cancel stops Whisper
between segments; cancel_all never misses a job the worker has just taken from the queue."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import gc
import queue
import shutil
import threading
import weakref

import numpy as np
import pytest

pytest.importorskip("PySide6", reason="worker tests need PySide6")

from speechstudio.asr.types import Segment, TranscriptInfo
from speechstudio.batch.request import TranscriptionRequest
from speechstudio.batch.run import InputItem, run_batch
from speechstudio.worker.jobs import Job
from speechstudio.worker.worker import ModelCache, Worker


def test_replaced_model_is_freed(tiny_w2v_dir, tmp_path):
    """gc.freeze() after each load and the recognizer <-> window-runner cycle kept the old model."""
    from speechstudio.asr.cuda_graph import window_runner

    other = tmp_path / "other-w2v"
    shutil.copytree(tiny_w2v_dir, other)
    cache = ModelCache()
    try:
        first, _ = cache.asr(str(tiny_w2v_dir), "cpu", "fp32")
        window_runner(first, 16000)                  # the runner cache on the recognizer: a cycle
        dead_recognizer = weakref.ref(first)
        dead_model = weakref.ref(first.model)
        del first
        second, _ = cache.asr(str(other), "cpu", "fp32")
        assert dead_recognizer() is None
        assert dead_model() is None
        assert cache.has_asr(str(other), "cpu", "fp32") and not cache.has_asr(str(tiny_w2v_dir), "cpu", "fp32")
    finally:
        gc.unfreeze()


class PieceRecognizer:
    """Like Whisper: reads the whole piece first, then yields segments lazily (counted)."""

    sample_rate = 16000
    engine = "whisper"
    model_id = "fake-whisper"
    device = "cpu"
    precision = "fp32"

    def __init__(self):
        self.decoded = 0

    def transcribe(self, blocks, *, duration_s=None, **options):
        audio = np.concatenate(list(blocks))

        def segments():
            for i in range(int(len(audio) / self.sample_rate)):
                self.decoded += 1
                yield Segment(float(i), i + 1.0, f"word{i}")

        return segments(), TranscriptInfo(duration_s or 0.0, "en", self.model_id, self.engine)


def test_cancel_stops_whisper_between_segments(tmp_path):
    import soundfile as sf

    wav = tmp_path / "long.wav"
    sf.write(str(wav), np.full(16000 * 40, 0.1, np.float32), 16000)
    rec = PieceRecognizer()
    cancel = threading.Event()
    kinds = []
    for ev in run_batch([InputItem(wav)], rec, TranscriptionRequest(formats=("txt",)), cancel=cancel):
        kinds.append(ev.kind)
        if ev.kind == "segment":
            cancel.set()
    assert kinds == ["start", "segment", "cancelled"]
    assert rec.decoded == 2                       # the segment in hand and the one being decoded
    assert not (tmp_path / "long.txt").exists()


class _PausingQueue(queue.Queue):
    """Hands out a job, then waits (as a preempted worker thread would) before the worker starts it."""

    taken = threading.Event()
    go_on = threading.Event()

    def get(self, *a, **k):
        item = super().get(*a, **k)
        if item is not None:
            type(self).taken.set()
            type(self).go_on.wait(5)
        return item


class _Started(Job):
    def __init__(self):
        super().__init__()
        self.ran = False

    def run(self, models):
        self.ran = True
        return iter(())


def test_cancel_all_catches_a_job_just_taken_from_the_queue(qtbot):
    class W(Worker):
        queue_class = _PausingQueue

    w = W("race")
    finished = []
    w.job_finished.connect(lambda i, s, r: finished.append((i, s)))
    try:
        job = _Started()
        w.submit(job)
        assert _PausingQueue.taken.wait(5)        # the worker holds the job, not yet current
        w.cancel_all()
        _PausingQueue.go_on.set()
        qtbot.waitUntil(lambda: len(finished) == 1, timeout=5000)
        assert finished == [(job.id, "cancelled")]
        assert job.ran is False
        later = _Started()                        # jobs submitted after cancel_all still run
        w.submit(later)
        qtbot.waitUntil(lambda: len(finished) == 2, timeout=5000)
        assert finished[1] == (later.id, "done") and later.ran
    finally:
        _PausingQueue.go_on.set()
        w.shutdown()
