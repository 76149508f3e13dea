"""Clone voice wizard, step 2: the dataset from recordings (:class:`RecordPanel`), an imported folder or long
recordings; "Check" builds it on the compute worker and shows the report and the editable clips."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QFormLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QPlainTextEdit, QProgressBar, QPushButton, QSplitter, QTableWidgetItem, QTabWidget,
                               QVBoxLayout, QWidget)

from speechstudio.audio.devices import Recorder
from speechstudio.audio.levels import take_levels
from speechstudio.audio.mel import StreamingLogMel
from speechstudio.finetune.manifest import FLAGS, MANIFEST_NAME, Manifest
from speechstudio.finetune.recording import CONSENT_AUDIO, recorded_takes, save_take, take_id
from speechstudio.finetune.report import MIN_USABLE_MINUTES, report
from speechstudio.gui.common import (ERROR_COLOR, WARNING_COLOR, bare, button, flow, hrow, line_edit, named, note_label,
                                     path_row, picker, set_font, table, tint, vbox)
from speechstudio.gui.devices import allow
from speechstudio.gui.drop_paths import AUDIO_FILES
from speechstudio.gui.wizard_common import play_file
from speechstudio.gui.wording import plain_error
from speechstudio.worker.finetune_jobs import BuildDatasetJob, datasets_dir, recordings_dir
from speechstudio.worker.worker import Status

#: column titles in plain words: "Letters wrong" is the character error rate (CER, on hover)
CLIP_COLS = ("ID", "Seconds", "Text", "Marked", "Letters wrong", "Heard")
COL_TEXT, COL_FLAGS, COL_CER, COL_HEARD = 2, 3, 4, 5
#: Level meter range (dBFS); -60 dBFS is shown as an empty bar.
METER_FLOOR_DB = -60
#: how the Record prompts tab names itself when the microphone is busy elsewhere (``AudioHub.claim_mic``)
MIC_USER = "a wizard's Record prompts tab"


#: ``manifest.FLAGS`` in plain words, for the dataset summary.
FLAG_WORDS = {
    "clipping": "distorted (recorded too loud)", "low_level": "very quiet", "noisy": "background noise",
    "asr_mismatch": "the words heard differ from the text", "too_short": "too short", "too_long": "too long",
    "unsayable": "text the voice cannot say", "text_normalised": "invisible characters removed from the text",
    "other_speaker": "may be another person",
}


class RecordPanel(QWidget):
    """The "Record" tab: read the prompts aloud one at a time; each take is saved at once into an LJSpeech
    folder, so a session resumes at the first prompt not yet recorded. Signal: ``status_message(str)``."""

    status_message = Signal(str)

    def __init__(self, audio, folder_for, *, consent: bool = True) -> None:
        """``audio``: the window's AudioHub; ``folder_for() -> Path``: where the takes go. ``consent``:
        start with the consent sentence (prompt 0) said with the speaker's name; ``False``: no name,
        prompts 1.. only (take ids stay the same)."""
        super().__init__()
        self.audio = audio
        self.folder_for = folder_for
        self.consent = consent
        self.first = 0 if consent else 1
        self.index = self.first
        self.script: list[str] = []
        self.takes: dict[int, str] = {}
        self.recorder = None
        self.take_audio: np.ndarray | None = None
        self.take_rate = 0
        self._peak = 0.0
        form = QFormLayout()
        self.name_edit = line_edit("Your name", "the speaker's name, said in the consent sentence")
        self.name_edit.editingFinished.connect(self.load_session)
        form.addRow("Your na&me", self.name_edit)
        form.setRowVisible(self.name_edit, self.consent)
        self.position = named(QLabel("Enter your name to start." if self.consent else ""), "Prompt number")
        self.prompt = note_label("Prompt to read")
        self.prompt.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_font(self.prompt, 16)
        self.prompt.setMargin(10)
        self.prompt.setMinimumHeight(80)
        # the level meter shares the buttons' line (the Dataset step fits 1366×768 with the docks open)
        self.prev_btn = self._button("◀ Previo&us", "Previous prompt", "Alt+Left", self.previous)
        self.rec_btn = self._button("&Record", "Record this prompt", "Alt+R", self.record)
        self.stop_btn = self._button("&Stop", "Stop recording", "Alt+S", self.stop)
        self.play_btn = self._button("Pl&ay take", "Play this take", "Alt+A", self.play)
        self.next_btn = self._button("Ne&xt ▶", "Next prompt", "Alt+Right", self.next)
        self.meter = named(QProgressBar(), "Recording level")
        self.meter.setRange(METER_FLOOR_DB, 0)
        self.meter.setValue(METER_FLOOR_DB)
        self.meter.setFormat("— dBFS")
        self.meter.setMinimumWidth(160)  # "-23 dBFS  12.3 s"
        self.clip_warning = named(QLabel(""), "Clipping warning")
        tint(self.clip_warning, ERROR_COLOR, bold=True)
        self.count = named(QLabel("0 takes"), "Takes recorded")
        # rows that wrap in a narrow window (1024 px cut them at the right: no sideways scrolling in the wizard)
        buttons = flow([self.prev_btn, self.rec_btn, self.stop_btn, self.play_btn, self.next_btn], (self.meter, 1),
                       [self.clip_warning, self.count])
        self.note = note_label("Recording status")
        # the note on the prompt number's line: the step fits 1280x743; the tab's frame is margin enough
        vbox(self, form, self.prompt, buttons, hrow(self.position, 12, (self.note, 1), stretch=False),
             None).setContentsMargins(9, 4, 9, 4)
        if not self.audio.available:
            self.note.setText(f"{self.audio.reason}. Import a folder instead.")
        self._timer = QTimer(self, interval=50, timeout=self._tick)
        self._update()

    def _button(self, text: str, name: str, key: str, slot) -> QPushButton:
        b = button(text, name, f"{name} ({key})", slot)
        if not key.startswith("Alt+") or len(key) > 5:  # Alt+letter comes from the & mnemonic
            b.setShortcut(QKeySequence(key))
        return b

    @property
    def folder(self) -> Path | None:
        return Path(self.folder_for()) if self.name_edit.text().strip() or not self.consent else None

    def load_session(self) -> None:
        """(Re)load the script for the typed name and the takes already in its folder; go to
        the first prompt without a take."""
        from speechstudio.finetune.prompts import load_prompts, script

        name = self.name_edit.text().strip()
        if not name and self.consent:
            self.script, self.takes = [], {}
            self._update()
            return
        self.script = script(name) if self.consent else ["", *load_prompts()]
        self.takes = recorded_takes(self.folder) if self.folder.exists() else {}
        todo = [i for i in range(self.first, len(self.script)) if i not in self.takes]
        self.go(todo[0] if todo else self.first)

    @property
    def take_count(self) -> int:
        return sum(1 for i in self.takes if i > 0)

    def go(self, index: int) -> None:
        if self.recorder is not None:
            self.stop()
        if not self.script:
            return
        self.index = max(self.first, min(len(self.script) - 1, index))
        self.take_audio = None
        self.clip_warning.setText("")
        self._update()

    def next(self) -> None:
        self.go(self.index + 1)

    def previous(self) -> None:
        self.go(self.index - 1)

    def record(self) -> None:
        """Start recording the current prompt (a re-take replaces the earlier one when stopped)."""
        if not self.script:
            self.load_session()
            if not self.script:
                self.note.setText("Type your name first: it goes into the consent sentence.")
                return
        if self.recorder is not None:
            return
        self.audio.stop()
        try:
            self.audio.claim_mic(MIC_USER)
            backend = self.audio.backend
            rate = int(backend.default_samplerate(self.audio.input_device, "input"))
            self.recorder = Recorder(backend, self.audio.input_device, rate, on_block=self._on_block)
            self._peak = 0.0
            self._mel = StreamingLogMel(rate)
            self.recorder.start()
        except Exception as e:  # AudioUnavailableError, device busy, another page records
            self.recorder = None
            self.audio.release_mic(MIC_USER)
            self.note.setText(f"cannot record: {e}")
            self.status_message.emit(f"cannot record: {e}")
            return
        self.clip_warning.setText("")
        self.note.setText("recording… read the prompt, then Stop (S)")
        self.note.setToolTip(f"recording at {rate} Hz")
        self._timer.start()
        self._update()

    def _on_block(self, block: np.ndarray, _rate: int) -> None:  # audio thread
        if len(block):
            self._peak = max(self._peak, float(np.max(np.abs(block))))
            frames = self._mel.push(block)
            if len(frames):  # the window's live mel view follows the microphone
                self.audio.mel_frames.emit(frames, "mic")

    def stop(self) -> None:
        """Stop recording and save the take (``save_take``); shows its levels."""
        rec, self.recorder = self.recorder, None
        self._timer.stop()
        self.audio.release_mic(MIC_USER)
        if rec is None:
            self.audio.stop()
            return
        audio = rec.stop()
        self.take_rate = rec.target_rate
        self.meter.setValue(METER_FLOOR_DB)
        self.meter.setFormat("— dBFS")
        if len(audio) < self.take_rate * 0.3:
            self.note.setText("take too short (under 0.3 s): not saved, record again")
            self._update()
            return
        peak, rms, clipping = take_levels(audio)
        try:
            save_take(self.folder, self.index, self.script[self.index], audio, self.take_rate)
        except Exception as e:  # UsageError, disk full
            self.note.setText(f"take not saved: {e}")
            self.status_message.emit(f"take not saved: {e}")
            self._update()
            return
        self.take_audio = audio
        self.takes[self.index] = self.script[self.index]
        self.clip_warning.setText("Clipping! Lower the input gain and record again." if clipping else "")
        quiet = " — very quiet, move closer to the microphone" if rms < -40 else ""
        self.note.setText(f"saved take ({len(audio) / self.take_rate:.1f} s, peak {peak:.1f} dBFS, "
                          f"RMS {rms:.1f} dBFS){quiet}")
        self._update()

    def _tick(self) -> None:
        rec = self.recorder
        if rec is None:
            return
        db = max(METER_FLOOR_DB, min(0, int(round(rec.level_dbfs))))
        self.meter.setValue(db)
        self.meter.setFormat(f"{rec.level_dbfs:.0f} dBFS  {rec.duration_s:.1f} s")
        if self._peak >= 0.99:
            self.clip_warning.setText("Clipping!")

    def play(self) -> None:
        """Play the current prompt's take (just recorded, or read back from its folder)."""
        if self.take_audio is not None:  # just recorded
            try:
                self.audio.play(self.take_audio, self.take_rate, source="your take")
            except Exception as e:  # noqa: BLE001 - AudioUnavailableError
                self.status_message.emit(f"cannot play: {plain_error(e)}")
        elif self.index in self.takes:
            play_file(self.audio, self.folder / CONSENT_AUDIO if self.index == 0
                      else self.folder / "wavs" / f"{take_id(self.index)}.wav", self.status_message.emit)

    def _update(self) -> None:
        have_script = bool(self.script)
        rec = self.recorder is not None
        ok = self.audio.available
        if have_script:
            i = self.index
            kind = "consent sentence" if i == 0 else f"prompt {i} of {len(self.script) - 1}"
            done = " — recorded" if i in self.takes else ""
            self.position.setText(f"{kind}{done}")
            self.prompt.setText(self.script[i])
        self.count.setText(f"{self.take_count} take{'s' if self.take_count != 1 else ''}"
                           + (" + consent" if 0 in self.takes else ""))
        self.rec_btn.setText("Re-&record" if have_script and self.index in self.takes else "&Record")
        mic = allow(self.rec_btn, self.audio, "mic")
        self.rec_btn.setEnabled(mic and ok and not rec)
        if not (mic and ok) and not self.note.text():  # the reason on the page, not only on hover
            self.note.setText(self.rec_btn.toolTip() or self.audio.reason)
        self.stop_btn.setEnabled(rec)
        self.play_btn.setEnabled(allow(self.play_btn, self.audio, "speaker") and ok and not rec
                                 and (self.take_audio is not None or self.index in self.takes))
        self.prev_btn.setEnabled(have_script and not rec and self.index > self.first)
        self.next_btn.setEnabled(have_script and not rec and self.index < len(self.script) - 1)
        self.name_edit.setEnabled(not rec)

    def shutdown(self) -> None:
        if self.recorder is not None:
            self.recorder.stop()
            self.recorder = None
            self.audio.release_mic(MIC_USER)
        self._timer.stop()


