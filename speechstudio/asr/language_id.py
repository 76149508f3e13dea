"""Spoken language identification with multilingual Whisper on the first 30 s of Silero-VAD speech (as
faster-whisper's ``detect_language``); ``detect_stream_language`` replays what it read."""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from speechstudio.audio.vad import WHISPER_SPANS, default_spans

#: Whisper's encoder window (openai/whisper audio.py ``CHUNK_LENGTH``), in seconds.
WINDOW_S = 30.0


@dataclass(frozen=True)
class LanguageGuess:
    """A detected language: ``language`` (ISO code), ``probability`` in [0, 1] (softmax over the
    language tokens), ``detector`` the model id."""

    language: str
    probability: float
    detector: str
    #: seconds of audio from the start whose speech was all used for this guess (0: unknown)
    covered_s: float = 0.0


def speech_of(audio: np.ndarray, sample_rate: int = 16000) -> np.ndarray:
    """The speech regions of ``audio`` (float32 (n,), 16 kHz) concatenated, as Whisper decodes them
    (``audio.vad.WHISPER_SPANS``); empty when none."""
    spans = default_spans(audio, **WHISPER_SPANS)
    return np.concatenate([audio[a:b] for a, b in spans]) if spans else np.zeros(0, np.float32)


def read_first_speech(blocks: Iterator[np.ndarray], sample_rate: int = 16000, *, want_s: float = WINDOW_S,
                      max_scan_s: float = 300.0, step_s: float = WINDOW_S) -> tuple[list[np.ndarray], np.ndarray]:
    """``(read, speech)``: the blocks read until ``want_s`` of speech, ``max_scan_s`` of audio or the end (to
    replay), and float32 speech (<= ``want_s`` s, maybe empty); the VAD runs per ``step_s``."""
    read: list[np.ndarray] = []
    fresh: list[np.ndarray] = []
    n_fresh = 0
    n_read = 0
    found: list[np.ndarray] = []
    n_speech = 0
    want = int(want_s * sample_rate)

    def scan() -> None:
        nonlocal fresh, n_fresh, n_speech
        if fresh:
            found.append(speech_of(np.concatenate(fresh), sample_rate))
            n_speech += found[-1].shape[0]
        fresh, n_fresh = [], 0

    for block in blocks:
        read.append(block)
        fresh.append(block)
        n_fresh += block.shape[0]
        n_read += block.shape[0]
        if n_fresh >= step_s * sample_rate:
            scan()
            if n_speech >= want or n_read >= max_scan_s * sample_rate:
                break
    else:
        scan()
    speech = np.concatenate(found) if found else np.zeros(0, np.float32)
    return read, speech[:want]


def detect_stream_language(detector, blocks: Iterable[np.ndarray], *, max_scan_s: float = 300.0,
                           want_s: float = WINDOW_S, step_s: float = WINDOW_S, rate: int | None = None
                           ) -> tuple[LanguageGuess | None, Iterator[np.ndarray]]:
    """``(guess, replay)`` for a float32 block stream at ``rate`` Hz (None: the detector's, 16 kHz):
    ``detector``'s guess on its first ``want_s`` s of speech (None without speech; the VAD runs per
    ``step_s``) and the blocks read, then the rest."""
    from speechstudio.asr.stream_geometry import BlockResampler

    it, sr = iter(blocks), detector.sample_rate
    read: list[np.ndarray] = []
    to_sr = BlockResampler(rate, sr) if rate and rate != sr else None

    def taken() -> Iterator[np.ndarray]:
        for block in it:
            read.append(block)
            yield to_sr(block) if to_sr is not None else block

    heard, speech = read_first_speech(taken(), sr, want_s=want_s, max_scan_s=max_scan_s, step_s=step_s)
    guess = detector.detect_language(speech) if speech.size else None
    if guess is not None and speech.shape[0] < WINDOW_S * sr:
        guess = dataclasses.replace(guess, covered_s=round(sum(b.shape[0] for b in heard) / sr, 3))
    return guess, itertools.chain(read, it)
