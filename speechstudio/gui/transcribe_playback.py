"""The Transcribe page's I/O side (a mixin): probed durations, the selected row's transcript, segment
playback and export in another format."""
from __future__ import annotations

from pathlib import Path

from speechstudio.batch.export import write_transcript
from speechstudio.gui.common import chosen
from speechstudio.gui.save_places import ask_save_path
from speechstudio.gui.transcript_view import QueueRow
from speechstudio.gui.wording import plain_error
from speechstudio.worker.jobs import CallJob, ProbeResult


class TranscribePlaybackMixin:
    """Durations, transcript view, playback and export for the Transcribe page."""

    def _on_io_progress(self, job_id: int, payload) -> None:
        if job_id in self._probe_jobs and isinstance(payload, ProbeResult):
            for r in self.rows:
                if r.item.path == payload.path:
                    if payload.duration_s is not None and r.duration_s is None:
                        r.duration_s = payload.duration_s
                    self._refresh_row(r)

    def _on_io_finished(self, job_id: int, status: str, result) -> None:
        self._probe_jobs.discard(job_id)
        if job_id == getattr(self, "_export_job", None):
            self._export_job = None
            self.status_message.emit(f"exported {result}" if status == "done" else f"export failed: {plain_error(result)}")

    def _selected_row(self) -> QueueRow | None:
        return chosen(self.table, self.rows)

    def _show_selected(self) -> None:
        self.transcript.show_row(self._selected_row())

    def _play_segment(self, r: int, c: int = 0) -> None:
        row = self._selected_row()
        if row is None or not (0 <= r < len(row.segments)):
            return
        seg = row.segments[r]
        self.play_span(row.item.path, seg.start_s, seg.end_s)

    def play_span(self, path: Path, start_s: float, end_s: float) -> None:
        """Play ``start_s..end_s`` of ``path`` with the transcript's player (which decodes each file once)."""
        player = self.transcript.player
        if player is not None:
            player.set_source(path)
            player.play_span(start_s, end_s)

    def play_selected_segment(self) -> bool:
        """Space: play the selected segment (when nothing plays). Returns True if it started."""
        rows = self.segments.selectionModel().selectedRows() if self.segments.selectionModel() else []
        if not rows:
            return False
        self._play_segment(rows[0].row())
        return True

    def _export_dialog(self) -> None:
        row = self._selected_row()
        if row is None or row.info is None:
            return
        fmt = self.transcript.export_box.currentText()
        if path := ask_save_path(self, f"Export transcript as {fmt}", row.item.path.with_suffix(f".{fmt}").name,
                                 f"{fmt} (*.{fmt})"):
            self.export(row, fmt, Path(path))

    def export(self, row: QueueRow, fmt: str, path: Path) -> int:
        """Write ``row``'s transcript as ``fmt`` to ``path`` (on the I/O worker)."""
        job = CallJob(write_transcript, path, list(row.segments), row.info, fmt, description=f"export {path.name}")
        self._export_job = self.io.submit(job)
        self.status_message.emit(f"exporting {path.name}…")
        return self._export_job

