"""Decode an audio buffer into timed words with faster-whisper, as ``ufal/whisper_streaming``'s
``FasterWhisperASR`` does (committed text as prompt, word times, segments with ``no_speech_prob`` > 0.9
dropped): the hypotheses LocalAgreement compares."""
from __future__ import annotations

import numpy as np

from speechstudio.asr import family
from speechstudio.asr.types import Word
from speechstudio.asr.whisper import transcribe_speech
from speechstudio.audio.vad import default_probs, speech_near

LANGUAGE_SURE = 0.8       # language detection: keep the language from this probability on ...
LANGUAGE_ENOUGH_S = 4.0   # ... or once it was detected on this much audio
NO_SPEECH_DROP = 0.9      # words of segments with no_speech_prob above this are dropped (reference ts_words)
# openai/whisper's compression_ratio_threshold (a repetition loop): re-decoded there, dropped here (temperature 0)
COMPRESSION_DROP = 2.4
# a segment with at least this share of its words where the VAD hears no speech (0.1 s around them) was made up
# over a pause ("Thank you.", "This is the first time I've been working on."); docs/transcribe.md, Live dictation
SILENT_WORDS_DROP = 0.5
# scripts written without spaces between words: faster-whisper's words join with "" there
NO_SPACE_LANGUAGES = frozenset({"ja", "zh", "yue", "th", "lo", "my", "km", "bo"})


class WhisperHypotheses:
    """A :class:`BufferDecoder` over a ``WhisperRecognizer``: one decode of the buffer (committed text as
    prompt, word times, temperature 0), words dropped for ``no_speech_prob`` > 0.9, :data:`COMPRESSION_DROP` or
    :data:`SILENT_WORDS_DROP`. ``language`` None: detected until p >= 0.8 or 4 s, then kept; ``beam_size``
    None: 1 on CPU, the recogniser's on CUDA. Raises ``UsageError`` (the registry's option check: an unknown
    code, non-English on English-only)."""

    def __init__(self, recognizer, *, language: str | None = None, task: str = "transcribe",
                 beam_size: int | None = None, hotwords: str | None = None) -> None:
        self.recognizer = recognizer
        self.sample_rate = int(recognizer.sample_rate)
        self.model_id = recognizer.model_id
        self.device = str(recognizer.device)
        multilingual = bool(getattr(recognizer, "multilingual", True))
        language = (language or "").strip().lower() or None
        if language == "auto":
            language = None
        family.check_options(recognizer, family.OptionCheck(language=language, task=task))   # the registry's refusals
        self.language = language or (None if multilingual else "en")
        self.language_probability: float | None = None   # set when the language is detected
        self._detect = self.language is None
        self.task = task
        self.beam_size = int(beam_size or (getattr(recognizer, "beam_size", 5) if self.device.startswith("cuda") else 1))
        self.hotwords = hotwords or None

    @property
    def separator(self) -> str:
        return "" if self.language in NO_SPACE_LANGUAGES else " "

    def __call__(self, audio: np.ndarray, prompt: str, offset_s: float) -> list[Word]:
        duration = audio.shape[0] / self.sample_rate
        if duration < 0.1:        # under 100 ms: nothing to find (and word alignment breaks)
            return []
        vad = bool(getattr(self.recognizer, "vad_filter", True))
        probs = default_probs(audio) if vad else None
        segments, info = transcribe_speech(
            self.recognizer.model, audio, vad=vad, probs=probs,
            language=None if self._detect else self.language, task=self.task, beam_size=self.beam_size,
            word_timestamps=True, initial_prompt=prompt or None, condition_on_previous_text=False, temperature=0.0,
            hotwords=self.hotwords)
        words: list[Word] = []
        spaced = self.separator == " "
        for s in segments:
            if s.no_speech_prob > NO_SPEECH_DROP or float(getattr(s, "compression_ratio", 0.0)) > COMPRESSION_DROP:
                continue
            silent = sum(not speech_near(probs, w.start, w.end) for w in s.words or ()) if probs is not None else 0
            if s.words and silent >= SILENT_WORDS_DROP * len(s.words):
                continue
            first = True
            for w in s.words or ():
                text = w.word.strip()
                if text:
                    a = min(max(float(w.start), 0.0), duration)
                    b = min(max(float(w.end), a), duration)
                    word = Word(round(a + offset_s, 3), round(b + offset_s, 3), text, round(float(w.probability), 4))
                    if spaced and not first and not w.word[:1].isspace():
                        # a piece Whisper wrote without a space (".5" of "$2.5", ".com") belongs to the word before
                        prev = words[-1]
                        word = Word(prev.start_s, max(prev.end_s, word.end_s), prev.text + text,
                                    min(prev.probability, word.probability))
                        words[-1] = word
                    else:
                        words.append(word)
                    first = False
        if self._detect and words:
            # keep the language once the detector is sure, or has heard enough (1 s can give p = 0.2)
            self.language, self.language_probability = info.language, round(float(info.language_probability), 3)
            if self.language_probability >= LANGUAGE_SURE or duration >= LANGUAGE_ENOUGH_S:
                self._detect = False
        return words


