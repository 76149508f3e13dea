"""Sound-card backends: :class:`SoundDeviceBackend` (PortAudio) or :class:`UnavailableBackend`
(``SPEECHSTUDIO_AUDIO=none`` or no PortAudio; ``reason`` shown); tests use :func:`set_backend`. Linux
system audio: monitor sources from ``pactl``, recorded with ``parec``."""
from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Callable

import numpy as np

from speechstudio.errors import SpeechStudioError, kind_of

log = logging.getLogger(__name__)


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
        found = next((d for d in devs if (device is None and d.is_default) or d.index == device),
                     devs[0] if devs else None)
        return found.default_samplerate if found is not None else 48000.0

    def open_input(self, device, samplerate: int, blocksize: int, callback) -> Stream:
        raise AudioUnavailableError(self.reason or "no audio input")

    def open_output(self, device, samplerate: int, blocksize: int, callback, on_end=None) -> Stream:
        raise AudioUnavailableError(self.reason or "no audio output")


class UnavailableBackend(Backend):
    """No audio at all; every open raises :class:`AudioUnavailableError` with ``reason``."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


# ----------------------------------------------------------------------------- sounddevice
class SoundDeviceBackend(Backend):
    """The real sound card via ``sounddevice`` (its streams are :class:`Stream` objects). Raises ``OSError`` when
    PortAudio is missing."""

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
        ``"system:NAME"``; Linux with PulseAudio/PipeWire, see :func:`monitor_sources`)."""
        return self._devices("input") + monitor_sources()

    def output_devices(self) -> list[DeviceInfo]:
        return self._devices("output")

    def open_input(self, device, samplerate, blocksize, callback) -> Stream:
        if is_system_device(device):
            return MonitorStream(device, samplerate, blocksize, callback)

        def cb(indata, frames, time_info, status):
            callback(indata[:, 0].astype(np.float32, copy=True))

        try:
            return self.sd.InputStream(device=device, samplerate=samplerate, blocksize=blocksize,
                                       channels=1, dtype="float32", callback=cb)
        except Exception as e:
            raise AudioUnavailableError(f"cannot open the microphone: {e}", kind=kind_of(e)) from e

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
            return sd.OutputStream(device=device, samplerate=samplerate, blocksize=blocksize, channels=1,
                                   dtype="float32", callback=cb, finished_callback=on_end)
        except Exception as e:
            raise AudioUnavailableError(f"cannot open the speaker: {e}", kind=kind_of(e)) from e


# ----------------------------------------------------------------------------- system audio
PREFIX = "system:"
_LIST_TIMEOUT_S = 3.0


def is_system_device(device) -> bool:
    """True for a device id made by :func:`monitor_sources` (``"system:NAME"``)."""
    return isinstance(device, str) and device.startswith(PREFIX)


def monitor_sources():
    """Monitor sources as ``DeviceInfo`` (``"system:NAME"``), the default sink's first; ``[]`` off Linux,
    without ``pactl`` or after 3 s; never raises."""
    if not sys.platform.startswith("linux") or shutil.which("pactl") is None:
        return []
    try:
        listing = _pactl("list", "sources")
        default_sink = _pactl("get-default-sink").strip()
    except (OSError, subprocess.SubprocessError) as e:
        log.debug("pactl failed: %s", e)
        return []
    blocks: list[dict[str, str]] = []       # one per "Source #N": its top-level "Key: value" fields
    for line in listing.splitlines():
        if line.startswith("Source #"):
            blocks.append({})
        elif blocks and line.startswith("\t") and not line.startswith("\t\t") and ":" in line:
            key, _, value = line.strip().partition(":")
            blocks[-1].setdefault(key.strip(), value.strip())
    out = []
    for block in blocks:
        name = block.get("Name", "")
        if not name.endswith(".monitor"):
            continue
        desc = block.get("Description", "") or name
        channels, rate = 2, 48000      # "float32le 2ch 48000Hz"; unknown parts: 2 channels, 48 kHz
        for part in block.get("Sample Specification", "").split():
            if part.endswith("ch") and part[:-2].isdigit():
                channels = int(part[:-2])
            elif part.endswith("Hz") and part[:-2].isdigit():
                rate = int(part[:-2])
        info = DeviceInfo(PREFIX + name, f"System audio: {desc.removeprefix('Monitor of ')}", max(channels, 1),
                          0, float(rate), False)
        out.append((name != default_sink + ".monitor", info))
    return [info for _, info in sorted(out, key=lambda t: t[0])]


def _pactl(*args: str) -> str:
    env = dict(os.environ, LC_ALL="C")  # field names in English whatever the user's locale
    r = subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=_LIST_TIMEOUT_S, env=env,
                       check=False)
    if r.returncode != 0:
        raise subprocess.SubprocessError(r.stderr.strip() or f"pactl {' '.join(args)}: exit {r.returncode}")
    return r.stdout


class MonitorStream(Stream):
    """Records a monitor source with ``parec`` (mono float32 at ``samplerate`` Hz) and calls ``callback(block)``
    (``(blocksize,)`` float32) from a reader thread; ``start`` / ``stop`` / ``close`` / ``active``. ``start`` raises
    ``AudioUnavailableError`` when ``parec`` is missing or exits at once."""

    def __init__(self, device: str, samplerate: int, blocksize: int,
                 callback: Callable[[np.ndarray], None]) -> None:
        self.source = device.removeprefix(PREFIX)
        self.samplerate, self.blocksize, self.callback = int(samplerate), max(1, int(blocksize)), callback
        self._proc: subprocess.Popen | None = None
        self._thread: threading.Thread | None = None

    @property
    def active(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        if self._proc is not None:
            return
        if shutil.which("parec") is None:
            raise AudioUnavailableError("capturing system audio needs 'parec' (Debian/Ubuntu: "
                                        "sudo apt install pulseaudio-utils)")
        latency_ms = max(10, int(1000 * self.blocksize / self.samplerate))
        cmd = ["parec", f"--device={self.source}", "--format=float32le", f"--rate={self.samplerate}",
               "--channels=1", f"--latency-msec={latency_ms}", "--client-name=SpeechStudio",
               "--stream-name=captions"]
        try:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        except OSError as e:
            raise AudioUnavailableError(f"cannot record system audio: {e}") from e
        try:
            proc.wait(timeout=0.3)  # a bad source name or no server: parec exits at once
        except subprocess.TimeoutExpired:
            pass
        else:
            err = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
            raise AudioUnavailableError(f"cannot record system audio from {self.source!r}: "
                                        f"{err or f'parec exited with status {proc.returncode}'}")
        self._proc = proc
        self._thread = threading.Thread(target=self._read, name="speechstudio-system-audio", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        want = 4 * self.blocksize
        buf = b""
        while data := proc.stdout.read(want - len(buf)):
            buf += data
            if len(buf) == want:
                self.callback(np.frombuffer(buf, dtype="<f4").astype(np.float32))
                buf = b""
        if len(buf) >= 4:
            self.callback(np.frombuffer(buf[: len(buf) // 4 * 4], dtype="<f4").astype(np.float32))

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None

    def close(self) -> None:
        self.stop()


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
        return UnavailableBackend("Recording and playback are off: audio disabled (SPEECHSTUDIO_AUDIO=none)")
    try:
        return SoundDeviceBackend()
    except OSError as e:
        return UnavailableBackend(f"Recording and playback are off: {e} (install PortAudio, e.g. "
                                  "Debian/Ubuntu: sudo apt install libportaudio2)")
    except ImportError as e:
        return UnavailableBackend(f"Recording and playback are off: {e} (pip install sounddevice)")
