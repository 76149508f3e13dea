"""The GUI's one speaker and one microphone, bridged to Qt signals (log-mel frames are computed in the
audio thread, so the GUI thread only draws)."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, Signal

from speechstudio.audio.devices import AudioUnavailableError, Player, Recorder, get_backend
from speechstudio.audio.mel import StreamingLogMel
from speechstudio.errors import SpeechStudioError


class AudioHub(QObject):
    """Signals: ``mel_frames(frames, source)`` (``np.ndarray[float32]`` shape ``(k, 80)``, source
    ``"mic"`` or ``"playback"``), ``playing_changed(bool)``, ``recording_changed(bool)`` (the Record page),
    ``mic_changed(str)`` (:attr:`mic_user`, ``""`` when nobody records)."""

    mel_frames = Signal(object, str)
    playing_changed = Signal(bool)
    recording_changed = Signal(bool)
    mic_changed = Signal(str)
    _ended = Signal()

    def __init__(self, backend=None, parent=None) -> None:
        super().__init__(parent)
        self._mel_play = StreamingLogMel(16000)
        self.play_source = "playback"  # the mel_frames source of what is playing
        self.session = 0  # +1 at each play / begin_stream: a caller tells its playback from a later one
        self._mel_mic = StreamingLogMel(16000)
        self.recorder: Recorder | None = None
        self.mic_user: str | None = None  # who records now ("the Record page", "Dictate", ...): one at a time
        self._use(backend or get_backend())
        self.output_device = None
        self.input_device = None
        self._ended.connect(lambda: self.playing_changed.emit(False))

    def set_backend(self, backend) -> None:
        """Switch to another audio backend (e.g. a fake one in tests); stops what plays/records."""
        self.shutdown()
        self._use(backend)

    def _use(self, backend) -> None:
        self.backend, self.available, self.reason = backend, bool(backend.available), backend.reason
        self.player = Player(backend, on_block=self._on_play_block, on_end=self._ended.emit)

    def play(self, audio: np.ndarray, sample_rate: int, source: str = "") -> None:
        """Play a clip (float32 mono at ``sample_rate`` Hz). ``source``: what it is, for the live
        sound picture's caption (a file name; "" says "playback"). Raises AudioUnavailableError."""
        self._start(sample_rate, source, lambda: self.player.play(audio, sample_rate))

    def begin_stream(self, sample_rate: int, first=None, source: str = "") -> None:
        self._start(sample_rate, source, lambda: self.player.begin(sample_rate, first))

    def _start(self, sample_rate: int, source: str, go) -> None:
        self._check()
        self.session += 1
        self.play_source = f"file:{source}" if source else "playback"
        self.player.device = self.output_device
        if self._mel_play.sample_rate != int(sample_rate):
            self._mel_play = StreamingLogMel(int(sample_rate))
        else:
            self._mel_play.reset()
        go()
        self.playing_changed.emit(True)

    def feed(self, audio: np.ndarray) -> None:
        self.player.feed(audio)

    def finish_stream(self) -> None:
        self.player.finish()

    def stop(self) -> None:
        self.player.stop()

    def toggle_pause(self) -> bool:
        """Pause / resume the current playback; returns True when it is now paused."""
        if not self.player.is_playing:
            return False
        self.player.set_paused(not self.player.paused)
        return self.player.paused

    @property
    def playing(self) -> bool:
        return self.player.is_playing

    def _on_play_block(self, block: np.ndarray, sample_rate: int) -> None:  # audio thread
        if self.player.paused:
            return
        frames = self._mel_play.push(block)
        if len(frames):
            self.mel_frames.emit(frames, self.play_source)

    def claim_mic(self, user: str) -> None:
        """Take the microphone for ``user`` (a place in the app, as a sentence names it); ``SpeechStudioError``
        (kind ``usage``) while another place records, so two pages never capture the same voice."""
        if self.mic_user not in (None, user):
            raise SpeechStudioError(f"the microphone is recording for {self.mic_user} (stop it there first)",
                                    kind="usage", value=self.mic_user)
        if self.mic_user != user:
            self.mic_user = user
            self.mic_changed.emit(user)

    def release_mic(self, user: str) -> None:
        """Give the microphone back (nothing when ``user`` does not hold it)."""
        if self.mic_user == user:
            self.mic_user = None
            self.mic_changed.emit("")

    def start_recording(self) -> None:
        self._check()
        self.claim_mic("the Record page")
        self._mel_mic.reset()
        try:
            self.recorder = Recorder(self.backend, self.input_device, 16000, on_block=self._on_mic_block)
            self.recorder.start()
        except BaseException:
            self.recorder = None
            self.release_mic("the Record page")
            raise
        self.recording_changed.emit(True)

    def stop_recording(self) -> np.ndarray:
        """Stop and return the recording (float32 mono 16 kHz; empty when nothing was recorded)."""
        rec, self.recorder = self.recorder, None
        self.release_mic("the Record page")
        audio = rec.stop() if rec is not None else np.zeros(0, np.float32)
        self.recording_changed.emit(False)
        return audio

    @property
    def level_dbfs(self) -> float:
        return self.recorder.level_dbfs if self.recorder is not None else -100.0

    def _on_mic_block(self, block: np.ndarray, sample_rate: int) -> None:  # audio thread
        frames = self._mel_mic.push(block)
        if len(frames):
            self.mel_frames.emit(frames, "mic")

    def _check(self) -> None:
        if not self.available:
            raise AudioUnavailableError(self.reason)

    def shutdown(self) -> None:
        self.player.stop()
        if self.recorder is not None:
            self.recorder.stop()
            self.recorder = None
        if self.mic_user is not None:
            self.release_mic(self.mic_user)
