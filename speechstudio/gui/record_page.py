"""Record page: microphone picker, Record / Stop, level meter, the take's waveform and levels (with a
plain warning when it clipped or is very quiet), Play, Save as…, Send to Transcribe."""
from __future__ import annotations

import datetime as _dt
from pathlib import Path

import numpy as np
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFormLayout, QLabel, QSizePolicy, QWidget

from speechstudio.atomic import atomic_path
from speechstudio.audio.encode import AudioEncoder, check_output_suffix
from speechstudio.audio.levels import take_levels
from speechstudio.audio.waveform import peaks
from speechstudio.errors import SpeechStudioError
from speechstudio.gui.common import LevelMeter, button, combo, hrow, named, note_label, settings, vbox
from speechstudio.gui.devices import fill_microphones
from speechstudio.gui.save_places import ask_save_path
from speechstudio.gui.waveform_view import WaveformView
from speechstudio.gui.wording import plain_error
from speechstudio.hub.paths import data_dir
from speechstudio.progress import clock

RATE = 16000
TICK_S = 0.05  # the level meter's and live waveform's refresh (s)
QUIET_RMS_DBFS = -40.0  # a take this quiet is hard to transcribe (the clone wizard's threshold)


class RecordPage(QWidget):
    status_message = Signal(str)

    def __init__(self, win) -> None:
        super().__init__()
        self.win = win
        self.audio = win.audio
        self.recording: np.ndarray | None = None
        self.saved_path: Path | None = None
        form = QFormLayout()
        self.device_box = combo("Microphone")
        form.addRow("Microphone", self.device_box)
        self.meter = LevelMeter()
        form.addRow("Level", self.meter)
        self.length = named(QLabel("no recording yet"), "Recording length")
        form.addRow("Recording", self.length)
        self.rec_btn = button("● Record", "Record", slot=self.start)
        self.stop_btn = button("■ Stop", "Stop recording", slot=self.stop)
        self.play_btn = button("▶ Play", "Play recording", "Play the recording (Space)", self.play)
        self.save_btn = button("Save as…", "Save recording as", slot=self._save_dialog)
        self.send_btn = button("Send to Transcribe", "Send recording to Transcribe", slot=self.send_to_transcribe)
        buttons = hrow(self.rec_btn, self.stop_btn, self.play_btn, self.save_btn, self.send_btn)
        self.note = note_label("Recording status")
        self.waveform = WaveformView()  # live while recording (the meter's level per tick), the take after
        self.waveform.setMinimumHeight(120)
        self.waveform.setMaximumHeight(260)
        self.waveform.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.waveform.setToolTip("The recording: its loudness over time")
        self.waveform.setEnabled(False)  # no seeking: Play plays the whole take
        self.waveform.placeholder = "Your recording will be drawn here"
        self.levels = note_label("Recording levels")
        vbox(self, form, buttons, self.note, (self.waveform, 1), self.levels)
        self._live: list[float] = []  # the level (linear amplitude) at each tick of the recording
        self.device_box.currentIndexChanged.connect(self._device_changed)
        self._timer = QTimer(self, interval=int(TICK_S * 1000), timeout=self._tick)
        self._devs = devs = fill_microphones(self.device_box, self.audio, "no audio devices")
        if not self.audio.available:
            self.note.setText(self.audio.reason)
        elif not devs:
            self.note.setText("No microphone found. Plug one in and restart, or import files on Transcribe.")
        else:
            self._select_saved(devs, str(settings().value("record/device_name", "") or ""))
        self._update()

    def _select_saved(self, devs, saved: str) -> None:
        """Select the microphone used last time (by name; an older version saved its label, with the rate
        and "[default]"); one that is no longer there is not selected: the default one is, with a note."""
        default = next((i for i, d in enumerate(devs) if d.is_default), 0)
        if not saved:
            self.device_box.setCurrentIndex(default)
            return
        for i, d in enumerate(devs):
            if saved == d.name or saved.startswith((f"{d.name} (", f"{d.name}  [")):
                self.device_box.setCurrentIndex(i)
                return
        self.device_box.setCurrentIndex(default)
        self.note.setText(f"The microphone used last time, {saved}, is not connected; using {devs[default].name}.")

    def _device_changed(self, _i: int) -> None:
        self.audio.input_device = self.device_box.currentData()

    def save_settings(self) -> None:
        if 0 <= self.device_box.currentIndex() < len(self._devs):
            settings().setValue("record/device_name", self._devs[self.device_box.currentIndex()].name)

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
            self.note.setText(f"cannot record: {plain_error(e)}")
            self.status_message.emit(f"cannot record: {plain_error(e)}")
            return
        self.recording = None
        self.saved_path = None
        self._live = []
        self.levels.setText("")
        self.waveform.set_peaks(None)
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
        seconds = len(self.recording) / RATE
        self.length.setText(f"{seconds:.1f} s" if seconds < 60 else clock(seconds))  # as while recording
        self.note.setText("recorded; play it, save it or send it to Transcribe")
        self.show_take()
        self._update()

    def show_take(self) -> None:
        """Draw the recording's waveform and say its levels, with a plain warning when it clipped
        (a flat top: :func:`speechstudio.audio.levels.take_levels`) or is very quiet."""
        if self.recording is None or not len(self.recording):
            self.waveform.set_peaks(None)
            self.levels.setText("nothing was recorded: check that the microphone is on and not muted")
            return
        self.waveform.set_peaks(peaks(self.recording))
        self.waveform.set_duration(len(self.recording) / RATE)
        self.waveform.set_position(0.0)
        lv = take_levels(self.recording)
        words = f"loudest moment {lv.peak_dbfs:.0f} dB, average {lv.rms_dbfs:.0f} dB (0 dB: the most a recording holds)"
        if lv.clipping:
            words += (". It was too loud and is distorted in places: turn the microphone's input down or "
                      "move back from it, and record again")
        elif lv.rms_dbfs < QUIET_RMS_DBFS:
            words += ". It is very quiet: move closer to the microphone or turn its input up"
        self.levels.setText(words)

    def _tick(self) -> None:
        rec = self.audio.recorder
        if rec is not None:
            self.meter.set_level(rec.level_dbfs)
            self.length.setText(f"{rec.duration_s:.1f} s")
            self._live.append(10 ** (max(-100.0, rec.level_dbfs) / 20))
            env = np.asarray(self._live, np.float32)
            self.waveform.set_peaks(np.stack([-env, env], axis=1))
            self.waveform.set_duration(len(env) * TICK_S)
            self.waveform.set_position(len(env) * TICK_S)

    def play(self) -> None:
        if self.recording is None or not len(self.recording):
            return
        try:
            self.audio.play(self.recording, RATE, source="your recording")
        except Exception as e:
            self.status_message.emit(f"cannot play: {plain_error(e)}")

    def _save_dialog(self) -> None:
        """Save as…: the dialog asks before replacing a file, so the chosen path is written over."""
        if path := ask_save_path(self, "Save recording", self._default_path().name,
                                 "Audio (*.wav *.flac *.ogg *.mp3 *.opus *.m4a)"):
            self._save_or_say(Path(path), overwrite=True)

    def _save_or_say(self, path: Path, overwrite: bool = False) -> Path | None:
        """:meth:`save`, or None with the reason in the page and the status bar (a folder that is gone or
        read-only, a folder by that name, a full disk): the take stays, unsaved."""
        try:
            return self.save(path, overwrite=overwrite)
        except (OSError, SpeechStudioError) as e:
            why = e.strerror.lower() if isinstance(e, OSError) and e.strerror else plain_error(e)
            self.note.setText(f"not saved: {path}: {why}")
            self.status_message.emit(f"recording not saved: {why}")
            return None

    def _default_path(self) -> Path:
        return data_dir() / "recordings" / f"recording-{_dt.datetime.now():%Y%m%d-%H%M%S}.wav"

    def save(self, path: Path, overwrite: bool = False) -> Path:
        """Write the recording (16 kHz mono) to ``path`` in its suffix's format (``audio.encode.OUTPUT_FORMATS``;
        no suffix: ``.wav`` is added) with :func:`speechstudio.atomic.atomic_path`. Raises ``UsageError`` for
        another suffix, ``OutputExistsError`` when ``path`` exists and ``overwrite`` is false."""
        path = Path(path)
        path = path if path.suffix else path.with_name(path.name + ".wav")
        check_output_suffix(path)
        with atomic_path(path, overwrite=overwrite) as tmp, AudioEncoder(tmp, RATE, suffix=path.suffix) as out:
            out.write(np.asarray(self.recording, np.float32).reshape(-1))
        self.saved_path = path
        self.status_message.emit(f"saved {path}")
        return path

    def send_to_transcribe(self) -> None:
        if self.recording is None:
            return
        path = self.saved_path or self._save_or_say(self._default_path())
        if path is None:
            return
        self.win.transcribe.add_paths([path])
        self.win.show_page("Transcribe")
        self.status_message.emit(f"{path.name} queued on Transcribe")
