"""Transcribe page: drop files/folders, a queue table, start / pause after current / cancel / retry,
model + device + precision + formats, the transcript of the selected file (click a segment to hear
it) and export in another format.

The page is a view + a small controller: it keeps one :class:`QueueRow` per input and feeds the
compute engine one :class:`~speechstudio.worker.jobs.TranscribeFileJob` at a time (so "pause after
current" and option changes apply from the next file). Durations are probed and audio for segment
playback is decoded on the I/O engine. Nothing here imports torch.
"""
from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFileDialog, QHBoxLayout, QHeaderView,
                               QLabel, QProgressBar, QPushButton, QSplitter, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from speechstudio.worker.jobs import LoadAudioJob, ProbeJob, ProbeResult, TranscribeBatchJob, TranscribeOptions
from speechstudio.worker.status import Status
from speechstudio.gui.drop_paths import display_name, paths_from_urls
from speechstudio.gui.common import DEFAULT_MODEL, ModelPicker, device_picker, fmt_duration, fmt_ts, setting_list, settings
from speechstudio.gui.transcribe_options import LanguageOptions, language_tip, status_with_language
from speechstudio.gui.transcript_view import QueueRow, TranscriptView, load_json_transcript

FORMATS = ("txt", "srt", "vtt", "json")
COLS = ("File", "Duration", "Status", "Progress", "RTFx", "Output")