class ClipEditor(QWidget):
    """The clips of a checked dataset as an editable table (text, flags, the recogniser's cross-check);
    play or drop a clip. Signals: ``edited(manifest, message)`` after a text fix or a drop / keep;
    ``play(row)`` when the user asks to hear a clip."""

    edited = Signal(object, str)
    play = Signal(int)

    def __init__(self, audio, parent=None) -> None:
        super().__init__(parent)
        self.manifest = None
        self.audio = audio  # the window's AudioHub: Play follows the no-device policy (gui.devices)
        self._filling = False
        self.table = table("Clips", CLIP_COLS, editable=True, numbers=True, stretch_last=False, single=True)
        self.table.horizontalHeaderItem(COL_HEARD).setToolTip("what speech recognition (Whisper) heard")
        self.table.horizontalHeaderItem(COL_CER).setToolTip("Character error rate (CER) between the text and what "
                                                            "speech recognition heard, in percent")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.AnyKeyPressed)
        header = self.table.horizontalHeader()  # narrow columns fit their contents, the two texts share the rest
        for col in range(len(CLIP_COLS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch if col in (COL_TEXT, COL_HEARD)
                                        else QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemChanged.connect(self._item_changed)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.play_btn = button("Pla&y clip", "Play clip", slot=lambda: self.play.emit(self.table.currentRow()))
        self.drop_btn = button("&Drop clip", "Drop or keep clip",
                               "Leave the selected clip out of training (press again to keep it)",
                               self.toggle_drop_selected)
        bare(vbox(self, (self.table, 1), flow([self.play_btn, self.drop_btn],
                                              QLabel("Double-click a text (or F2) to fix it."))))
        self._update_buttons()

    def set_manifest(self, manifest) -> None:
        self.manifest = manifest
        self._fill()

    def _fill(self) -> None:
        self._filling = True
        clips = self.manifest.clips
        self.table.setRowCount(len(clips))
        for r, c in enumerate(clips):
            cells = (c.id, f"{c.duration_s:.2f}", c.text,
                     ", ".join(FLAG_WORDS.get(f, f.replace("_", " ")) for f in c.flags) + (" (not used)" if c.dropped else ""),
                     "" if c.cer is None else f"{100 * c.cer:.0f} %", c.asr_text or "")
            for col, v in enumerate(cells):
                item = QTableWidgetItem(v)
                if col != COL_TEXT:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                if c.dropped:
                    f = item.font()
                    f.setStrikeOut(True)
                    item.setFont(f)
                if c.flags and col == COL_FLAGS:
                    item.setToolTip("\n".join(f"{FLAG_WORDS.get(x, x)}: {FLAGS.get(x, '')}" for x in c.flags))
                self.table.setItem(r, col, item)
        self._filling = False
        self._update_buttons()

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or self.manifest is None or item.column() != COL_TEXT:
            return
        self.set_text(item.row(), item.text())

    def set_text(self, row: int, text: str) -> None:
        """Fix the text of clip ``row`` (whitespace collapsed; an empty text is refused)."""
        clip = self.manifest.clips[row]
        text = " ".join(text.split())
        if not text or text == clip.text:
            if not text:  # put the old text back
                self._fill()
            return
        self.manifest = self.manifest.with_clip(dataclasses.replace(clip, text=text))
        self.edited.emit(self.manifest, f"{clip.id}: text changed")

    def toggle_drop_selected(self) -> None:
        """Drop the selected clip from training, or keep it again."""
        row = self.table.currentRow()
        if self.manifest is None or row < 0:
            return
        clip = self.manifest.clips[row]
        self.manifest = self.manifest.with_clip(dataclasses.replace(clip, dropped=not clip.dropped))
        self._fill()
        self.table.selectRow(row)
        self.edited.emit(self.manifest, f"{clip.id}: {'kept' if clip.dropped else 'dropped'}")

    def _update_buttons(self) -> None:
        row = self.table.currentRow()
        have = self.manifest is not None and 0 <= row < len(self.manifest.clips)
        self.play_btn.setEnabled(allow(self.play_btn, self.audio, "speaker") and have)
        self.drop_btn.setEnabled(have)
        if have:
            self.drop_btn.setText("Un&drop clip" if self.manifest.clips[row].dropped else "&Drop clip")


class DatasetStep(QWidget):
    """Signals: ``changed()`` when the manifest (and so the wizard's Next) changes."""

    #: Leave out clips of another speaker (``build_dataset(speaker_check=True)``): a voice clone's
    #: dataset is one speaker; a recognition dataset may hold many (the adapt wizard turns it off).
    SPEAKER_CHECK = True
    BASE_RATE = "the base voice speaks at"  # the base's sample rate, in the "check it again" line

    changed = Signal()

    def __init__(self, wizard, *, consent: bool = True) -> None:
        """``wizard``: the wizard page; ``consent``: the Record tab starts with the consent sentence."""
        super().__init__()
        self.wiz = wizard
        self.consent = consent
        self.job_id: int | None = None
        self.job = None
        self.manifest = None
        self._plot = None
        self.tabs = named(QTabWidget(), "Dataset source")
        self.recorder = RecordPanel(self.wiz.audio, lambda: recordings_dir() / self.wiz.voice_name(),
                                    consent=self.consent)
        self.recorder.status_message.connect(self.wiz.status_message)
        self.tabs.addTab(self.recorder, "Record &prompts")
        self.folder_edit = named(QLineEdit(), "Dataset folder")
        self.long_edit = named(QLineEdit(), "Long recording file or folder")
        row = path_row(self.long_edit, "Long recording", self, "Choose fil&e…",
                       "Browse for long recording file or folder", AUDIO_FILES)
        row.addWidget(button("Choose f&older…", "Choose a folder of long recordings",
                             slot=picker(self.long_edit, "Folder of long recordings", self)))
        for title, text, source_row in (
                ("&Import folder", "A folder in LJSpeech layout (metadata.csv with ID|text lines + wavs/ID.wav), "
                 "or .wav files each with a .txt of the same name holding its text.",
                 path_row(self.folder_edit, "Dataset folder", self, "&Browse…", "Browse for dataset folder")),
                ("&Long recordings", "One long recording (or a folder of them): speech recognition writes the text "
                 "and its word times cut it into sentence clips. Check the texts afterwards.", row)):
            tab = QWidget()
            says = note_label("", text)  # wrapped: the longest made the step 911 px wide, cut off in a 1024 px window
            vbox(tab, says, source_row).setAlignment(Qt.AlignmentFlag.AlignTop)
            self.tabs.addTab(tab, title)

        self.asr_check = named(QCheckBox("Cross-check the texts with speech recognition (Whisper)"),
                               "Cross-check texts with speech recognition")
        self.asr_check.setChecked(True)
        self.split_check = named(QCheckBox("Cut clips over 20 s at sentence ends"), "Cut long clips at sentence ends",
                                 "Clips longer than 20 s are cut by Whisper's word times (their texts then come "
                                 "from the recogniser); otherwise they are marked too long and not used")
        self.check_btn = button("&Check dataset", "Check dataset",
                                "Trim, level and resample the clips, check their texts, show the report", self.check)
        self.cancel_btn = button("Cancel check", "Cancel check", slot=self.cancel)
        self.cancel_btn.setEnabled(False)
        self.progress = named(QProgressBar(), "Dataset check progress")
        keep = self.progress.sizePolicy()
        keep.setRetainSizeWhenHidden(True)  # hidden, it is the line's gap
        self.progress.setSizePolicy(keep)
        self.progress.setVisible(False)
        checks = flow([self.asr_check, self.split_check], (self.progress, 1), [self.check_btn, self.cancel_btn])
        self.info = note_label("Dataset status")
        self.warning = note_label("Dataset warning")
        tint(self.warning, WARNING_COLOR, bold=True)
        self.warning.setVisible(False)

        split = QSplitter(Qt.Orientation.Horizontal)
        left = QWidget()
        # the report and the clip-length histogram side by side (stacked, the checked step scrolled)
        ll = bare(QHBoxLayout(left))
        self.report_text = named(QPlainTextEdit(), "Dataset report")
        self.report_text.setReadOnly(True)
        self.report_text.setPlaceholderText("Check dataset: its report (clips, minutes, what to fix) shows here.")
        ll.addWidget(self.report_text, 1)
        self.hist_box = QVBoxLayout()  # the histogram, once a report is shown (the report is full width before)
        ll.addLayout(self.hist_box)
        split.addWidget(left)
        self.clips = ClipEditor(self.wiz.audio)
        self.clips.edited.connect(self._edited)
        self.clips.play.connect(self.play_clip)
        split.addWidget(self.clips)
        split.setStretchFactor(1, 2)
        split.setSizes([440, 560])
        vbox(self, self.tabs, checks, self.info, self.warning, (split, 1))
        wizard.compute.job_progress.connect(self._on_progress)
        wizard.compute.job_finished.connect(self._on_finished)

    def source(self) -> Path | None:
        """The input of the current tab (recordings folder, imported folder or long recording)."""
        tab = self.tabs.currentIndex()
        if tab == 0:
            return self.recorder.folder
        text = (self.folder_edit if tab == 1 else self.long_edit).text().strip()
        return Path(text).expanduser() if text else None

    def check(self) -> int | None:
        """Build and check the dataset from the current tab's source on the compute worker."""
        src = self.source()
        if src is None or not src.exists():
            self.info.setText("Choose what to check first: record some takes, or pick a folder / file."
                              if src is None else f"{src}: not found")
            return None
        rate = self.wiz.sample_rate()
        if not rate:
            self.info.setText("Choose a base voice first (step 1): the clips are made at its sample rate.")
            return None
        self.cancel()
        out = datasets_dir() / self.wiz.voice_name()
        job = BuildDatasetJob(src, out, rate, base=self.wiz.base, asr=self.asr_check.isChecked(),
                              language="en", split_long=self.split_check.isChecked(),
                              speaker_check=self.SPEAKER_CHECK)
        self.job = job
        self.job_id = self.wiz.compute.submit(job)
        self.progress.setRange(0, 0)
        self.progress.setVisible(True)
        self.check_btn.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        self.info.setText(f"checking {src} …")
        return self.job_id

    def cancel(self) -> None:
        if self.job_id is not None:
            self.wiz.compute.cancel(self.job_id)

    def _on_progress(self, job_id: int, payload) -> None:
        if job_id != self.job_id:
            return
        if isinstance(payload, Status):
            self.info.setText(str(payload))
        elif hasattr(payload, "done") and hasattr(payload, "total"):
            if payload.total:
                self.progress.setRange(0, payload.total)
                self.progress.setValue(payload.done)
            self.info.setText(f"{payload.done}/{payload.total} {payload.message}")

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id != self.job_id:
            return
        self.job_id = None
        self.progress.setVisible(False)
        self.check_btn.setEnabled(True)
        self.cancel_btn.setEnabled(False)
        if status == "failed":
            self.info.setText(f"check failed: {plain_error(result)}")
            self.wiz.status_message.emit(f"dataset check failed: {plain_error(result)}")
        elif status == "cancelled" or result is None:
            self.info.setText("check cancelled")
        else:
            self.set_manifest(result, datasets_dir() / self.wiz.voice_name())
            if self.job is not None and self.job.asr_skipped:
                self.info.setText(self.info.text() + f"; {self.job.asr_skipped}")
            self.wiz.status_message.emit(f"dataset ready: {len(result.usable())} clips, "
                                         f"{result.total_s / 60:.1f} minutes")

    def set_manifest(self, manifest, folder: Path) -> None:
        """Show a prepared dataset (``Manifest`` saved in ``folder``) and make it the wizard's."""
        self.manifest = manifest
        self.wiz.dataset_dir = Path(folder)
        self._show_report()
        self.clips.set_manifest(manifest)
        self.changed.emit()

    def _show_report(self) -> None:
        m = self.manifest
        rep = report(m)
        self.report = rep
        self.report_text.setPlainText(plain_report(rep))
        self.info.setText(f"{rep.usable_clips} usable clips of {len(m.clips)}, {rep.usable_minutes:.1f} minutes; "
                          f"{len(rep.problems)} input{'s' if len(rep.problems) != 1 else ''} refused")
        text = self.short_dataset_warning(rep)
        others = [w for w in rep.warnings if "another speaker" in w]
        if others:  # a clone of two people sounds like neither: said next to the size warning
            text = "\n".join([t for t in (text, others[0][0].upper() + others[0][1:] + ".") if t])
        self.warning.setText(text)
        self.warning.setVisible(bool(text))
        self._draw_histogram(rep)

    def short_dataset_warning(self, rep) -> str:
        """The warning shown when the dataset ``rep`` (a ``report.DatasetReport``) is too small
        for a good result, ``""`` when it is big enough (a subclass words it for its purpose)."""
        if rep.usable_minutes >= MIN_USABLE_MINUTES:
            return ""
        return (f"Only {rep.usable_minutes:.1f} minutes of usable speech: under {MIN_USABLE_MINUTES:.0f} "
                "minutes the clone will sound rough (15–30 minutes is better). Record or import more if you can. "
                "With 12 minutes our benchmark clone reached a similarity of 0.54 to its speaker, at their "
                "pitch (their own recordings 0.95).")

    def _draw_histogram(self, rep) -> None:
        """The report's clip-length histogram; its open last bin (``high = inf``) as wide as the one before it."""
        x0, x1, counts = (np.array([b[i] for b in rep.histogram], dtype=float) for i in range(3))
        if len(x1) > 1 and not np.isfinite(x1[-1]):
            x1[-1] = x0[-1] + (x1[-2] - x0[-2])
        if self._plot is None:  # pyqtgraph is slow to import: only once a report is shown
            import pyqtgraph as pg

            self._plot = named(pg.PlotWidget(), "Clip length histogram")
            self._plot.setMenuEnabled(False)
            self._plot.setMouseEnabled(False, False)
            self._plot.hideButtons()
            self._plot.setLabel("bottom", "clip length (s)")
            self._plot.setLabel("left", "clips")
            self._plot.setMinimumHeight(96)
            self._plot.setMinimumWidth(180)
            self._plot.setMaximumWidth(200)
            self._bars = pg.BarGraphItem(x0=x0, x1=x1, height=counts, brush="#3b82f6")
            self._plot.addItem(self._bars)
            self.hist_box.addWidget(self._plot)
        else:
            self._bars.setOpts(x0=x0, x1=x1, height=counts)
        self._plot.setToolTip("\n".join(f"{lo:g}-{hi:g} s: {n}" for lo, hi, n in rep.histogram if n))

    def _edited(self, manifest, message: str) -> None:
        """A text fixed or a clip dropped in the table: save the manifest (atomically), update."""
        dropped_before = {c.id for c in self.manifest.clips if c.dropped}
        self.manifest = manifest
        manifest.save(self.wiz.dataset_dir)
        if dropped_before != {c.id for c in manifest.clips if c.dropped}:
            self._show_report()
        self.info.setText(message)
        self.changed.emit()

    def play_clip(self, row: int) -> None:
        if self.manifest is None or not 0 <= row < len(self.manifest.clips):
            return
        play_file(self.wiz.audio, self.manifest.path_of(self.manifest.clips[row], self.wiz.dataset_dir),
                  self.wiz.status_message.emit)

    def ready(self) -> tuple[bool, str]:
        if self.job_id is not None:
            return False, "the dataset check is running"
        if self.manifest is None:
            return False, "check a dataset first"
        rate = self.wiz.sample_rate()
        if rate and self.manifest.sample_rate != rate:
            return False, (f"the dataset was checked at {self.manifest.sample_rate} Hz, {self.BASE_RATE} "
                           f"{rate} Hz: check it again")
        if not self.manifest.usable():
            return False, "no usable clips: fix or keep some clips, or add recordings"
        return True, ""

    def entered(self) -> None:
        if (self.recorder.name_edit.text().strip() or not self.consent) and not self.recorder.script:
            self.recorder.load_session()
        if self.manifest is None:
            self.load_existing()

    def load_existing(self) -> bool:
        """Show the prepared dataset of this voice name if one was checked before."""
        folder = datasets_dir() / self.wiz.voice_name()
        if not (folder / MANIFEST_NAME).is_file():
            return False
        try:
            self.set_manifest(Manifest.load(folder), folder)
        except Exception as e:  # DatasetError
            self.info.setText(plain_error(e))
            return False
        return True

    def shutdown(self) -> None:
        self.recorder.shutdown()


def plain_report(rep, max_lines: int = 20) -> str:
    """The Dataset step's summary of a ``DatasetReport``: the CLI's ``format_report`` in plain words,
    without histogram or scores; at most ``max_lines`` clips per list, then a count."""
    usable, total = f"{rep.usable_minutes:.1f}", f"{rep.total_minutes:.1f}"
    out = [f"{rep.usable_clips} of {rep.clips} clips can be used: {usable} minutes of speech"
           + (f" ({total} minutes in all)." if total != usable else ".")]
    marked = {FLAG_WORDS.get(k, k.replace("_", " ")): v for k, v in rep.flag_counts.items() if v}
    out.append("Marked for you to check (used, unless a list below says not): "
               + "; ".join(f"{k}: {v}" for k, v in marked.items()) + "." if marked else "Marked clips: none.")
    if rep.mismatches:
        out.append("The words heard differ from the text:")
        out += [f"  {ident}: the text says \u201c{text}\u201d, heard \u201c{heard}\u201d"
                for ident, _score, text, heard in rep.mismatches[:max_lines]]
        if len(rep.mismatches) > max_lines:
            out.append(f"  and {len(rep.mismatches) - max_lines} more")
    for title, items in (("Too long (not used; cut them, or tick \u201cCut clips over 20 s\u201d)", rep.too_long),
                         ("Too short (not used)", rep.too_short),
                         ("Text the voice cannot say (not used)", [f"{i} ({why})" for i, _src, why in rep.unsayable]),
                         ("May be another person (not used)", [i for i, _src, _sim in rep.other_speaker])):
        if items:
            more = f" and {len(items) - max_lines} more" if len(items) > max_lines else ""
            out.append(f"{title}: " + ", ".join(items[:max_lines]) + more)
    if rep.problems:
        out.append(f"Files that could not be used ({len(rep.problems)}):")
        out += [f"  {p.source}: {p.reason}" for p in rep.problems[:max_lines]]
        if len(rep.problems) > max_lines:
            out.append(f"  and {len(rep.problems) - max_lines} more")
    out += [w[0].upper() + w[1:] for w in rep.warnings if w]
    return "\n".join(out)
