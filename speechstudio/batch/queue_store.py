"""The transcription queue, its history and the watched folders in ``<data dir>/queue.sqlite3`` (WAL,
``synchronous=NORMAL``; schema version in ``PRAGMA user_version``, :data:`MIGRATIONS` one transaction each);
a ``running`` row whose owner process is gone is queued again on open (docs/transcribe.md, Batch)."""
from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from speechstudio.errors import SpeechStudioError
from speechstudio.hub.paths import data_dir

#: SQL that takes schema version ``i`` to ``i + 1`` (index ``i``).
MIGRATIONS: tuple[str, ...] = (
    # 0 -> 1: the queue and its history
    """
    CREATE TABLE jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        path BLOB NOT NULL,
        root BLOB,
        status TEXT NOT NULL DEFAULT 'queued',
        position INTEGER NOT NULL,
        model TEXT,
        output_dir TEXT,
        outputs TEXT NOT NULL DEFAULT '[]',
        reason TEXT NOT NULL DEFAULT '',
        duration_s REAL,
        wall_s REAL,
        added_at REAL NOT NULL,
        finished_at REAL
    );
    CREATE INDEX jobs_status ON jobs(status);
    """,
    # 1 -> 2: clearing a finished row keeps it in the history; language; watched folders
    """
    ALTER TABLE jobs ADD COLUMN in_queue INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE jobs ADD COLUMN language TEXT;
    ALTER TABLE jobs ADD COLUMN watch_id INTEGER;
    CREATE TABLE watched (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        folder BLOB NOT NULL UNIQUE,
        output_dir TEXT,
        added_at REAL NOT NULL
    );
    CREATE TABLE watch_seen (
        watch_id INTEGER NOT NULL REFERENCES watched(id) ON DELETE CASCADE,
        path BLOB NOT NULL,
        PRIMARY KEY (watch_id, path)
    );
    """,
    # 2 -> 3: which process runs a row (pid and its start time), so another window leaves it alone
    """
    ALTER TABLE jobs ADD COLUMN owner_pid INTEGER;
    ALTER TABLE jobs ADD COLUMN owner_started REAL;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
FINISHED = ("done", "skipped", "failed", "cancelled")


def _start_time(pid: int) -> float | None:
    try:
        return float(psutil.Process(pid).create_time())
    except Exception:  # noqa: BLE001 - no such process, no permission
        return None


def process_alive(pid: int | None, started: float | None) -> bool:
    """True when process ``pid`` exists and (when ``started`` is known) is the one that started at
    ``started`` (within 1 s: a pid reused by another program after a reboot is not it)."""
    if not pid or not psutil.pid_exists(int(pid)):
        return False
    if started is None:
        return True
    now = _start_time(int(pid))
    return now is None or abs(now - float(started)) < 1.0


class QueueStoreError(SpeechStudioError):
    """The queue database cannot be used (unreadable, or written by a newer SpeechStudio)."""


def default_path() -> Path:
    """``<data dir>/queue.sqlite3``."""
    return data_dir() / "queue.sqlite3"


def _blob(path: str | os.PathLike | None) -> bytes | None:
    return None if path is None else os.fsencode(os.fspath(path))


def _path(blob: bytes | None) -> Path | None:
    return None if blob is None else Path(os.fsdecode(bytes(blob)))


@dataclass
class QueueEntry:
    """One row of ``jobs`` (see the module docstring); times in seconds."""

    id: int
    path: Path
    root: Path | None
    status: str
    position: int
    model: str | None
    output_dir: str | None
    outputs: tuple[Path, ...]
    reason: str
    duration_s: float | None
    wall_s: float | None
    added_at: float
    finished_at: float | None
    in_queue: bool
    language: str | None
    watch_id: int | None

    @property
    def rtfx(self) -> float | None:
        """RTFx of this file: audio seconds per wall second of its transcription (``None`` when not transcribed)."""
        return self.duration_s / self.wall_s if self.duration_s and self.wall_s else None


@dataclass(frozen=True)
class WatchedFolder:
    id: int
    folder: Path
    output_dir: str | None


class QueueStore:
    """The queue database, used from one thread (the GUI's); every change commits at once. Raises
    ``QueueStoreError`` (not a database, or a newer schema)."""

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(str(self.path), isolation_level=None)
            self.db.execute("PRAGMA foreign_keys=ON")
            if str(self.path) != ":memory:":
                self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
            # ``running`` rows whose process is gone go back to ``queued`` (see the module docstring)
            rows = self.db.execute("SELECT id, owner_pid, owner_started FROM jobs WHERE status='running'").fetchall()
            self.db.executemany("UPDATE jobs SET status='queued', owner_pid=NULL, owner_started=NULL WHERE id=?",
                                [(i,) for i, pid, started in rows if not process_alive(pid, started)])
        except sqlite3.DatabaseError as e:
            raise QueueStoreError(f"{self.path}: cannot use the queue database ({e})") from e

    # ------------------------------------------------------------------ schema
    @property
    def version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        have = self.version
        if have > SCHEMA_VERSION:
            raise QueueStoreError(f"{self.path}: written by a newer SpeechStudio (schema {have}, this one "
                                  f"knows {SCHEMA_VERSION}); update SpeechStudio or move the file away")
        for version in range(have, SCHEMA_VERSION):
            try:
                self.db.executescript(f"BEGIN IMMEDIATE; {MIGRATIONS[version]}; PRAGMA user_version={version + 1}; "
                                      "COMMIT;")
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------ queue entries
    def add(self, path: str | os.PathLike, root: str | os.PathLike | None = None, *, model: str | None = None,
            output_dir: str | None = None, watch_id: int | None = None) -> int:
        """Queue one input at the end; returns its entry id."""
        pos = self.db.execute("SELECT COALESCE(MAX(position), 0) + 1 FROM jobs").fetchone()[0]
        cur = self.db.execute(
            "INSERT INTO jobs (path, root, status, position, model, output_dir, added_at, watch_id) "
            "VALUES (?, ?, 'queued', ?, ?, ?, ?, ?)",
            (_blob(path), _blob(root), pos, model, output_dir, time.time(), watch_id))
        return int(cur.lastrowid)

    def set_status(self, entry_id: int, status: str, *, reason: str = "", duration_s: float | None = None) -> None:
        """``queued`` / ``running`` (and back): no finish time. ``running`` records this process as
        the row's owner."""
        pid, started = (os.getpid(), _start_time(os.getpid())) if status == "running" else (None, None)
        self.db.execute("UPDATE jobs SET status=?, reason=?, duration_s=COALESCE(?, duration_s), owner_pid=?, "
                        "owner_started=? WHERE id=?", (status, reason, duration_s, pid, started, entry_id))

    def finish(self, entry_id: int, status: str, *, outputs=(), reason: str = "", duration_s: float | None = None,
               wall_s: float | None = None, model: str | None = None, language: str | None = None) -> None:
        """Record a finished entry (``status`` one of done, skipped, failed, cancelled)."""
        if status not in FINISHED:
            raise ValueError(f"not a finished status: {status!r}")
        self.db.execute(
            "UPDATE jobs SET status=?, outputs=?, reason=?, duration_s=COALESCE(?, duration_s), wall_s=?, "
            "model=COALESCE(?, model), language=?, finished_at=? WHERE id=?",
            (status, json.dumps([os.fspath(p) for p in outputs]),     # ASCII: odd bytes as \udcNN
             reason, duration_s, wall_s, model, language, time.time(), entry_id))

    def requeue(self, entry_id: int) -> None:
        self.db.execute("UPDATE jobs SET status='queued', reason='', finished_at=NULL, in_queue=1 WHERE id=?",
                        (entry_id,))

    def clear_from_queue(self, entry_ids) -> None:
        """Take rows off the queue view; they stay in the history."""
        self.db.executemany("UPDATE jobs SET in_queue=0 WHERE id=?", [(i,) for i in entry_ids])

    def remove(self, entry_id: int) -> None:
        """Delete an entry from the queue and the history (its output files are left alone)."""
        self.db.execute("DELETE FROM jobs WHERE id=?", (entry_id,))

    def queue(self) -> list[QueueEntry]:
        """The queue as the user left it (in order), finished items included."""
        return self._select("WHERE in_queue=1 ORDER BY position")

    def history(self, limit: int = 1000) -> list[QueueEntry]:
        """Finished entries, newest first."""
        return self._select("WHERE status IN ('done','skipped','failed','cancelled') "
                            "ORDER BY finished_at DESC, id DESC LIMIT ?", (limit,))

    def _select(self, where: str, args=()) -> list[QueueEntry]:
        cur = self.db.execute(
            "SELECT id, path, root, status, position, model, output_dir, outputs, reason, duration_s, wall_s, "
            f"added_at, finished_at, in_queue, language, watch_id FROM jobs {where}", args)
        return [QueueEntry(r[0], _path(r[1]), _path(r[2]), *r[3:7], tuple(Path(p) for p in json.loads(r[7] or "[]")),
                           *r[8:13], bool(r[13]), r[14], r[15]) for r in cur.fetchall()]

    # ------------------------------------------------------------------ watched folders
    def add_watch(self, folder: str | os.PathLike, output_dir: str | None = None) -> int:
        """Watch ``folder`` (absolute); files already in it count as seen. Returns the watch id."""
        folder = os.path.abspath(folder)
        self.db.execute("INSERT OR IGNORE INTO watched (folder, output_dir, added_at) VALUES (?, ?, ?)",
                        (_blob(folder), output_dir, time.time()))
        return int(self.db.execute("SELECT id FROM watched WHERE folder=?", (_blob(folder),)).fetchone()[0])

    def remove_watch(self, watch_id: int) -> None:
        self.db.execute("DELETE FROM watched WHERE id=?", (watch_id,))

    def watched(self) -> list[WatchedFolder]:
        return [WatchedFolder(r[0], _path(r[1]), r[2])
                for r in self.db.execute("SELECT id, folder, output_dir FROM watched ORDER BY id")]

    def mark_seen(self, watch_id: int, paths) -> None:
        self.db.executemany("INSERT OR IGNORE INTO watch_seen (watch_id, path) VALUES (?, ?)",
                            [(watch_id, _blob(p)) for p in paths])

    def seen(self, watch_id: int) -> set[Path]:
        return {_path(r[0]) for r in self.db.execute("SELECT path FROM watch_seen WHERE watch_id=?", (watch_id,))}
