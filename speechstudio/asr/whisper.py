"""Whisper recogniser through SYSTRAN/faster-whisper (CTranslate2; Radford et al. 2022), defaults from
its README (``float16`` CUDA, ``int8`` CPU); yields our ``Segment`` / ``Word`` with its confidences."""
from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from speechstudio.asr import family
from speechstudio.asr.device import cpu_cores, resolve_device, resolve_precision
from speechstudio.asr.language_id import WINDOW_S, LanguageGuess, detect_stream_language
from speechstudio.asr.languages import LANGUAGES
from speechstudio.asr.stretches import pieces
from speechstudio.asr.types import AudioInput, Segment, TranscriptInfo, Word, as_blocks
from speechstudio.audio.vad import WHISPER_SPANS, default_probs, speech_spans
from speechstudio.errors import ModelNotFoundError, UsageError
from speechstudio.transcript.words import WHISPER_LAG_S, to_speech

log = logging.getLogger(__name__)

SEED = 0             #: CTranslate2's sampling seed
_COMPUTE_TYPES = {"int8": "int8", "fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


class WhisperRecognizer:
    """Load a faster-whisper model (a CTranslate2 folder) once; transcribe many inputs. ``beam_size`` (5),
    ``cpu_threads``, ``vad_filter``, ``workers`` (CPU inputs at once, CTranslate2 ``inter_threads``).
    Raises ``ModelNotFoundError``."""

    engine = "whisper"
    sample_rate = 16000  # Whisper's fixed input rate (openai/whisper audio.py SAMPLE_RATE)

    def __init__(self, model_dir: str | Path, model_id: str | None = None, *, device: str = "auto",
                 precision: str = "auto", beam_size: int = 5, word_timestamps: bool = True,
                 cpu_threads: int = 0, vad_filter: bool = True, workers: int = 1) -> None:
        import ctranslate2
        from faster_whisper import WhisperModel

        self.model_dir = Path(model_dir)
        self.model_id = model_id or str(model_dir)
        dev = resolve_device(device, ctranslate2.get_cuda_device_count)
        index = int(dev.split(":")[1]) if ":" in dev else 0
        self.device = dev
        auto_int8 = (precision or "auto").strip().lower() == "auto" and dev == "cpu"   # CTranslate2's CPU default
        self.precision = "int8" if auto_int8 else resolve_precision(precision, dev)
        compute_type = _COMPUTE_TYPES[self.precision]
        if dev == "cpu" and compute_type in ("float16", "bfloat16") \
                and compute_type not in ctranslate2.get_supported_compute_types("cpu"):
            raise UsageError(f"--precision {precision}: this CPU has no efficient {compute_type} support in "
                             "CTranslate2; use --precision auto (int8) or fp32")
        self.workers = max(1, int(workers)) if dev == "cpu" else 1
        if self.workers > 1 and not cpu_threads:
            cpu_threads = max(1, cpu_cores() // self.workers)
        try:
            self.model = WhisperModel(str(self.model_dir), device=dev.split(":")[0], device_index=index,
                                      compute_type=compute_type, cpu_threads=cpu_threads, num_workers=self.workers,
                                      local_files_only=True)
        except (RuntimeError, ValueError, OSError) as e:
            raise ModelNotFoundError(f"{self.model_dir}: not a loadable faster-whisper model ({str(e).splitlines()[0][:200]})") from e
        self.beam_size = beam_size
        # Silero VAD skips non-speech, where Whisper hallucinates ("Thank you"; ``audio.vad.WHISPER_SPANS``)
        self.vad_filter = vad_filter
        self.word_timestamps = word_timestamps
        self.multilingual = bool(getattr(self.model.model, "is_multilingual", True))
        #: languages this model transcribes (ISO codes): all of Whisper's, or ``("en",)``
        self.languages: tuple[str, ...] = tuple(LANGUAGES) if self.multilingual else ("en",)

    # ------------------------------------------------------------------ the Recognizer interface
    def detect_language(self, speech: np.ndarray) -> LanguageGuess | None:
        """Language of ``speech`` (float32 ``(n,)``, 16 kHz; first 30 s) from Whisper's language tokens;
        None for an English-only model or empty audio."""
        if not self.multilingual or speech.size == 0:
            return None
        speech = np.asarray(speech, np.float32)[: int(WINDOW_S * self.sample_rate)]
        language, probability, _ = self.model.detect_language(audio=speech)
        return LanguageGuess(language, round(float(probability), 4), self.model_id)

    def transcribe(self, audio: AudioInput, *, language: str | None = None, task: str = "transcribe",
                   initial_prompt: str | None = None, hotwords: str | None = None,
                   duration_s: float | None = None) -> tuple[Iterator[Segment], TranscriptInfo]:
        """Transcribe (or translate to English) one array or a stream of 16 kHz float32 blocks; ``language=None`` is
        detected on the first 30 s of speech. ``initial_prompt`` primes each piece's first window, ``hotwords`` every
        window. Returns ``(segments, info)``; ``UsageError`` before reading audio."""
        family.check_options(self, family.OptionCheck(language=language, task=task))
        blocks = as_blocks(audio)
        guess = None
        if language is None:
            if self.multilingual:
                guess, blocks = detect_stream_language(self, blocks)
                language = guess.language if guess else None
            else:
                language = "en"
        if duration_s is None and isinstance(audio, np.ndarray):
            duration_s = audio.shape[0] / self.sample_rate
        info = TranscriptInfo(round(float(duration_s or 0.0), 3), language, self.model_id, self.engine, self.device,
                              self.precision, language_probability=guess.probability if guess else None, task=task,
                              detector=guess.detector if guess else None)
        return self._decode(blocks, language, task, initial_prompt, hotwords), info

    def _decode(self, blocks: Iterable[np.ndarray], language: str | None, task: str, initial_prompt: str | None,
                hotwords: str | None) -> Iterator[Segment]:
        """Segments in pieces of about ``piece_s`` (20 min) cut at the quietest 100 ms of the next ``cut_search_s``
        (:func:`~speechstudio.asr.stretches.pieces`); no previous text as prompt (tiny models repeated sentences,
        tests/test_whisper.py)."""
        opts = dict(task=task, initial_prompt=initial_prompt or None, hotwords=hotwords or None)
        for offset_s, audio in pieces(blocks, self.sample_rate, self.piece_s, self.cut_search_s):
            if offset_s:
                self.pieces += 1
            found, segments = self._piece(audio, language, offset_s, **opts)
            yield from segments       # as decoded: progress moves and Ctrl+C keeps nothing partial
            language = language or found

    def _piece(self, audio: np.ndarray, language: str | None, offset_s: float, *, task: str = "transcribe",
               initial_prompt: str | None = None, hotwords: str | None = None,
               refill: bool = True) -> tuple[str | None, Iterator[Segment]]:
        """``(language, segments)`` of one piece (faster-whisper detects when ``language`` is None); with
        ``refill``, speech the decoding skipped is decoded again (:meth:`_refill`)."""
        if audio.shape[0] / self.sample_rate < 0.1:   # under 100 ms: no speech (and word alignment breaks)
            return language, iter(())
        import ctranslate2     # loaded with faster_whisper

        # the same words on every run: the temperature fallback samples (CTranslate2 seeds per thread); a refill
        # decodes at temperature 0 without reseeding, so the piece it is inside samples as it would without it
        if refill:
            ctranslate2.set_random_seed(SEED)
        probs = default_probs(audio) if self.vad_filter or (self.word_timestamps and self.speech_times) else None
        segments, info = transcribe_speech(self.model, audio, vad=self.vad_filter, probs=probs,
                                           language=language or None, task=task, beam_size=self.beam_size,
                                           word_timestamps=self.word_timestamps, initial_prompt=initial_prompt,
                                           hotwords=hotwords, condition_on_previous_text=True,
                                           **({} if refill else {"temperature": 0.0}))
        if info is None:
            return language, segments
        segs = (_segment(s, offset_s) for s in segments)
        spans = [(offset_s + a / 16000, offset_s + b / 16000) for a, b in speech_spans(probs, audio.shape[0])] \
            if probs is not None else []
        if self.word_timestamps and self.speech_times:
            segs = _to_speech(segs, spans)
        if refill and spans:
            segs = self._refill(segs, audio, spans, offset_s, info.language, task=task, hotwords=hotwords)
        return info.language, segs

    #: a stretch between two words (or a piece's edge) this long holding this much VAD speech was skipped by the
    #: window decoding; its second decoding is kept under this no-speech probability (docs/transcribe.md)
    REFILL_GAP_S, REFILL_SPEECH_S, REFILL_NO_SPEECH = 2.0, 1.5, 0.5

    def _refill(self, segs: Iterable[Segment], audio: np.ndarray, spans: list[tuple[float, float]], offset_s: float,
                language: str | None, **opts) -> Iterator[Segment]:
        """``segs`` in order, with each skipped stretch of speech (:attr:`REFILL_GAP_S`, :attr:`REFILL_SPEECH_S`)
        decoded again on its own and its segments put in their place (faster-whisper decoding the same stretch
        alone, as WhisperX decodes each VAD segment alone, transcribes it)."""
        def stretch(a: float, b: float) -> Iterator[Segment]:
            speech = sum(max(0.0, min(b, e) - max(a, s)) for s, e in spans)
            if b - a < self.REFILL_GAP_S or speech < self.REFILL_SPEECH_S:
                return
            lo, hi = int(round((a - offset_s) * 16000)), int(round((b - offset_s) * 16000))
            _found, again = self._piece(audio[lo:hi], language, a, refill=False, **opts)
            yield from (s for s in again if a <= s.start_s and s.end_s <= b + 0.01
                        and (s.no_speech_prob or 0.0) < self.REFILL_NO_SPEECH)

        last = offset_s
        for seg in segs:
            yield from stretch(last, seg.words[0].start_s if seg.words else seg.start_s)
            yield seg
            last = max(last, seg.end_s)
        yield from stretch(last, offset_s + audio.shape[0] / 16000)

    # ------------------------------------------------------------------ one piece (fine-tuning's checks)
    def transcribe_audio(self, audio: np.ndarray, language: str | None = None, *, offset_s: float = 0.0,
                         initial_prompt: str | None = None, task: str = "transcribe",
                         hotwords: str | None = None) -> Iterator[Segment]:
        """Segments for float32 ``(n,)``, 16 kHz mono in [-1, 1], decoded in one piece; ``offset_s`` is
        added to every time. The detected language is not kept (use :meth:`transcribe`)."""
        family.check_options(self, family.OptionCheck(language=language, task=task))
        _found, segments = self._piece(np.asarray(audio, np.float32), language, offset_s, task=task,
                                      initial_prompt=initial_prompt, hotwords=hotwords)
        yield from segments

    piece_s = 20 * 60.0
    #: word times re-timed to the speech Silero VAD finds in the piece (:func:`speechstudio.transcript.words.to_speech`)
    speech_times = True
    cut_search_s = 30.0
    pieces = 0


def transcribe_speech(model, audio: np.ndarray, *, vad: bool, probs: np.ndarray | None = None, **options):
    """``model.transcribe`` (a faster-whisper ``WhisperModel``) of float32 16 kHz ``audio`` with ``options``; with
    ``vad``, of the speech ``audio.vad`` finds in it with faster-whisper's own filter options (``WHISPER_SPANS``;
    ``probs``: its :func:`~speechstudio.audio.vad.default_probs` when already known), joined and timed back as
    faster-whisper does. Returns ``(segments, info)``; ``(empty iterator, None)`` when there is no speech."""
    if not vad:
        return model.transcribe(audio, vad_filter=False, **options)
    from faster_whisper.transcribe import restore_speech_timestamps

    probs = default_probs(audio) if probs is None else probs
    chunks = [{"start": a, "end": b} for a, b in speech_spans(probs, audio.shape[0], **WHISPER_SPANS)]
    if not chunks:
        return iter(()), None
    segments, info = model.transcribe(np.concatenate([audio[c["start"]:c["end"]] for c in chunks]), vad_filter=False,
                                      **options)
    return restore_speech_timestamps(segments, chunks, 16000), info


def _segment(s, offset_s: float) -> Segment:
    """Our :class:`Segment` from a faster-whisper segment, times shifted by ``offset_s`` seconds."""
    words = tuple(Word(round(float(w.start) + offset_s, 3), round(float(w.end) + offset_s, 3), w.word.strip(),
                       round(float(w.probability), 4)) for w in (s.words or ()))
    return Segment(round(float(s.start) + offset_s, 3), round(float(s.end) + offset_s, 3), s.text.strip(), words,
                   avg_logprob=round(float(s.avg_logprob), 4), no_speech_prob=round(float(s.no_speech_prob), 4))


def _to_speech(segments: Iterable[Segment], spans: list[tuple[float, float]]) -> Iterator[Segment]:
    """``segments`` with words re-timed to the speech ``spans`` (s), each segment spanning its words."""
    after = 0.0
    for seg in segments:
        if seg.words:
            words = tuple(to_speech(seg.words, spans, seg.end_s, lag_s=WHISPER_LAG_S, after=after))
            seg = dataclasses.replace(seg, words=words, start_s=words[0].start_s, end_s=max(w.end_s for w in words))
            after = seg.end_s
        yield seg
