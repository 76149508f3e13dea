"""Result dataclasses shared by every ASR engine (Wav2Vec2 CTC, Whisper).

Times are seconds from the start of the input audio (float). Engines yield ``Segment`` objects
as they go (generators), so the CLI progress bar, the GUI and exporters consume one stream.
Modelled on faster-whisper's ``Segment``/``Word`` (SYSTRAN/faster-whisper, transcribe.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Word:
    """One word: ``start_s``/``end_s`` in seconds, ``probability`` in [0, 1] (1.0 if unknown)."""

    start_s: float
    end_s: float
    text: str
    probability: float = 1.0


@dataclass(frozen=True)
class Segment:
    """A stretch of transcript with its time span (seconds) and its words (may be empty)."""

    start_s: float
    end_s: float
    text: str
    words: tuple[Word, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class TranscriptInfo:
    """What the engine knows about a transcription run, for exporters and the summary.

    ``duration_s``: audio duration in seconds; ``language``: ISO code or ``None``;
    ``model_id``: the model's name / HF id / directory; ``engine``: ``"wav2vec2"`` or ``"whisper"``.
    """

    duration_s: float
    language: str | None
    model_id: str
    engine: str
    device: str = "cpu"
    precision: str = "fp32"
