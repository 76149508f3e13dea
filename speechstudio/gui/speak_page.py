"""Speak page: text (or a document, :class:`SpeakDocuments`), voice and speaker, rate / noise sliders,
Speak (played as it is made, on the compute worker), Stop, Save as…, Pronunciations…."""
from __future__ import annotations

import logging
import time
from contextlib import suppress
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QFormLayout, QLabel, QPlainTextEdit, QSlider, QWidget

from speechstudio.errors import SpeechStudioError, kind_of
from speechstudio.gui.common import asker, button, combo, hrow, named, note_label, refill, settings, vbox
from speechstudio.gui.lexicon_dialog import LexiconDialog
from speechstudio.gui.save_places import ask_save_path
from speechstudio.gui.wording import SLIDER_WORDS, plain_error
from speechstudio.tts.family import VITS_CONTROLS
from speechstudio.worker.jobs import SpeakJob, VoiceInfo, VoiceInfoJob
from speechstudio.worker.worker import Status

DEFAULT_VOICE = "(default)"
NO_OUTPUT = "no sound output device: use Save as… to write the speech to a file"
SAMPLE_TEXT = ("Welcome to SpeechStudio. Everything you hear was synthesized on this computer, "
               "without sending a single word to the internet.")


class SpeakPage(QWidget):
    status_message = Signal(str)
    speech_finished = Signal(str)  # "done" | "cancelled" | "failed"

    def __init__(self, win) -> None:
        super().__init__()
        self.compute, self.io, self.audio = win.compute, win.io, win.audio
        self.job_id: int | None = None
        self.voice_info: VoiceInfo | None = None
        self._started_stream = False
        self._after_playback = ""   # the status line's word once the speech synthesized has played out
        self._t0 = 0.0
        self.ttfa_s: float | None = None
        self.voice_load_s = 0.0
        self._t_voice = 0.0
        self._preload_job: int | None = None
        self.sentences = 0
        self.text = named(QPlainTextEdit(), "Text to speak")
        self.text.setPlaceholderText("Type or paste text; Ctrl+Enter speaks it.")
        form = QFormLayout()
        self.voice_box = combo("Voice", [DEFAULT_VOICE])
        self.voice_box.setMinimumWidth(260)
        self.speaker_box = combo("Speaker", ["single speaker"])
        self.speaker_box.setEnabled(False)
        form.addRow("Voice", hrow((self.voice_box, 1), QLabel("Speaker"), (self.speaker_box, 1), stretch=False))
        self.rate, self.rate_label = self._slider(form, "Rate", "Speaking rate", "1.00×: the voice's own tempo", 50, 200, 100,
                                                  lambda v: f"{v / 100:.2f}×")
        self.noise, self.noise_label = self._slider(form, SLIDER_WORDS["noise"][0], *SLIDER_WORDS["noise"], 0, 100, 67,
                                                    lambda v: f"{v / 100:.2f}")
        self.noise_w, self.noise_w_label = self._slider(form, SLIDER_WORDS["noise_w"][0], *SLIDER_WORDS["noise_w"],
                                                        0, 100, 80, lambda v: f"{v / 100:.2f}")
        # pitch shift in half semitones; follows the voice's own (a clone's measured offset) until the user moves it
        self.pitch, self.pitch_label = self._slider(form, "Pitch", "Pitch shift (semitones)", "Shift the pitch, "
                                                    "formants kept; a cloned voice starts at its recordings' pitch",
                                                    -24, 24, 0, lambda v: f"{v / 2:+.1f} semitones")
        self.pitch_own = True
        self.pitch.valueChanged.connect(self._pitch_moved)
        self.speak_btn = button("Speak", "Speak", "Speak the text; playback starts after the first sentence "
                                "(Ctrl+Enter)", self.speak)
        self.stop_btn = button("Stop", "Stop speaking", "Stop speaking (Esc)", self.stop)
        self.save_btn = button("Save as…", "Save speech as", "Synthesize the whole text to an audio file (.wav, "
                               ".flac, .ogg, .mp3, .opus or .m4a)", self._save_dialog)
        self.lexicon_btn = button("Pronunciations…", "Edit pronunciations",
                                  "Words the voices should say your way (a respelling or IPA phonemes)", self.edit_lexicon)
        self.documents = SpeakDocuments(self)  # Open text… and Audiobook…
        self.stop_btn.clicked.connect(self.documents.stop)
        self.info = note_label("Speech status")
        vbox(self, (self.text, 1), form, hrow(self.speak_btn, self.stop_btn, self.save_btn, self.documents.open_btn,
                                              self.documents.book_btn, self.lexicon_btn, (self.info, 1), stretch=False))
        self.voice_box.currentTextChanged.connect(lambda _t: self._reset_speakers())
        self.stop_btn.setEnabled(False)
        self.audio.playing_changed.connect(self._on_playing)
        if not self.audio.available:
            self.info.setText(f"{self.audio.reason}. Save as… still works.")  # the reason says what is off
        self._restore()
        self.compute.job_progress.connect(self._on_progress)
        self.compute.job_finished.connect(self._on_finished)

    @staticmethod
    def _slider(form: QFormLayout, label: str, name: str, tip: str, lo: int, hi: int, value: int,
                shown) -> tuple[QSlider, QLabel]:
        """A form row ``label``: a slider from ``lo`` to ``hi`` and a label saying ``shown(its value)``."""
        slider = named(QSlider(Qt.Orientation.Horizontal), name, tip)
        slider.setAccessibleDescription(tip)        # the tooltip again when a voice has the control
        slider.setRange(lo, hi)
        slider.setValue(value)
        text = QLabel(shown(value))
        text.setMinimumWidth(60)
        slider.valueChanged.connect(lambda v: text.setText(shown(v)))
        form.addRow(label, hrow((slider, 1), text, stretch=False))
        return slider, text

    def _pitch_moved(self, _value: int) -> None:
        self.pitch_own = False

    def _set_pitch_to_voice(self, semitones: float) -> None:
        """Put the pitch slider at the voice's own shift (it then follows the voice again)."""
        self.pitch.setValue(int(round(max(-12.0, min(12.0, semitones)) * 2)))
        self.pitch_own = True

    def _restore(self) -> None:
        s = settings()
        self.text.setPlainText(str(s.value("speak/text", SAMPLE_TEXT)))
        v = str(s.value("speak/voice", DEFAULT_VOICE))
        if v != DEFAULT_VOICE:
            self.voice_box.addItem(v)
        self.voice_box.setCurrentText(v)
        with suppress(TypeError, ValueError):      # the noise sliders follow the voice (_set_voice_info)
            self.rate.setValue(int(s.value("speak/rate", self.rate.value())))

    def save_settings(self) -> None:
        s = settings()
        s.setValue("speak/text", self.text.toPlainText()[:5000])
        s.setValue("speak/voice", self.voice_box.currentText())
        s.setValue("speak/rate", self.rate.value())

    def set_voices(self, names: list[str]) -> None:
        cur = self.voice_box.currentText()
        refill(self.voice_box, [DEFAULT_VOICE, *names], cur)

    def _reset_speakers(self) -> None:
        self.voice_info = None
        self._set_pitch_to_voice(0.0)
        refill(self.speaker_box, ["(loads with the voice)"])
        self.speaker_box.setEnabled(False)
        if self.isVisible():
            self.preload()

    def _job(self, out_path: str | None = None) -> SpeakJob:
        voice = self.voice_box.currentText()
        speaker = None
        if self.speaker_box.isEnabled() and self.speaker_box.currentIndex() >= 0:
            speaker = self.speaker_box.currentData()
        on = {name: s.isEnabled() for name, s in (("rate", self.rate), ("noise", self.noise), ("noise_w", self.noise_w))}
        base_length = float((self.voice_info.defaults if self.voice_info else {}).get("length_scale", 1.0))
        return SpeakJob(self.text.toPlainText(), voice=None if voice == DEFAULT_VOICE else voice, speaker=speaker,
                        length_scale=base_length * 100.0 / max(1, self.rate.value())
                        if on["rate"] and self.rate.value() != 100 else None,
                        noise_scale=self.noise.value() / 100 if on["noise"] else None,
                        noise_w=self.noise_w.value() / 100 if on["noise_w"] else None, out_path=out_path,
                        pitch=None if self.pitch_own else self.pitch.value() / 2)

    def can_play(self) -> bool:
        """Whether there is somewhere to play to; Speak is greyed (its tooltip and the page say why)
        when not, checked each time the page is shown."""
        ok = self.audio.available and not self._no_devices()
        self.speak_btn.setEnabled(ok and self.job_id is None)
        self.speak_btn.setToolTip("Speak the text; playback starts after the first sentence (Ctrl+Enter)" if ok else
                                  "No sound output device: Save as… writes the speech to a file")
        return ok

    def _no_devices(self) -> bool:
        try:
            return not self.audio.backend.output_devices()
        except Exception:  # a backend that cannot list devices: let playback try
            return False

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        if not self.can_play() and self.job_id is None and self.audio.available:
            self.info.setText(NO_OUTPUT)

    def _say(self, line: str, status: str | None = None) -> None:
        """``line`` on the page and ``status`` (default: the same) on the status line."""
        self.info.setText(line)
        self.status_message.emit(line if status is None else status)

    def _offer_save(self) -> None:
        self._say(NO_OUTPUT)
        self.save_btn.setFocus()

    def edit_lexicon(self) -> int:
        """Open the Pronunciations dialog for the current voice's language (en when not known)."""
        lang = getattr(self.voice_info, "language", None) or (self.voice_info.defaults.get("language")
                                                               if self.voice_info else None) or "en"
        self.lexicon_dialog = LexiconDialog(lang, self)
        result = self.lexicon_dialog.exec()
        if self.lexicon_dialog.saved_path is not None:
            self.status_message.emit(f"pronunciations saved to {self.lexicon_dialog.saved_path}")
        return result

    def _has_text(self) -> bool:
        """Whether there is text to speak (else the status line says so)."""
        if not self.text.toPlainText().strip():
            self._say("Nothing to speak: type some text first.", "nothing to speak: type some text first")
            return False
        return True

    def speak(self) -> None:
        """Synthesize and play; playback starts as soon as the first sentence is ready."""
        if not self._has_text():
            return
        if not self.audio.available:
            self.status_message.emit(f"{self.audio.reason}; use Save as…")
            return
        if self._no_devices():  # the message shown, Save as… focused
            self._offer_save()
            return
        self.stop()
        self._started_stream, self._after_playback = False, ""     # the speech before: stopped, no word to come
        self.ttfa_s = None
        self.sentences = 0
        self._t0 = time.perf_counter()
        self.job_id = self.compute.submit(self._job())
        self.info.setText("synthesizing the first sentence…")
        self._busy(True)

    def stop(self) -> None:
        if self.job_id is not None:
            self.compute.cancel(self.job_id)
        if self._after_playback:
            self._after_playback = "speech stopped"
        self.audio.stop()

    def _on_playing(self, playing: bool) -> None:
        """The speech synthesized has played out (or was stopped): Speak and Save free again, the status said."""
        if not playing and self.job_id is None and self._after_playback:
            self.status_message.emit(self._after_playback)
            self._after_playback = ""
            self._busy(False)

    def _save_dialog(self) -> None:
        if self._has_text() and (path := ask_save_path(self, "Save speech", "speech.wav",
                                                       "Audio (*.wav *.flac *.ogg *.mp3 *.opus *.m4a)")):
            self.save(path)

    def save(self, path: str) -> int:
        """Synthesize the text into ``path`` (.wav/.flac/.ogg/.mp3/.opus/.m4a: ``tts.output``; written atomically)."""
        self.stop()
        self._after_playback = ""
        self._t0 = time.perf_counter()
        self.job_id = self.compute.submit(self._job(out_path=str(path)))
        self.info.setText(f"saving to {path}…")
        self._busy(True)
        return self.job_id

    def _busy(self, busy: bool) -> None:
        self.speak_btn.setEnabled(not busy and self.can_play())
        self.save_btn.setEnabled(not busy)
        self.stop_btn.setEnabled(busy)

    def _on_progress(self, job_id: int, payload) -> None:
        if job_id != self.job_id:
            return
        if isinstance(payload, Status):
            self.info.setText(str(payload))
        elif isinstance(payload, VoiceInfo):
            self._set_voice_info(payload)
            self._t_voice = time.perf_counter()
        elif hasattr(payload, "audio"):  # SpeechChunk
            self.sentences += 1
            try:
                if not self._started_stream:
                    self.audio.begin_stream(payload.sample_rate, payload.audio, source="speech")
                    self._started_stream = True
                    self.ttfa_s = time.perf_counter() - self._t0
                    self.voice_load_s = self._t_voice - self._t0
                else:
                    self.audio.feed(payload.audio)
            except Exception as e:  # AudioUnavailableError, sounddevice.PortAudioError
                self.stop()
                if kind_of(e) == "no_sound_device":  # e.g. PortAudio's "Error querying device -1"
                    self._offer_save()
                else:
                    self.status_message.emit(f"cannot play: {plain_error(e)}")
                return
            warn = f" (skipped: {'; '.join(payload.warnings)})" if payload.warnings else ""
            self.info.setText(f"sentence {payload.index + 1}: {payload.text[:60]}{warn}"
                              + (f" — {self._ttfa_text()}" if self.ttfa_s is not None else ""))

    def _ttfa_text(self) -> str:
        """Time to first audio, split into voice loading (first use only) and synthesis."""
        synth = self.ttfa_s - self.voice_load_s
        if self.voice_load_s > 0.5:
            return f"first audio after {self.ttfa_s:.1f} s (loading the voice {self.voice_load_s:.1f} s, first sentence {synth:.2f} s)"
        return f"first audio after {self.ttfa_s:.2f} s"

    def preload(self) -> None:
        """Load the chosen voice on the compute worker (first visit of the page) so the speaker list fills."""
        if self.voice_info is None and self.job_id is None and self._preload_job is None:
            voice = self.voice_box.currentText()
            self._preload_job = self.compute.submit(VoiceInfoJob(None if voice == DEFAULT_VOICE else voice))

    def _set_voice_info(self, info: VoiceInfo) -> None:
        first = self.voice_info is None or self.voice_info.name != info.name
        self.voice_info = info
        if first:  # the engine's line (device, number format, where it came from) goes to the log
            logging.getLogger(__name__).info("%s", info.message)
            self.status_message.emit(f"Voice ready: {info.name}")
            self._set_pitch_to_voice(float(info.defaults.get("pitch", 0.0) or 0.0))
            for control, slider in (("noise_scale", self.noise), ("noise_w", self.noise_w)):   # the voice's own
                if control in info.defaults:
                    slider.setValue(int(round(float(info.defaults[control]) * 100)))
            cur = self.speaker_box.currentData() if self.speaker_box.isEnabled() else None
            names = list(info.speakers) or [str(i) for i in range(info.num_speakers)]
            refill(self.speaker_box, [(n, n if info.speakers else i) for i, n in enumerate(names)]
                   if info.num_speakers > 1 else ["single speaker"], cur)
            self.speaker_box.setEnabled(info.num_speakers > 1)
        controls = tuple(info.defaults.get("controls", VITS_CONTROLS))
        for control, slider, label in (("length_scale", self.rate, "speed"), ("noise_scale", self.noise, "noise"),
                                       ("noise_w", self.noise_w, "rhythm noise")):
            slider.setEnabled(control in controls)
            slider.setToolTip(slider.accessibleDescription() if control in controls
                              else f"voice {info.name} has no {label} control")

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id == self._preload_job:
            self._preload_job = None
            if status == "done" and isinstance(result, VoiceInfo):
                self._set_voice_info(result)
            elif status == "failed":
                self.info.setText(f"voice not available: {plain_error(result)}")
            return
        if job_id != self.job_id:
            return
        self.job_id = None
        if self._started_stream:
            self.audio.finish_stream()
        if status == "failed":
            self._say(f"failed: {plain_error(result)}", f"speech failed: {plain_error(result)}")
        elif status == "cancelled":
            self._say("stopped", "speech stopped")       # a line, so an earlier failure does not stay
        elif isinstance(result, tuple) and len(result) == 3:
            dur, n, path = result
            self._say(f"saved {dur:.1f} s ({n} sentence{'s' if n != 1 else ''}) to {path}", f"saved {path}")
        elif isinstance(result, str):  # save cancelled
            self.info.setText(result)
        else:
            took = time.perf_counter() - self._t0
            self.info.setText(f"{self.sentences} sentence{'s' if self.sentences != 1 else ''} synthesized in {took:.1f} s"
                              + (f"; {self._ttfa_text()}" if self.ttfa_s is not None else ""))
            spoke = f"spoke {self.sentences} sentence{'s' if self.sentences != 1 else ''}"
            if self._started_stream and self.audio.playing:
                self._after_playback = spoke        # Stop stays on while the voice is still talking
            else:
                self.status_message.emit(spoke)
        self._busy(bool(self._after_playback))
        self.speech_finished.emit(status)


