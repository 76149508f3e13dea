"""Result dataclasses and the recogniser interface shared by every recogniser, after faster-whisper's
``Segment`` / ``Word`` / ``TranscriptionInfo`` and ``transcribe(audio) -> (segments, info)``. Times:
seconds from the input's start; segments are lazy."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Protocol, Union, runtime_checkable

import numpy as np

#: What a recogniser reads: one ``np.ndarray[float32]`` shape (n_samples,) or an iterable of such
#: blocks, mono at the recogniser's ``sample_rate`` (16 kHz), range [-1, 1].
AudioInput = Union[np.ndarray, Iterable[np.ndarray]]


@dataclass(frozen=True)
class Word:
    """One word: ``start_s`` / ``end_s``, ``probability`` in [0, 1] (1.0: unknown; openai/whisper
    ``timing.py``), ``speaker`` or None; ``overlap``: said while another speaker talks too."""

    start_s: float
    end_s: float
    text: str
    probability: float = 1.0
    speaker: str | None = None
    overlap: bool = False


@dataclass(frozen=True)
class Segment:
    """A stretch of transcript with its words (may be empty); ``avg_logprob`` (natural log, <= 0),
    ``no_speech_prob`` (Whisper), ``speaker``, ``language`` (per stretch); None when unknown."""

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
    """What a run knows: ``duration_s``, ``language`` (ISO 639-1 or None), ``model_id``, ``engine`` (family name),
    ``language_probability``, ``task``, ``detector``, ``note``; with diarization ``speakers``, ``speaker_turns``,
    ``speakers_could_be``; ``audio``: track, offset, channels, rate, codec."""

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
    """A loaded speech recogniser (CTC, Whisper, the language router): ``engine`` (family name or
    ``"auto"``), ``model_id``, ``device``, ``precision``, ``sample_rate`` (Hz, 16000)."""

    engine: str
    model_id: str
    device: str
    precision: str
    sample_rate: int

    def transcribe(self, audio: AudioInput, *, language: str | None = None, task: str = "transcribe",
                   initial_prompt: str | None = None, hotwords: str | None = None,
                   duration_s: float | None = None) -> tuple[Iterator[Segment], TranscriptInfo]:
        """Transcribe one array or a stream of mono float32 blocks at ``sample_rate``. ``language`` (ISO
        or None: detect), ``task`` (``"transcribe"`` | ``"translate"``), ``initial_prompt`` /
        ``hotwords`` (Whisper), ``duration_s``. Returns ``(segments, info)``; raises ``UsageError`` and,
        while iterating, the reader's errors."""
        ...


#: The attribute of a block iterable that says the caller wants no more: ``stopped() -> bool`` (a recogniser that
#: works a while between two blocks checks it; :class:`speechstudio.batch.run.Blocks`)
STOPPED = "stopped"


def as_blocks(audio: AudioInput) -> Iterator[np.ndarray]:
    """``audio`` as an iterator of ``np.ndarray[float32]`` blocks (one array becomes one block)."""
    if isinstance(audio, np.ndarray):
        return iter([np.asarray(audio, np.float32).reshape(-1)])
    return (np.asarray(b, np.float32).reshape(-1) for b in audio)

