"""The Transcribe page's controller (a mixin): Start, the worker's events, the batch's summary, pause,
cancel, retry and clear, each kept in the queue database."""
from __future__ import annotations

import logging
import time
from collections import Counter

from PySide6.QtCore import QSignalBlocker

from speechstudio.batch.run import BatchSummary
from speechstudio.gui.common import show_error
from speechstudio.gui.transcript_view import QueueRow, load_json_transcript
from speechstudio.gui.wording import model_status, plain_error
from speechstudio.worker.jobs import TranscribeBatchJob
from speechstudio.worker.status import Status

log = logging.getLogger(__name__)


class TranscribeRunMixin:
    """Running the queue (uses the page's widgets, ``rows``, ``compute`` and ``keeper``)."""

    def start(self) -> None:
        """Transcribe the queued rows in one batch job (output names planned together); rows a watched
        folder sends elsewhere run as their own group, right after."""
        if self.job is not None:
            return
        self._requeue(("cancelled",))  # Start after Cancel: the cancelled files run again
        queued = [r for r in self.rows if r.status == "queued"]
        if not queued:
            self.status_message.emit("nothing queued: add files or folders first")
            return
        if not self.formats():
            self.status_message.emit("choose at least one output format")
            return
        out = getattr(queued[0], "output_dir", None)
        todo = [r for r in queued if getattr(r, "output_dir", None) == out]
        if not self._continue or self._batch is None:
            self._batch, self._batch_t0 = BatchSummary(), time.perf_counter()
            self.report.hide()
        self._continue = False
        self.pause_btn.setChecked(False)
        self.running = True
        self._job_rows = {r.item.path: r for r in todo}
        request = self.options()
        self.job = TranscribeBatchJob([r.item for r in todo], request.replace(output_dir=out) if out else request)
        self.compute.submit(self.job)
        for r in todo:
            r.progress, r.reason, r.rtfx, r.position_s = 0.0, "", None, 0.0
            self._refresh_row(r)
        self._update_buttons()
        self._update_summary()

    def _on_started(self, job_id: int, desc: str) -> None:
        if self.job is not None and job_id == self.job.id:
            self._t_start = time.perf_counter()

    def _on_progress(self, job_id: int, payload) -> None:
        if self.job is None or job_id != self.job.id:
            return
        if isinstance(payload, Status):
            if payload.kind != "progress":
                log.info("%s", payload)  # the loader's line (source, device, advice) goes to the log
            self.status_message.emit(model_status(payload.kind, payload.value) or str(payload))
            return
        if type(payload).__name__ == "TranscriptInfo":
            if self.current is not None:
                self.current.info = payload
            return
        item = getattr(payload, "item", None)
        row = self._job_rows.get(item.path) if item is not None else self.current
        if row is None:
            return
        kind = getattr(payload, "kind", None)
        if self._batch is not None and kind is not None:
            self._batch.add(payload)
        if kind == "start":
            self.current = row
            row.status, row.segments, row.progress, row.position_s = "running", [], 0.0, 0.0
            if payload.duration_s:
                row.duration_s = payload.duration_s
            self._t_start = time.perf_counter()
            self.keeper.running(row)
            self._update_summary()          # "1 transcribing, 2 queued", not the counts before the file began
        elif kind == "segment":             # Whisper and CTC segments as they are decoded
            row.segments.append(payload.segment)
            row.position_s = payload.position_s
            if row.duration_s:
                row.progress = min(1.0, payload.position_s / row.duration_s)
            el = time.perf_counter() - self._t_start
            if el > 0 and payload.position_s:
                row.rtfx = payload.position_s / el
            if self._selected_row() is row:
                self._show_selected()
        elif kind in ("done", "skipped", "failed", "cancelled"):
            self._finish_row(row, payload)
            return
        self._refresh_row(row)

    def _finish_row(self, row: QueueRow, ev) -> None:
        if ev.kind == "cancelled":
            row.status, row.reason, row.progress, row.segments = "cancelled", "cancelled (nothing written)", 0.0, []
        else:
            row.status, row.reason, row.outputs = ev.kind, ev.reason, tuple(ev.outputs)
            if ev.kind == "done":
                row.progress = 1.0
                if getattr(ev, "segments", ()):
                    row.segments = list(ev.segments)     # speaker labels come at the end
                if getattr(ev, "info", None) is not None:
                    row.info = ev.info                   # with the speakers and how sure their count is
                row.duration_s = ev.duration_s or row.duration_s
                if ev.wall_s > 0 and ev.duration_s:
                    row.rtfx = ev.duration_s / ev.wall_s
                if ev.warnings:
                    row.reason = "; ".join(ev.warnings)
            elif ev.kind == "skipped":
                row.reason, row.progress = "\n".join((ev.reason, *ev.warnings)), 1.0
                load_json_transcript(row)
            elif ev.kind == "failed":
                self.status_message.emit(f"failed: {row.reason}")
                if ev.reason.startswith("cannot write outputs: "):  # batch.FATAL_PREFIX: the batch stops
                    self._fatal = ev.reason
        if row is self.current:
            self.current = None
        self.keeper.finished(row, getattr(row.info, "model_id", None) or self.options().model)
        self._refresh_row(row)
        self._update_summary()
        if self._selected_row() is row:
            self._show_selected()

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if self.job is None or job_id != self.job.id:
            return
        paused = self.job.pause.is_set()
        self.job = None
        self.current = None
        self.running = False
        for r in self._job_rows.values():  # not reached (paused / cancelled / stopped): still queued
            if r.status == "running":
                r.status, r.reason, r.progress, r.segments = "cancelled", "cancelled (nothing written)", 0.0, []
                self.keeper.finished(r)
            self._refresh_row(r)
        self._job_rows = {}
        self._update_buttons()
        self._update_summary()
        if status == "failed":
            # not a bad input (those are rows marked failed) but the model / recogniser: say so
            self.last_error = str(result)
            self.status_message.emit(f"transcription stopped: {plain_error(result)}")
            show_error(self, "Cannot transcribe", plain_error(result))
            return
        note = ""      # why the queue stopped, kept in front of the batch's summary
        if paused:
            with QSignalBlocker(self.pause_btn):
                self.pause_btn.setChecked(False)
        if self._fatal:
            fatal, self._fatal = self._fatal, ""
            note = f"stopped: {fatal}"
            show_error(self, "Transcription stopped", fatal)
        elif status == "cancelled":
            note = "cancelled; the file in progress was not written"
        elif paused and any(r.status == "queued" for r in self.rows):
            note = "paused; press Start to go on"
        elif any(r.status == "queued" for r in self.rows):    # another output folder's group
            self._continue = True
            self.start()
            return
        if self._batch is not None:
            self._batch.wall_s = time.perf_counter() - self._batch_t0
            summary = self.report.show_summary(self._batch, self._batch.wall_s)
            note = f"{note} · {summary}" if note else summary
        if note:
            self.status_message.emit(note)
        self.queue_finished.emit()

    def _on_pause_toggled(self, on: bool) -> None:
        if self.job is not None:
            if on:
                self.job.pause.set()
                self.status_message.emit("will pause after the current file")
            else:
                self.job.pause.clear()
        self._update_buttons()

    def cancel(self) -> None:
        """Stop the running file now (nothing is written for it) and stop the queue."""
        self.running = False
        if self.job is not None:
            self.compute.cancel(self.job.id)
            self.status_message.emit("cancelling…")
        self._update_buttons()

    def _requeue(self, statuses) -> int:
        """Put the rows whose status is in ``statuses`` back in the queue; returns how many."""
        again = [r for r in self.rows if r.status in statuses]
        for r in again:
            r.status, r.reason, r.progress, r.rtfx = "queued", "", 0.0, None
            self.keeper.requeued(r)
            self._refresh_row(r)
        return len(again)

    def retry_failed(self) -> None:
        n = self._requeue(("failed", "cancelled"))
        self.status_message.emit(f"retrying {n} file{'s' if n != 1 else ''}")
        if n:
            self.start()

    def remove_rows(self, indexes) -> int:
        """Take the rows at ``indexes`` off the queue (not the one running); returns how many.
        A row that never ran leaves no history; a finished one stays in History."""
        drop = {i for i in indexes if 0 <= i < len(self.rows)
                and self.rows[i].status != "running" and self.rows[i] not in self._job_rows.values()}
        if not drop:
            return 0
        for i in sorted(drop):
            self.keeper.removed(self.rows[i])
        self._show_only([r for i, r in enumerate(self.rows) if i not in drop])
        self.status_message.emit(f"removed {len(drop)} file{'s' if len(drop) != 1 else ''} from the queue")
        return len(drop)

    def remove_selected(self) -> int:
        """Delete key / context menu: take the selected rows off the queue."""
        sel = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return self.remove_rows([s.row() for s in sel])

    def clear_finished(self) -> None:
        """Take finished rows off the queue (they stay in History)."""
        keep = [r for r in self.rows if r.status in ("queued", "running") or r in self._job_rows.values()]
        self.keeper.cleared([r for r in self.rows if r not in keep])
        self._show_only(keep)

    def _show_only(self, keep) -> None:
        """The queue table holds ``keep`` (rows in order); the transcript view is cleared."""
        self.rows = []
        self.table.setRowCount(0)
        for r in keep:
            self._append(r)
        self.segments.setRowCount(0)
        self._update_summary()
        self._update_buttons()

    def _update_buttons(self) -> None:
        busy = self.job is not None
        self.start_btn.setEnabled(not busy and any(r.status in ("queued", "cancelled") for r in self.rows))
        self.pause_btn.setEnabled(busy)              # nothing to pause when nothing runs
        self.cancel_btn.setEnabled(busy)
        self.retry_btn.setEnabled(any(r.status in ("failed", "cancelled") for r in self.rows))

    def _update_summary(self) -> None:
        if not self.rows:
            self.summary.setText("Drop audio/video files or folders here.")
            return
        counts = Counter(r.status for r in self.rows)
        order = ("done", "running", "loading", "queued", "skipped", "failed", "cancelled", "ignored")
        self.summary.setText(", ".join(f"{counts[k]} {'transcribing' if k == 'running' else k}"
                                       for k in order if counts.get(k)))

