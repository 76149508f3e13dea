"""Whisper engine through faster-whisper (CTranslate2).

Model: Radford et al., "Robust Speech Recognition via Large-Scale Weak Supervision" (2022), run by
SYSTRAN/faster-whisper. Defaults follow faster-whisper's README: ``float16`` on CUDA, ``int8`` on
CPU; ``--precision`` maps fp32 -> ``float32``, fp16 -> ``float16``, bf16 -> ``bfloat16``.
Segments and word timestamps come from faster-whisper and are re-yielded as our own
:class:`~speechstudio.asr.types.Segment` / :class:`~speechstudio.asr.types.Word` as they are decoded.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from speechstudio.asr.types import Segment, Word
from speechstudio.errors import ModelNotFoundError, UsageError

log = logging.getLogger(__name__)

_COMPUTE_TYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


class WhisperEngine:
    """Load a faster-whisper model once; transcribe many inputs.

    Args:
        model_dir: a CTranslate2 Whisper folder (``model.bin``, ``config.json``, tokenizer).
        device: ``auto``/``cpu``/``cuda``/``cuda:N``; precision: ``auto`` (float16 on CUDA, int8 on
            CPU), ``fp32``, ``fp16``, ``bf16``.
        beam_size: beam width (faster-whisper default 5); word_timestamps: per-word times.
        cpu_threads: CTranslate2 intra-op threads on CPU (0: CTranslate2's default).

    Raises :class:`ModelNotFoundError` when the folder is not a faster-whisper model.
    """

    engine = "whisper"
    sample_rate = 16000  # Whisper's fixed input rate (openai/whisper audio.py SAMPLE_RATE)

    def __init__(self, model_dir: str | Path, model_id: str | None = None, *, device: str = "auto",
                 precision: str = "auto", beam_size: int = 5, word_timestamps: bool = True,
                 cpu_threads: int = 0, batch_size: int = 1) -> None:
        from faster_whisper import WhisperModel

        from speechstudio.asr.device import resolve_device

        self.model_dir = Path(model_dir)
        self.model_id = model_id or str(model_dir)
        dev = resolve_device(device)
        index = int(dev.split(":")[1]) if ":" in dev else 0
        self.device = dev
        precision = (precision or "auto").lower()
        if precision == "auto":
            compute_type = "float16" if dev.startswith("cuda") else "int8"
            self.precision = "fp16" if dev.startswith("cuda") else "int8"
        elif precision in _COMPUTE_TYPES:
            compute_type, self.precision = _COMPUTE_TYPES[precision], precision
        else:
            raise UsageError(f"--precision {precision}: expected auto, fp32, fp16 or bf16")
        try:
            self.model = WhisperModel(str(self.model_dir), device=dev.split(":")[0], device_index=index,
                                      compute_type=compute_type, cpu_threads=cpu_threads,
                                      local_files_only=True)
        except (RuntimeError, ValueError, OSError) as e:
            raise ModelNotFoundError(f"{self.model_dir}: not a loadable faster-whisper model ({str(e).splitlines()[0][:200]})") from e
        self.beam_size = beam_size
        self.word_timestamps = word_timestamps
        self.batch_size = max(1, int(batch_size))
        self.multilingual = bool(getattr(self.model.model, "is_multilingual", True))
        self.detected_language: str | None = None

    def transcribe_audio(self, audio: np.ndarray, language: str | None = None) -> Iterator[Segment]:
        """Segments for ``np.ndarray[float32]`` shape (n,), 16 kHz mono, range [-1, 1].

        ``language``: ISO code or ``None`` to detect (English-only models: ``en``).
        Sets ``self.detected_language`` once the first segment is decoded."""
        if language and not self.multilingual and language != "en":
            raise UsageError(f"--language {language}: {self.model_id} is an English-only model")
        segments, info = self.model.transcribe(audio, language=language or None, beam_size=self.beam_size,
                                               word_timestamps=self.word_timestamps,
                                               vad_filter=False, condition_on_previous_text=True)
        self.detected_language = info.language
        for s in segments:
            words = tuple(Word(round(float(w.start), 3), round(float(w.end), 3), w.word.strip(), round(float(w.probability), 4))
                          for w in (s.words or ()))
            yield Segment(round(float(s.start), 3), round(float(s.end), 3), s.text.strip(), words)

    def transcribe_blocks(self, blocks: Iterable[np.ndarray], language: str | None = None) -> Iterator[Segment]:
        """Same as :meth:`transcribe_audio` for a stream of 16 kHz float32 blocks.

        Whisper decodes 30 s windows with the previous text as a prompt, so the clip is gathered
        first (16 kHz float32: 230 MB per hour of audio)."""
        parts = [np.asarray(b, np.float32) for b in blocks]
        audio = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        yield from self.transcribe_audio(audio, language)
