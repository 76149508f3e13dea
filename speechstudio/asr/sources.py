"""Audio sources for dictation (the microphone, a file played live): ``sample_rate`` Hz, ``blocks()`` of float32
``(n,)`` mono in [-1, 1], thread-safe ``stop()``. A missing PortAudio or device raises ``AudioUnavailableError``."""
from __future__ import annotations

import os
import queue
import threading
import time
from pathlib import Path
from typing import Iterator

import numpy as np

from speechstudio.audio.backends import (AudioUnavailableError, Backend, MonitorStream, get_backend,
                                         is_system_device, monitor_sources)
from speechstudio.audio.decode import AudioReader
from speechstudio.audio.devices import close_stream


class FileSource:
    """Plays a recording in ``block_ms`` blocks at its own rate (``AudioReader``, down-mixed) or at
    ``sample_rate``; ``realtime=True`` paces them like a microphone. Raises ``AudioDecodeError``."""

    def __init__(self, path: str | os.PathLike, *, block_ms: float = 20.0, realtime: bool = True,
                 sample_rate: int | None = None, raw=None) -> None:
        self.path = Path(path)
        probe = AudioReader(self.path, 16000, raw=raw)
        self.sample_rate = int(sample_rate or probe.info.source_rate or 16000)
        self._reader = AudioReader(self.path, self.sample_rate, raw=raw, block_s=10.0)
        self.duration_s = probe.info.duration_s
        self.block = max(1, int(round(block_ms * self.sample_rate / 1000.0)))
        self.realtime = bool(realtime)
        self._stop = threading.Event()
        self._t0: float | None = None  # when playback started (realtime)
        self._sent = 0                 # samples yielded so far

    @property
    def warnings(self) -> list[str]:
        """The decoder's warnings on the recording so far (truncated, several tracks): ``AudioReader.warnings``."""
        return self._reader.warnings

    @property
    def backlog_s(self) -> float:
        """Seconds a microphone would have captured but not handed over yet (``realtime=True`` only; else 0.0)."""
        if not self.realtime or self._t0 is None:
            return 0.0
        return max(0.0, time.perf_counter() - self._t0 - self._sent / self.sample_rate)

    def blocks(self) -> Iterator[np.ndarray]:
        sent = self._sent = 0
        t0 = self._t0 = None  # the "microphone" starts with the first block, not before decoding
        rest = np.zeros(0, np.float32)
        for big in self._reader.blocks():
            buf = np.concatenate([rest, big]) if rest.size else big
            n_full = buf.shape[0] // self.block * self.block
            for i in range(0, n_full, self.block):
                if self._stop.is_set():
                    return
                if t0 is None:
                    t0 = self._t0 = time.perf_counter()
                if self.realtime:
                    time.sleep(max(0.0, t0 + sent / self.sample_rate - time.perf_counter()))
                sent += self.block
                self._sent = sent
                yield buf[i:i + self.block]
            rest = buf[n_full:]
        if rest.size and not self._stop.is_set():
            yield rest

    def stop(self) -> None:
        self._stop.set()


class MicSource:
    """Live input on ``device`` of a sound-card ``backend`` (None: :func:`~speechstudio.audio.backends.get_backend`):
    a PortAudio index or name (None: the default input) or a ``"system:NAME"`` monitor (what the computer plays;
    recorded with ``parec``, PortAudio not needed). Float32 mono ``block_ms`` blocks at the device's rate
    (``sample_rate`` Hz) until :meth:`stop`; what was captured before ``stop`` still comes. ``backlog_s``: seconds
    queued, not yet taken. Raises :class:`AudioUnavailableError` (no PortAudio, no input, unknown device)."""

    def __init__(self, device: int | str | None = None, *, block_ms: float = 20.0, backend: Backend | None = None):
        backend = backend or get_backend()
        if not backend.available and not is_system_device(device):
            raise AudioUnavailableError(backend.reason or "no audio input available")
        devs = backend.input_devices() if backend.available else monitor_sources()
        if not devs and is_system_device(device):
            raise AudioUnavailableError(f"system audio source {device!r} not found; available: none "
                                        "(needs PulseAudio or PipeWire and pactl)")
        if not devs:
            raise AudioUnavailableError("no microphone found (plug one in; `speechstudio dictate --list-devices` "
                                        "shows what there is); or dictate from a file")
        named = isinstance(device, str) and not is_system_device(device)  # part of a name, as PortAudio takes it
        info = next((d for d in devs if d.index == device or (named and device.lower() in d.name.lower())
                     or (device is None and d.is_default)), devs[0] if device is None else None)
        if info is None:
            listed = ", ".join(str(d.index) for d in devs)
            raise AudioUnavailableError(f"microphone {device!r} is not connected; available: {listed} "
                                        "(`speechstudio dictate --list-devices` names them)")
        self.backend, self.device, self.name = backend, info.index, info.name
        self.sample_rate = int(info.default_samplerate or 16000)
        self.block = max(1, int(round(block_ms * self.sample_rate / 1000.0)))
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue()
        self._stop = threading.Event()

    @property
    def backlog_s(self) -> float:
        """Seconds of captured audio waiting in the queue (grows when the recogniser is slower than
        real time; Whisper dictation then decodes once for all of it)."""
        return self._queue.qsize() * self.block / self.sample_rate

    def stop(self) -> None:
        self._stop.set()
        self._queue.put(None)

    def blocks(self) -> Iterator[np.ndarray]:
        if self._stop.is_set():
            return
        if self.backend.available:
            stream = self.backend.open_input(self.device, self.sample_rate, self.block, self._queue.put)
        else:
            stream = MonitorStream(self.device, self.sample_rate, self.block, self._queue.put)
        stream.start()
        try:
            yield from self._queued(draining=False)
        finally:
            close_stream(stream)
        yield from self._queued(draining=True)  # captured before stop()

    def _queued(self, *, draining: bool) -> Iterator[np.ndarray]:
        """Blocks the audio callback queued, in order: until ``stop`` or a ``None`` sentinel, or with
        ``draining=True`` only what is already queued."""
        while draining or not self._stop.is_set():
            try:
                item = self._queue.get_nowait() if draining else self._queue.get(timeout=0.1)
            except queue.Empty:
                if draining:
                    return
                continue
            if item is None:
                if draining:
                    continue
                return
            yield item


def list_input_devices(backend: Backend | None = None) -> list[tuple[int | str, str, int]]:
    """``(index, name, default_rate_hz)`` per input device of ``backend`` (None: the process's), then
    system-audio monitors (``"system:NAME"``; also without PortAudio); ``[]`` when there is neither.
    Raises :class:`AudioUnavailableError` (the backend's reason) without PortAudio and monitors."""
    backend = backend or get_backend()
    devs = backend.input_devices() if backend.available else monitor_sources()
    if not devs and not backend.available:
        raise AudioUnavailableError(backend.reason or "no audio input available")
    return [(d.index, d.name, int(d.default_samplerate)) for d in devs]
