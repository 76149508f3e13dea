"""Microphone and speaker behind a small interface: sounddevice (PortAudio) or none.

Backends (pick with :func:`get_backend`):

* :class:`SoundDeviceBackend`: the real sound card through ``sounddevice``. On Linux that loads the
  system PortAudio (Debian ``libportaudio2``); without it ``import sounddevice`` raises ``OSError``
  and :func:`get_backend` returns an :class:`UnavailableBackend` whose ``reason`` the GUI shows.
* :class:`UnavailableBackend`: no sound card (``SPEECHSTUDIO_AUDIO=none``, or PortAudio missing).
  Tests give a file-fed fake through :func:`set_backend` (``tests/fake_audio_backend.py``).

On top of any backend, :class:`Player` plays a clip (or a growing stream of chunks, for speech
synthesis) and :class:`Recorder` records at the device's native rate and resamples to 16 kHz.
Both call ``on_block(audio, sample_rate)`` from the audio thread with what was just played /
captured (float32 mono), which feeds the live mel view and the level meter.
Qt-free; no call blocks for longer than a stream open.
"""
from __future__ import annotations

import collections
import logging
import os
import threading
from dataclasses import dataclass
from typing import Callable

import numpy as np

from speechstudio.errors import SpeechStudioError

log = logging.getLogger(__name__)

__all__ = ["AudioUnavailableError", "DeviceInfo", "Backend", "SoundDeviceBackend",
           "UnavailableBackend", "get_backend", "set_backend", "Player", "Recorder", "rms_dbfs"]

BlockCallback = Callable[[np.ndarray, int], None]


class AudioUnavailableError(SpeechStudioError):
    """No sound device can be used (PortAudio missing, no device, device busy)."""


@dataclass(frozen=True)
class DeviceInfo:
    """One sound device: ``index`` (backend id: PortAudio's int, or ``"system:NAME"`` for a
    PulseAudio/PipeWire monitor source), ``name``, channel counts and default rate in Hz."""

    index: int | str
    name: str
    max_input_channels: int
    max_output_channels: int
    default_samplerate: float
    is_default: bool = False


class Stream:
    """A running input or output stream (``start``/``stop``/``close``; ``active``)."""

    active = False

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def close(self) -> None: ...


class Backend:
    """Interface. ``open_input`` calls ``callback(block)`` with ``np.ndarray[float32]`` shape
    ``(n,)`` at ``samplerate`` Hz from the audio thread; ``open_output`` calls ``callback(n)`` which
    returns up to ``n`` samples (float32, [-1, 1]); fewer than ``n`` ends the stream after them."""

    name = "none"
    available = False
    reason = ""

    def input_devices(self) -> list[DeviceInfo]:
        return []

    def output_devices(self) -> list[DeviceInfo]:
        return []

    def default_samplerate(self, device: int | None, kind: str) -> float:
        devs = self.input_devices() if kind == "input" else self.output_devices()
        for d in devs:
            if (device is None and d.is_default) or d.index == device:
                return d.default_samplerate
        return devs[0].default_samplerate if devs else 48000.0

    def open_input(self, device, samplerate: int, blocksize: int, callback) -> Stream:
        raise AudioUnavailableError(self.reason or "no audio input")

    def open_output(self, device, samplerate: int, blocksize: int, callback, on_end=None) -> Stream:
        raise AudioUnavailableError(self.reason or "no audio output")


