"""Issue 29, class 4: a second window hijacked the first one's queue.

One instance per data folder (a lock file; a lock left by a dead process is taken over); a second
``speechstudio gui FILES`` / ``speechstudio FILE`` hands its files to the running window and exits
0 saying so; the queue never re-queues a row a live process is running.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from speechstudio.batch.queue_store import QueueStore, process_alive  # noqa: E402
from speechstudio.gui.single_instance import LOCK_FILE, SingleInstance, serve_window  # noqa: E402
from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures

ROOT = Path(__file__).resolve().parents[1]


def _env(home: Path) -> dict:
    return {**os.environ, "SPEECHSTUDIO_HOME": str(home), "PYTHONPATH": str(ROOT)}


# ------------------------------------------------------------------------------------------ queue rows
_RUNNER = textwrap.dedent("""
    import sys, time
    from speechstudio.batch.queue_store import QueueStore
    s = QueueStore(sys.argv[1])
    s.set_status(int(sys.argv[2]), "running")
    print("running", flush=True)
    time.sleep(60)
""")


def test_a_row_a_live_process_runs_is_left_alone_and_requeued_once_it_is_gone(tmp_path):
    db = tmp_path / "q.sqlite3"
    store = QueueStore(db)
    a, b = store.add("/in/a.wav"), store.add("/in/b.wav")
    store.close()
    proc = subprocess.Popen([sys.executable, "-c", _RUNNER, str(db), str(a)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "running"
        second = QueueStore(db)                           # a second window opening the queue
        assert [(str(r.path), r.status) for r in second.queue()] == [("/in/a.wav", "running"), ("/in/b.wav", "queued")]
        second.close()
    finally:
        proc.kill()
        proc.wait(timeout=30)
    third = QueueStore(db)                                # the owner is gone: a half-done file is redone
    assert [(str(r.path), r.status) for r in third.queue()] == [("/in/a.wav", "queued"), ("/in/b.wav", "queued")]


@pytest.mark.parametrize("pid, started, alive", [
    (os.getpid(), None, True),                  # this process
    (os.getpid(), "own", True),                 # this process, its start time
    (os.getpid(), 1.0, False),                  # the pid of a process started in 1970: reused, not it
    (None, None, False),                        # a row from before owners were recorded
    (2 ** 22 + 12345, None, False),             # no such process
], ids=["pid", "pid-and-start", "reused-pid", "no-owner", "gone"])
def test_process_alive(pid, started, alive):
    import psutil

    if started == "own":
        started = psutil.Process().create_time()
    assert process_alive(pid, started) is alive


# ------------------------------------------------------------------------------------------ one window
def test_second_instance_is_refused_and_a_stale_lock_is_taken_over(qapp, tmp_path):
    first = SingleInstance(tmp_path)
    assert first.acquire() is True
    second = SingleInstance(tmp_path)
    assert second.acquire() is False and second.owner_pid() == os.getpid()
    first.release()
    assert second.acquire() is True
    second.release()
    # a process that took the lock and died without unlocking (a crash, a power cut)
    code = ("import os, sys; from PySide6.QtCore import QLockFile; "
            "l = QLockFile(sys.argv[1]); assert l.tryLock(0); os._exit(0)")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / LOCK_FILE)], check=True, timeout=60)
    assert (tmp_path / LOCK_FILE).is_file()
    third = SingleInstance(tmp_path)
    assert third.acquire() is True
    third.release()


def test_second_launch_hands_its_files_to_the_window_and_exits_0(win, qtbot, home, tmp_path):
    instance = SingleInstance(home)
    assert instance.acquire()
    serve_window(instance, win)
    try:
        files = []
        for name in ("a.wav", "b.wav"):
            (tmp_path / name).write_bytes(b"RIFF")
            files.append(name)
        before = len(win.transcribe.rows)
        with qtbot.waitSignal(instance.files_received, timeout=60000) as blk:
            proc = subprocess.Popen([sys.executable, "-m", "speechstudio", "gui", *files], cwd=tmp_path,
                                    env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert blk.args == [[str(tmp_path / "a.wav"), str(tmp_path / "b.wav")]]
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            qtbot.wait(50)                               # the window answers from this event loop
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 0, err
        assert out.strip() == (f"SpeechStudio is already open (process {os.getpid()}) for {home}: its window was "
                               "brought to the front; 2 file(s) queued there")
        assert [str(r.item.path) for r in win.transcribe.rows[before:]] == [str(tmp_path / "a.wav"),
                                                                            str(tmp_path / "b.wav")]
        # `speechstudio FILE` (a file manager's "Open with") goes the same way
        with qtbot.waitSignal(instance.files_received, timeout=60000) as blk:
            proc = subprocess.Popen([sys.executable, "-m", "speechstudio", "a.wav"], cwd=tmp_path, env=_env(home),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while proc.poll() is None and time.monotonic() < deadline + 60:
            qtbot.wait(50)
        assert proc.returncode == 0 and blk.args == [[str(tmp_path / "a.wav")]]
    finally:
        instance.release()
