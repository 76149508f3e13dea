"""CTC recogniser: any raw-waveform checkpoint ``AutoModelForCTC`` loads (:mod:`.ctc_checkpoint`),
chunked (:mod:`.chunking`), batched, greedy or lexicon beam search with a ``vocabulary.txt``. FP16 on
CUDA, FP32 on CPU by default."""
from __future__ import annotations

import itertools
import logging
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from speechstudio.asr import family
from speechstudio.asr.chunking import Window, WindowPlanner
from speechstudio.asr.ctc import GreedyCTCDecoder, group_segments
from speechstudio.asr.ctc_checkpoint import ctc_config_problem, family_name, frame_geometry
from speechstudio.asr.ctc_lexicon import (DEFAULT_OOV_PENALTY, VOCABULARY_FILE, Lexicon, LexiconCTCDecoder, log_softmax,
                                          read_vocabulary)
from speechstudio.asr.device import resolve_device, resolve_precision, torch_dtype
from speechstudio.asr.types import AudioInput, Segment, TranscriptInfo, Word, as_blocks
from speechstudio.errors import ModelNotFoundError, UsageError
from speechstudio.progress import quiet_transformers

log = logging.getLogger(__name__)

DEFAULT_CHUNK_S = 20.0
DEFAULT_STRIDE_S = 2.0
VOCABULARY_MODES = ("auto", "off")


