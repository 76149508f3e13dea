"""Sound-card backends behind a small interface: sounddevice (PortAudio) or none.

* :class:`SoundDeviceBackend`: the real sound card through ``sounddevice``. On Linux that loads the
  system PortAudio (Debian ``libportaudio2``); without it ``import sounddevice`` raises ``OSError``
  and :func:`get_backend` returns an :class:`UnavailableBackend` whose ``reason`` the GUI shows.
* :class:`UnavailableBackend`: no sound card (``SPEECHSTUDIO_AUDIO=none``, or PortAudio missing).
  Tests give a file-fed fake through :func:`set_backend` (``tests/fake_audio_backend.py``).

What plays and records on top of a backend is :mod:`speechstudio.audio.devices` (``Player``,
``Recorder``). Qt-free; no call blocks for longer than a stream open.
"""
from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass

import numpy as np

from speechstudio.errors import SpeechStudioError

log = logging.getLogger(__name__)

__all__ = ["AudioUnavailableError", "DeviceInfo", "Stream", "Backend", "SoundDeviceBackend",
           "UnavailableBackend", "get_backend", "set_backend"]


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
