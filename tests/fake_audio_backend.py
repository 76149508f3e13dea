"""A sound card made of files, for tests and screenshots (not shipped in the product): the
microphone plays a file (real time, or faster), the speaker records what it is given in ``played``
(as Buzz's ``tests/mock_sounddevice.py`` does). Install it with
``speechstudio.audio.backends.set_backend(FakeBackend(...))`` or pass it to ``MainWindow``.
"""
from __future__ import annotations

import os
import threading
import time
from typing import Callable

import numpy as np

from speechstudio.audio.backends import Backend, DeviceInfo, Stream

__all__ = ["FakeBackend"]


class _FakeStream(Stream):
    def __init__(self, run: Callable[[threading.Event], None]) -> None:
        self._run = run
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def active(self) -> bool:  # type: ignore[override]
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(self._stop,), daemon=True, name="fake-audio")
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout=2)

    close = stop



class FakeBackend(Backend):
    """A sound card made of files. The microphone plays ``input_audio`` (a path or an array at
    ``input_rate``), then silence; the speaker appends what it plays to ``played`` (a list of
    ``np.ndarray[float32]``) and records ``played_rate``. ``speed`` > 1 runs faster than real time.
    """

    name = "fake"
    available = True

    def __init__(self, input_audio: str | os.PathLike | np.ndarray | None = None, input_rate: int = 48000,
                 speed: float = 1.0) -> None:
        self.input_rate = int(input_rate)
        self.speed = float(speed)
        self._input_audio = input_audio
        self._input: np.ndarray | None = None
        self.played: list[np.ndarray] = []
        self.played_rate: int | None = None
        self.lock = threading.Lock()

    def _mic_audio(self) -> np.ndarray:
        if self._input is None:
            src = self._input_audio
            if src is None:
                t = np.arange(int(2.0 * self.input_rate)) / self.input_rate
                self._input = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
            elif isinstance(src, np.ndarray):
                self._input = src.astype(np.float32).reshape(-1)
            else:
                from speechstudio.audio.decode import load_audio

                self._input = load_audio(src, self.input_rate)
        return self._input

    def input_devices(self) -> list[DeviceInfo]:
        return [DeviceInfo(0, "Fake microphone (file)", 1, 0, float(self.input_rate), True)]

    def output_devices(self) -> list[DeviceInfo]:
        return [DeviceInfo(1, "Fake speaker (memory)", 0, 2, 48000.0, True)]

    def played_audio(self) -> np.ndarray:
        with self.lock:
            return np.concatenate(self.played) if self.played else np.zeros(0, np.float32)

    def open_input(self, device, samplerate, blocksize, callback) -> Stream:
        audio = self._mic_audio()
        if int(samplerate) != self.input_rate:
            import soxr

            audio = soxr.resample(audio, self.input_rate, int(samplerate)).astype(np.float32)
        blocksize = blocksize or int(samplerate) // 50

        def run(stop: threading.Event) -> None:
            pos = 0
            t0 = time.perf_counter()
            n = 0
            while not stop.is_set():
                block = audio[pos:pos + blocksize]
                if len(block) < blocksize:
                    block = np.concatenate([block, np.zeros(blocksize - len(block), np.float32)])
                pos += blocksize
                callback(block)
                n += blocksize
                delay = t0 + n / samplerate / self.speed - time.perf_counter()
                if delay > 0:
                    stop.wait(delay)

        return _FakeStream(run)

    def open_output(self, device, samplerate, blocksize, callback, on_end=None) -> Stream:
        blocksize = blocksize or int(samplerate) // 50

        def run(stop: threading.Event) -> None:
            with self.lock:
                self.played_rate = int(samplerate)
            t0 = time.perf_counter()
            n = 0
            while not stop.is_set():
                data = np.asarray(callback(blocksize), dtype=np.float32)
                with self.lock:
                    self.played.append(data.copy())
                n += len(data)
                if len(data) < blocksize:
                    break
                delay = t0 + n / samplerate / self.speed - time.perf_counter()
                if delay > 0:
                    stop.wait(delay)
            if on_end is not None:
                on_end()

        return _FakeStream(run)
