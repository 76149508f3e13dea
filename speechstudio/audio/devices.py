"""Play (:class:`Player`) and record (:class:`Recorder`, device rate resampled to 16 kHz) on a
sound-card backend (:mod:`speechstudio.audio.backends`); both call
``on_block(audio, sample_rate)`` from the audio thread. Qt-free."""
from __future__ import annotations

import collections
import logging
import threading
from typing import Callable

import numpy as np

from speechstudio.audio.backends import AudioUnavailableError, Backend, Stream, get_backend
from speechstudio.audio.levels import rms_dbfs

log = logging.getLogger(__name__)

BlockCallback = Callable[[np.ndarray, int], None]


# ----------------------------------------------------------------------------- player / recorder
#: Rates every sound card / PortAudio host API opens an output stream at.
PLAYBACK_RATES = (8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000)


def close_stream(stream: Stream) -> None:
    """Stop and close ``stream``; a failure is logged (debug), never raised (the audio is kept)."""
    try:
        stream.stop()
        stream.close()
    except Exception:
        log.debug("stream stop failed", exc_info=True)

class Player:
    """Plays mono float32 audio on ``backend``, one clip or stream at a time: ``play(audio, sr)``, or
    ``begin(sr)`` + ``feed(chunk)`` ... + ``finish()``. ``on_block(block, sr)`` sees each block played;
    ``on_end()`` runs when playback ends; ``position_s``: seconds played."""

    def __init__(self, backend: Backend | None = None, device=None, on_block: BlockCallback | None = None,
                 on_end: Callable[[], None] | None = None) -> None:
        self.backend = backend or get_backend()
        self.device = device
        self.on_block = on_block
        self.on_end = on_end
        self._lock = threading.Lock()
        self._chunks: collections.deque[np.ndarray] = collections.deque()
        self._finished = True
        self._stream: Stream | None = None
        self._gen = 0
        self.sample_rate = 0
        self._resampler = None
        self.played_samples = 0
        self.paused = False

    @property
    def position_s(self) -> float:
        return self.played_samples / self.sample_rate if self.sample_rate else 0.0

    @property
    def is_playing(self) -> bool:
        return self._stream is not None

    def play(self, audio: np.ndarray, sample_rate: int) -> None:
        """Play ``audio`` (``np.ndarray[float32]`` shape ``(n,)`` at ``sample_rate`` Hz, [-1, 1])."""
        self.begin(sample_rate, audio, finished=True)

    def begin(self, sample_rate: int, first: np.ndarray | None = None, finished: bool = False) -> None:
        """Start a stream at ``sample_rate`` Hz (``first`` queued); a rate outside ``PLAYBACK_RATES`` is resampled to
        the next one up. Raises :class:`AudioUnavailableError` when the speaker cannot be opened."""
        self.stop()
        rate = int(sample_rate)
        sample_rate = rate if rate in PLAYBACK_RATES else next((r for r in PLAYBACK_RATES if r > rate),
                                                                PLAYBACK_RATES[-1])
        self._resampler = None
        if sample_rate != rate:
            import soxr

            self._resampler = soxr.ResampleStream(rate, sample_rate, 1, dtype="float32")
            if first is not None:
                first = self._resampler.resample_chunk(np.asarray(first, dtype=np.float32).reshape(-1),
                                                       last=finished)
            if finished:
                self._resampler = None
        with self._lock:
            self._gen += 1
            gen = self._gen
            self._chunks.clear()
            if first is not None:
                self._chunks.append(np.asarray(first, dtype=np.float32).reshape(-1))
            self._finished = finished
            self.sample_rate = int(sample_rate)
            self.played_samples = 0
            self.paused = False
        stream = self.backend.open_output(self.device, int(sample_rate), int(sample_rate) // 50,
                                          lambda n: self._pull(n, gen), on_end=lambda: self._ended(gen))
        with self._lock:
            self._stream = stream
        stream.start()

    def feed(self, audio: np.ndarray) -> None:
        audio = np.asarray(audio, dtype=np.float32).reshape(-1)
        if self._resampler is not None:
            audio = self._resampler.resample_chunk(audio)
        with self._lock:
            self._chunks.append(audio)

    def finish(self) -> None:
        tail = None
        if self._resampler is not None:
            resampler, self._resampler = self._resampler, None
            tail = resampler.resample_chunk(np.zeros(0, np.float32), last=True)
        with self._lock:
            if tail is not None and len(tail):
                self._chunks.append(tail)
            self._finished = True

    def set_paused(self, paused: bool) -> None:
        self.paused = bool(paused)

    def _pull(self, n: int, gen: int) -> np.ndarray:
        with self._lock:
            if gen != self._gen:
                return np.zeros(0, np.float32)
            if self.paused:
                return np.zeros(n, np.float32)
            parts, need = [], n
            while need and self._chunks:
                c = self._chunks[0]
                take = c[:need]
                parts.append(take)
                need -= len(take)
                if len(take) == len(c):
                    self._chunks.popleft()
                else:
                    self._chunks[0] = c[len(take):]
            out = np.concatenate(parts) if parts else np.zeros(0, np.float32)
            self.played_samples += len(out)
            if len(out) < n and not self._finished:
                out = np.concatenate([out, np.zeros(n - len(out), np.float32)])  # waiting for more
            sr = self.sample_rate
        if self.on_block is not None and len(out):
            try:
                self.on_block(out, sr)
            except Exception:  # never kill the audio thread
                log.debug("on_block failed", exc_info=True)
        return out

    def _ended(self, gen: int) -> None:
        with self._lock:
            if gen != self._gen:
                return
            stream, self._stream = self._stream, None
        if stream is not None:
            threading.Thread(target=stream.close, daemon=True).start()
        if self.on_end is not None:
            self.on_end()

    def stop(self) -> None:
        """Stop now (drops what is queued). Safe to call when nothing plays."""
        with self._lock:
            stream, self._stream = self._stream, None
            self._gen += 1
            self._chunks.clear()
            self._finished = True
        if stream is not None:
            close_stream(stream)
            if self.on_end is not None:
                self.on_end()


