"""Record page: microphone picker, Record / Stop, level meter, Play, Save as…, Send to Transcribe.

The microphone opens at its native rate and is resampled to 16 kHz by
:class:`~speechstudio.audio.devices.Recorder`; the live mel view follows it."""
from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QMessageBox, QPushButton,
                               QVBoxLayout, QWidget)

from speechstudio.gui.common import LevelMeter, fmt_duration, settings

RATE = 16000


class RecordPage(QWidget):
    status_message = Signal(str)

    def __init__(self, win) -> None:
        super().__init__()
        self.win = win
        self.audio = win.audio
        self.recording: np.ndarray | None = None
        self.saved_path: Path | None = None
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.device_box = QComboBox()
        self.device_box.setAccessibleName("Microphone")
        form.addRow("Microphone", self.device_box)
        self.meter = LevelMeter()
        form.addRow("Level", self.meter)
        self.length = QLabel("no recording yet")
        self.length.setAccessibleName("Recording length")
        form.addRow("Recording", self.length)
        lay.addLayout(form)
        row = QHBoxLayout()
        self.rec_btn = QPushButton("● Record")
        self.rec_btn.setAccessibleName("Record")
        self.stop_btn = QPushButton("■ Stop")
        self.stop_btn.setAccessibleName("Stop recording")
        self.play_btn = QPushButton("▶ Play")
        self.play_btn.setAccessibleName("Play recording")
        self.play_btn.setToolTip("Play the recording (Space)")
        self.save_btn = QPushButton("Save as…")
        self.save_btn.setAccessibleName("Save recording as")
        self.send_btn = QPushButton("Send to Transcribe")
        self.send_btn.setAccessibleName("Send recording to Transcribe")
        for b in (self.rec_btn, self.stop_btn, self.play_btn, self.save_btn, self.send_btn):
            row.addWidget(b)
        row.addStretch(1)
        lay.addLayout(row)
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setAccessibleName("Recording status")
        lay.addWidget(self.note)
        lay.addStretch(1)
        self.rec_btn.clicked.connect(self.start)
        self.stop_btn.clicked.connect(self.stop)
        self.play_btn.clicked.connect(self.play)
        self.save_btn.clicked.connect(self._save_dialog)
        self.send_btn.clicked.connect(self.send_to_transcribe)
        self.device_box.currentIndexChanged.connect(self._device_changed)
        self._timer = QTimer(self)
        self._timer.setInterval(50)
        self._timer.timeout.connect(self._tick)
        self._fill_devices()
        self._update()

    def _fill_devices(self) -> None:
        self.device_box.clear()
        if not self.audio.available:
            self.device_box.addItem("no audio devices")
            self.device_box.setEnabled(False)
            self.note.setText(self.audio.reason)
            return
        devs = self.audio.backend.input_devices()
        for d in devs:
            self.device_box.addItem(d.name + ("  [default]" if d.is_default else ""), d.index)
            self.device_box.setItemData(self.device_box.count() - 1, f"{d.default_samplerate / 1000:g} kHz",
                                        Qt.ItemDataRole.ToolTipRole)
        if not devs:
            self.device_box.addItem("no microphone found")
            self.device_box.setEnabled(False)
            self.note.setText("No microphone found. Plug one in and restart, or import files on Transcribe.")
        else:
            self._select_saved(devs, str(settings().value("record/device_name", "") or ""))

    def _select_saved(self, devs, saved: str) -> None:
        """Select the microphone used last time (by name; the label's rate and "[default]" may
        change); one that is no longer there is not selected: the default one is, with a note."""
        default = next((i for i, d in enumerate(devs) if d.is_default), 0)
        if not saved:
            self.device_box.setCurrentIndex(default)
            return
        for i, d in enumerate(devs):
            if saved == d.name or saved.startswith((f"{d.name} (", f"{d.name}  [")):
                self.device_box.setCurrentIndex(i)
                return
        self.device_box.setCurrentIndex(default)
        gone = re.sub(r" \([\d.]+ kHz\).*$|  \[default\]$", "", saved)
        self.note.setText(f"The microphone used last time, {gone}, is not connected; using {devs[default].name}.")

    def _device_changed(self, _i: int) -> None:
        self.audio.input_device = self.device_box.currentData()

    def save_settings(self) -> None:
        settings().setValue("record/device_name", self.device_box.currentText())

    def _update(self) -> None:
        rec = self.audio.recorder is not None
        ok = self.audio.available and self.device_box.isEnabled()
        have = self.recording is not None and len(self.recording) > 0
        self.rec_btn.setEnabled(ok and not rec)
        self.stop_btn.setEnabled(rec)
        self.play_btn.setEnabled(have and not rec and self.audio.available)
        self.save_btn.setEnabled(have and not rec)
        self.send_btn.setEnabled(have and not rec)

    def start(self) -> None:
        try:
            self.audio.input_device = self.device_box.currentData()
            self.audio.start_recording()
        except Exception as e:  # AudioUnavailableError
            self.note.setText(f"cannot record: {e}")
            self.status_message.emit(f"cannot record: {e}")
            return
        self.recording = None
        self.saved_path = None
        self.note.setText("recording…")
        self.note.setToolTip(f"recording at {self.audio.recorder.native_rate} Hz (saved at {RATE} Hz)")
        self._timer.start()
        self._update()

    def stop(self) -> None:
        if self.audio.recorder is None:
            self.audio.stop()
            return
        self._timer.stop()
        self.recording = self.audio.stop_recording()
        self.meter.set_level(-100.0)
        self.length.setText(f"{fmt_duration(len(self.recording) / RATE)} ({len(self.recording) / RATE:.1f} s)")
        self.note.setText("recorded; play it, save it or send it to Transcribe")
        self._update()

    def _tick(self) -> None:
        rec = self.audio.recorder
        if rec is not None:
            self.meter.set_level(rec.level_dbfs)
            self.length.setText(f"{rec.duration_s:.1f} s")

    def play(self) -> None:
        if self.recording is None or not len(self.recording):
            return
        try:
            self.audio.play(self.recording, RATE, source="your recording")
        except Exception as e:
            self.status_message.emit(f"cannot play: {e}")

    def _save_dialog(self) -> None:
        from speechstudio.gui.save_places import remember, suggest

        path, _ = QFileDialog.getSaveFileName(self, "Save recording", suggest(self._default_path().name),
                                              "WAV (*.wav);;FLAC (*.flac)", options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            remember(path)
            self.save_confirmed(Path(path))

    def save_confirmed(self, path: Path) -> Path | None:
        """Save to ``path``; an existing file is replaced only after the user confirms (None if not)."""
        if Path(path).exists():
            answer = QMessageBox.question(self, "Replace file?", f"{Path(path).name} exists. Replace it?",
                                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                          QMessageBox.StandardButton.No)
            if answer != QMessageBox.StandardButton.Yes:
                self.status_message.emit(f"not saved: {path} exists")
                return None
            return self.save(path, overwrite=True)
        return self.save(path)

    def _default_path(self) -> Path:
        from speechstudio.hub.paths import data_dir

        return data_dir() / "recordings" / f"recording-{_dt.datetime.now():%Y%m%d-%H%M%S}.wav"

    def save(self, path: Path, overwrite: bool = False) -> Path:
        """Write the recording (16 kHz mono, 16-bit PCM, WAV or FLAC by extension) to ``path``
        with :func:`speechstudio.atomic.atomic_path`. Raises ``OutputExistsError`` when ``path``
        exists and ``overwrite`` is false."""
        import soundfile as sf

        from speechstudio.atomic import atomic_path

        path = Path(path)
        fmt = "FLAC" if path.suffix.lower() == ".flac" else "WAV"
        with atomic_path(path, overwrite=overwrite) as tmp:
            sf.write(str(tmp), self.recording, RATE, subtype="PCM_16", format=fmt)
        self.saved_path = path
        self.status_message.emit(f"saved {path}")
        return path

    def send_to_transcribe(self) -> None:
        if self.recording is None:
            return
        path = self.saved_path or self.save(self._default_path())
        self.win.transcribe.add_paths([path])
        self.win.show_page("Transcribe")
        self.status_message.emit(f"{path.name} queued on Transcribe")
