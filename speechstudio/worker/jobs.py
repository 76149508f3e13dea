"""Jobs a Worker runs: generators (``run(models)``) yielding payloads, Qt-free. A job has ``id``,
``cancel`` (an Event checked between units of work) and ``result``."""
from __future__ import annotations

import os
import queue
import re
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from speechstudio.audio.decode import AudioReader
from speechstudio.batch.run import run_batch
from speechstudio.errors import ERROR_KIND_ENV, ERROR_KIND_LINE, SpeechStudioError
from speechstudio.runtime import app_command
from speechstudio.worker.status import Status


class Cancelled(Exception):
    """Raised inside a job's work when its cancel event is set; the job catches it."""


class CancelEvent(threading.Event):
    """A job's cancel event that also calls ``on_set()`` when set (worker cancel / shutdown): ending a
    source, stopping a trainer."""

    def __init__(self, on_set: Callable[[], None]) -> None:
        super().__init__()
        self._on_set = on_set

    def set(self) -> None:  # noqa: A003
        super().set()
        self._on_set()


class Job:
    """Base class: override :meth:`run` and :meth:`describe`."""

    def __init__(self) -> None:
        self.id: int | None = None
        self.cancel = threading.Event()
        self.result = None

    #: What :meth:`describe` says: a ``str.format`` template over the job's attributes (``"load {path.name}"``).
    title = ""

    def describe(self) -> str:
        return self.title.format_map(vars(self)) if self.title else type(self).__name__

    def run(self, models) -> Iterator[object]:  # pragma: no cover - interface
        return iter(())


class TranscribeBatchJob(Job):
    """Transcribe ``items`` as ``request`` asks (:func:`speechstudio.batch.run.run_batch`), yielding
    ``Status``, each file's ``TranscriptInfo`` and every ``BatchEvent``; ``result``: files finished."""

    def __init__(self, items, request) -> None:
        super().__init__()
        self.items = list(items)
        self.request = request
        self.pause = threading.Event()

    def describe(self) -> str:
        return f"transcribe {len(self.items)} file{'s' if len(self.items) != 1 else ''}"

    def run(self, models) -> Iterator[object]:
        r = self.request
        if self.cancel.is_set():
            return
        if not models.has_recognizer(r):
            yield Status(f"loading model {r.model or '(default)'} ...", kind="loading", value=r.model)
        recognizer, message = models.recognizer(r)
        if message:
            yield Status(message, kind="model", value=None if getattr(recognizer, "engine", "") == "auto"
                         else getattr(recognizer, "model_id", None))
        for note in r.check(recognizer):
            yield Status(f"note: {note}")
        finished = 0
        batch = run_batch(self.items, recognizer, r, cancel=self.cancel)
        try:
            for ev in batch:
                if ev.kind == "done":
                    yield ev.info
                yield ev
                if ev.kind in ("done", "skipped", "failed", "cancelled"):
                    finished += 1
                    if self.pause.is_set() or self.cancel.is_set():
                        break
        finally:
            batch.close()
        self.result = finished


@dataclass(frozen=True)
class ProbeResult:
    """Duration of one input in seconds (``None`` when unknown) or the reason it cannot be read."""

    path: Path
    duration_s: float | None
    error: str = ""


class ProbeJob(Job):
    """Read the container duration of each path (no decoding). Yields :class:`ProbeResult`."""

    def __init__(self, paths: Sequence[Path]) -> None:
        super().__init__()
        self.paths = list(paths)

    def describe(self) -> str:
        return f"probe {len(self.paths)} files"

    def run(self, models) -> Iterator[object]:
        for p in self.paths:
            if self.cancel.is_set():
                return
            try:
                yield ProbeResult(p, AudioReader(p).info.duration_s)
            except Exception as e:  # noqa: BLE001
                yield ProbeResult(p, None, str(e) if isinstance(e, SpeechStudioError) else f"{p}: {type(e).__name__}: {e}")


@dataclass(frozen=True)
class VoiceInfo:
    """A loaded voice as the Speak page shows it."""

    name: str
    sample_rate: int
    speakers: tuple[str, ...]
    num_speakers: int
    defaults: dict
    message: str


def _voice_info(voice, message: str) -> VoiceInfo:
    """``voice`` as a :class:`VoiceInfo`; its ``defaults`` plus ``"pitch"``: its own pitch shift in semitones
    (a clone's measured offset to its recordings, ``VitsVoice.pitch_semitones``; 0 for other voices)."""
    defaults = {**dict(voice.defaults), "pitch": float(getattr(voice, "pitch_semitones", 0.0) or 0.0)}
    return VoiceInfo(voice.name, voice.sample_rate, tuple(voice.speakers), voice.num_speakers, defaults, message)


