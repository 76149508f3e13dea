"""The SQLite queue (issue 12, "A queue that survives"): schema version and migration, a running job
restarts after a crash, history, odd file names, watched folders."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from speechstudio.batch.queue_store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    QueueStore,
    QueueStoreError,
    default_path,
)
from speechstudio.batch.watch import FolderWatcher


def test_default_location_is_the_data_dir(home):
    assert default_path() == home / "queue.sqlite3"
    store = QueueStore()
    assert store.version == SCHEMA_VERSION == 3
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_migration_from_version_1_keeps_jobs(tmp_path):
    db = tmp_path / "q.sqlite3"
    con = sqlite3.connect(db)
    con.executescript(MIGRATIONS[0])
    con.execute("INSERT INTO jobs (path, status, position, outputs, reason, duration_s, wall_s, added_at, finished_at) "
                "VALUES (?, 'done', 1, '[\"/x/a.txt\"]', '', 60.0, 6.0, 100.0, 110.0)", (b"/x/a.wav",))
    con.execute("PRAGMA user_version=1")
    con.commit()
    con.close()
    store = QueueStore(db)
    assert store.version == SCHEMA_VERSION
    (job,) = store.queue()
    assert (str(job.path), job.status, job.in_queue, job.language, job.rtfx) == ("/x/a.wav", "done", True, None, 10.0)
    assert [str(p) for p in job.outputs] == ["/x/a.txt"]
    assert store.watched() == []


def test_newer_schema_is_refused(tmp_path):
    db = tmp_path / "q.sqlite3"
    con = sqlite3.connect(db)
    con.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(QueueStoreError, match=r"written by a newer SpeechStudio \(schema 4"):
        QueueStore(db)


def test_not_a_database_is_a_clear_error(tmp_path):
    db = tmp_path / "q.sqlite3"
    db.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(QueueStoreError, match="cannot use the queue database"):
        QueueStore(db)


def test_killed_process_leaves_the_queue_and_running_job_restarts(tmp_path):
    """A process that dies (os._exit, no close) mid-job: the next open has the queue, the finished
    job with its outputs, and the running one queued again."""
    db = tmp_path / "q.sqlite3"
    odd = os.fsdecode(b"/in/caf\xe9.wav")
    script = textwrap.dedent(f"""
        import os
        from speechstudio.batch.queue_store import QueueStore
        s = QueueStore({str(db)!r})
        a = s.add("/in/a.wav", model="tiny")
        b = s.add({odd!r})
        c = s.add("/in/c.wav")
        s.finish(a, "done", outputs=["/in/a.txt", "/in/a.json"], duration_s=30.0, wall_s=3.0, language="en")
        s.set_status(b, "running")
        os._exit(9)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr
    store = QueueStore(db)
    rows = store.queue()
    assert [(str(r.path), r.status) for r in rows] == [("/in/a.wav", "done"), (odd, "queued"), ("/in/c.wav", "queued")]
    assert [str(p) for p in rows[0].outputs] == ["/in/a.txt", "/in/a.json"]
    assert (rows[0].rtfx, rows[0].language, rows[0].model) == (10.0, "en", "tiny")
    assert [str(r.path) for r in store.history()] == ["/in/a.wav"]


def test_clear_keeps_history_and_remove_deletes(tmp_path):
    store = QueueStore(tmp_path / "q.sqlite3")
    a, b = store.add("/a.wav"), store.add("/b.wav")
    store.finish(a, "done", duration_s=10.0, wall_s=1.0)
    store.finish(b, "failed", reason="/b.wav: empty file (0 bytes)")
    store.clear_from_queue([a])
    assert [str(r.path) for r in store.queue()] == ["/b.wav"]
    assert sorted(str(r.path) for r in store.history()) == ["/a.wav", "/b.wav"]
    store.remove(a)
    assert [str(r.path) for r in store.history()] == ["/b.wav"]
    store.requeue(b)
    (row,) = store.queue()
    assert (row.id, row.status, row.reason) == (b, "queued", "")


def test_watched_folder_queues_new_files_once_they_stop_growing(tmp_path):
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "old.wav").write_bytes(b"x" * 100)
    t = [0.0]
    store = QueueStore(tmp_path / "q.sqlite3")
    watcher = FolderWatcher(store, settle_s=2.0, clock=lambda: t[0])
    w = watcher.watch(folder, output_dir=str(tmp_path / "out"))
    assert watcher.poll() == []                               # what was there is not queued
    new = folder / "new.mp3"
    new.write_bytes(b"x" * 10)
    (folder / "dl.mp3.part").write_bytes(b"x" * 10)           # a download in progress: never
    (folder / "new.txt").write_text("a transcript")          # our own output: never
    assert watcher.poll() == []                               # first sight
    t[0] = 1.0
    with open(new, "ab") as f:
        f.write(b"y" * 10)                                    # still growing
    os.utime(new, ns=(10**9, 10**9))
    assert watcher.poll() == []
    t[0] = 2.5
    assert watcher.poll() == []                               # unchanged for 1.5 s only
    t[0] = 3.5
    assert watcher.poll() == [(w, new)]
    t[0] = 9.0
    assert watcher.poll() == []                               # queued once
    # after a restart the same folder is still watched and nothing is queued twice
    again = FolderWatcher(QueueStore(tmp_path / "q.sqlite3"), settle_s=2.0, clock=lambda: t[0])
    assert [x.folder for x in again.store.watched()] == [folder]
    assert again.store.watched()[0].output_dir == str(tmp_path / "out")
    assert again.poll() == [] and again.poll() == []
