"""Pick the recogniser per input from its spoken language: :class:`LanguageRouter` sends English to the
English model when installed, others to the multilingual one (none: ``LanguageMismatchError``); a file is
planned into stretches (``stretches.plan``), each decoded once. docs/transcribe.md."""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterator

from speechstudio.asr.family import capabilities
from speechstudio.asr.language_id import detect_stream_language
from speechstudio.asr.languages import language_name
from speechstudio.asr.stretches import pieces, plan
from speechstudio.asr.types import STOPPED, AudioInput, Recognizer, Segment, TranscriptInfo, as_blocks
from speechstudio.errors import UsageError


class _Stopped(Exception):
    """The caller wants no more segments (raised between two language detections)."""


class LanguageMismatchError(UsageError):
    """The speech is in a language the chosen (English-only) model cannot transcribe."""


class LanguageRouter:
    """A ``Recognizer`` over an English model and a multilingual one. ``detector``: a loaded
    multilingual ``WhisperRecognizer``; ``english``: a recogniser, a loader called on first use, or None
    (English to ``multilingual``); ``multilingual``: usually ``detector``, None refuses other languages.
    Each result's ``TranscriptInfo.model_id`` names the model used."""

    engine = "auto"
    sample_rate = 16000

    def __init__(self, detector, english: Recognizer | Callable[[], Recognizer] | None,
                 multilingual: Recognizer | None, *, english_name: str | None = None) -> None:
        if english is None and multilingual is None:
            raise ValueError("LanguageRouter needs an English or a multilingual model")
        self.detector = detector
        self._english = english
        self.multilingual = multilingual
        self.english_name = english_name or getattr(english, "model_id", None)
        self.device, self.precision = detector.device, detector.precision
        en = self.english_name or (multilingual.model_id if multilingual is not None else "?")
        other = multilingual.model_id if multilingual is not None else "refused"
        self.model_id = f"auto (English: {en}; other languages: {other}; detected by {detector.model_id})"

    @property
    def english(self) -> Recognizer | None:
        """The English recogniser, loaded on first use (``None`` when there is none)."""
        if callable(self._english) and not hasattr(self._english, "transcribe"):
            self._english = self._english()
            self.english_name = self._english.model_id
        return self._english

    @property
    def chosen(self) -> Recognizer | None:
        """The model the user chose when this router only guards it (refusing other languages:
        ``multilingual`` is ``None``), else ``None``. Its family's option checks apply."""
        if self.multilingual is None and self._english is not None and hasattr(self._english, "transcribe"):
            return self._english
        return None

    def _target(self, language: str | None) -> tuple[Recognizer, str]:
        """The recogniser for ``language`` (``None``: no speech found) and why."""
        if language in (None, "en") and self._english is not None:
            what = "English" if language else "no speech found"
            return self.english, f"{what}: {self.english_name or 'the English model'}"
        if self.multilingual is None:
            raise LanguageMismatchError(
                f"{self.english_name} is an English-only model and cannot transcribe {language_name(language)} "
                f"({language}); use a multilingual model (--model whisper-base), or --language en to transcribe "
                "it as English anyway")
        return self.multilingual, f"{language_name(language)}: {self.multilingual.model_id}"

    def _by_stretch(self, blocks, first, initial_prompt: str | None, hotwords: str | None,
                    stopped: Callable[[], bool]) -> Iterator[Segment]:
        """Segments of a 16 kHz block stream, each stretch (``stretches.plan``) decoded once by its language's
        model, times on the file's clock, ``language`` on every segment; none more once ``stopped()`` (it is
        asked before each language detection: a 10 min piece takes a minute of them on 2 cores)."""
        rate = self.sample_rate

        def detect(speech):
            if stopped():
                raise _Stopped
            return self.detector.detect_language(speech)

        for offset, audio in pieces(blocks, rate):
            try:
                stretches = plan(audio, detect, offset_s=offset, rate=rate, fallback=getattr(first, "language", None),
                                 first=first)
            except _Stopped:
                return
            for st in stretches:
                clip = audio[int(round((st.start_s - offset) * rate)):int(round((st.end_s - offset) * rate))]
                target, _ = self._target(st.language)
                vocab = (initial_prompt, hotwords) if capabilities(target.engine).prompt else (None, None)
                segments, info = target.transcribe(clip, language=st.language, initial_prompt=vocab[0], hotwords=vocab[1])
                lang = st.language or info.language
                at = st.start_s         # the segments' and their words' times moved onto the file's clock
                for seg in segments:
                    words = tuple(dataclasses.replace(w, start_s=round(w.start_s + at, 3), end_s=round(w.end_s + at, 3))
                                  for w in seg.words)
                    yield dataclasses.replace(seg, start_s=round(seg.start_s + at, 3), end_s=round(seg.end_s + at, 3),
                                              words=words, language=lang)

    def transcribe(self, audio: AudioInput, *, language: str | None = None, task: str = "transcribe",
                   initial_prompt: str | None = None, hotwords: str | None = None,
                   duration_s: float | None = None) -> tuple[Iterator[Segment], TranscriptInfo]:
        """Detect (unless given), route and transcribe, stretch by stretch. Raises
        :class:`LanguageMismatchError` (non-English, no multilingual model), ``UsageError``."""
        if duration_s is None and hasattr(audio, "shape"):
            duration_s = audio.shape[0] / self.sample_rate
        stopped = getattr(audio, STOPPED, None) or (lambda: False)
        blocks = as_blocks(audio)
        guess = None
        auto = language is None
        if language is None:
            guess, blocks = detect_stream_language(self.detector, blocks)
            language = guess.language if guess is not None else None
        target, note = self._target(language)    # refuses non-English without a multilingual model

        if not capabilities(target.engine).prompt and (initial_prompt or hotwords):
            note += "; vocabulary not applied (a CTC model takes no prompt)"
        if task == "translate" and language == "en" and not getattr(target, "multilingual", False):
            task = "transcribe"
        if auto and task == "transcribe" and self.multilingual is not None:
            info = TranscriptInfo(round(float(duration_s or 0.0), 3), language, target.model_id, target.engine,
                                  target.device, target.precision, task=task)
            segments = self._by_stretch(blocks, guess, initial_prompt, hotwords, stopped)
        else:
            if not capabilities(target.engine).prompt:
                initial_prompt = hotwords = None
            segments, info = target.transcribe(blocks, language=language, task=task, initial_prompt=initial_prompt,
                                               hotwords=hotwords, duration_s=duration_s)
        if guess is not None:
            info = dataclasses.replace(info, language=guess.language, language_probability=guess.probability,
                                       detector=guess.detector)
        return segments, dataclasses.replace(info, note=note)