class UnavailableBackend(Backend):
    """No audio at all; every open raises :class:`AudioUnavailableError` with ``reason``."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


# ----------------------------------------------------------------------------- sounddevice
class _SDStream(Stream):
    def __init__(self, stream) -> None:
        self._s = stream

    @property
    def active(self) -> bool:  # type: ignore[override]
        return bool(self._s.active)

    def start(self) -> None:
        self._s.start()

    def stop(self) -> None:
        self._s.stop()

    def close(self) -> None:
        self._s.close()


class SoundDeviceBackend(Backend):
    """The real sound card via ``sounddevice``. Raises ``OSError`` when PortAudio is missing."""

    name = "sounddevice"
    available = True

    def __init__(self) -> None:
        import sounddevice as sd  # OSError: PortAudio library not found

        self.sd = sd

    def _devices(self, kind: str) -> list[DeviceInfo]:
        sd = self.sd
        try:
            devs = sd.query_devices()
            default = sd.default.device[0 if kind == "input" else 1]
        except Exception as e:  # PortAudioError
            log.debug("query_devices failed: %s", e)
            return []
        key = "max_input_channels" if kind == "input" else "max_output_channels"
        return [DeviceInfo(i, d["name"], d["max_input_channels"], d["max_output_channels"],
                           float(d["default_samplerate"]), i == default)
                for i, d in enumerate(devs) if d[key] > 0]

    def input_devices(self) -> list[DeviceInfo]:
        """PortAudio's inputs, then the sound server's monitor sources ("System audio: ...", index
        ``"system:NAME"``; Linux with PulseAudio/PipeWire, see :mod:`speechstudio.audio.system_audio`)."""
        from speechstudio.audio.system_audio import monitor_sources

        return self._devices("input") + monitor_sources()

    def output_devices(self) -> list[DeviceInfo]:
        return self._devices("output")

    def open_input(self, device, samplerate, blocksize, callback) -> Stream:
        from speechstudio.audio.system_audio import MonitorStream, is_system_device

        if is_system_device(device):
            return MonitorStream(device, samplerate, blocksize, callback)

        def cb(indata, frames, time_info, status):
            callback(indata[:, 0].astype(np.float32, copy=True))

        try:
            s = self.sd.InputStream(device=device, samplerate=samplerate, blocksize=blocksize,
                                    channels=1, dtype="float32", callback=cb)
        except Exception as e:
            raise AudioUnavailableError(f"cannot open the microphone: {e}") from e
        return _SDStream(s)

    def open_output(self, device, samplerate, blocksize, callback, on_end=None) -> Stream:
        sd = self.sd

        def cb(outdata, frames, time_info, status):
            data = callback(frames)
            n = len(data)
            outdata[:n, 0] = data
            if n < frames:
                outdata[n:, 0] = 0
                raise sd.CallbackStop

        try:
            s = sd.OutputStream(device=device, samplerate=samplerate, blocksize=blocksize, channels=1,
                                dtype="float32", callback=cb, finished_callback=on_end)
        except Exception as e:
            raise AudioUnavailableError(f"cannot open the speaker: {e}") from e
        return _SDStream(s)



# ----------------------------------------------------------------------------- selection
_backend: Backend | None = None
_backend_lock = threading.Lock()


def get_backend() -> Backend:
    """The process-wide backend: ``$SPEECHSTUDIO_AUDIO`` = ``none`` | unset
    (sounddevice, or :class:`UnavailableBackend` with the reason when PortAudio is missing)."""
    global _backend
    with _backend_lock:
        if _backend is None:
            _backend = _make_backend(os.environ.get("SPEECHSTUDIO_AUDIO", ""))
        return _backend


def set_backend(backend: Backend | None) -> None:
    """Replace the process-wide backend (tests; ``None`` re-reads the environment next time)."""
    global _backend
    with _backend_lock:
        _backend = backend


def _make_backend(spec: str) -> Backend:
    if spec == "none":
        return UnavailableBackend("audio disabled (SPEECHSTUDIO_AUDIO=none)")
    try:
        return SoundDeviceBackend()
    except OSError as e:
        return UnavailableBackend(f"Recording and playback are off: {e} (install PortAudio, e.g. "
                                  "Debian/Ubuntu: sudo apt install libportaudio2)")
    except ImportError as e:
        return UnavailableBackend(f"Recording and playback are off: {e} (pip install sounddevice)")


def rms_dbfs(block: np.ndarray) -> float:
    """RMS level of ``block`` (float32 in [-1, 1]) in dBFS, floored at -100."""
    if len(block) == 0:
        return -100.0
    rms = float(np.sqrt(np.mean(np.square(block, dtype=np.float64))))
    return max(-100.0, 20 * np.log10(max(rms, 1e-5)))


# ----------------------------------------------------------------------------- player / recorder
class Player:
    """Plays mono float32 audio on ``backend``; one clip or stream at a time.

    ``play(audio, sr)`` plays a whole clip; ``begin(sr)`` + ``feed(chunk)`` ... + ``finish()``
    plays a stream that is still being produced (silence while it waits for the next chunk).
    ``on_block(block, sr)`` sees every block as it is played; ``on_end()`` runs when playback ends
    (naturally or by ``stop``). ``position_s``: seconds played of the current clip/stream.
    """

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
        """Start a stream at ``sample_rate`` Hz (with ``first`` audio queued); add audio with
        :meth:`feed`, end with :meth:`finish`. Raises :class:`AudioUnavailableError` when the
        speaker cannot be opened."""
        self.stop()
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
        with self._lock:
            self._chunks.append(np.asarray(audio, dtype=np.float32).reshape(-1))

    def finish(self) -> None:
        with self._lock:
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
            try:
                stream.stop()
                stream.close()
            except Exception:
                log.debug("stream stop failed", exc_info=True)
            if self.on_end is not None:
                self.on_end()


class Recorder:
    """Records the microphone at the device's native rate, resampled to ``target_rate`` (16 kHz).

    ``on_block(block, target_rate)`` gets each resampled block from the audio thread;
    ``level_dbfs`` is the RMS level of the latest block. ``stop()`` returns the recording,
    ``np.ndarray[float32]`` shape ``(n,)`` at ``target_rate`` Hz.
    """

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
    def recording(self) -> bool:
        return self._stream is not None

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
            self.level_dbfs = rms_dbfs(block)
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
            try:
                stream.stop()
                stream.close()
            except Exception:
                log.debug("stream stop failed", exc_info=True)
        with self._lock:
            return np.concatenate(self._blocks) if self._blocks else np.zeros(0, np.float32)
