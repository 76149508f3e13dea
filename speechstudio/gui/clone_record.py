"""Clone voice wizard, dataset step, "Record" tab: read the prompts aloud one at a time; each take is
saved at once into an LJSpeech folder, so a session resumes at the first prompt not yet recorded."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFormLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from speechstudio.audio.devices import Recorder
from speechstudio.audio.mel import StreamingLogMel
from speechstudio.gui.common import ERROR_COLOR, button, hrow, line_edit, named, note_label, set_font, tint
from speechstudio.gui.devices import allow
from speechstudio.gui.wizard_common import play_file
from speechstudio.gui.wording import plain_error

#: Level meter range (dBFS); -60 dBFS is shown as an empty bar.
METER_FLOOR_DB = -60


class RecordPanel(QWidget):
    """Signals: ``takes_changed(int)`` (number of prompt takes, consent not counted),
    ``status_message(str)``."""

    takes_changed = Signal(int)
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
        self._build()
        self._timer = QTimer(self, interval=50, timeout=self._tick)
        self._update()

    def _build(self) -> None:
        lay = QVBoxLayout(self)
        lay.setContentsMargins(9, 4, 9, 4)  # the tab's frame is margin enough
        form = QFormLayout()
        self.name_edit = line_edit("Your name", "the speaker's name, said in the consent sentence")
        self.name_edit.editingFinished.connect(self.load_session)
        form.addRow("Your na&me", self.name_edit)
        form.setRowVisible(self.name_edit, self.consent)
        lay.addLayout(form)
        self.position = named(QLabel("Enter your name to start." if self.consent else ""), "Prompt number")
        self.prompt = note_label("Prompt to read")
        self.prompt.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_font(self.prompt, 16)
        self.prompt.setMargin(10)
        self.prompt.setMinimumHeight(80)
        lay.addWidget(self.prompt)
        # the level meter shares the buttons' line (the Dataset step fits 1366×768 with the docks open)
        self.prev_btn = self._button("◀ Pre&vious", "Previous prompt", "Alt+Left", self.previous)
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
        lay.addLayout(hrow(self.prev_btn, self.rec_btn, self.stop_btn, self.play_btn, self.next_btn, (self.meter, 1),
                           self.clip_warning, self.count, stretch=False))
        self.note = note_label("Recording status")
        lay.addLayout(hrow(self.position, 12, (self.note, 1), stretch=False))  # one line: the step fits 1280x743
        lay.addStretch(1)
        if not self.audio.available:
            self.note.setText(f"Recording is off: {self.audio.reason}. Import a folder instead.")

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
        from speechstudio.finetune.recording import recorded_takes

        name = self.name_edit.text().strip()
        if not name and self.consent:
            self.script, self.takes = [], {}
            self._update()
            return
        self.script = script(name) if self.consent else ["", *load_prompts()]
        self.takes = recorded_takes(self.folder) if self.folder.exists() else {}
        todo = [i for i in range(self.first, len(self.script)) if i not in self.takes]
        self.go(todo[0] if todo else self.first)
        self.takes_changed.emit(self.take_count)

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
            backend = self.audio.backend
            rate = int(backend.default_samplerate(self.audio.input_device, "input"))
            self.recorder = Recorder(backend, self.audio.input_device, rate, on_block=self._on_block)
            self._peak = 0.0
            self._mel = StreamingLogMel(rate)
            self.recorder.start()
        except Exception as e:  # AudioUnavailableError, device busy
            self.recorder = None
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
        from speechstudio.audio.levels import take_levels
        from speechstudio.finetune.recording import save_take

        rec, self.recorder = self.recorder, None
        self._timer.stop()
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
        self.takes_changed.emit(self.take_count)

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
            from speechstudio.finetune.recording import CONSENT_AUDIO, take_id
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
        self._timer.stop()
