"""A seekable player for the transcript editor over the app's :class:`~.audio_hub.AudioHub`.

The editor needs four things of a player: ``position_s`` (seconds into the file), ``playing``,
``seek(t)`` and ``toggle()``; tests pass a fake with the same members. This one decodes the file
once on the I/O worker (``LoadAudioJob``, float32 mono 16 kHz), plays from the position through
the hub, and restarts from the new position when seeked while playing.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from speechstudio.worker.jobs import LoadAudioJob

RATE = 16000


class SegmentPlayer(QObject):
    """Signals: ``state_changed(bool playing)``, ``message(str)`` (for the status line)."""

    state_changed = Signal(bool)
    message = Signal(str)

    def __init__(self, hub, io, parent=None) -> None:
        super().__init__(parent)
        self.hub, self.io = hub, io
        self.path: Path | None = None
        self._audio = None
        self._job: int | None = None
        self._pos = 0.0
        self._offset = 0.0
        self._playing = False
        self._play_when_loaded = False
        io.job_finished.connect(self._on_io_finished)

    @property
    def available(self) -> bool:
        from speechstudio.gui.devices import has_speaker

        return has_speaker(self.hub)

    def set_source(self, path: Path | None) -> None:
        """The file positions refer to (decoded on the first play)."""
        if path == self.path:
            return
        self.pause()
        self.path, self._audio, self._job, self._pos = path, None, None, 0.0

    @property
    def playing(self) -> bool:
        if self._playing and not self.hub.playing:  # the clip ran out (or something else played)
            self._playing = False
            self._pos = self._offset + self.hub.player.position_s
            self.state_changed.emit(False)
        return self._playing

    @property
    def position_s(self) -> float:
        """Seconds from the start of the file."""
        if self.playing:
            return self._offset + self.hub.player.position_s
        return self._pos

    def seek(self, t: float) -> None:
        self._pos = max(0.0, float(t))
        if self.playing:
            self._start()

    def play(self) -> None:
        if not self.available:
            from speechstudio.gui.devices import why_not

            self.message.emit(why_not(self.hub, "speaker"))
            return
        if self.path is None:
            return
        if self._audio is None:
            self._play_when_loaded = True
            if self._job is None:
                self._job = self.io.submit(LoadAudioJob(self.path, RATE))
                self.message.emit(f"loading {self.path.name} for playback…")
            return
        self._start()

    def pause(self) -> None:
        self._play_when_loaded = False
        if self.playing:
            self._pos = self.position_s
            self._playing = False
            self.hub.stop()
            self.state_changed.emit(False)

    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def _start(self) -> None:
        a = int(self._pos * RATE)
        if a >= len(self._audio):
            return
        self._offset = self._pos
        try:
            self.hub.play(self._audio[a:], RATE, source=self.path.name if self.path else "")
        except Exception as e:  # noqa: BLE001 - AudioUnavailableError, PortAudio errors: say, do not crash
            self.message.emit(f"cannot play: {e}")
            return
        self._playing = True
        self.state_changed.emit(True)

    def _on_io_finished(self, job_id: int, status: str, result) -> None:
        if job_id != self._job:
            return
        if status != "done":
            self._job = None
            self.message.emit(f"cannot play: {result}")
            return
        self._audio = result[0]
        if self._play_when_loaded:
            self._play_when_loaded = False
            self._start()
