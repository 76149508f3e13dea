"""Live dictation as a worker job: a source through :func:`speechstudio.asr.live.open_recognizer`,
yielding ``Status``, :class:`DictateStarted`, ``StreamUpdate``s and :class:`DictateLevel`; ``stop`` /
cancel end the source, captured audio still flushed."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from speechstudio.asr.live import (DETECT_SPEECH_S, Session, auto_language_detector, default_dictation_model,
                                   dictation_stats, open_recognizer, pick_by_first_words)
from speechstudio.asr.stream_geometry import BlockResampler
from speechstudio.audio.levels import rms_dbfs
from speechstudio.audio.mel import StreamingLogMel
from speechstudio.worker.jobs import CancelEvent, Job
from speechstudio.worker.status import Status

LEVEL_INTERVAL_S = 0.05


@dataclass(frozen=True)
class DictateStarted:
    """The model is loaded and the source is about to open."""

    message: str          # which model, on which device (and why it was chosen)
    model_id: str
    device: str
    window: str           # the streaming policy, e.g. "window 1.74 s = left 0.5 + chunk 1 + lookahead 0.24 s;
                          # eager runner" (CTC) or "LocalAgreement-2 re-decoding every 1 s; ..." (Whisper)
    source: str           # microphone name or file
    input_rate: int       # Hz
    engine: str = "wav2vec2"   # the recogniser family's registry name (speechstudio.asr.family)


@dataclass(frozen=True)
class DictateLevel:
    """Input level (dBFS, loudest block since the last) and new log-mel frames (float32 ``(k, 80)``, 16
    kHz, 25 ms / 10 ms); ``audio_s`` consumed and ``backlog_s`` captured but not consumed (seconds)."""

    level_db: float
    mel: np.ndarray
    audio_s: float
    backlog_s: float = 0.0


@dataclass(frozen=True)
class DictateResult:
    """A finished session: text, segments, audio seconds, compute p50 / p95 s, ``latency_p50_s`` / ``latency_p90_s``
    (None without words), ``rtf``, Whisper's ``language`` / ``language_probability``, ``warning``."""

    text: str
    segments: tuple
    audio_s: float
    chunk_p50_s: float
    chunk_p95_s: float
    latency_p50_s: float | None = None
    latency_p90_s: float | None = None
    rtf: float | None = None
    language: str | None = None
    language_probability: float | None = None
    warning: str = ""          # the recogniser wrote nothing while there was sound (asr.no_text)


class DictateWarning(Status):
    """A warning during a session (the recogniser writes nothing while there is sound:
    :class:`~speechstudio.asr.no_text.NoTextWatch`); the page shows it like a status line."""


class DictateJob(Job):
    """Stream ``source`` through cached ``model`` (None: default) with ``config`` (``StreamConfig`` or
    ``AgreementConfig``; None: device defaults). Raises ``UsageError``, ``ModelNotFoundError``."""

    def __init__(self, source, model: str | None = None, device: str = "auto", precision: str = "auto",
                 config=None, *, language: str | None = None, task: str = "transcribe",
                 hotwords: str | None = None) -> None:
        super().__init__()
        self.source = source
        self.model, self.device, self.precision, self.config = model, device, precision, config
        self.language, self.task, self.hotwords = language, task, hotwords
        self.cancel = CancelEvent(source.stop)      # worker cancel / shutdown: the source ends

    title = "dictate"

    def stop(self) -> None:
        """End the input (any thread); buffered audio is still recognised and flushed."""
        self.source.stop()

    def run(self, models) -> Iterator[object]:
        spec, chosen = self.model, ""
        if spec is None:
            spec, chosen = default_dictation_model(self.language)
        rate = int(self.source.sample_rate)
        language, blocks, recognizer = self.language, self.source.blocks(), None
        ml = auto_language_detector(spec, language) if self.model is None else None
        if ml is not None:          # auto language, an English-only default: the first words pick the model
            yield Status(f"listening: the first {DETECT_SPEECH_S:g} s of speech pick the language ...")
            detector, message = models.detector(ml, self.device, self.precision)
            guess, blocks, why = pick_by_first_words(detector, blocks, rate, spec)
            if why:
                recognizer, language, chosen = detector, guess.language, why
        if recognizer is None:
            if not models.has_asr(spec, self.device, self.precision):
                yield Status(f"loading model {spec} ...")
            recognizer, message = models.asr(spec, self.device, self.precision)
        backlog = (lambda: self.source.backlog_s) if hasattr(type(self.source), "backlog_s") else None
        rec = open_recognizer(recognizer, self.config, input_rate=rate, language=language, task=self.task,
                              hotwords=self.hotwords, backlog_s=backlog)
        src_name = getattr(self.source, "name", None) or str(getattr(self.source, "path", "input"))
        message = message or f"using {recognizer.model_id} on {recognizer.device}"
        yield DictateStarted(f"{chosen}; {message}" if chosen else message, recognizer.model_id, str(recognizer.device),
                             rec.describe(), src_name, rate, getattr(recognizer, "engine", "wav2vec2"))

        to16 = BlockResampler(rate, 16000)
        mel = StreamingLogMel(16000)
        frames: list[np.ndarray] = []
        peak = -100.0
        received = 0
        last = time.perf_counter()
        session = Session(rec, recognizer.model_id, rate)
        for block in blocks:
            received += len(block)
            peak = max(peak, rms_dbfs(block))
            f = mel.push(to16(block))
            if len(f):
                frames.append(f)
            yield from map(_event, session.push(block))
            now = time.perf_counter()
            if now - last >= LEVEL_INTERVAL_S:
                yield self._level(peak, frames, received / rate, self.source)
                frames, peak, last = [], -100.0, now
        if frames:
            yield self._level(peak, frames, received / rate, self.source)
        yield DictateLevel(-100.0, np.zeros((0, 80), np.float32), received / rate)
        yield from map(_event, session.stop())
        st = dictation_stats(rec, session.latencies)
        self.result = DictateResult(rec.text, tuple(rec.segments), received / rate, st["compute_p50_s"] or 0.0,
                                    st["compute_p95_s"] or 0.0, st["latency_p50_s"], st["latency_p90_s"], st["rtf"],
                                    st["language"], st["language_probability"], session.warning)

    @staticmethod
    def _level(peak: float, frames: list[np.ndarray], audio_s: float, source) -> DictateLevel:
        mel = np.concatenate(frames) if frames else np.zeros((0, 80), np.float32)
        return DictateLevel(peak, mel, audio_s, float(getattr(source, "backlog_s", 0.0)))


def _event(x):
    """A session's no-text warning (a ``str``) as a :class:`DictateWarning`; updates pass through."""
    return DictateWarning(x) if isinstance(x, str) else x