class Recorder:
    """Records the microphone, resampled to ``target_rate`` (16 kHz): ``on_block(block, target_rate)`` from the audio
    thread, ``level_dbfs`` of the latest block; ``stop()`` returns ``np.ndarray[float32]`` (n,) at ``target_rate``."""

    def __init__(self, backend: Backend | None = None, device=None, target_rate: int = 16000,
                 on_block: BlockCallback | None = None) -> None:
        self.backend = backend or get_backend()
        self.device = device
        self.target_rate = int(target_rate)
        self.on_block = on_block
        self.level_dbfs = -100.0
        self._blocks: list[np.ndarray] = []
        self._stream: Stream | None = None
        self._resampler = None
        self._lock = threading.Lock()
        self.native_rate = 0

    @property
    def duration_s(self) -> float:
        with self._lock:
            return sum(len(b) for b in self._blocks) / self.target_rate

    def start(self) -> None:
        """Open the microphone at its native rate. Raises :class:`AudioUnavailableError`."""
        if self._stream is not None:
            return
        import soxr

        self.native_rate = int(self.backend.default_samplerate(self.device, "input"))
        self._resampler = (soxr.ResampleStream(self.native_rate, self.target_rate, 1, dtype="float32")
                           if self.native_rate != self.target_rate else None)
        with self._lock:
            self._blocks = []
        stream = self.backend.open_input(self.device, self.native_rate, self.native_rate // 50, self._on_input)
        self._stream = stream
        stream.start()

    def _on_input(self, block: np.ndarray) -> None:
        if self._resampler is not None:
            block = self._resampler.resample_chunk(block.astype(np.float32))
        if len(block):  # the resampler may hold a block back: keep the last level then
            self.level_dbfs = max(-100.0, rms_dbfs(block))
        with self._lock:
            self._blocks.append(block)
        if self.on_block is not None and len(block):
            try:
                self.on_block(block, self.target_rate)
            except Exception:
                log.debug("on_block failed", exc_info=True)

    def stop(self) -> np.ndarray:
        stream, self._stream = self._stream, None
        if stream is not None:
            close_stream(stream)
        with self._lock:
            return np.concatenate(self._blocks) if self._blocks else np.zeros(0, np.float32)
