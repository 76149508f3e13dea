"""Watched folders: new media files are queued once they have stopped growing, by polling (network shares
and FUSE mounts too); what was there or queued before is remembered in the queue store (``watch_seen``).
The rules: docs/transcribe.md, Batch."""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from speechstudio.batch.queue_store import QueueStore, WatchedFolder
from speechstudio.batch.run import collect_inputs


def media_files(folder: Path) -> list[Path]:
    """Media files under ``folder`` (recursively), as a batch would take them."""
    items, _ = collect_inputs([folder], recursive=True)
    return [it.path for it in items]


class FolderWatcher:
    """Finds new, settled media files in ``store``'s watched folders (the files already seen are kept there):
    a file's size and mtime unchanged for ``settle_s`` seconds; ``clock``: monotonic seconds."""

    def __init__(self, store: QueueStore, settle_s: float = 2.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.store, self.settle_s, self.clock = store, settle_s, clock
        self._pending: dict[Path, tuple[tuple[int, int], float]] = {}

    def watch(self, folder: str | os.PathLike, output_dir: str | None = None) -> WatchedFolder:
        """Start watching ``folder``: what is in it now is not queued, only what arrives later."""
        wid = self.store.add_watch(folder, output_dir)
        self.store.mark_seen(wid, media_files(Path(os.path.abspath(folder))))
        return next(w for w in self.store.watched() if w.id == wid)

    def poll(self) -> list[tuple[WatchedFolder, Path]]:
        """One look at every watched folder. Returns ``(folder, file)`` for each file that became
        ready; they are marked seen (the caller queues them). A missing folder (an unplugged
        drive) is passed over and looked at again next time."""
        ready: list[tuple[WatchedFolder, Path]] = []
        now = self.clock()
        for w in self.store.watched():
            if not w.folder.is_dir():
                continue
            seen = self.store.seen(w.id)
            for path in media_files(w.folder):
                if path in seen:
                    continue
                try:
                    st = path.stat()
                except OSError:
                    continue
                sig = (st.st_size, st.st_mtime_ns)
                before = self._pending.get(path)
                if before is None or before[0] != sig or st.st_size == 0:
                    self._pending[path] = (sig, now)
                elif now - before[1] >= self.settle_s:
                    ready.append((w, path))
                    del self._pending[path]
            self.store.mark_seen(w.id, [p for f, p in ready if f.id == w.id])
        return ready
