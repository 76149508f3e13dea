"""A seekable player for the transcript editor over the :class:`AudioHub`: the file decoded once on the
I/O worker; speeds 0.5x–2x keep the pitch (``audio.tempo``, stretched on a feeder thread)."""
from __future__ import annotations

import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from speechstudio.audio.tempo import check_speed
from speechstudio.audio.waveform import load_with_peaks
from speechstudio.gui.common import fmt_ts
from speechstudio.gui.devices import has_device, why_not
from speechstudio.gui.wording import plain_error
from speechstudio.worker.jobs import CallJob

RATE = 16000
LOOKAHEAD_S = 4.0   # stretched audio queued ahead of the speaker (output seconds)
_PEAKS: dict[tuple, object] = {}  # (path, mtime_ns, size) -> waveform peaks; small (4000 x 2 floats)


def _file_key(path: Path) -> tuple | None:
    try:
        st = Path(path).stat()
    except OSError:
        return None
    return (str(path), st.st_mtime_ns, st.st_size)


class SegmentPlayer(QObject):
    """Plays the current file from a position (the editor) or one span of it (:meth:`play_span`: the Transcribe
    page's segments). Signals: ``state_changed(bool playing)``, ``message(str)``, ``peaks_ready(path, peaks)``
    (``np.ndarray[float32]`` shape ``(columns, 2)``: min / max per column of the file's waveform, once per file)."""

    state_changed = Signal(bool)
    message = Signal(str)
    peaks_ready = Signal(object, object)

    def __init__(self, hub, io, parent=None) -> None:
        super().__init__(parent)
        self.hub, self.io = hub, io
        self.path: Path | None = None
        self.speed = 1.0
        self._audio = None
        self._job: int | None = None
        self._pos = self._offset = 0.0
        self._until: float | None = None     # where a span played by play_span ends (s), else None: the file's end
        self._span = ""                      # "0:00.5–0:01.5" while that span plays: said "played" when it ends
        self._playing = self._play_when_loaded = False
        self._stream = None          # the TempoStream playing (speed != 1), else None
        self._gen = 0                # bumped at each start / stop: an old feeder stops feeding
        self._feed_lock = threading.RLock()
        self._session = -1           # the hub's session of our playback (another page may play after it)
        io.job_finished.connect(self._on_io_finished)
        if hasattr(hub, "playing_changed"):
            hub.playing_changed.connect(self._on_hub_playing)

    @property
    def available(self) -> bool:
        return has_device(self.hub, "speaker")

    def set_source(self, path: Path | None) -> None:
        """The file positions refer to (decoded on the first play or :meth:`request_peaks`)."""
        if path == self.path:
            return
        self.pause()
        self.path, self._audio, self._job, self._pos = path, None, None, 0.0

    def request_peaks(self) -> None:
        """Emit ``peaks_ready`` for the current file: at once when known, else once decoded on the I/O worker."""
        if self.path is None:
            return
        key = _file_key(self.path)
        if key is not None and key in _PEAKS:
            self.peaks_ready.emit(self.path, _PEAKS[key])
            return
        self._load()

    def set_speed(self, speed: float) -> None:
        """Play at ``speed`` (0.5–2: faster or slower, same pitch); takes effect at once."""
        speed = check_speed(speed)
        if speed == self.speed:
            return
        playing = self.playing
        if playing:
            self._pos = self.position_s
        self.speed = speed
        if playing:
            self._start()

    @property
    def playing(self) -> bool:
        if self._playing and not self._ours():  # the clip ran out (or something else played)
            self._pos = self._played_to()
            self._playing = False
            self._stop_feeder()
            self.state_changed.emit(False)
        return self._playing

    def _ours(self) -> bool:
        """Whether the hub still plays what this player started."""
        return self.hub.playing and getattr(self.hub, "session", self._session) == self._session

    @property
    def position_s(self) -> float:
        """Seconds from the start of the file (source time, at any speed)."""
        return self._played_to() if self.playing else self._pos

    def _played_to(self) -> float:
        stream = self._stream
        if stream is not None:
            return stream.source_time(self.hub.player.played_samples)
        return self._offset + self.hub.player.position_s

    def seek(self, t: float) -> None:
        playing = self.playing      # first: a playback that ended since sets the position it reached
        self._pos, self._until = max(0.0, float(t)), None
        if playing:
            self._start()

    def play_span(self, start_s: float, end_s: float) -> None:
        """Play ``start_s..end_s`` (s) of the current file and stop there; the status line says "playing A–B", then
        "played A–B" (decoded first, on the I/O worker, unless it already was)."""
        self.pause()
        self._pos, self._until = max(0.0, float(start_s)), float(end_s)
        self.play()

    def play(self) -> None:
        if not self.available:
            self.message.emit(why_not(self.hub, "speaker"))
            return
        if self.path is None:
            return
        if self._audio is None:
            self._play_when_loaded = True
            self._load()
            return
        self._start()

    def pause(self) -> None:
        self._play_when_loaded, self._span = False, ""
        if self.playing:
            self._pos = self.position_s
            self._playing = False
            self._stop_feeder()
            self.hub.stop()
            self.state_changed.emit(False)

    def toggle(self) -> None:
        if self.playing:
            self.pause()
        else:
            self._until = None
            self.play()

    def _load(self) -> None:
        if self._job is None and self.path is not None:
            self._job = self.io.submit(CallJob(load_with_peaks, self.path, RATE,
                                               description=f"load {self.path.name}"))
            if self._play_when_loaded:
                self.message.emit(f"loading {self.path.name} for playback…")

    def _start(self) -> None:
        a = int(self._pos * RATE)
        if a >= len(self._audio):
            return
        audio = self._audio if self._until is None else self._audio[:max(a + 1, int(self._until * RATE))]
        self._stop_feeder()
        self._offset = self._pos
        source = self.path.name if self.path else ""
        try:
            if self.speed == 1.0:
                self._stream = None
                self.hub.play(audio[a:], RATE, source=source)
                self._session = getattr(self.hub, "session", 0)
            else:
                from speechstudio.audio.tempo import TempoStream

                stream = TempoStream(audio, RATE, self.speed, start_s=self._pos)
                with self._feed_lock:  # the feeder checks the generation and the session before each feed
                    self._gen += 1
                    gen = self._gen
                    self._stream = stream
                    self.hub.begin_stream(RATE, source=source)  # silence until the first piece comes
                    self._session = getattr(self.hub, "session", 0)
                threading.Thread(target=self._feed, args=(stream, gen), daemon=True, name="tempo-feeder").start()
        except Exception as e:  # noqa: BLE001 - AudioUnavailableError, PortAudio errors: say, do not crash
            self._stream = None
            self.message.emit(f"cannot play: {plain_error(e)}")
            return
        self._playing = True
        self.state_changed.emit(True)
        self._span = "" if self._until is None else f"{fmt_ts(self._pos)}–{fmt_ts(self._until)}"
        if self._span:
            self.message.emit(f"playing {self._span}")

    def _on_hub_playing(self, playing: bool) -> None:
        """A span's playback ended: "played A–B" (not when paused, or when something else plays now)."""
        if playing or not self._span or self.hub.playing or getattr(self.hub, "session", self._session) != self._session:
            return
        self.message.emit(f"played {self._span}")
        self._span = ""

    def _feed(self, stream, gen: int) -> None:
        """Feeder thread: stretch the next piece when less than LOOKAHEAD_S is queued."""
        ahead = int(LOOKAHEAD_S * RATE)
        try:
            while True:
                with self._feed_lock:
                    if gen != self._gen or not self._ours():  # seeked, paused, or another page plays now
                        return
                    queued = stream.produced - self.hub.player.played_samples
                if queued > ahead:
                    time.sleep(0.05)
                    continue
                piece = stream.next_piece()
                with self._feed_lock:
                    if gen != self._gen or not self._ours():
                        return
                    if piece is None:
                        self.hub.finish_stream()
                        return
                    self.hub.feed(piece)
        except Exception as e:  # noqa: BLE001 - a TempoError or a device error: end the stream, say why
            with self._feed_lock:
                if gen == self._gen and self._ours():
                    self.hub.finish_stream()
            self.message.emit(f"cannot play at {self.speed:g}x: {plain_error(e)}")

    def _stop_feeder(self) -> None:
        with self._feed_lock:
            self._gen += 1

    def _on_io_finished(self, job_id: int, status: str, result) -> None:
        if job_id != self._job:
            return
        if status != "done":
            self._job = None
            self._play_when_loaded = False
            self.message.emit(f"cannot play: {plain_error(result)}")
            return
        audio, _rate, peaks = result
        self._audio = audio
        key = _file_key(self.path) if self.path is not None else None
        if key is not None:
            if len(_PEAKS) >= 64:
                _PEAKS.pop(next(iter(_PEAKS)))
            _PEAKS[key] = peaks
        self.peaks_ready.emit(self.path, peaks)
        if self._play_when_loaded:
            self._play_when_loaded = False
            self._start()
