"""The worker thread: jobs in order, progress/results/errors as Qt signals, cancel, and a
bug in one job never kills the worker. Plus the audio device layer (fake and missing PortAudio)."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

import threading
import time

import numpy as np
import pytest

from speechstudio.worker.jobs import CallJob, Job
from speechstudio.worker.worker import Status, Worker
from speechstudio.errors import SpeechStudioError


class Counting(Job):
    def __init__(self, n, delay=0.0, fail_at=None, exc=SpeechStudioError):
        super().__init__()
        self.n, self.delay, self.fail_at, self.exc = n, delay, fail_at, exc
        self.thread = None

    def run(self, models):
        self.thread = threading.current_thread()
        for i in range(self.n):
            if self.cancel.is_set():
                return
            if i == self.fail_at:
                raise self.exc("broken input: cannot go on")
            time.sleep(self.delay)
            yield i
        self.result = "counted"


@pytest.fixture
def worker(qtbot):
    e = Worker("test")
    yield e
    e.shutdown()


def collect(worker):
    events = []
    worker.job_started.connect(lambda i, d: events.append(("started", i)))
    worker.job_progress.connect(lambda i, p: events.append(("progress", i, p)))
    worker.job_finished.connect(lambda i, s, r: events.append(("finished", i, s, r)))
    return events


def test_runs_jobs_in_order_off_the_gui_thread(worker, qtbot):
    events = collect(worker)
    a, b = Counting(3), Counting(2)
    with qtbot.waitSignal(worker.job_finished, timeout=5000, check_params_cb=lambda i, s, r: i == b.id):
        worker.submit(a)
        worker.submit(b)
    assert a.thread is not threading.main_thread() and a.thread is b.thread
    assert events == [("started", a.id), ("progress", a.id, 0), ("progress", a.id, 1), ("progress", a.id, 2),
                      ("finished", a.id, "done", "counted"), ("started", b.id), ("progress", b.id, 0),
                      ("progress", b.id, 1), ("finished", b.id, "done", "counted")]


def test_errors_are_messages_and_engine_survives(worker, qtbot):
    events = collect(worker)
    bad = Counting(5, fail_at=1)
    bug = Counting(5, fail_at=0, exc=ZeroDivisionError)
    ok = Counting(1)
    with qtbot.waitSignal(worker.job_finished, timeout=5000, check_params_cb=lambda i, s, r: i == ok.id):
        for j in (bad, bug, ok):
            worker.submit(j)
    fin = {e[1]: e[2:] for e in events if e[0] == "finished"}
    assert fin[bad.id] == ("failed", "broken input: cannot go on")
    assert fin[bug.id] == ("failed", "unexpected error: ZeroDivisionError: broken input: cannot go on")
    assert fin[ok.id] == ("done", "counted")


def test_cancel_running_and_queued(worker, qtbot):
    events = collect(worker)
    slow, queued, after = Counting(1000, delay=0.01), Counting(3), Counting(1)
    worker.submit(slow)
    worker.submit(queued)
    qtbot.waitUntil(lambda: any(e[0] == "progress" for e in events), timeout=5000)
    worker.cancel(queued.id)
    t0 = time.perf_counter()
    worker.cancel(slow.id)
    worker.submit(after)
    qtbot.waitUntil(lambda: any(e[0] == "finished" and e[1] == after.id for e in events), timeout=5000)
    assert time.perf_counter() - t0 < 1.0
    fin = {e[1]: e[2] for e in events if e[0] == "finished"}
    assert fin == {slow.id: "cancelled", queued.id: "cancelled", after.id: "done"}
    assert not any(e[0] == "started" and e[1] == queued.id for e in events)


def test_call_job_and_model_cache_loads_once(worker, qtbot, tiny_w2v_dir, home):
    from speechstudio.batch.request import TranscriptionRequest
    from speechstudio.worker.jobs import TranscribeBatchJob

    with qtbot.waitSignal(worker.job_finished, timeout=5000) as blk:
        worker.submit(CallJob(sum, [1, 2, 3]))
    assert blk.args[1:] == ["done", 6]
    loaded = []
    worker.job_progress.connect(lambda i, p: isinstance(p, Status) and p.startswith("using") and loaded.append(p))
    import soundfile as sf

    from speechstudio.batch.run import InputItem

    wav = home.parent / "x.wav"
    sf.write(str(wav), np.zeros(16000, np.float32), 16000)
    opts = TranscriptionRequest(model=str(tiny_w2v_dir), device="cpu", formats=("txt",), overwrite=True)
    kinds = []
    worker.job_progress.connect(lambda i, p: kinds.append(getattr(p, "kind", None)))
    for _ in range(2):
        with qtbot.waitSignal(worker.job_finished, timeout=60000) as blk:
            worker.submit(TranscribeBatchJob([InputItem(wav)], opts))
        assert blk.args[1:] == ["done", 1]
    assert kinds.count("done") == 2
    assert len(loaded) == 1  # the model was loaded once and reused
    assert wav.with_suffix(".txt").is_file()


def test_missing_model_is_a_message(worker, qtbot, home, tmp_path):
    from speechstudio.batch.request import TranscriptionRequest
    from speechstudio.worker.jobs import TranscribeBatchJob
    from speechstudio.batch.run import InputItem

    with qtbot.waitSignal(worker.job_finished, timeout=30000) as blk:
        worker.submit(TranscribeBatchJob([InputItem(tmp_path / "a.wav")], TranscriptionRequest(model="no-such-model")))
    assert blk.args[1] == "failed"
    assert "no-such-model" in blk.args[2] and "\n" not in blk.args[2]


# ---------------------------------------------------------------------------- audio devices
def test_fake_backend_player_and_recorder():
    from fake_audio_backend import FakeBackend
    from speechstudio.audio.devices import Player, Recorder

    mic = np.sin(2 * np.pi * 440 * np.arange(48000) / 48000).astype(np.float32)
    fb = FakeBackend(mic, input_rate=48000, speed=50)
    blocks = []
    rec = Recorder(fb, on_block=lambda b, sr: blocks.append((len(b), sr)))
    rec.start()
    deadline = time.time() + 5
    while rec.duration_s < 0.9 and time.time() < deadline:
        time.sleep(0.01)
    audio = rec.stop()
    assert rec.native_rate == 48000 and blocks[0][1] == 16000
    assert 0.9 * 16000 <= len(audio) and np.abs(audio[2000:14000]).max() > 0.9
    ended = threading.Event()
    p = Player(fb, on_end=ended.set)
    p.play(audio[:8000], 16000)
    assert ended.wait(5)
    assert len(fb.played_audio()) == 8000 and fb.played_rate == 16000
    # streaming: silence while waiting for the next chunk, ends after finish()
    ended.clear()
    p.begin(22050)
    p.feed(np.ones(1000, np.float32))
    time.sleep(0.05)
    p.feed(np.ones(500, np.float32))
    p.finish()
    assert ended.wait(5)


def test_missing_portaudio_is_a_message(monkeypatch):
    import builtins

    from speechstudio.audio import backends, devices

    real_import = builtins.__import__

    def fake_import(name, *a, **k):
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    b = backends._make_backend("")
    assert not b.available
    assert "PortAudio library not found" in b.reason and "libportaudio2" in b.reason
    with pytest.raises(devices.AudioUnavailableError):
        devices.Player(b).play(np.zeros(10, np.float32), 16000)


FAKE_DOWNLOAD = r"""
import sys, time
for i in range(0, 101, 10):
    sys.stderr.write(f"\rmodel.safetensors: {i:3d}%|###   | {i}M/100M [00:01<00:02, 30MB/s]")
    sys.stderr.flush()
    time.sleep(0.02)
