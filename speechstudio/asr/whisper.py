"""Whisper engine through faster-whisper (CTranslate2).

Model: Radford et al., "Robust Speech Recognition via Large-Scale Weak Supervision" (2022), run by
SYSTRAN/faster-whisper. Defaults follow faster-whisper's README: ``float16`` on CUDA, ``int8`` on
CPU; ``--precision`` maps fp32 -> ``float32``, fp16 -> ``float16``, bf16 -> ``bfloat16``.
Segments and word timestamps come from faster-whisper and are re-yielded as our own
:class:`~speechstudio.asr.types.Segment` / :class:`~speechstudio.asr.types.Word` as they are decoded.
"""
from __future__ import annotations

import logging
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
        vad_filter: skip non-speech with faster-whisper's Silero VAD (default on).

    Raises :class:`ModelNotFoundError` when the folder is not a faster-whisper model.
    """

    engine = "whisper"
    sample_rate = 16000  # Whisper's fixed input rate (openai/whisper audio.py SAMPLE_RATE)

    def __init__(self, model_dir: str | Path, model_id: str | None = None, *, device: str = "auto",
                 precision: str = "auto", beam_size: int = 5, word_timestamps: bool = True,
                 cpu_threads: int = 0, batch_size: int = 1, vad_filter: bool = True) -> None:
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
        if dev == "cpu" and compute_type in ("float16", "bfloat16"):
            import ctranslate2

            if compute_type not in ctranslate2.get_supported_compute_types("cpu"):
                raise UsageError(f"--precision {precision}: this CPU has no efficient {compute_type} support in "
                                 "CTranslate2; use --precision auto (int8) or fp32")
        try:
            self.model = WhisperModel(str(self.model_dir), device=dev.split(":")[0], device_index=index,
                                      compute_type=compute_type, cpu_threads=cpu_threads,
                                      local_files_only=True)
        except (RuntimeError, ValueError, OSError) as e:
            raise ModelNotFoundError(f"{self.model_dir}: not a loadable faster-whisper model ({str(e).splitlines()[0][:200]})") from e
        self.beam_size = beam_size
        # Silero VAD (shipped inside faster-whisper) skips non-speech: silence gives no text instead of
        # Whisper's well-known hallucinations ("You", "Thank you for watching"); same WER on our corpus.
        self.vad_filter = vad_filter
        self.word_timestamps = word_timestamps
        self.batch_size = max(1, int(batch_size or 1))
        self.multilingual = bool(getattr(self.model.model, "is_multilingual", True))
        self.detected_language: str | None = None

    def transcribe_audio(self, audio: np.ndarray, language: str | None = None, *, offset_s: float = 0.0,
                         initial_prompt: str | None = None) -> Iterator[Segment]:
        """Segments for ``np.ndarray[float32]`` shape (n,), 16 kHz mono, range [-1, 1].

        ``language``: ISO code or ``None`` to detect (English-only models: ``en``); ``offset_s``
        is added to every time; ``initial_prompt``: text that preceded this audio.
        Sets ``self.detected_language`` once decoding starts."""
        if language and not self.multilingual and language != "en":
            raise UsageError(f"--language {language}: {self.model_id} is an English-only model")
        duration_s = audio.shape[0] / self.sample_rate
        if duration_s < 0.1:          # under 100 ms: no speech to find (and word alignment breaks)
            self.detected_language = language
            return
        segments, info = self.model.transcribe(audio, language=language or None, beam_size=self.beam_size,
                                               word_timestamps=self.word_timestamps, initial_prompt=initial_prompt,
                                               vad_filter=self.vad_filter, condition_on_previous_text=True)
        self.detected_language = info.language
        for s in segments:
            words = tuple(Word(round(float(w.start) + offset_s, 3), round(float(w.end) + offset_s, 3),
                               w.word.strip(), round(float(w.probability), 4)) for w in (s.words or ()))
            yield Segment(round(float(s.start) + offset_s, 3), round(float(s.end) + offset_s, 3),
                          s.text.strip(), words)

    def transcribe_blocks(self, blocks: Iterable[np.ndarray], language: str | None = None) -> Iterator[Segment]:
        """Same as :meth:`transcribe_audio` for a stream of 16 kHz float32 blocks.

        Memory stays bounded: audio is gathered into pieces of about ``piece_s`` seconds (20 min),
        each cut at the quietest 100 ms of the 30 s after that mark so no word is split. Pieces are
        decoded without the previous piece's text as a prompt: with tiny models such prompts made
        the decoder repeat earlier sentences (seen in tests/test_whisper.py)."""
        piece = int(self.piece_s * self.sample_rate)
        buf: list[np.ndarray] = []
        n = 0
        offset = 0
        lang = language
        for block in blocks:
            buf.append(np.asarray(block, np.float32))
            n += buf[-1].shape[0]
            if n >= piece + int(self.cut_search_s * self.sample_rate):
                audio = np.concatenate(buf)
                cut = quietest_cut(audio, piece, self.sample_rate, self.cut_search_s)
                for seg in self.transcribe_audio(audio[:cut], lang, offset_s=offset / self.sample_rate):
                    yield seg             # as decoded: progress moves and Ctrl+C keeps nothing partial
                lang = lang or self.detected_language
                offset += cut
                self.pieces += 1
                rest = audio[cut:]
                buf, n = [rest], rest.shape[0]
        audio = np.concatenate(buf) if buf else np.zeros(0, np.float32)
        if audio.size or offset == 0:
            yield from self.transcribe_audio(audio, lang, offset_s=offset / self.sample_rate)

    piece_s = 20 * 60.0
    cut_search_s = 30.0
    pieces = 0


def quietest_cut(audio: np.ndarray, target: int, sample_rate: int, search_s: float = 30.0) -> int:
    """Sample index near ``target`` (within the following ``search_s`` seconds) at the centre of the
    quietest 100 ms frame: where to split long audio without cutting a word."""
    hop = sample_rate // 10
    seg = audio[target:target + int(search_s * sample_rate)]
    if seg.shape[0] < hop:
        return min(target, audio.shape[0])
    frames = seg[: (seg.shape[0] // hop) * hop].reshape(-1, hop)
    quiet = int(np.argmin((frames.astype(np.float64) ** 2).mean(axis=1)))
    return target + quiet * hop + hop // 2
