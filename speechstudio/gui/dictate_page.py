"""Dictate page: live microphone (or file) transcription with any installed recogniser; recognition is
a ``DictateJob`` on the compute worker, the page only shows it."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor, QTextCharFormat
from PySide6.QtWidgets import QLabel, QTextEdit, QWidget

from speechstudio.asr.languages import language_name
from speechstudio.asr.sources import MicSource
from speechstudio.asr.streaming import StreamUpdate
from speechstudio.errors import SpeechStudioError
from speechstudio.gui.common import (DEFAULT_MODEL, LevelMeter, ModelPicker, asker, button, combo, device_picker, hrow,
                                     named, note_label, set_font, settings, vbox)
from speechstudio.gui.devices import fill_microphones
from speechstudio.gui.dictate_anywhere import AnywherePanel
from speechstudio.gui.dictate_files import TranscriptFileActions
from speechstudio.gui.drop_paths import AUDIO_FILES
from speechstudio.gui.dictate_view import TAIL_COLOR, LiveTranscriptView
from speechstudio.gui.transcribe_options import LanguageOptions
from speechstudio.gui.wording import dictate, model_name, plain_error
from speechstudio.worker.dictation import DictateJob, DictateLevel, DictateResult, DictateStarted
from speechstudio.worker.worker import Status


class DictatePage(LiveTranscriptView, TranscriptFileActions, QWidget):
    """Signals: ``status_message(str)``, ``finished(str)`` (the whole text, after Stop), ``transcript_changed()``."""

    status_message = Signal(str)
    finished = Signal(str)
    transcript_changed = Signal()

    def __init__(self, win, config=None) -> None:
        super().__init__()
        self.win = win
        self.compute = win.compute
        self.audio = win.audio
        self.config = config          # StreamConfig or None (device defaults)
        self.job = None
        self.job_id: int | None = None
        self.finished_text = ""       # finished utterances, joined with spaces
        self.stable_text = ""         # current utterance's stable words
        self.tail_text = ""           # current utterance's still-changing tail
        self.latency_ms: float | None = None
        self.backlog_s = 0.0          # captured audio not yet recognised (live microphone)
        self.last_error = ""
        self.result = None
        self.saved_path: Path | None = None
        self._mark = 0                # document position where the current utterance starts
        self._mic_ok = False
        self._build()
        self._restore()
        self.refresh_devices()
        self.compute.job_started.connect(self._on_started)
        self.compute.job_progress.connect(self._on_progress)
        self.compute.job_finished.connect(self._on_finished)
        self._update_buttons()

    def _build(self) -> None:
        self.model_box = ModelPicker("Dictation model",
                                     "Any installed recogniser: a Wav2Vec2 CTC model (lowest latency) or Whisper "
                                     "(any language, punctuation; about a second more delay). (default): an "
                                     "installed CTC model, else Whisper. Installed name, Hugging Face id or folder")
        self.device_box = device_picker("Dictation device")
        self.mic_box = combo("Dictation microphone", tip="A microphone, or \"System audio: ...\": what the computer "
                             "plays (Linux with PulseAudio or PipeWire), for captions of a meeting or a video")
        self.mic_box.setMinimumWidth(200)
        pickers = hrow(QLabel("Model"), (self.model_box, 1), QLabel("Device"), self.device_box, QLabel("Input"),
                       (self.mic_box, 1), stretch=False)
        self.language_options = LanguageOptions()
        self.language_box = named(self.language_options.language_box, "Dictation language",
                                  "Whisper: auto detects the language on the first words and keeps it; (default) "
                                  "model with a language other than English: a multilingual Whisper model")
        self.anywhere = AnywherePanel(self)
        self.anywhere.status_message.connect(self._anywhere_note)

        self.start_btn = button("● Start", "Start dictation", "Start listening (Ctrl+Enter)", lambda: self.start())
        self.stop_btn = button("■ Stop", "Stop dictation",
                               "Stop listening; what was already heard is still transcribed (Esc)", self.stop)
        self.file_btn = button("Dictate a file…", "Dictate a recording", "Play a recording (audio or video file) at "
                               "real time through the same recogniser and output as the microphone",
                               asker(self, "Dictate a file", lambda p: self.dictate_file(Path(p)), AUDIO_FILES,
                                     start=lambda: settings().value("dictate/file_dir") or ""))
        self.copy_btn = button("Copy", "Copy transcript", slot=self.copy)
        self.save_btn = button("Save as…", "Save transcript as", slot=self._save_dialog)
        self.send_btn = button("Send to file…", "Append transcript to a file",
                               "Append the transcript to a text file (e.g. your notes)", self._send_dialog)
        self.clear_btn = button("Clear", "Clear transcript", slot=self.clear)
        actions = hrow(self.start_btn, self.stop_btn, self.file_btn, self.copy_btn, self.save_btn, self.send_btn,
                       self.clear_btn)

        self.meter = LevelMeter()
        self.latency_label = named(QLabel(dictate("no_latency")), "Latency behind real time",
                                   "How far the black (stable) text is behind the speaker when it is shown: audio "
                                   "received but not yet stable (lookahead, chunking) + model time + audio still queued")
        self.state_label = named(QLabel(dictate("idle")), "Dictation state")
        level = hrow(QLabel("Level"), (self.meter, 1), self.latency_label, self.state_label, stretch=False)

        self.view = named(QTextEdit(), "Live transcript")
        self.view.setReadOnly(True)
        set_font(self.view, 13)
        self.note = note_label("Dictation status")
        self.note.setMinimumHeight(2 * self.note.fontMetrics().lineSpacing() + 4)
        vbox(self, pickers, self.language_options, self.anywhere, actions, level, self.note, (self.view, 1))

        self.stable_fmt = QTextCharFormat()  # no colour of its own: the palette's text colour, so a
        # theme switch (light/dark) recolours what is already there
        self.tail_fmt = QTextCharFormat()
        self.tail_fmt.setForeground(QColor(TAIL_COLOR))

        self.model_box.currentTextChanged.connect(self.language_options.set_model)

    def _restore(self) -> None:
        s = settings()
        model = s.value("dictate/model") or s.value("transcribe/model") or DEFAULT_MODEL
        self.model_box.setCurrentText(str(model))
        self.device_box.setCurrentText(str(s.value("dictate/device") or s.value("transcribe/device") or "auto"))
        self.language_options.set_model(str(model))
        self.language_options.set_language(str(s.value("dictate/language", "") or "") or None)
        self.language_options.set_task(str(s.value("dictate/task", "transcribe")))
        if text := str(s.value("dictate/text", "") or ""):   # the last session's dictation stays until Clear
            self.finished_text = text
            self._render(final_piece=text)

    def save_settings(self) -> None:
        s = settings()
        s.setValue("dictate/model", self.model_box.currentText())
        s.setValue("dictate/device", self.device_box.currentText())
        s.setValue("dictate/mic_name", self.mic_box.currentText())
        s.setValue("dictate/language", self.language_options.language() or "")
        s.setValue("dictate/task", self.language_options.task())
        s.setValue("dictate/text", self.text)
        self.anywhere.save_settings()

    def shutdown(self) -> None:
        """Stop the global hotkey, the remote toggle, the tray icon and the captions window."""
        self.anywhere.shutdown()

    def refresh_devices(self) -> None:
        """List the audio backend's input devices (item data = device index)."""
        self._mic_ok = bool(fill_microphones(self.mic_box, self.audio, "no audio input"))
        if not self.audio.available:
            self.note.setText(dictate("no_audio", reason=self.audio.reason))
        saved = settings().value("dictate/mic_name")
        if self._mic_ok and saved and self.mic_box.findText(saved) >= 0:
            self.mic_box.setCurrentIndex(self.mic_box.findText(saved))
        self._update_buttons()

    @property
    def running(self) -> bool:
        return self.job_id is not None

    @property
    def text(self) -> str:
        """The stable transcript: finished utterances plus the current one's stable words."""
        return " ".join(p for p in (self.finished_text, self.stable_text) if p)

    def _update_buttons(self) -> None:
        run = self.running
        have = bool(self.text)
        self.start_btn.setEnabled(not run and self._mic_ok)
        self.start_btn.setToolTip(dictate("start_tip" if self._mic_ok else "no_mic_tip"))
        self.view.setPlaceholderText(dictate("placeholder" if self._mic_ok else "no_mic_placeholder"))
        self.file_btn.setEnabled(not run)
        self.stop_btn.setEnabled(run)
        for w in (self.model_box, self.device_box, self.mic_box, self.language_options, self.anywhere.output_box,
                  self.anywhere.shortcut_box, self.anywhere.commands_check):
            w.setEnabled(not run and (w is not self.mic_box or self._mic_ok))
        for w in (self.copy_btn, self.save_btn, self.send_btn):
            w.setEnabled(have)
        self.clear_btn.setEnabled(have and not run)

    def _anywhere_note(self, message: str) -> None:
        self.note.setText(message)
        self.status_message.emit(message)

    def _error(self, message: str) -> None:
        self.last_error = message
        self.state_label.setText(dictate("error"))
        self._anywhere_note(message)

    def start(self, source=None) -> bool:
        """Start dictating from the chosen microphone or ``source`` (an ``AudioSource``, e.g. a
        ``FileSource`` in tests). Returns False, with a message in the page, when it cannot."""
        if self.running:
            return False
        self.last_error = ""
        if source is None:
            if not self._mic_ok:
                why = self.audio.reason if not self.audio.available else dictate("no_mic_found")
                self._error(dictate("no_mic", why=why))
                return False
            try:
                self.audio.claim_mic("Dictate")
                source = MicSource(self.mic_box.currentData(), block_ms=20.0, backend=self.audio.backend)
            except Exception as e:  # noqa: BLE001 - a broken driver is a message, not a crash
                self.audio.release_mic("Dictate")
                self._error(dictate("cannot", why=e) if isinstance(e, SpeechStudioError)
                            else dictate("mic_broken", why=plain_error(e)))
                return False
        self._new_utterance_block()
        self.result = None
        self.latency_ms = None
        self.backlog_s = 0.0
        self.latency_label.setText(dictate("no_latency"))
        self.anywhere.open_output()   # what is missing is a note; the text still comes here
        opts = self.language_options
        # what the live sound picture shows: the microphone, or the file being dictated
        path = getattr(source, "path", None)
        self._mel_source = f"file:{Path(path).name}" if path and not isinstance(source, MicSource) else "mic"
        self.job = DictateJob(source, self.model_box.model(), device=self.device_box.currentText(), config=self.config,
                              language=opts.language(), task=opts.task(), hotwords=opts.hotwords())
        behind = self.compute.busy           # another page's job first (this one, once submitted, makes it busy)
        self.job_id = self.compute.submit(self.job)
        self.state_label.setText(dictate("starting"))
        self.note.setText(dictate("waiting") if behind else "")
        self._update_buttons()
        return True

    def stop(self) -> None:
        """Stop listening; the job still recognises what was captured, then ``finished`` fires."""
        if self.job is not None and self.running:
            self.job.stop()
            self.state_label.setText(dictate("finishing"))
            self.stop_btn.setEnabled(False)

    def toggle(self) -> None:
        self.stop() if self.running else self.start()

    def _on_started(self, job_id: int, _desc: str) -> None:
        if job_id == self.job_id:
            self.state_label.setText(dictate("loading"))

    def _on_progress(self, job_id: int, payload) -> None:
        if job_id != self.job_id:
            return
        if isinstance(payload, StreamUpdate):
            self.show_update(payload)
            self.anywhere.on_update(payload)
        elif isinstance(payload, DictateLevel):
            self.meter.set_level(payload.level_db)
            self.backlog_s = payload.backlog_s
            if len(payload.mel):
                self.audio.mel_frames.emit(payload.mel, getattr(self, "_mel_source", "mic"))  # the main window's live mel view
        elif isinstance(payload, DictateStarted):
            self.state_label.setText(dictate("state_listening"))
            self.anywhere.session_started(payload.engine, self.language_options.language())
            aw = self.anywhere
            self.note.setText(dictate("text_goes_to", source=payload.source, output=aw.output_box.currentText().lower())
                              if aw.session_mode != "app" else
                              dictate("text_stays", source=payload.source, problem=aw.problem) if aw.problem else
                              dictate("listening", source=payload.source))
            self.note.setToolTip(f"{payload.message}; {payload.window}; input {payload.source} at "
                                 f"{payload.input_rate} Hz")
            self.status_message.emit(dictate("dictating_here", model=model_name(payload.model_id), problem=aw.problem)
                                     if aw.problem else dictate("dictating_with", model=model_name(payload.model_id)))
        elif isinstance(payload, Status):
            self.state_label.setText(str(payload))

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id != self.job_id:
            return
        self.job_id = None
        self.job = None
        self.audio.release_mic("Dictate")
        self.meter.set_level(-100.0)
        if self.stable_text or self.tail_text:  # no final came (an error): keep the stable words, drop the grey
            self.finish_utterance(self.stable_text)
        if isinstance(result, DictateResult):
            self.result = result
            self.state_label.setText(dictate("stopped"))
            self.note.setText(self.plain_summary(result))
            self.note.setToolTip(self.summary(result))  # the figures (p50 / p95, RTF) one hover away
        failed = dictate("failed", why=plain_error(result)) if status == "failed" else ""
        self.anywhere.session_finished(failed)
        if failed:
            self._error(failed)
        elif status == "cancelled" and not isinstance(result, DictateResult):
            self.state_label.setText(dictate("cancelled"))
        if isinstance(result, DictateResult) and not failed:     # "dictating with …" would stay on the status line
            self.status_message.emit(dictate("dictation_stopped", summary=self.plain_summary(result).splitlines()[0]))
        self._update_buttons()
        self.finished.emit(self.text)

    @staticmethod
    def plain_summary(result: DictateResult) -> str:
        """One plain line on a finished session: how much was dictated, the median word-to-text delay, the language."""
        parts = [dictate("dictated", seconds=result.audio_s)]
        if result.latency_p50_s is not None:
            parts.append(dictate("delay", seconds=result.latency_p50_s))
        if result.language:
            parts.append(dictate("language", name=language_name(result.language)))
        text = "; ".join(parts) + "."
        return dictate("warning", text=text, warning=result.warning) if getattr(result, "warning", "") else text

    @staticmethod
    def summary(result: DictateResult) -> str:
        """One line on a finished session: audio, model time per call, latency, language."""
        parts = [f"{result.audio_s:.1f} s dictated; model time per call {result.chunk_p50_s * 1000:.0f} ms p50 / "
                 f"{result.chunk_p95_s * 1000:.0f} ms p95" + (f" (RTF {result.rtf:.2f})" if result.rtf is not None else "")]
        if result.latency_p50_s is not None:
            parts.append(f"word end to stable text {result.latency_p50_s:.2f} s p50 / {result.latency_p90_s:.2f} s p90")
        if result.language:
            prob = result.language_probability
            parts.append(f"language {result.language}" + (f" ({prob:.2f})" if prob is not None else ""))
        return "; ".join(parts)

    def clear(self) -> None:
        if self.running:
            return
        self.view.clear()
        self.finished_text = self.stable_text = self.tail_text = ""
        self._mark = 0
        self._update_buttons()