sys.stderr.write("\n")  # tqdm.close()
sys.stderr.flush()
print("downloaded x to /cache/x", flush=True)
if len(sys.argv) > 1:
    time.sleep(60)
"""


def test_download_job_progress_and_cancel(worker, qtbot):
    import sys

    from speechstudio.worker.jobs import DownloadJob

    got = []
    worker.job_progress.connect(lambda i, p: got.append(p))
    with qtbot.waitSignal(worker.job_finished, timeout=20000) as blk:
        worker.submit(DownloadJob("x", command=[sys.executable, "-c", FAKE_DOWNLOAD]))
    assert blk.args[1:] == ["done", "downloaded x to /cache/x"]
    fracs = [f for f, _ in got if f is not None]
    assert fracs[0] == 0.0 and fracs[-1] == 1.0 and fracs == sorted(fracs)

    # cancel kills the child process within about a second, even while it prints nothing
    got.clear()
    job = DownloadJob("x", command=[sys.executable, "-c", FAKE_DOWNLOAD, "hang"])
    worker.submit(job)
    qtbot.waitUntil(lambda: any(t.startswith("downloaded") for _, t in got), timeout=20000)
    t0 = time.perf_counter()
    with qtbot.waitSignal(worker.job_finished, timeout=5000) as blk:
        worker.cancel(job.id)
    assert time.perf_counter() - t0 < 1.5
    assert blk.args[1] == "cancelled" and "resumes" in blk.args[2]