class TranscribePage(QWidget):
    status_message = Signal(str)
    queue_finished = Signal()

    def __init__(self, compute, io, audio, parent=None) -> None:
        super().__init__(parent)
        self.compute, self.io, self.audio = compute, io, audio
        self.rows: list[QueueRow] = []
        self.running = False
        self.current: QueueRow | None = None
        self.job = None  # the running TranscribeBatchJob
        self._job_rows: dict = {}
        self._fatal = ""
        self._t_start = 0.0
        self._audio_cache: tuple[Path, object, int] | None = None
        self._pending_play: tuple[float, float] | None = None
        self._load_job: int | None = None
        self._loading_path: Path | None = None
        self._probe_jobs: set[int] = set()
        self.last_error = ""
        self.setAcceptDrops(True)
        self._build()
        self._restore()
        compute.job_started.connect(self._on_started)
        compute.job_progress.connect(self._on_progress)
        compute.job_finished.connect(self._on_finished)
        io.job_progress.connect(self._on_io_progress)
        io.job_finished.connect(self._on_io_finished)

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        lay = QVBoxLayout(self)
        top = QHBoxLayout()
        self.add_files_btn = QPushButton("Add files…")
        self.add_files_btn.setToolTip("Add audio or video files (Ctrl+O)")
        self.add_folder_btn = QPushButton("Add folder…")
        self.add_folder_btn.setToolTip("Add a folder and everything in it (Ctrl+Shift+O)")
        self.clear_btn = QPushButton("Clear finished")
        for b, n in ((self.add_files_btn, "Add files"), (self.add_folder_btn, "Add folder"),
                     (self.clear_btn, "Clear finished rows")):
            b.setAccessibleName(n)
            top.addWidget(b)
        top.addSpacing(16)
        top.addWidget(QLabel("Model"))
        self.model_box = ModelPicker("Model", "Installed model name, Hugging Face id, or a model folder")
        top.addWidget(self.model_box, 1)
        top.addWidget(QLabel("Device"))
        self.device_box = device_picker("Device")
        top.addWidget(self.device_box)
        top.addWidget(QLabel("Precision"))
        self.precision_box = QComboBox()
        self.precision_box.addItems(["auto", "fp32", "fp16", "bf16"])
        self.precision_box.setAccessibleName("Precision")
        top.addWidget(self.precision_box)
        lay.addLayout(top)

        row2 = QHBoxLayout()
        row2.addWidget(QLabel("Formats"))
        self.format_checks: dict[str, QCheckBox] = {}
        for f in FORMATS:
            c = QCheckBox(f)
            c.setAccessibleName(f"Write {f}")
            self.format_checks[f] = c
            row2.addWidget(c)
        row2.addSpacing(16)
        self.out_label = QLabel()
        self.out_label.setAccessibleName("Output folder")
        self.out_btn = QPushButton("Output folder…")
        self.out_btn.setAccessibleName("Choose output folder")
        self.out_reset = QPushButton("Next to inputs")
        self.out_reset.setAccessibleName("Write outputs next to the inputs")
        self.overwrite_check = QCheckBox("Redo finished files")
        self.overwrite_check.setAccessibleName("Overwrite existing transcripts")
        row2.addWidget(self.out_btn)
        row2.addWidget(self.out_reset)
        row2.addWidget(self.out_label, 1)
        row2.addWidget(self.overwrite_check)
        lay.addLayout(row2)

        self.language_options = LanguageOptions()
        self.language_box = self.language_options.language_box
        self.task_box = self.language_options.task_box
        self.vocabulary = self.language_options.vocabulary
        lay.addWidget(self.language_options)

        row3 = QHBoxLayout()
        self.start_btn = QPushButton("Start")
        self.start_btn.setToolTip("Transcribe the queue (Ctrl+Enter)")
        self.pause_btn = QPushButton("Pause after current")
        self.pause_btn.setCheckable(True)
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setToolTip("Stop the running file now; nothing is written for it (Esc)")
        self.retry_btn = QPushButton("Retry failed")
        for b, n in ((self.start_btn, "Start transcription"), (self.pause_btn, "Pause after current file"),
                     (self.cancel_btn, "Cancel transcription"), (self.retry_btn, "Retry failed files")):
            b.setAccessibleName(n)
            row3.addWidget(b)
        self.summary = QLabel("Drop audio/video files or folders here.")
        self.summary.setAccessibleName("Queue summary")
        row3.addWidget(self.summary, 1)
        lay.addLayout(row3)

        split = QSplitter(Qt.Orientation.Vertical)
        self.table = QTableWidget(0, len(COLS))
        self.table.setHorizontalHeaderLabels(COLS)
        self.table.setAccessibleName("Transcription queue")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        h = self.table.horizontalHeader()
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        h.setStretchLastSection(True)
        self.table.setColumnWidth(0, 260)
        self.table.setColumnWidth(1, 70)
        self.table.setColumnWidth(2, 260)
        self.table.setColumnWidth(3, 110)
        self.table.setColumnWidth(4, 60)
        split.addWidget(self.table)

        self.transcript = TranscriptView(FORMATS, audio=self.audio, io=self.io)
        self.transcript.status_message.connect(self.status_message)
        self.segments = self.transcript.segments
        self.transcript_title = self.transcript.title
        self.export_box = self.transcript.export_box
        self.export_btn = self.transcript.export_btn
        split.addWidget(self.transcript)
        split.setSizes([320, 240])
        lay.addWidget(split, 1)

        self.add_files_btn.clicked.connect(self.add_files_dialog)
        self.add_folder_btn.clicked.connect(self.add_folder_dialog)
        self.clear_btn.clicked.connect(self.clear_finished)
        self.start_btn.clicked.connect(self.start)
        self.pause_btn.toggled.connect(self._on_pause_toggled)
        self.cancel_btn.clicked.connect(self.cancel)
        self.retry_btn.clicked.connect(self.retry_failed)
        self.out_btn.clicked.connect(self._choose_output)
        self.out_reset.clicked.connect(lambda: self._set_output_dir(None))
        self.model_box.currentTextChanged.connect(self.language_options.set_model)
        self.table.itemSelectionChanged.connect(self._show_selected)
        self.segments.cellClicked.connect(self._play_segment)
        self.export_btn.clicked.connect(self._export_dialog)
        self._update_buttons()

    def _restore(self) -> None:
        s = settings()
        formats = setting_list(s, "transcribe/formats", list(FORMATS))
        for f, c in self.format_checks.items():
            c.setChecked(f in formats)
        model = s.value("transcribe/model", DEFAULT_MODEL) or DEFAULT_MODEL
        self.model_box.setCurrentText(str(model))
        self.language_options.set_model(str(model))
        self.language_options.restore()
        self.device_box.setCurrentText(str(s.value("transcribe/device", "auto")))
        self.precision_box.setCurrentText(str(s.value("transcribe/precision", "auto")))
        self._set_output_dir(s.value("transcribe/output_dir", "") or None)

    def save_settings(self) -> None:
        s = settings()
        s.setValue("transcribe/formats", ",".join(self.formats()))
        s.setValue("transcribe/model", self.model_box.currentText())
        s.setValue("transcribe/device", self.device_box.currentText())
        s.setValue("transcribe/precision", self.precision_box.currentText())
        s.setValue("transcribe/output_dir", self.output_dir or "")
        self.language_options.save()

    def set_models(self, names: list[str]) -> None:
        """Fill the model picker with installed model names (keeps the current text)."""
        self.model_box.set_models(names)

    # ------------------------------------------------------------------ options
    def formats(self) -> tuple[str, ...]:
        return tuple(f for f, c in self.format_checks.items() if c.isChecked())

    def options(self) -> TranscribeOptions:
        model = self.model_box.currentText().strip()
        return TranscribeOptions(model=None if model in ("", DEFAULT_MODEL) else model,
                                 device=self.device_box.currentText(), precision=self.precision_box.currentText(),
                                 formats=self.formats() or ("txt",), output_dir=self.output_dir,
                                 overwrite=self.overwrite_check.isChecked(),
                                 language=self.language_options.language(), task=self.language_options.task(),
                                 hotwords=self.language_options.hotwords())

    def _set_output_dir(self, path: str | None) -> None:
        self.output_dir = path
        self.out_label.setText(f"Output: {path}" if path else "Output: next to each input")

    def _choose_output(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Output folder", self.output_dir or str(Path.home()))
        if d:
            self._set_output_dir(d)

    # ------------------------------------------------------------------ adding inputs
    def add_files_dialog(self) -> None:
        s = settings()
        files, _ = QFileDialog.getOpenFileNames(self, "Add audio or video files", str(s.value("last_dir", Path.home())),
                                                "Audio/video (*.wav *.flac *.mp3 *.ogg *.opus *.m4a *.aac *.mp4 "
                                                "*.mkv *.webm *.mov *.raw *.pcm);;All files (*)")
        if files:
            s.setValue("last_dir", str(Path(files[0]).parent))
            self.add_paths(files)

    def add_folder_dialog(self) -> None:
        s = settings()
        d = QFileDialog.getExistingDirectory(self, "Add a folder", str(s.value("last_dir", Path.home())))
        if d:
            s.setValue("last_dir", d)
            self.add_paths([d])

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt API
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        paths = paths_from_urls(event.mimeData().urls())
        if paths:
            event.acceptProposedAction()
            self.add_paths(paths)

    def add_paths(self, paths) -> int:
        """Add files and folders (recursively) to the queue; returns how many inputs were added.
        Folder entries that are not media are listed as "ignored" with the reason."""
        from speechstudio.batch.run import collect_inputs

        items, ignored = collect_inputs(paths, recursive=True)
        known = {r.item.path.resolve() for r in self.rows}
        new = [it for it in items if it.path.resolve() not in known]
        for it in new:
            self._append(QueueRow(it))
        from speechstudio.batch.run import InputItem

        for p, reason in ignored:
            if p.resolve() not in known:
                self._append(QueueRow(InputItem(p, None), status="ignored", reason=reason))
        if new:
            job = ProbeJob([it.path for it in new])
            self._probe_jobs.add(self.io.submit(job))
        self.status_message.emit(f"added {len(new)} file{'s' if len(new) != 1 else ''}"
                                 + (f", {len(ignored)} ignored" if ignored else ""))
        self._update_summary()
        self._update_buttons()
        return len(new)

    def _append(self, row: QueueRow) -> None:
        self.rows.append(row)
        r = self.table.rowCount()
        self.table.insertRow(r)
        for c in range(len(COLS)):
            if c == 3:
                bar = QProgressBar()
                bar.setRange(0, 100)
                bar.setAccessibleName(f"Progress of {row.item.path.name}")
                self.table.setCellWidget(r, c, bar)
            else:
                self.table.setItem(r, c, QTableWidgetItem(""))
        self._refresh_row(row)

    def _row_index(self, row: QueueRow) -> int:
        return self.rows.index(row)

    def _refresh_row(self, row: QueueRow) -> None:
        r = self._row_index(row)
        t = self.table
        t.item(r, 0).setText(display_name(row.item.path))
        t.item(r, 0).setToolTip(display_name(row.item.path, full=True))
        t.item(r, 1).setText(fmt_duration(row.duration_s) if row.duration_s is not None else "")
        text = {"queued": "queued", "running": "transcribing", "done": "done", "cancelled": "cancelled (nothing written)",
                "skipped": "skipped: already transcribed", "loading": "loading model…"}.get(row.status, row.status)
        if row.status in ("failed", "ignored"):
            short = row.reason.replace(str(row.item.path) + ": ", "")
            text = f"{row.status}: {short}"
        elif row.status == "done" and row.reason:  # decode warnings (e.g. truncated file)
            text = f"done ⚠ {row.reason.replace(str(row.item.path) + ': ', '')}"
        tip = row.reason or text
        if row.status == "done" and getattr(row.info, "language", None):
            text, tip = status_with_language(text, row.info), f"{tip}\n{language_tip(row.info)}"
        t.item(r, 2).setText(text)
        t.item(r, 2).setToolTip(tip)
        colors = {"done": Qt.GlobalColor.darkGreen, "failed": Qt.GlobalColor.red, "ignored": Qt.GlobalColor.gray,
                  "cancelled": Qt.GlobalColor.darkYellow, "skipped": Qt.GlobalColor.darkCyan}
        if row.status in colors:
            t.item(r, 2).setForeground(colors[row.status])
        else:
            t.item(r, 2).setForeground(self.palette().text().color())
        bar = t.cellWidget(r, 3)
        if bar is not None:
            bar.setValue(int(round(100 * row.progress)))
            bar.setVisible(row.status not in ("failed", "ignored"))
        t.item(r, 4).setText(f"{row.rtfx:.1f}" if row.rtfx else "")
        out = " · ".join(p.suffix.lstrip(".") for p in row.outputs)
        if row.outputs:
            out += f"  in {row.outputs[0].parent.name or row.outputs[0].parent}"
        t.item(r, 5).setText(out)
        t.item(r, 5).setToolTip("\n".join(str(p) for p in row.outputs))

    # ------------------------------------------------------------------ running
    def start(self) -> None:
        """Transcribe every queued row in one batch job (so output names are planned together:
        ``talk.wav`` + ``talk.mp3`` in one folder get distinct transcripts)."""
        if self.job is not None:
            return
        todo = [r for r in self.rows if r.status == "queued"]
        if not todo:
            self.status_message.emit("nothing queued: add files or folders first")
            return
        if not self.formats():
            self.status_message.emit("choose at least one output format")
            return
        self.pause_btn.setChecked(False)
        self.running = True
        self._job_rows = {r.item.path: r for r in todo}
        self.job = TranscribeBatchJob([r.item for r in todo], self.options())
        self.compute.submit(self.job)
        for r in todo:
            r.progress, r.reason, r.rtfx = 0.0, "", None
            self._refresh_row(r)
        self._update_buttons()
        self._update_summary()

    def _row_for_event(self, job_id: int, payload) -> QueueRow | None:
        if self.job is None or job_id != self.job.id:
            return None
        item = getattr(payload, "item", None)
        return self._job_rows.get(item.path) if item is not None else self.current

    def _on_started(self, job_id: int, desc: str) -> None:
        if self.job is not None and job_id == self.job.id:
            self._t_start = time.perf_counter()

    def _on_progress(self, job_id: int, payload) -> None:
        if self.job is None or job_id != self.job.id:
            return
        if isinstance(payload, Status):
            self.status_message.emit(str(payload))
            return
        if type(payload).__name__ == "TranscriptInfo":
            if self.current is not None:
                self.current.info = payload
            return
        row = self._row_for_event(job_id, payload)
        if row is None:
            return
        kind = getattr(payload, "kind", None)
        if kind == "start":
            self.current = row
            row.status, row.segments, row.progress = "running", [], 0.0
            if payload.duration_s:
                row.duration_s = payload.duration_s
            self._t_start = time.perf_counter()
        elif kind == "segment":
            row.segments.append(payload.segment)
            if row.duration_s:
                row.progress = min(1.0, payload.position_s / row.duration_s)
            el = time.perf_counter() - self._t_start
            if el > 0 and payload.position_s:
                row.rtfx = payload.position_s / el
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
                row.duration_s = ev.duration_s or row.duration_s
                if ev.wall_s > 0 and ev.duration_s:
                    row.rtfx = ev.duration_s / ev.wall_s
                if ev.warnings:
                    row.reason = "; ".join(ev.warnings)
            elif ev.kind == "skipped":
                row.progress = 1.0
                load_json_transcript(row)
            elif ev.kind == "failed":
                self.status_message.emit(f"failed: {row.reason}")
                if ev.reason.startswith("cannot write outputs: "):  # batch.FATAL_PREFIX: the batch stops
                    self._fatal = ev.reason
        if row is self.current:
            self.current = None
        self._refresh_row(row)
        self._update_summary()
        if self._selected_row() is row:
            self._show_selected()

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if self.job is None or job_id != self.job.id:
            return
        self.job = None
        self.current = None
        self.running = False
        for r in self._job_rows.values():  # not reached (paused / cancelled / stopped): still queued
            if r.status == "running":
                r.status, r.progress, r.segments = "cancelled", 0.0, []
                r.reason = "cancelled (nothing written)"
            self._refresh_row(r)
        self._job_rows = {}
        self._update_buttons()
        self._update_summary()
        if status == "failed":
            # not a bad input (those are rows marked failed) but the model / engine: say so
            self.last_error = str(result)
            self.status_message.emit(f"transcription stopped: {result}")
            from speechstudio.gui.common import show_error

            show_error(self, "Cannot transcribe", str(result))
            return
        if self._fatal:
            fatal, self._fatal = self._fatal, ""
            self.status_message.emit(f"stopped: {fatal}")
            from speechstudio.gui.common import show_error

            show_error(self, "Transcription stopped", fatal)
        elif status == "cancelled":
            self.status_message.emit("cancelled; the file in progress was not written")
        elif any(r.status == "queued" for r in self.rows):
            self.status_message.emit("paused; press Start to go on")
        else:
            self.status_message.emit(self.summary.text())
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

    def retry_failed(self) -> None:
        n = 0
        for r in self.rows:
            if r.status in ("failed", "cancelled"):
                r.status, r.reason, r.progress, r.rtfx = "queued", "", 0.0, None
                self._refresh_row(r)
                n += 1
        self.status_message.emit(f"retrying {n} file{'s' if n != 1 else ''}")
        if n:
            self.start()

    def clear_finished(self) -> None:
        keep = [r for r in self.rows if r.status in ("queued", "running") or r in self._job_rows.values()]
        self.rows = []
        self.table.setRowCount(0)
        for r in keep:
            self._append(r)
        self.segments.setRowCount(0)
        self._update_summary()
        self._update_buttons()

    def _update_buttons(self) -> None:
        busy = self.job is not None
        self.start_btn.setEnabled(not busy and any(r.status == "queued" for r in self.rows))
        self.cancel_btn.setEnabled(busy)
        self.retry_btn.setEnabled(any(r.status in ("failed", "cancelled") for r in self.rows))

    def _update_summary(self) -> None:
        counts: dict[str, int] = {}
        for r in self.rows:
            counts[r.status] = counts.get(r.status, 0) + 1
        if not self.rows:
            self.summary.setText("Drop audio/video files or folders here.")
            return
        order = ("done", "running", "loading", "queued", "skipped", "failed", "cancelled", "ignored")
        self.summary.setText(", ".join(f"{counts[k]} {'transcribing' if k == 'running' else k}"
                                       for k in order if counts.get(k)))

    # ------------------------------------------------------------------ durations / audio
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
            self.status_message.emit(f"exported {result}" if status == "done" else f"export failed: {result}")
            return
        if job_id == self._load_job:
            self._load_job = None
            if status != "done":
                self.status_message.emit(f"cannot play: {result}")
                return
            audio, sr = result
            path = self._loading_path
            self._audio_cache = (path, audio, sr)
            if self._pending_play is not None:
                a, b = self._pending_play
                self._pending_play = None
                self._play_span(audio, sr, a, b)

    # ------------------------------------------------------------------ transcript view
    def _selected_row(self) -> QueueRow | None:
        sel = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not sel:
            return None
        i = sel[0].row()
        return self.rows[i] if 0 <= i < len(self.rows) else None

    def select_row(self, index: int) -> None:
        self.table.selectRow(index)

    def _show_selected(self) -> None:
        self.transcript.show_row(self._selected_row())

    def _play_segment(self, r: int, c: int = 0) -> None:
        row = self._selected_row()
        if row is None or not (0 <= r < len(row.segments)):
            return
        seg = row.segments[r]
        self.play_span(row.item.path, seg.start_s, seg.end_s)

    def play_span(self, path: Path, start_s: float, end_s: float) -> None:
        """Play ``start_s..end_s`` of ``path`` (decoded on the I/O engine, cached per file)."""
        if not self.audio.available:
            self.status_message.emit(f"playback unavailable: {self.audio.reason}")
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
            self.audio.play(clip, sr)
            self.status_message.emit(f"playing {fmt_ts(start_s)}–{fmt_ts(end_s)}")
        except Exception as e:  # AudioUnavailableError
            self.status_message.emit(f"cannot play: {e}")

    def play_selected_segment(self) -> bool:
        """Space: play the selected segment (when nothing plays). Returns True if it started."""
        rows = self.segments.selectionModel().selectedRows() if self.segments.selectionModel() else []
        if not rows:
            return False
        self._play_segment(rows[0].row())
        return True

    # ------------------------------------------------------------------ export again
    def _export_dialog(self) -> None:
        row = self._selected_row()
        if row is None or row.info is None:
            return
        fmt = self.export_box.currentText()
        default = str(row.item.path.with_suffix(f".{fmt}"))
        path, _ = QFileDialog.getSaveFileName(self, f"Export transcript as {fmt}", default, f"{fmt} (*.{fmt})")
        if path:
            self.export(row, fmt, Path(path))

    def export(self, row: QueueRow, fmt: str, path: Path) -> int:
        """Write ``row``'s transcript as ``fmt`` to ``path`` (on the I/O engine)."""
        from speechstudio.worker.jobs import CallJob
        from speechstudio.batch.export import write_transcript

        job = CallJob(write_transcript, path, list(row.segments), row.info, fmt, description=f"export {path.name}")
        self._export_job = self.io.submit(job)
        self.status_message.emit(f"exporting {path.name}…")
        return self._export_job