class Wav2Vec2Recognizer:
    """Load a CTC model once, transcribe many inputs: ``device`` ``auto|cpu|cuda|cuda:N``, ``precision``
    ``auto|fp32|fp16|bf16``, ``chunk_s`` / ``stride_s`` (s), ``batch_size`` windows per forward,
    ``vocabulary`` ``auto|off``. Raises ``ModelNotFoundError`` saying why."""

    engine = "wav2vec2"

    def __init__(self, model_dir: str | Path, model_id: str | None = None, *, device: str = "auto",
                 precision: str = "auto", chunk_s: float = DEFAULT_CHUNK_S, stride_s: float | None = None,
                 batch_size: int | None = None, vocabulary: str = "auto",
                 oov_penalty: float = DEFAULT_OOV_PENALTY) -> None:
        import torch
        from transformers import AutoConfig, AutoModelForCTC, Wav2Vec2CTCTokenizer, Wav2Vec2FeatureExtractor

        quiet_transformers()

        self.model_dir = Path(model_dir)
        self.model_id = model_id or str(model_dir)
        self.device = resolve_device(device)
        self.precision = resolve_precision(precision, self.device)
        # Default: 8 windows per pass on CUDA; 1 on CPU (batching gains nothing there, and is slower).
        self.batch_size = max(1, int(batch_size)) if batch_size else (8 if self.device.startswith("cuda") else 1)
        config = self._config(AutoConfig)
        try:
            self.feature_extractor = Wav2Vec2FeatureExtractor.from_pretrained(self.model_dir)
            self.tokenizer = Wav2Vec2CTCTokenizer.from_pretrained(self.model_dir)
            model, info = AutoModelForCTC.from_pretrained(self.model_dir, config=config, output_loading_info=True,
                                                          dtype=torch_dtype(self.precision))
        except Exception as e:  # OSError, ValueError, SafetensorError (corrupt file), ...
            raise ModelNotFoundError(f"{self.model_dir}: not a loadable Wav2Vec2 CTC model ({_first_line(e)})") from e
        # A base checkpoint under a *ForCTC config loads with a randomly initialised head: refuse it.
        untrained = sorted(k for k in info.get("missing_keys", ()) if str(k).split(".")[0] == "lm_head")
        if untrained:
            raise ModelNotFoundError(f"{self.model_dir}: the weights hold no trained CTC head ({', '.join(untrained)} "
                                     "missing); a pre-trained base must be fine-tuned for CTC first")
        self.family = str(config.model_type)
        self.model = model.to(self.device).eval()
        self.sample_rate = int(self.feature_extractor.sampling_rate)
        self.geometry = frame_geometry(config.conv_kernel, config.conv_stride, self.sample_rate)
        self.frame_len = self.geometry.frame_len
        self.seconds_per_frame = self.geometry.seconds_per_frame
        self.receptive_field = self.geometry.receptive_field
        stride_s = DEFAULT_STRIDE_S if stride_s is None else float(stride_s)
        chunk = int(round(chunk_s * self.sample_rate))
        stride = int(round(stride_s * self.sample_rate))
        WindowPlanner(chunk, stride, stride, self.frame_len)  # validates the numbers early
        self.chunk, self.stride = chunk, stride
        vocab = self.tokenizer.convert_ids_to_tokens(list(range(model.config.vocab_size)))
        self.id_to_token = [t if t is not None else "" for t in vocab]
        self.blank_id = int(model.config.pad_token_id if model.config.pad_token_id is not None
                            else self.tokenizer.pad_token_id)
        skip = {self.tokenizer.convert_tokens_to_ids(t) for t in
                (self.tokenizer.bos_token, self.tokenizer.eos_token, self.tokenizer.unk_token) if t}
        self.skip_ids = frozenset(i for i in skip if i is not None and i != self.blank_id)
        self.word_delimiter = self.tokenizer.word_delimiter_token or "|"
        self._torch = torch
        self.oov_penalty = float(oov_penalty)
        self.lexicon = self._lexicon(vocabulary)
        log.info("loaded %s (%s CTC, %d samples per frame) on %s (%s)", self.model_id, self.family_name,
                 self.frame_len, self.device, self.precision)

    def _lexicon(self, mode: str) -> Lexicon | None:
        """The word list of ``model_dir/vocabulary.txt`` as a trie, or ``None`` (greedy)."""
        if mode not in VOCABULARY_MODES:
            raise UsageError(f"vocabulary {mode!r}: expected one of {', '.join(VOCABULARY_MODES)}")
        path = self.model_dir / VOCABULARY_FILE
        if mode == "off" or not path.is_file():
            return None
        try:
            words = read_vocabulary(path)
        except (OSError, UnicodeError) as e:
            raise ModelNotFoundError(f"{path}: cannot read the model's word list ({_first_line(e)})") from e
        lexicon = Lexicon(words, self.id_to_token, self.word_delimiter, self.skip_ids, self.blank_id)
        if lexicon.unspellable:
            log.warning("%s: %d words use characters outside the model's vocabulary (e.g. %r); ignored",
                        path, len(lexicon.unspellable), lexicon.unspellable[0])
        log.info("%s: decoding with a %d-word vocabulary", self.model_id, lexicon.size)
        return lexicon

    def new_decoder(self) -> GreedyCTCDecoder | LexiconCTCDecoder:
        """A fresh streaming CTC decoder for this model: lexicon-constrained when :attr:`lexicon`
        is set, else greedy. Feed it with :func:`feed_decoder`."""
        if self.lexicon is not None:
            return LexiconCTCDecoder(self.id_to_token, self.blank_id, self.word_delimiter, self.skip_ids,
                                     self.seconds_per_frame, words=self.lexicon, oov_penalty=self.oov_penalty)
        return GreedyCTCDecoder(self.id_to_token, self.blank_id, self.word_delimiter, self.skip_ids,
                                self.seconds_per_frame)

    def _config(self, auto_config):
        """The checkpoint's transformers config, checked with :func:`ctc_config_problem`."""
        try:
            config = auto_config.from_pretrained(self.model_dir)
        except Exception as e:
            if (self.model_dir / "model.bin").is_file():
                raise ModelNotFoundError(f"{self.model_dir} is a CTranslate2 (faster-whisper) model, not a CTC "
                                         "checkpoint; it runs on the Whisper engine") from e
            raise ModelNotFoundError(f"{self.model_dir}: not a loadable Wav2Vec2 CTC model ({_first_line(e)})") from e
        problem = ctc_config_problem(config)
        if problem:
            raise ModelNotFoundError(f"{self.model_dir}: {problem}")
        return config

    @property
    def family_name(self) -> str:
        """The model family for display: ``"Wav2Vec2"``, ``"HuBERT"``, ``"Data2Vec-Audio"``..."""
        return family_name(self.family)

    # ------------------------------------------------------------------ model calls
    def normalize(self, audio: np.ndarray) -> np.ndarray:
        """Per-window zero-mean unit-variance normalisation when the checkpoint asks for it
        (``do_normalize``; transformers' ``Wav2Vec2FeatureExtractor.zero_mean_unit_var_norm``)."""
        if self.feature_extractor.do_normalize:
            return (audio - audio.mean()) / np.sqrt(audio.var() + 1e-7)
        return audio

    def window_logits(self, windows: list[np.ndarray]) -> list[np.ndarray]:
        """Run the model on equal-length windows (``float32 (n,)``, 16 kHz mono); returns ``float32
        (n_frames, vocab_size)`` CTC logits per window."""
        torch = self._torch
        n = windows[0].shape[0]
        if n < self.receptive_field:  # too short for one frame of the conv feature encoder
            return [np.zeros((0, len(self.id_to_token)), np.float32) for _ in windows]
        x = np.stack([self.normalize(np.asarray(w, np.float32)) for w in windows]).astype(np.float32)
        with torch.inference_mode():
            inp = torch.from_numpy(x).to(self.device, dtype=torch_dtype(self.precision), non_blocking=True)
            logits = self.model(inp).logits.float().cpu().numpy()
        return list(logits)

    def stream_logits(self, blocks: Iterable[np.ndarray]) -> Iterator[tuple[int, np.ndarray]]:
        """Kept logits for a stream of 16 kHz float32 blocks: yields ``(first_global_frame, logits
        float32 (n_kept, vocab_size))`` covering every frame once, in order."""
        planner = WindowPlanner(self.chunk, self.stride, self.stride, self.frame_len)
        pending: list[Window] = []

        def run(batch: list[Window]) -> Iterator[tuple[int, np.ndarray]]:
            for win, lg in zip(batch, self.window_logits([w.audio for w in batch])):
                base = win.start // self.frame_len
                a = win.keep_from - base
                b = lg.shape[0] if win.keep_to is None else min(lg.shape[0], win.keep_to - base)
                if b > a:
                    yield win.keep_from, lg[a:b]

        for win in itertools.chain((w for block in blocks for w in planner.push(block)), planner.finish()):
            if pending and win.n_samples != pending[0].n_samples:
                yield from run(pending)
                pending = []
            pending.append(win)
            if len(pending) >= self.batch_size:
                yield from run(pending)
                pending = []
        if pending:
            yield from run(pending)

    def logits(self, audio: np.ndarray) -> np.ndarray:
        """Stitched logits for a whole clip: ``np.ndarray[float32]`` shape (n_frames, vocab)."""
        parts = [lg for _, lg in self.stream_logits([audio])]
        return np.concatenate(parts) if parts else np.zeros((0, len(self.id_to_token)), np.float32)

    # ------------------------------------------------------------------ transcription
    def words(self, blocks: Iterable[np.ndarray]) -> Iterator[Word]:
        """Words with start/end seconds, as they are decoded."""
        dec = self.new_decoder()
        for first, lg in self.stream_logits(blocks):
            yield from feed_decoder(dec, lg, first)
        yield from dec.finish()

    def transcribe(self, audio: AudioInput, *, language: str | None = None, task: str = "transcribe",
                   initial_prompt: str | None = None, hotwords: str | None = None,
                   duration_s: float | None = None) -> tuple[Iterator[Segment], TranscriptInfo]:
        """``(segments, info)`` for a float32 mono array or block stream at ``sample_rate``; ``language`` only
        recorded. ``UsageError`` for ``task="translate"``, ``initial_prompt`` or ``hotwords``."""
        family.check_options(self, family.OptionCheck(task=task, hotwords=hotwords, initial_prompt=initial_prompt))
        if duration_s is None and isinstance(audio, np.ndarray):
            duration_s = audio.shape[0] / self.sample_rate
        info = TranscriptInfo(round(float(duration_s or 0.0), 3), language, self.model_id, self.engine, self.device,
                              self.precision)
        return self.transcribe_blocks(as_blocks(audio)), info

    def transcribe_blocks(self, blocks: Iterable[np.ndarray], language: str | None = None) -> Iterator[Segment]:
        """Segments for a stream of ``np.ndarray[float32]`` blocks, mono at ``self.sample_rate``.
        ``language`` is ignored (a CTC checkpoint knows one vocabulary)."""
        yield from group_segments(self.words(blocks))


def feed_decoder(decoder, logits: np.ndarray, first_frame: int, probs: bool = True) -> list[Word]:
    """Feed CTC ``logits`` (``float32 (n_frames, vocab)``, starting at global frame ``first_frame``) to
    a decoder from ``new_decoder``; returns the completed words."""
    if isinstance(decoder, LexiconCTCDecoder):
        return decoder.feed(log_softmax(logits), first_frame)
    return decoder.feed(logits.argmax(axis=-1), first_frame, max_softmax(logits) if probs else None)


def max_softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax probability of the arg-max token per frame: ``np.ndarray[float32]`` shape (n_frames,)
    from logits shape (n_frames, vocab): ``1 / sum(exp(logits - max))``, computed stably."""
    lg = logits.astype(np.float64)
    return (1.0 / np.exp(lg - lg.max(axis=-1, keepdims=True)).sum(axis=-1)).astype(np.float32)


def _first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__