class SpeakJob(Job):
    """Synthesize ``text`` sentence by sentence with the cached voice: :class:`VoiceInfo` once, then a
    ``SpeechChunk`` (float32 at the voice's rate) per sentence; cancel between sentences. With ``out_path`` the audio
    is written there atomically and ``result`` is ``(duration_s, n_sentences, out_path)``."""

    def __init__(self, text: str, voice: str | None = None, speaker=None, length_scale: float | None = None,
                 noise_scale: float | None = None, noise_w: float | None = None, device: str = "auto",
                 out_path: str | None = None, pitch: float | None = None) -> None:
        super().__init__()
        self.text, self.voice, self.device, self.out_path, self.pitch = text, voice, device, out_path, pitch
        self.speaker, self.length_scale, self.noise_scale, self.noise_w = speaker, length_scale, noise_scale, noise_w

    def describe(self) -> str:
        return "save speech" if self.out_path else "speak"

    def run(self, models) -> Iterator[object]:
        # synthesis loads with the first speak, not with the window (start-up time)
        from speechstudio.tts.family import SynthesisSettings
        from speechstudio.tts.output import write_speech
        from speechstudio.tts.stream import stream_speech
        from speechstudio.tts.voices import load_named

        yield Status(f"loading voice {self.voice or '(default)'} ...")
        voice, message = models.voice(self.voice, self.device)
        yield _voice_info(voice, message or f"voice {voice.name} (loaded)")
        settings = SynthesisSettings(speaker=self.speaker, noise_scale=self.noise_scale, noise_w=self.noise_w,
                                     length_scale=self.length_scale, pitch=self.pitch)
        # SSML <voice name="..."> naming another installed voice: loaded for this text only (the cache keeps the page's)
        chunks = stream_speech(voice, self.text, settings,
                               voice_loader=lambda name: load_named(name, self.device, allow_download=False)[1])
        if self.out_path:
            def stop_if_cancelled(_chunk):
                if self.cancel.is_set():
                    raise Cancelled

            try:
                self.result = (*write_speech(chunks, self.out_path, stop_if_cancelled), self.out_path)
            except Cancelled:
                self.result = "cancelled (nothing written)"
            return
        t0 = time.perf_counter()
        n = 0
        for chunk in chunks:
            if self.cancel.is_set():
                return
            yield chunk
            n += 1
        self.result = (n, time.perf_counter() - t0)


class VoiceInfoJob(Job):
    """Load a voice (cached) and yield its :class:`VoiceInfo` (speakers, defaults)."""

    def __init__(self, voice: str | None, device: str = "auto") -> None:
        super().__init__()
        self.voice, self.device = voice, device

    def describe(self) -> str:
        return f"load voice {self.voice or '(default)'}"

    def run(self, models) -> Iterator[object]:
        voice, message = models.voice(self.voice, self.device)
        self.result = _voice_info(voice, message or f"voice {voice.name}")
        yield self.result


class CallJob(Job):
    """Run ``fn(*args)`` in the worker (listing models, exporting, importing ...); ``result`` = its value."""

    def __init__(self, fn: Callable, *args, description: str = "", **kwargs) -> None:
        super().__init__()
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.description = description or getattr(fn, "__name__", "call")

    def describe(self) -> str:
        return self.description

    def run(self, models) -> Iterator[object]:
        self.result = self.fn(*self.args, **self.kwargs)
        yield from ()


class DownloadJob(Job):
    """Download a catalog model in a child process (``speechstudio models download``) so cancel can kill
    it (huggingface_hub resumes next time). Yields ``(fraction_or_None, line)``."""

    def __init__(self, model_id: str, kind: str = "model", command: list[str] | None = None) -> None:
        super().__init__()
        self.model_id, self.kind = model_id, kind
        self.command = command  # default: [python, -m, speechstudio, models|voices, download, ID]

    title = "download {model_id}"

    def run(self, models) -> Iterator[object]:
        sub = "models" if self.kind == "model" else "voices"
        cmd = self.command or app_command() + [sub, "download", self.model_id]
        # text mode reads universal newlines: each of tqdm's \r redraws is a line
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8",
                                errors="replace", env={**os.environ, ERROR_KIND_ENV: "1"})
        lines: queue.Queue = queue.Queue()

        def reader() -> None:
            for line in proc.stdout:
                lines.put(line.strip())
            lines.put(None)

        threading.Thread(target=reader, daemon=True).start()
        pct = re.compile(r"(\d{1,3})%\|")
        last_line, kind = "", "error"
        try:
            while True:
                if self.cancel.is_set():
                    proc.kill()
                    proc.wait()
                    self.result = "download cancelled (a later download resumes it)"
                    return
                try:
                    text = lines.get(timeout=0.2)
                except queue.Empty:
                    continue
                if text is None:
                    break
                if text.startswith(ERROR_KIND_LINE):  # the command's error kind (speechstudio.cli)
                    kind = text.removeprefix(ERROR_KIND_LINE)
                elif text:
                    last_line = text
                    m = pct.search(text)
                    yield (int(m.group(1)) / 100 if m else None, text[:160])
            rc = proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
        if rc != 0:
            raise SpeechStudioError(last_line.removeprefix("speechstudio: error: ") or f"download failed ({rc})", kind=kind)
        self.result = last_line
