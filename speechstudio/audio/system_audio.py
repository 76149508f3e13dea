"""System audio as an input: the monitor sources of PulseAudio / PipeWire (what the speakers play).

Live captions for a meeting or a video need what the computer plays, not the microphone. On Linux
the sound server exposes this as a *monitor source* per output ("Monitor of Built-in Audio"; name
``<sink>.monitor``). PortAudio does not list them, so we ask the sound server with the tools it
ships (``pulseaudio-utils``; PipeWire provides the same through ``pipewire-pulse``):

* ``pactl list sources`` lists them (:func:`monitor_sources`),
* ``parec --device=NAME --format=float32le --rate=R --channels=1`` records one as raw float32 PCM
  (:class:`MonitorStream`).

A monitor source is a :class:`~speechstudio.audio.backends.DeviceInfo` whose ``index`` is the string
``"system:NAME"`` (:data:`PREFIX`); the audio backends open it with :class:`MonitorStream`, so every
page that takes an input device (Dictate, captions, Record) can use it. On Windows (WASAPI loopback)
and macOS (needs a virtual device such as BlackHole) nothing is listed here.

Qt-free. Errors: :class:`~speechstudio.audio.backends.AudioUnavailableError` with the reason.
"""
from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import threading
from typing import Callable

import numpy as np

log = logging.getLogger(__name__)

__all__ = ["PREFIX", "is_system_device", "monitor_sources", "MonitorStream"]

PREFIX = "system:"
_LIST_TIMEOUT_S = 3.0


def is_system_device(device) -> bool:
    """True for a device id made by :func:`monitor_sources` (``"system:NAME"``)."""
    return isinstance(device, str) and device.startswith(PREFIX)


def monitor_sources():
    """The sound server's monitor sources as ``DeviceInfo`` (index ``"system:NAME"``, name
    ``"System audio: DESCRIPTION"``, 1+ input channels, the source's rate in Hz), default sink's
    monitor first and marked ``is_default=False`` (the microphone stays the default input).

    Returns ``[]`` when this is not Linux, ``pactl`` is missing, or the server does not answer
    within 3 s (never raises: a missing sound server only means no system-audio entry)."""
    from speechstudio.audio.backends import DeviceInfo

    if not sys.platform.startswith("linux") or shutil.which("pactl") is None:
        return []
    try:
        listing = _pactl("list", "sources")
        default_sink = _pactl("get-default-sink").strip()
    except (OSError, subprocess.SubprocessError) as e:
        log.debug("pactl failed: %s", e)
        return []
    out = []
    for block in _source_blocks(listing):
        name = block.get("Name", "")
        if not name.endswith(".monitor"):
            continue
        desc = block.get("Description", "") or name
        channels, rate = _sample_spec(block.get("Sample Specification", ""))
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


def _source_blocks(listing: str) -> list[dict[str, str]]:
    """``pactl list sources`` → one dict per ``Source #N`` with its top-level ``Key: value`` fields."""
    blocks: list[dict[str, str]] = []
    for line in listing.splitlines():
        if line.startswith("Source #"):
            blocks.append({})
        elif blocks and line.startswith("\t") and not line.startswith("\t\t") and ":" in line:
            key, _, value = line.strip().partition(":")
            blocks[-1].setdefault(key.strip(), value.strip())
    return blocks


def _sample_spec(spec: str) -> tuple[int, int]:
    """``"float32le 2ch 48000Hz"`` → ``(2, 48000)``; unknown parts default to 2 channels, 48 kHz."""
    channels, rate = 2, 48000
    for part in spec.split():
        if part.endswith("ch") and part[:-2].isdigit():
            channels = int(part[:-2])
        elif part.endswith("Hz") and part[:-2].isdigit():
            rate = int(part[:-2])
    return channels, rate


class MonitorStream:
    """Records a monitor source with ``parec`` (mono float32 at ``samplerate`` Hz; the sound server
    downmixes and resamples) and calls ``callback(block)`` with ``np.ndarray[float32]`` shape
    ``(blocksize,)`` from a reader thread. Same interface as the backends' streams: ``start``,
    ``stop``, ``close``, ``active``. ``start`` raises ``AudioUnavailableError`` when ``parec`` is
    missing or exits at once (source gone, server down), with its message."""

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
        from speechstudio.audio.backends import AudioUnavailableError

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
        while True:
            data = proc.stdout.read(want - len(buf))
            if not data:
                break
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
