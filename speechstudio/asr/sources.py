"""Audio sources for dictation (the microphone, a file played live): ``sample_rate`` Hz, ``blocks()`` of float32
``(n,)`` mono in [-1, 1], thread-safe ``stop()``. A missing PortAudio or device raises :class:`MicrophoneError`."""
from __future__ import annotations

import os
import queue
import threading
import time
from pathlib import Path
from typing import Iterator, Protocol

import numpy as np

from speechstudio.errors import SpeechStudioError


class MicrophoneError(SpeechStudioError):
    """Microphone input is unavailable (no sounddevice/PortAudio, no device, device error)."""


class AudioSource(Protocol):
    """What :class:`~speechstudio.asr.streaming.StreamingRecognizer` is fed from."""

    sample_rate: int

    def blocks(self) -> Iterator[np.ndarray]:
        """Yield ``np.ndarray[float32]`` shape (n,), mono at ``sample_rate`` Hz, until stopped/ended."""
        ...

    def stop(self) -> None:
        """Ask ``blocks()`` to end (safe from another thread)."""
        ...


class FileSource:
    """Plays a recording in ``block_ms`` blocks at its own rate (``AudioReader``, down-mixed) or at
    ``sample_rate``; ``realtime=True`` paces them like a microphone. Raises ``AudioDecodeError``."""

    def __init__(self, path: str | os.PathLike, *, block_ms: float = 20.0, realtime: bool = True,
                 sample_rate: int | None = None, raw=None) -> None:
        from speechstudio.audio.decode import AudioReader

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
                    wait = t0 + sent / self.sample_rate - time.perf_counter()
                    if wait > 0:
                        time.sleep(wait)
                sent += self.block
                self._sent = sent
                yield buf[i:i + self.block]
            rest = buf[n_full:]
        if rest.size and not self._stop.is_set():
            yield rest

    def stop(self) -> None:
        self._stop.set()


class QueuedSource:
    """Blocks an audio callback puts on ``_queue``: ``sample_rate`` Hz, ``block`` samples, ``backlog_s`` and
    a thread-safe ``stop()`` (``blocks()`` reads the queue with :func:`queued_blocks`)."""

    def __init__(self, sample_rate: int, block_ms: float) -> None:
        self.sample_rate = int(sample_rate)
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


class MicSource(QueuedSource):
    """Live microphone input (``sounddevice.InputStream``, mono float32): ``device`` index or name
    (None: default), ``sample_rate`` Hz (None: the device's), ``block_ms``. Raises :class:`MicrophoneError`."""

    def __init__(self, device: int | str | None = None, *, sample_rate: int | None = None,
                 block_ms: float = 20.0) -> None:
        sd = import_sounddevice()
        try:
            info = sd.query_devices(device, "input")
        except Exception as e:  # ValueError for a bad index/name, PortAudioError
            if device is None and not _has_input(sd):
                raise MicrophoneError("no microphone found (PortAudio lists no input device; `speechstudio "
                                      "dictate --list-devices` shows what there is); use --file AUDIO") from e
            what = "the default microphone" if device is None else f"input device {device!r}"
            raise MicrophoneError(f"{what}: {str(e).splitlines()[0] if str(e) else e} "
                                  "(see `speechstudio dictate --list-devices`)") from e
        super().__init__(sample_rate or info.get("default_samplerate") or 16000, block_ms)
        self.device = device
        self.name = str(info.get("name", device))
        self._sd = sd

    def _callback(self, indata, frames, time_info, status) -> None:
        self._queue.put(np.array(indata[:, 0], dtype=np.float32, copy=True))

    def blocks(self) -> Iterator[np.ndarray]:
        try:
            stream = self._sd.InputStream(device=self.device, channels=1, dtype="float32",
                                          samplerate=self.sample_rate, blocksize=self.block,
                                          callback=self._callback)
        except Exception as e:
            raise MicrophoneError(f"cannot open input device {self.name!r}: {e}") from e
        with stream:
            yield from queued_blocks(self._queue, self._stop, draining=False)
        yield from queued_blocks(self._queue, self._stop, draining=True)


def queued_blocks(q: "queue.Queue[np.ndarray | None]", stop: threading.Event, *,
                  draining: bool) -> Iterator[np.ndarray]:
    """Blocks put on ``q`` by an audio callback, in order: until ``stop`` or a ``None`` sentinel, or
    with ``draining=True`` only what is already queued."""
    while draining or not stop.is_set():
        try:
            item = q.get_nowait() if draining else q.get(timeout=0.1)
        except queue.Empty:
            if draining:
                return
            continue
        if item is None:
            if draining:
                continue
            return
        yield item


def import_sounddevice():
    """``import sounddevice`` or raise :class:`MicrophoneError` saying why (package missing, or
    the PortAudio system library missing: Debian/Ubuntu ``sudo apt install libportaudio2``)."""
    try:
        import sounddevice  # noqa: PLC0415
    except ImportError as e:
        raise MicrophoneError("microphone input needs the sounddevice package (pip install sounddevice); "
                              "use --file AUDIO to dictate from a recording") from e
    except OSError as e:
        raise MicrophoneError(f"microphone input needs the PortAudio library ({e}); on Debian/Ubuntu: "
                              "sudo apt install libportaudio2; or use --file AUDIO") from e
    return sounddevice


def _has_input(sd) -> bool:
    try:
        return any(int(d.get("max_input_channels", 0)) > 0 for d in sd.query_devices())
    except Exception:
        return False


def list_input_devices() -> list[tuple[int | str, str, int]]:
    """``(index, name, default_rate_hz)`` per input device, then system-audio monitors
    (``"system:NAME"``). Raises :class:`MicrophoneError` when there is neither."""
    from speechstudio.audio.backends import monitor_sources

    system = [(m.index, m.name, int(m.default_samplerate)) for m in monitor_sources()]
    try:
        sd = import_sounddevice()
    except MicrophoneError:
        if system:  # no PortAudio: what the sound server plays can still be captioned
            return system
        raise
    out: list[tuple[int | str, str, int]] = []
    for i, d in enumerate(sd.query_devices()):
        if int(d.get("max_input_channels", 0)) > 0:
            out.append((i, str(d.get("name")), int(d.get("default_samplerate") or 0)))
    return out + system


class SystemAudioSource(QueuedSource):
    """What the computer plays (a PulseAudio / PipeWire monitor, ``device="system:NAME"``) as mono float32 blocks at
    ``sample_rate`` Hz (default 16000). Raises :class:`MicrophoneError` (not listed, ``parec`` missing, server down)."""

    def __init__(self, device: str, *, sample_rate: int = 16000, block_ms: float = 20.0) -> None:
        from speechstudio.audio.backends import monitor_sources

        names = {m.index: m.name for m in monitor_sources()}
        if device not in names:
            listed = ", ".join(names) or "none (needs PulseAudio or PipeWire and pactl)"
            raise MicrophoneError(f"system audio source {device!r} not found; available: {listed}")
        super().__init__(sample_rate, block_ms)
        self.device, self.name = device, names[device]

    def blocks(self) -> Iterator[np.ndarray]:
        from speechstudio.audio.backends import AudioUnavailableError, MonitorStream

        stream = MonitorStream(self.device, self.sample_rate, self.block, self._queue.put)
        try:
            stream.start()
        except AudioUnavailableError as e:
            raise MicrophoneError(str(e)) from e
        try:
            yield from queued_blocks(self._queue, self._stop, draining=False)
        finally:
            stream.stop()
        yield from queued_blocks(self._queue, self._stop, draining=True)