DOCUMENTS = "Texts (*.txt *.md *.markdown *.epub)"


class SpeakDocuments(QObject):
    """The page's documents (the CLI's ``speak --file`` and ``audiobook``): buttons ``open_btn`` (Open text…:
    text, Markdown, EPUB) and ``book_btn`` (Audiobook…: a file per chapter and an ``.m4b`` with chapter marks, an
    ``AudiobookJob``) for ``page`` (a ``SpeakPage``: its ``text``, ``info``, ``compute``, ``_job()`` and
    ``_say()``). ``book_finished(status)`` when an audiobook ends."""

    book_finished = Signal(str)

    def __init__(self, page) -> None:
        super().__init__(page)
        self.page = page
        self.book_job: int | None = None
        self.result = None
        self.open_btn = button("Open text…", "Open a text file", "Read a text, Markdown or EPUB file into the text box",
                               asker(self.page, "Open a text", lambda p: self.open_text(Path(p)), DOCUMENTS))
        self.book_btn = button("Audiobook…", "Make an audiobook", "Read a text, Markdown or EPUB file aloud into a "
                               "folder: one audio file per chapter and a book file with chapter marks. Stop keeps the "
                               "chapters done; making it again into the same folder goes on from there.",
                               self._book_dialog)
        page.compute.job_progress.connect(self._on_progress)
        page.compute.job_finished.connect(self._on_finished)

    def open_text(self, path: Path) -> bool:
        """Put the text of ``path`` (chapters of a Markdown / EPUB file one after another) in the text
        box; False (and the reason on the page) when it cannot be read."""
        from speechstudio.tts.documents import document_text
        from speechstudio.tts.textfile import read_text_file

        try:
            text = (document_text(path) if Path(path).suffix.lower() in (".md", ".markdown", ".epub")
                    else read_text_file(path))
        except (SpeechStudioError, OSError) as e:
            self.page.info.setText(f"cannot open {Path(path).name}: {e}")
            return False
        self.page.text.setPlainText(text)
        self.page.info.setText(f"{Path(path).name}: {len(text.split())} words")
        return True

    def _book_dialog(self) -> None:
        doc, _ = QFileDialog.getOpenFileName(self.page, "Make an audiobook of", "", DOCUMENTS)
        if not doc:
            return
        out = QFileDialog.getExistingDirectory(self.page, "Folder for the audiobook")
        if out:
            self.make_audiobook(Path(doc), Path(out))

    def make_audiobook(self, document: Path, out_dir: Path) -> int | None:
        """Start the audiobook of ``document`` into ``out_dir`` with the page's voice and sliders;
        returns the job's id (None while one runs)."""
        from speechstudio.worker.audiobook_job import AudiobookJob

        if self.book_job is not None:
            return None
        j = self.page._job()
        self.result = None
        self.book_job = self.page.compute.submit(AudiobookJob(
            document, out_dir, voice=j.voice, speaker=j.speaker, length_scale=j.length_scale,
            noise_scale=j.noise_scale, noise_w=j.noise_w, pitch=j.pitch))
        self.page.info.setText(f"audiobook of {Path(document).name}: starting…")
        self.page.stop_btn.setEnabled(True)
        self.book_btn.setEnabled(False)
        return self.book_job

    def stop(self) -> None:
        if self.book_job is not None:
            self.page.compute.cancel(self.book_job)

    def _on_progress(self, job_id: int, payload) -> None:
        if job_id != self.book_job:
            return
        if hasattr(payload, "chars_total"):  # AudiobookProgress
            share = payload.chars_done / max(1, payload.chars_total)
            self.page.info.setText(f"audiobook: chapter {payload.chapter + 1} of {payload.chapters}, "
                                   f"{payload.title} — {share:.0%} of the book"
                                   + (" (done before, kept)" if payload.skipped else ""))
        else:
            self.page.info.setText(str(payload))

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id != self.book_job:
            return
        self.book_job = None
        self.book_btn.setEnabled(True)
        self.page.stop_btn.setEnabled(self.page.job_id is not None)
        if status == "done" and result is not None:
            self.result = result
            folder = result.files[0].parent if result.files else ""
            book = f" and {result.book_file.name}" if result.book_file else ""
            line = (f"audiobook: {len(result.files)} chapter file{'s' if len(result.files) != 1 else ''}{book} in "
                    f"{folder} ({sum(result.durations_s) / 60:.1f} min)")
            self.page._say(line)
        elif status == "failed":
            self.page._say(f"audiobook failed: {plain_error(result)}")
        else:
            self.page.info.setText("audiobook stopped: the chapters done are kept; make it again into the same "
                                   "folder to go on")
        self.book_finished.emit(status)
