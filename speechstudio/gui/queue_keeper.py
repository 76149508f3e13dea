"""Keeps the Transcribe page's queue rows in the queue database, so a restart shows the same queue and
Start goes on where it stopped."""
from __future__ import annotations

import logging

from speechstudio.batch.queue_store import QueueStore, QueueStoreError
from speechstudio.batch.run import InputItem
from speechstudio.gui.transcript_view import QueueRow, load_json_transcript

log = logging.getLogger(__name__)


class QueueKeeper:
    """Row <-> database bookkeeping; ``store`` is ``None`` when the database is unusable (``problem`` says why)."""

    def __init__(self, store: QueueStore | None = None) -> None:
        self.problem = ""
        if store is None:
            try:
                store = QueueStore()
            except (QueueStoreError, OSError) as e:
                self.problem = f"the queue will not be kept after a restart: {e}"
                log.warning("%s", self.problem)
        self.store = store

    def restore(self) -> list:
        """Rows for the queue as it was left (finished rows with their outputs and transcripts)."""
        if self.store is None:
            return []
        rows = []
        for rec in self.store.queue():
            row = QueueRow(InputItem(rec.path, rec.root), status=rec.status, duration_s=rec.duration_s,
                           outputs=rec.outputs, reason=rec.reason, rtfx=rec.rtfx,
                           progress=1.0 if rec.status in ("done", "skipped") else 0.0)
            row.store_id = rec.id
            row.output_dir = rec.output_dir
            if rec.status in ("done", "skipped"):
                load_json_transcript(row)
            rows.append(row)
        return rows

    def added(self, row, model: str | None = None, watch_id: int | None = None) -> None:
        if self.store is not None:
            row.store_id = self.store.add(row.item.path, row.item.root, model=model,
                                          output_dir=getattr(row, "output_dir", None), watch_id=watch_id)

    def running(self, row) -> None:
        if self._id(row) is not None:
            self.store.set_status(row.store_id, "running", duration_s=row.duration_s)

    def finished(self, row, model: str | None = None) -> None:
        if self._id(row) is None:
            return
        if row.status == "queued":
            self.store.set_status(row.store_id, "queued")
            return
        wall = row.duration_s / row.rtfx if row.rtfx and row.duration_s else None
        language = getattr(row.info, "language", None)
        self.store.finish(row.store_id, row.status, outputs=row.outputs, reason=row.reason,
                          duration_s=row.duration_s, wall_s=wall, model=model, language=language)

    def requeued(self, row) -> None:
        if self._id(row) is not None:
            self.store.requeue(row.store_id)

    def removed(self, row) -> None:
        """A row taken off the queue before it ran: it never happened, so it leaves no history."""
        if self._id(row) is not None:
            if row.status in ("queued", "cancelled", "failed", "ignored"):
                self.store.remove(row.store_id)
            else:
                self.store.clear_from_queue([row.store_id])

    def cleared(self, rows) -> None:
        if self.store is not None:
            self.store.clear_from_queue([r.store_id for r in rows if getattr(r, "store_id", None) is not None])

    def _id(self, row):
        return getattr(row, "store_id", None) if self.store is not None else None
