"""Result dataclasses and the recogniser interface shared by every recogniser (CTC, Whisper).

Times are seconds from the start of the input audio (float). Engines yield ``Segment`` objects
as they go (generators), so the CLI progress bar, the GUI and exporters consume one stream.
Modelled on faster-whisper's ``Segment``/``Word``/``TranscriptionInfo`` (SYSTRAN/faster-whisper,
transcribe.py) and its ``transcribe(audio) -> (segments, info)`` call.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Protocol, Union, runtime_checkable

import numpy as np

#: What a recogniser reads: one ``np.ndarray[float32]`` shape (n_samples,) or an iterable of such
#: blocks, mono at the recogniser's ``sample_rate`` (16 kHz), range [-1, 1].
AudioInput = Union[np.ndarray, Iterable[np.ndarray]]


@dataclass(frozen=True)
class Word:
    """One word: ``start_s``/``end_s`` in seconds, ``probability`` in [0, 1] (1.0 if unknown).

    Whisper: the mean probability of the word's tokens (openai/whisper ``timing.py``). CTC: the
    mean, over the word's characters, of the softmax probability of the emitted character on the
    frames where it is the arg-max (see :mod:`speechstudio.asr.ctc`). ``speaker``: who said it
    (diarization, :mod:`speechstudio.diarize`), ``None`` when not asked."""

    start_s: float
    end_s: float
    text: str
    probability: float = 1.0
    speaker: str | None = None


@dataclass(frozen=True)
class Segment:
    """A stretch of transcript with its time span (seconds) and its words (may be empty).

    ``avg_logprob``: Whisper's average log-probability of the segment's tokens (natural log, <= 0;
    faster-whisper's ``Segment.avg_logprob``); for CTC, the mean of ``log(word.probability)`` over
    the segment's words. ``no_speech_prob``: Whisper's probability of its ``<|nospeech|>`` token for
    the window (``None`` for CTC, which has no such output). ``None`` when unknown. ``speaker``:
    the segment's speaker label (diarization splits segments where the speaker changes).
    ``language``: the ISO code of the language the segment was decoded in, when the language was
    detected (each stretch of a file in its own language: :mod:`speechstudio.asr.stretches`)."""

    start_s: float
    end_s: float
    text: str
    words: tuple[Word, ...] = field(default_factory=tuple)
    avg_logprob: float | None = None
    no_speech_prob: float | None = None
    speaker: str | None = None
    language: str | None = None


@dataclass(frozen=True)
class TranscriptInfo:
    """What a transcription run knows about its input, for exporters, the summary and the GUI.

    ``duration_s``: audio duration in seconds (for a block stream: the container's duration until
    the end is reached); ``language``: ISO 639-1 code or ``None``; ``model_id``: the model that
    wrote the text (name / HF id / directory); ``engine``: the recogniser family's registry name (:mod:`speechstudio.asr.family`:
    ``"wav2vec2"``, ``"whisper"``...);
    ``language_probability``: the detector's probability for ``language`` in [0, 1] (``None`` when
    the language was given, or the model has only one); ``task``: ``"transcribe"`` or
    ``"translate"`` (Whisper: speech in any language to English text); ``detector``: the model that
    detected the language (``None`` when not detected); ``note``: one line on how the model was
    chosen (language routing), else ``""``. With diarization: ``speakers``, a tuple of
    :class:`~speechstudio.diarize.family.SpeakerInfo` in order of first appearance, and
    ``speaker_turns``, the timeline (:class:`~speechstudio.diarize.assign.Turn`, overlaps kept);
    ``speakers_could_be``: the other speaker count the evidence allows, ``None`` when the count is sure.
    ``audio``: the input's audio as decoded (track number and the file's tracks, start offset in
    seconds after the video's start, channels, rate, codec), when the batch read a file.
    """

    duration_s: float
    language: str | None
    model_id: str
    engine: str
    device: str = "cpu"
    precision: str = "fp32"
    language_probability: float | None = None
    task: str = "transcribe"
    detector: str | None = None
    note: str = ""
    speakers: tuple = ()
    speaker_turns: tuple = ()
    speakers_could_be: int | None = None
    audio: dict | None = None


@runtime_checkable
class Recognizer(Protocol):
    """A loaded speech recogniser: :class:`~speechstudio.asr.wav2vec2.Wav2Vec2Recognizer` (CTC),
    :class:`~speechstudio.asr.whisper.WhisperRecognizer` and the language router
    (:class:`~speechstudio.asr.routing.LanguageRouter`) all implement it.

    ``engine``: the family's registry name (``"wav2vec2"``, ``"whisper"``...) or ``"auto"`` (router); ``model_id``; ``device``;
    ``precision``; ``sample_rate``: the rate ``transcribe`` expects (Hz, 16000).
    """

    engine: str
    model_id: str
    device: str
    precision: str
    sample_rate: int

    def transcribe(self, audio: AudioInput, *, language: str | None = None, task: str = "transcribe",
                   initial_prompt: str | None = None, hotwords: str | None = None,
                   duration_s: float | None = None) -> tuple[Iterator[Segment], TranscriptInfo]:
        """Transcribe ``audio`` (one array or a stream of blocks, mono float32 at ``sample_rate``).

        ``language``: ISO code, or ``None`` to detect it on the first speech (multilingual
        models); ``task``: ``"transcribe"`` or ``"translate"``; ``initial_prompt`` / ``hotwords``:
        text the decoder is primed with (names and jargon; Whisper only); ``duration_s``: the
        audio's duration when known (a stream's container duration) for ``TranscriptInfo``.

        Returns ``(segments, info)``: the language is known when this returns (like
        faster-whisper's ``WhisperModel.transcribe``); segments are decoded lazily as the
        generator is consumed. Raises :class:`~speechstudio.errors.UsageError` for options the
        model cannot honour (translate or a prompt with a CTC model, a non-English language with
        an English-only model) and, while iterating, the audio reader's errors.
        """
        ...


def as_blocks(audio: AudioInput) -> Iterator[np.ndarray]:
    """``audio`` as an iterator of ``np.ndarray[float32]`` blocks (one array becomes one block)."""
    if isinstance(audio, np.ndarray):
        return iter([np.asarray(audio, np.float32).reshape(-1)])
    return (np.asarray(b, np.float32).reshape(-1) for b in audio)


TASKS = ("transcribe", "translate")
