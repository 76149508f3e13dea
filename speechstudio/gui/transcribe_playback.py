"""The Transcribe page's I/O side (a mixin): probed durations, the selected row's transcript, segment
playback and export in another format."""
from __future__ import annotations

from pathlib import Path

from speechstudio.batch.export import write_transcript
from speechstudio.gui.common import fmt_ts
from speechstudio.gui.devices import has_device, why_not
from speechstudio.gui.save_places import ask_save_path
from speechstudio.gui.transcript_view import QueueRow
from speechstudio.gui.wording import plain_error
from speechstudio.worker.jobs import CallJob, LoadAudioJob, ProbeResult


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
            return
        if job_id == self._load_job:
            self._load_job = None
            if status != "done":
                self.status_message.emit(f"cannot play: {plain_error(result)}")
                return
            audio, sr = result
            path = self._loading_path
            self._audio_cache = (path, audio, sr)
            if self._pending_play is not None:
                a, b = self._pending_play
                self._pending_play = None
                self._play_span(audio, sr, a, b)

    def _selected_row(self) -> QueueRow | None:
        sel = self.table.selectionModel().selectedRows()
        i = sel[0].row() if sel else -1
        return self.rows[i] if 0 <= i < len(self.rows) else None

    def _show_selected(self) -> None:
        self.transcript.show_row(self._selected_row())

    def _play_segment(self, r: int, c: int = 0) -> None:
        row = self._selected_row()
        if row is None or not (0 <= r < len(row.segments)):
            return
        seg = row.segments[r]
        self.play_span(row.item.path, seg.start_s, seg.end_s)

    def play_span(self, path: Path, start_s: float, end_s: float) -> None:
        """Play ``start_s..end_s`` of ``path`` (decoded on the I/O worker, cached per file)."""
        if not has_device(self.audio, "speaker"):  # one no-device policy (gui.devices)
            self.status_message.emit(why_not(self.audio, "speaker"))
            return
        if self._audio_cache is not None and self._audio_cache[0] == path:
            _, audio, sr = self._audio_cache
            self._play_span(audio, sr, start_s, end_s)
            return
        self._pending_play = (start_s, end_s)
        if self._load_job is None or self._loading_path != path:
            self._loading_path = path
            self._load_job = self.io.submit(LoadAudioJob(path, 16000))
        self.status_message.emit(f"loading {path.name} for playback…")

    def _play_span(self, audio, sr: int, start_s: float, end_s: float) -> None:
        a, b = int(start_s * sr), int(end_s * sr)
        clip = audio[max(0, a):max(a + 1, b)]
        try:
            self.audio.play(clip, sr, source=self._audio_cache[0].name if self._audio_cache else "")
            span = f"{fmt_ts(start_s)}–{fmt_ts(end_s)}"
            self._span_playing = (self.audio.session, span)
            self.status_message.emit(f"playing {span}")
        except Exception as e:  # AudioUnavailableError
            self.status_message.emit(f"cannot play: {plain_error(e)}")

    def _on_playing_changed(self, playing: bool) -> None:
        """The segment's playback ended: the status line says "played …" (unless a later playback started since)."""
        mine = getattr(self, "_span_playing", None)
        if playing or mine is None or self.audio.playing or self.audio.session != mine[0]:
            return
        self._span_playing = None
        self.status_message.emit(f"played {mine[1]}")

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

