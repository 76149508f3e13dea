"""Transcribe page: a queue of files and folders transcribed on the compute worker, model and output
options, the selected file's transcript and player, History and watched folders."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QLabel, QMenu, QPushButton, QSplitter, QWidget

from speechstudio.atomic import folder_problem
from speechstudio.batch.request import TranscriptionRequest
from speechstudio.batch.run import InputItem, collect_inputs
from speechstudio.batch.watch import FolderWatcher
from speechstudio.gui.batch_report import BatchReport
from speechstudio.gui.common import (DEFAULT_MODEL, ModelPicker, action, asker, bare, button, combo, device_picker,
                                     flow, hrow, named, setting_list, settings, vbox)
from speechstudio.gui.details import Details
from speechstudio.gui.drop_paths import paths_from_urls, pick_inputs
from speechstudio.gui.preferences import FORMATS, PRECISIONS
from speechstudio.gui.queue_keeper import QueueKeeper
from speechstudio.gui.queue_table import QueueTable
from speechstudio.gui.speakers_dialog import SpeakersDialog
from speechstudio.gui.transcribe_options import LanguageOptions
from speechstudio.gui.transcribe_playback import TranscribePlaybackMixin
from speechstudio.gui.transcribe_run import TranscribeRunMixin
from speechstudio.gui.transcribe_watch import TranscribeWatchMixin, subtitle_options
from speechstudio.gui.transcript_view import QueueRow, TranscriptView
from speechstudio.worker.jobs import ProbeJob


class TranscribePage(TranscribeRunMixin, TranscribeWatchMixin, TranscribePlaybackMixin, QWidget):
    status_message = Signal(str)
    queue_finished = Signal()

    #: how often watched folders are looked at (ms) and how long a new file must stay unchanged (s)
    watch_interval_ms = 3000
    watch_settle_s = 3.0

    def __init__(self, compute, io, audio, parent=None, store=None) -> None:
        super().__init__(parent)
        self.compute, self.io, self.audio = compute, io, audio
        self.rows: list[QueueRow] = []
        self.running = False
        self.current: QueueRow | None = None
        self.job = None  # the running TranscribeBatchJob
        self._job_rows: dict = {}
        self._fatal = ""
        self._t_start = 0.0
        self._probe_jobs: set[int] = set()
        self.last_error = ""
        self._batch = None          # BatchSummary of the running Start (and the groups it continues with)
        self._batch_t0 = 0.0
        self._continue = False      # start the next output-folder group when this job ends
        self.keeper = QueueKeeper(store)
        self.setAcceptDrops(True)
        self._build()
        self._restore()
        for row in self.keeper.restore():
            self._append(row)
        self._update_buttons()
        self._update_summary()
        self.watcher = FolderWatcher(self.keeper.store, settle_s=self.watch_settle_s) if self.keeper.store else None
        self.watch_timer = QTimer(self, timeout=self.poll_watched)
        self._fill_watch_menu()
        compute.job_started.connect(self._on_started)
        compute.job_progress.connect(self._on_progress)
        compute.job_finished.connect(self._on_finished)
        io.job_progress.connect(self._on_io_progress)
        io.job_finished.connect(self._on_io_finished)

    def _build(self) -> None:
        self.add_files_btn = button("Add files…", "Add files", "Add audio or video files (Ctrl+O)",
                                    lambda: self.add_files_dialog())
        self.add_folder_btn = button("Add folder…", "Add folder", "Add a folder and everything in it (Ctrl+Shift+O)",
                                     lambda: self.add_files_dialog(folder=True))
        self.clear_btn = button("Clear finished", "Clear finished rows", slot=self.clear_finished)
        self.model_box = ModelPicker("Model", "Installed model name, Hugging Face id, or a model folder")
        top = hrow(self.add_files_btn, self.add_folder_btn, self.clear_btn, 16, QLabel("Model"), (self.model_box, 1),
                   stretch=False)
        self.details = Details("Details", key="transcribe")
        self.device_box = device_picker("Device")
        self.precision_box = combo("Precision", PRECISIONS,
                                   "Number format on the GPU: auto picks fp16 on NVIDIA GPUs (faster, half the "
                                   "memory) and fp32 on the CPU")
        self.channels_box = combo("Channels", [("auto", "auto"), ("mixed", "mix"), ("one person each", "split")],
                                  "Stereo recordings with one person per channel (interview recorders, phone calls): "
                                  "each channel is transcribed on its own and labelled Left / Right. auto: when the "
                                  "channels hold different voices; mixed: always one stream.")
        self.details.body_layout.addLayout(bare(hrow(QLabel("Device"), self.device_box, QLabel("Precision"),
                                                     self.precision_box, QLabel("Channels"), self.channels_box)))

        self.format_checks: dict[str, QCheckBox] = {f: named(QCheckBox(f), f"Write {f}") for f in FORMATS}
        self.out_label = named(QLabel(), "Output folder")
        self.out_btn = button("Output folder…", "Choose output folder", slot=asker(
            self, "Output folder", self._set_output_dir, start=lambda: self.output_dir or Path.home()))
        self.out_reset = button("Next to inputs", "Write outputs next to the inputs",
                                slot=lambda: self._set_output_dir(None))
        self.overwrite_check = named(QCheckBox("Redo finished files"), "Overwrite existing transcripts")
        self.language_options = LanguageOptions()
        self.run_options = QWidget()  # the next run's options: folded away while the editor is open
        outputs = flow([QLabel("Formats"), *self.format_checks.values()], [self.out_btn, self.out_reset],
                       (self.out_label, 1), self.overwrite_check)
        bare(vbox(self.run_options, outputs, self.language_options, self.details))

        self.start_btn = button("Start", "Start transcription", "Transcribe the queue (Ctrl+Enter)", self.start)
        self.pause_btn = named(QPushButton("Pause after current"), "Pause after current file")
        self.pause_btn.setCheckable(True)
        self.pause_btn.toggled.connect(self._on_pause_toggled)
        self.cancel_btn = button("Cancel", "Cancel transcription",
                                 "Stop the running file now; nothing is written for it (Esc)", self.cancel)
        self.retry_btn = button("Retry failed", "Retry failed files", slot=self.retry_failed)
        self.summary = named(QLabel("Drop audio/video files or folders here."), "Queue summary")
        self.history_btn = button("History…", "Transcription history", slot=self.show_history)
        self.watch_btn = button("Watched folders", "Watched folders",
                                "Folders whose new audio/video files are transcribed as they arrive")
        self.watch_menu = QMenu(self.watch_btn)
        self.watch_btn.setMenu(self.watch_menu)
        self.speakers_box = combo("Speakers", [("Off", ""), ("Auto", "auto")] + [(n, n) for n in "23456"],
                                  "Label who speaks when (\"Speaker 1: …\"): Off, Auto (find out how many) or the "
                                  "number of speakers. Voices you saved with \"Remember voice\" in the editor are "
                                  "named. Works offline.")
        self.voices_btn = button("Voices…", "Known voices", "Voices you saved: they are named in new transcripts",
                                 self.show_known_voices)
        run = flow([self.start_btn, self.pause_btn, self.cancel_btn, self.retry_btn], (self.summary, 1),
                   [QLabel("Speakers"), self.speakers_box, self.voices_btn], [self.history_btn, self.watch_btn])
        self.report = BatchReport()

        self.split = split = QSplitter(Qt.Orientation.Vertical)
        self._sizes_before: list[int] | None = None  # the split before the editor took its room
        self.table = QueueTable()
        self.remove_action = action(self.table, "Remove from the queue", self.remove_selected, Qt.Key.Key_Delete)
        self.remove_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.table.addAction(self.remove_action)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        split.addWidget(self.table)

        self.transcript = TranscriptView(FORMATS, audio=self.audio, io=self.io)
        self.transcript.status_message.connect(self.status_message)
        self.transcript.editing_changed.connect(self._editing)
        self.segments = self.transcript.segments
        split.addWidget(self.transcript)
        split.setSizes([320, 240])
        vbox(self, top, self.run_options, run, self.report, (split, 1))

        self.model_box.currentTextChanged.connect(self.language_options.set_model)
        self.table.itemSelectionChanged.connect(self._show_selected)
        self.segments.cellClicked.connect(self._play_segment)
        self.transcript.export_btn.clicked.connect(self._export_dialog)
        self._update_buttons()

    def _editing(self, on: bool) -> None:
        """The editor open: the run options fold away and the editor takes the split but two queue
        rows (the edited file's among them); closed: the options and the split from before come back."""
        if on == (self._sizes_before is not None):
            return
        before = self.split.sizes()
        self.run_options.setVisible(not on)
        self.layout().activate()  # the split's new height now, not at the next layout pass
        if on:
            t = self.table
            keep = t.horizontalHeader().height() + 2 * (t.verticalHeader().defaultSectionSize() + t.frameWidth())
            self.split.setSizes([keep, sum(self.split.sizes()) - keep])
            t.scrollTo(t.currentIndex())
        else:
            self.split.setSizes(self._sizes_before)
        self._sizes_before = before if on else None

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
        self.speakers_box.setCurrentIndex(max(0, self.speakers_box.findData(str(s.value("transcribe/speakers", "") or ""))))
        self.channels_box.setCurrentIndex(max(0, self.channels_box.findData(str(s.value("transcribe/channels", "auto")))))

    def save_settings(self) -> None:
        self.transcript.editor.flush()   # the window closing: edits of the autosave's last second go to disk now
        s = settings()
        s.setValue("transcribe/formats", ",".join(self.formats()))
        s.setValue("transcribe/model", self.model_box.currentText())
        s.setValue("transcribe/device", self.device_box.currentText())
        s.setValue("transcribe/precision", self.precision_box.currentText())
        s.setValue("transcribe/output_dir", self.output_dir or "")
        s.setValue("transcribe/speakers", self.speakers_box.currentData() or "")
        s.setValue("transcribe/channels", self.channels_box.currentData())
        self.language_options.save()

    def show_known_voices(self):
        """Open (or raise) the known-voices dialog; returns it."""
        dlg = getattr(self, "_voices_dialog", None)
        if dlg is None:
            dlg = self._voices_dialog = SpeakersDialog(self)
            dlg.status_message.connect(self.status_message)
        else:
            dlg.refresh()
        dlg.show()
        dlg.raise_()
        return dlg

    def formats(self) -> tuple[str, ...]:
        return tuple(f for f, c in self.format_checks.items() if c.isChecked())

    def options(self) -> TranscriptionRequest:
        return TranscriptionRequest.build(model=self.model_box.model(), device=self.device_box.currentText(),
                                          precision=self.precision_box.currentText(),
                                          formats=self.formats() or ("txt",), output_dir=self.output_dir,
                                          overwrite=self.overwrite_check.isChecked(),
                                          language=self.language_options.language(), task=self.language_options.task(),
                                          hotwords=self.language_options.hotwords(), subtitles=subtitle_options(),
                                          speakers=self.speakers_box.currentData() or None,
                                          channels=self.channels_box.currentData(),
                                          audio_track=self.language_options.audio_track(), allow_download=False)

    def _set_output_dir(self, path: str | None) -> None:
        self.output_dir = self.transcript.output_dir = path
        problem = folder_problem(path) if path else None     # said when chosen (each file failed only after Start)
        self.out_label.setText("Output: next to each input" if not path else f"Output: {path}" + (
            f" ({problem}: choose another folder)" if problem else ""))

    def add_files_dialog(self, folder: bool = False) -> None:
        """Add what the user picks (files, or with ``folder`` a folder) to the queue."""
        if paths := pick_inputs(self, folder):
            self.add_paths(paths)

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    dragMoveEvent = dragEnterEvent

    def dropEvent(self, event) -> None:
        paths = paths_from_urls(event.mimeData().urls())
        if paths:
            event.acceptProposedAction()
            self.add_paths(paths)

    def add_paths(self, paths, output_dir: str | None = None, watch_id: int | None = None) -> int:
        """Add files and folders (recursively) to the queue; returns how many inputs were added.
        Folder entries that are not media are listed as "ignored" with the reason. ``output_dir``:
        where these rows' outputs go (a watched folder's choice; default: the page's)."""
        items, ignored = collect_inputs(paths, recursive=True)
        known = {r.item.path.resolve() for r in self.rows}
        new = [it for it in items if it.path.resolve() not in known]
        for it in new:
            row = QueueRow(it)
            row.output_dir = output_dir
            self.keeper.added(row, self.options().model, watch_id)
            self._append(row)
        for p, reason in ignored:
            if p.resolve() not in known and watch_id is None:
                self._append(QueueRow(InputItem(p, None), status="ignored", reason=reason))
        if new:
            self._probe_jobs.add(self.io.submit(ProbeJob([it.path for it in new])))
        again = len(items) - len(new)
        self.status_message.emit(f"added {len(new)} file{'s' if len(new) != 1 else ''}"
                                 + (f", {again} already in the queue" if again else "")
                                 + (f", {len(ignored)} ignored" if ignored else ""))
        self._update_summary()
        self._update_buttons()
        return len(new)

    def _append(self, row: QueueRow) -> None:
        self.rows.append(row)
        self.table.append_row(row)

    def _refresh_row(self, row: QueueRow) -> None:
        self.table.refresh(self.rows.index(row), row)
