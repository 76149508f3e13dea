"""Live dictation: streaming CTC (Wav2Vec2 family) on fixed-shape windows, stable text + changing tail.

Qt-free. Audio arrives in small blocks (typically 10-40 ms) at any device rate; blocks are
down-mixed, resampled to the model rate (16 kHz, ``soxr.ResampleStream`` "HQ", as
:mod:`speechstudio.audio.decode` does) and cut into *chunks*. Usage::

    rec = StreamingRecognizer(recognizer, StreamConfig(), input_rate=44100)
    for block in source.blocks():          # np.ndarray[float32] shape (n,), 44.1 kHz
        for u in rec.push(block):          # StreamUpdate: stable text, tail, new words
            show(u.stable_text, u.tail_text)
    for u in rec.stop():                   # flushes what is buffered: the last words are kept
        ...
    rec.text                               # the whole transcript

Window geometry (all lengths in samples at 16 kHz, each rounded to the frame hop ``frame_len``;
``C`` chunk, ``L`` left context, ``R`` lookahead, ``W = L + C + R``). ``frame_len`` and the
receptive field ``rf`` come from the checkpoint's conv feature encoder
(:mod:`speechstudio.asr.ctc_checkpoint`): 320 and 400 samples (20 / 25 ms) for the standard
Wav2Vec2 / HuBERT / Data2Vec-Audio / Wav2Vec2-Conformer stack; the numbers below use them.

* Chunk ``k`` owns the CTC frames of samples ``[k*C, (k+1)*C)`` (frame ``f`` = samples
  ``[320 f, 320 f + 400)``). Its logits come from the window ``[s_k, s_k + W)`` with
  ``s_k = max(0, k*C - L)``: always exactly ``W`` samples, so the model sees one fixed shape
  (one captured CUDA Graph). Only the chunk's own frames are kept ("committed").
* **Start of a stream (or utterance)**: while ``k*C < L`` there is not yet ``L`` of left context;
  the window is *start-aligned* (``s_k = 0``, no zero padding) and chunk ``k`` is computed once
  ``W`` samples have arrived. The first window therefore commits chunks ``0 .. floor(L/C)``
  together. Until then (``n < W`` samples received) a *preview* runs every chunk on the
  received whole frames, right-aligned in a ``W`` window left-padded with zeros (frame-aligned,
  so still one shape); the preview only sets the tail,
  it never commits anything (skipped for windows over ``PREVIEW_MAX_WINDOW_S``).
* **Stop / end of utterance** (``n`` samples): the frames still uncommitted, up to the last whole
  frame ``(n - 400) // 320``, come from one final window: the whole utterance ``[0, n)`` unpadded
  when ``n <= W`` (so a clip shorter than the window is exactly one full pass; this one window
  has its own length, so it runs eagerly), else the
  end-aligned window ``[s, s + W)`` with ``s = ceil((n - W) / 320) * 320``, zero-padded at the
  end by fewer than 320 samples.
* Per-window zero-mean/unit-variance normalisation (when the checkpoint asks for it) is over the
  whole fixed window, padding included. An offline computation that cuts the same 16 kHz audio
  into the same windows gives the same logits (this is what the tests check).

Decoding: greedy CTC (:class:`~speechstudio.asr.ctc.GreedyCTCDecoder`) over committed frames
continues across chunk boundaries (repeat/blank merging is exact); a model with a ``vocabulary.txt``
uses the recogniser's lexicon decoder instead
(:class:`~speechstudio.asr.ctc_lexicon.LexiconCTCDecoder`, ``Wav2Vec2Recognizer.new_decoder``),
whose words are stable once every hypothesis of its beam holds them. Completed words are *stable*.
The *tail* is a throw-away copy of the decoder fed with the window's lookahead frames (the
frames after the committed ones): the unfinished word plus what the lookahead suggests; it may
change with the next chunk.

Endpointing (energy): frames of ``frame_len`` samples (20 ms) whose RMS is below ``threshold_db`` dBFS are silence. Audio
before speech onset (``min_speech_s`` of consecutive loud frames) is not recognised, apart from
``preroll_s`` kept before the onset; after ``endpoint_s`` of continuous silence the utterance is
finalised (same flush as Stop) and a ``final`` update is emitted. Each utterance is windowed
from its own start (frame-aligned global position), so leading silence gives no text, and pure
silence gives none at all (the model never runs). Trailing silence up to ``endpoint_s`` is part of
the utterance (a trained CTC model emits blanks there); after it nothing runs until the next onset. ``endpoint_s=None`` (or 0) disables endpointing: the whole stream is
one utterance starting at sample 0.
"""
from __future__ import annotations

import copy
import logging
import math
import time
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Iterator

import numpy as np

from speechstudio.asr.ctc import GreedyCTCDecoder
from speechstudio.asr.endpointing import EnergyEndpointer
from speechstudio.asr.types import Segment, Word
from speechstudio.asr.wav2vec2 import feed_decoder
from speechstudio.errors import UsageError

log = logging.getLogger(__name__)

# Window defaults per device (seconds: chunk, left context, lookahead), from bench/bench_streaming.py.
# CUDA: a wav2vec2-base/large window is a few ms, so short chunks with long context. CPU: the
# per-chunk compute grows with the window (wav2vec2-base, one AVX2 core: ~0.09 s + 0.2 s per
# second of window), so a 1 s chunk with 0.5 s of left context keeps compute < 0.5 x chunk on a
# 2-core machine (1.74 s window: 0.43 s p50 CPU time per chunk on ONE thread).
DEVICE_DEFAULTS = {"cuda": (0.5, 1.5, 0.24), "cpu": (1.0, 0.5, 0.24)}
DEFAULT_CHUNK_S, DEFAULT_LEFT_CONTEXT_S, DEFAULT_LOOKAHEAD_S = DEVICE_DEFAULTS["cuda"]
DEFAULT_ENDPOINT_S = 1.0
# Previews (tail before the first full window) cost one window per chunk; skip them for long windows.
PREVIEW_MAX_WINDOW_S = 8.0


@dataclass(frozen=True)
class StreamConfig:
    """Streaming settings (seconds, dBFS).

    ``chunk_s``, ``left_context_s``, ``lookahead_s``: ``None`` takes the device's default
    (``DEVICE_DEFAULTS``: CUDA 0.5 + 1.5 + 0.24 s, CPU 1.0 + 0.5 + 0.24 s; see :meth:`resolved`).
    ``chunk_s``: audio committed per model call; ``left_context_s`` / ``lookahead_s``: context
    before / after the chunk in each window (lookahead adds latency); ``endpoint_s``: silence that
    finalises an utterance (``None``/0: never); ``threshold_db``: RMS level (dBFS, 0 = full scale)
    below which a CTC frame (``frame_len`` samples, 20 ms for the standard stack) is silence; ``min_speech_s``: loud audio needed to start an
    utterance; ``preroll_s``: audio kept before the onset; ``preview``: show a tail before the
    first full window exists; ``use_cuda_graph``: ``"auto"``, ``True`` or ``False``.
    """

    chunk_s: float | None = None
    left_context_s: float | None = None
    lookahead_s: float | None = None
    endpoint_s: float | None = DEFAULT_ENDPOINT_S
    threshold_db: float = -45.0
    min_speech_s: float = 0.06
    preroll_s: float = 0.3
    preview: bool = True
    use_cuda_graph: bool | str = "auto"

    def resolved(self, device: str) -> "StreamConfig":
        """This config with the unset window lengths (``None``) taken from ``DEVICE_DEFAULTS``
        for ``device`` (``"cpu"``, ``"cuda"``, ``"cuda:N"``)."""
        c, l, r = DEVICE_DEFAULTS["cuda" if str(device).startswith("cuda") else "cpu"]
        return replace(self, chunk_s=c if self.chunk_s is None else self.chunk_s,
                       left_context_s=l if self.left_context_s is None else self.left_context_s,
                       lookahead_s=r if self.lookahead_s is None else self.lookahead_s)


@dataclass(frozen=True)
class WindowGeometry:
    """Window arithmetic in samples at the model rate (see the module docstring).

    ``chunk``, ``left``, ``lookahead`` are multiples of ``frame_len`` (the feature encoder's hop);
    ``receptive_field`` is its input span of one frame. The defaults (320, 400) are the standard
    conv stack; :class:`StreamingRecognizer` passes the loaded checkpoint's own values.
    """

    chunk: int
    left: int
    lookahead: int
    frame_len: int = 320
    receptive_field: int = 400

    @classmethod
    def from_seconds(cls, chunk_s: float, left_s: float, lookahead_s: float, *, sample_rate: int = 16000,
                     frame_len: int = 320, receptive_field: int = 400) -> "WindowGeometry":
        """Round each length to whole frames. Raises :class:`UsageError` for a chunk under one
        frame, a negative length, or a lookahead too short to finish the chunk's last frame."""
        if chunk_s <= 0 or left_s < 0 or lookahead_s < 0:
            raise UsageError(f"chunk must be positive and context non-negative (chunk {chunk_s} s, "
                             f"left {left_s} s, lookahead {lookahead_s} s)")

        def frames(s: float) -> int:
            return int(math.floor(s * sample_rate / frame_len + 0.5)) * frame_len  # half up

        geo = cls(max(frame_len, frames(chunk_s)), frames(left_s), frames(lookahead_s), frame_len, receptive_field)
        if geo.n_frames(geo.window) * frame_len < geo.window - geo.lookahead:
            need = (receptive_field - frame_len + frame_len - 1) // frame_len * frame_len / sample_rate
            raise UsageError(f"lookahead {lookahead_s} s is too short: the chunk's last frame needs "
                             f"{receptive_field - frame_len} samples after it (use at least {need:g} s)")
        return geo

    @property
    def window(self) -> int:
        """Model input length W = left + chunk + lookahead (samples)."""
        return self.left + self.chunk + self.lookahead

    def n_frames(self, n_samples: int) -> int:
        """CTC frames the feature encoder makes from ``n_samples`` samples."""
        return 0 if n_samples < self.receptive_field else (n_samples - self.receptive_field) // self.frame_len + 1

    def window_start(self, k: int) -> int:
        """First sample of chunk ``k``'s window (start-aligned while left context is short)."""
        return max(0, k * self.chunk - self.left)

    def final_window_start(self, n: int) -> int:
        """First sample of the flush window for ``n`` received samples (0 when ``n <= W``)."""
        if n <= self.window:
            return 0
        return -(-(n - self.window) // self.frame_len) * self.frame_len


@dataclass(frozen=True)
class StreamUpdate:
    """One update for the display.

    ``kind``: ``"partial"`` (after a chunk or preview) or ``"final"`` (utterance finished by
    endpointing or Stop). ``utterance``: 0-based index. ``words``: words that became stable with
    this update (times in seconds from the stream start). ``stable_text``: the utterance's stable
    text so far (on ``final``: its whole text). ``tail_text``: still-changing text after it (``""``
    on final). ``audio_s``: seconds of audio received when the update was made; ``stable_s``: stream
    time up to which frames are committed (``audio_s - stable_s`` is the lag behind real time,
    excluding compute); ``compute_s``: model time spent for this update.
    """

    kind: str
    utterance: int
    words: tuple[Word, ...]
    stable_text: str
    tail_text: str
    audio_s: float
    stable_s: float
    compute_s: float = 0.0


class BlockResampler:
    """Device-rate blocks -> float32 mono at ``out_rate`` (soxr ``ResampleStream``, "HQ").

    Call with ``np.ndarray`` shape (n,) or (n, channels) (float in [-1, 1], or integer PCM which is
    scaled to [-1, 1]); channels are averaged. Returns ``np.ndarray[float32]`` shape (m,) at
    ``out_rate``; ``last=True`` flushes the resampler's delay line (call once, at the end).
    Deterministic: the same blocks give the same output.
    """

    def __init__(self, in_rate: int, out_rate: int = 16000) -> None:
        self.in_rate, self.out_rate = int(in_rate), int(out_rate)
        if self.in_rate <= 0:
            raise UsageError(f"input sample rate must be positive, got {in_rate}")
        self._rs = None
        if self.in_rate != self.out_rate:
            import soxr

            self._rs = soxr.ResampleStream(self.in_rate, self.out_rate, 1, dtype="float32", quality="HQ")

    def __call__(self, block: np.ndarray, last: bool = False) -> np.ndarray:
        x = to_mono_float32(block)
        if self._rs is None:
            return x
        return np.ascontiguousarray(self._rs.resample_chunk(x, last=last), dtype=np.float32)


def to_mono_float32(block: np.ndarray) -> np.ndarray:
    """``np.ndarray`` (n,) or (n, channels), float or integer PCM -> float32 (n,) in [-1, 1]."""
    x = np.asarray(block)
    if x.dtype.kind in "iu":
        half = float(2 ** (8 * x.dtype.itemsize - 1))
        x = x.astype(np.float32) / half if x.dtype.kind == "i" else (x.astype(np.float32) - half) / half
    x = x.astype(np.float32, copy=False)
    if x.ndim == 2:
        x = x[:, 0] if x.shape[1] == 1 else x.mean(axis=1, dtype=np.float32)
    elif x.ndim != 1:
        raise ValueError(f"audio block must have shape (n,) or (n, channels), got {x.shape}")
    return np.ascontiguousarray(x)


class _Utterance:
    """Window bookkeeping and decoding for one utterance starting at global sample ``start``."""

    def __init__(self, rec: "StreamingRecognizer", index: int, start: int) -> None:
        self.rec, self.index, self.start = rec, index, int(start)
        self.geo = rec.geometry
        self.frame0 = self.start // self.geo.frame_len
        self.buf = np.zeros(0, np.float32)
        self.buf_start = 0        # utterance-local sample index of buf[0]
        self.n = 0                # samples received
        self.k = 0                # next chunk to commit
        self.kept = 0             # utterance-local frames committed
        self.last_preview = 0
        e = rec.recognizer
        new_decoder = getattr(e, "new_decoder", None)
        self.decoder = (new_decoder() if new_decoder is not None else
                        GreedyCTCDecoder(e.id_to_token, e.blank_id, e.word_delimiter, e.skip_ids, e.seconds_per_frame))
        self.words: list[Word] = []

    def _audio(self, a: int, b: int) -> np.ndarray:
        return self.buf[a - self.buf_start:b - self.buf_start]

    def _commit(self, logits: np.ndarray, first_local: int, upto: int) -> list[Word]:
        """Commit window frames from ``self.kept`` to ``upto`` (utterance-local frames);
        ``first_local``: the window's first frame."""
        part = logits[self.kept - first_local:upto - first_local]
        g = self.frame0 + self.kept
        if self.rec.on_logits is not None and part.shape[0]:
            self.rec.on_logits(g, part)
        new = feed_decoder(self.decoder, part, g, probs=False)
        self.kept = upto
        self.words.extend(new)
        return new

    def _tail(self, lookahead: np.ndarray, first_local: int) -> str:
        """Decode the lookahead frames on a copy of the decoder: unfinished word + what follows."""
        d = copy.deepcopy(self.decoder)
        words = feed_decoder(d, lookahead, self.frame0 + first_local, probs=False) + d.finish()
        return " ".join(w.text for w in words)

    def _update(self, kind: str, new: list[Word], tail: str, compute_s: float) -> StreamUpdate:
        fs = self.rec.recognizer.seconds_per_frame
        return StreamUpdate(kind, self.index, tuple(new), " ".join(w.text for w in self.words), tail,
                            round((self.start + self.n) / self.geo_rate, 3), round((self.frame0 + self.kept) * fs, 3),
                            compute_s)

    @property
    def geo_rate(self) -> int:
        return self.rec.recognizer.sample_rate

    def feed(self, x: np.ndarray) -> list[StreamUpdate]:
        geo, fl = self.geo, self.geo.frame_len
        if x.size:
            self.buf = np.concatenate([self.buf, x]) if self.buf.size else x.copy()
            self.n += x.shape[0]
        updates: list[StreamUpdate] = []
        while True:
            s = geo.window_start(self.k)
            if self.n < s + geo.window:
                break
            j = self.k
            while geo.window_start(j + 1) == s:
                j += 1
            t0 = time.perf_counter()
            logits = self.rec.runner(self._audio(s, s + geo.window))
            upto = (j + 1) * geo.chunk // fl
            new = self._commit(logits, s // fl, upto)
            self.k = j + 1
            tail = self._tail(logits[upto - s // fl:], upto)
            dt = time.perf_counter() - t0
            self.rec.chunk_times.append(dt)
            updates.append(self._update("partial", new, tail, dt))
        # keep what the next regular window and a possible flush window need
        keep = min(geo.window_start(self.k), max(0, (self.n - geo.window) // fl * fl))
        if keep - self.buf_start >= geo.chunk:
            self.buf = self.buf[keep - self.buf_start:].copy()
            self.buf_start = keep
        if (self.rec.config.preview and self.kept == 0 and geo.window <= self.rec.preview_max and self.n < geo.window
                and self.n - self.last_preview >= geo.chunk and self.n >= geo.receptive_field):
            updates.append(self._preview())
        return updates

    def _preview(self) -> StreamUpdate:
        geo, fl = self.geo, self.geo.frame_len
        m = self.n // fl * fl
        self.last_preview = self.n
        win = np.zeros(geo.window, np.float32)
        win[geo.window - m:] = self.buf[:m]
        t0 = time.perf_counter()
        logits = self.rec.runner(win)
        first = (geo.window - m) // fl
        tail = self._tail(logits[first:], 0)
        dt = time.perf_counter() - t0
        return self._update("partial", [], tail, dt)

    def finish(self) -> StreamUpdate:
        geo, fl = self.geo, self.geo.frame_len
        total = geo.n_frames(self.n)
        new: list[Word] = []
        t0 = time.perf_counter()
        if total > self.kept:
            s = geo.final_window_start(self.n)
            if self.n <= geo.window:
                logits = self.rec.recognizer.window_logits([self._audio(0, self.n)])[0]
            else:
                win = np.zeros(geo.window, np.float32)
                a = self._audio(s, self.n)
                win[:a.shape[0]] = a
                logits = self.rec.runner(win)
            new += self._commit(logits, s // fl, total)
        last = self.decoder.finish()
        self.words.extend(last)
        new += last
        return self._update("final", new, "", time.perf_counter() - t0)

    def segment(self) -> Segment | None:
        if not self.words:
            return None
        return Segment(self.words[0].start_s, self.words[-1].end_s, " ".join(w.text for w in self.words),
                       tuple(self.words))


class StreamingRecognizer:
    """Streaming dictation over a loaded :class:`~speechstudio.asr.wav2vec2.Wav2Vec2Recognizer` (any CTC
    family it loads: Wav2Vec2, HuBERT, Data2Vec-Audio, Wav2Vec2-Conformer...; window geometry from
    its ``frame_len`` / ``receptive_field``).

    ``input_rate``: sample rate (Hz) of the blocks given to :meth:`push` (resampled to
    ``recognizer.sample_rate``). ``runner``: a callable window -> logits for windows of exactly
    ``geometry.window`` samples (default :func:`speechstudio.asr.cuda_graph.window_runner`: a CUDA
    Graph on CUDA, eager elsewhere). ``on_logits(first_global_frame, logits)`` is called with every
    committed slice of logits (``np.ndarray[float32]`` shape (n_frames, vocab)), in order, each
    frame once. Not thread-safe: feed it from one thread (the worker's thread).
    """

    def __init__(self, recognizer, config: StreamConfig | None = None, *, input_rate: int | None = None,
                 runner: Callable[[np.ndarray], np.ndarray] | None = None,
                 on_logits: Callable[[int, np.ndarray], None] | None = None) -> None:
        if getattr(recognizer, "engine", "wav2vec2") != "wav2vec2" or not hasattr(recognizer, "window_logits"):
            raise UsageError(f"StreamingRecognizer needs a Wav2Vec2 CTC model; {getattr(recognizer, 'model_id', 'this model')} "
                             f"is a {getattr(recognizer, 'engine', type(recognizer).__name__)} model (Whisper streams with "
                             "speechstudio.asr.live.open_recognizer: LocalAgreement re-decoding)")
        self.recognizer = recognizer
        self.config = (config or StreamConfig()).resolved(getattr(recognizer, "device", "cpu"))
        c = self.config
        self.geometry = WindowGeometry.from_seconds(c.chunk_s, c.left_context_s, c.lookahead_s,
                                                    sample_rate=recognizer.sample_rate, frame_len=recognizer.frame_len,
                                                    receptive_field=recognizer.receptive_field)
        if runner is None:
            from speechstudio.asr.cuda_graph import window_runner

            runner = window_runner(recognizer, self.geometry.window, c.use_cuda_graph)
        self.runner = runner
        self.on_logits = on_logits
        self.input_rate = int(input_rate or recognizer.sample_rate)
        self.preview_max = int(PREVIEW_MAX_WINDOW_S * recognizer.sample_rate)
        self._resampler = BlockResampler(self.input_rate, recognizer.sample_rate)
        self._endpointer = EnergyEndpointer(recognizer.sample_rate, recognizer.frame_len, endpoint_s=c.endpoint_s,
                                            min_speech_s=c.min_speech_s, preroll_s=c.preroll_s,
                                            threshold_db=c.threshold_db)
        self._utt: _Utterance | None = None
        self._n_utt = 0
        self.received = 0          # samples at the model rate received so far
        self.segments: list[Segment] = []   # finished utterances with words
        self.chunk_times: list[float] = []  # seconds of compute per regular window
        self.stopped = False

    # ------------------------------------------------------------------ public API
    def describe(self) -> str:
        """One line for the CLI / GUI, e.g. ``"window 1.74 s = left 0.5 + chunk 1 + lookahead 0.24 s;
        eager runner"``."""
        g, sr = self.geometry, self.recognizer.sample_rate
        return (f"window {g.window / sr:g} s = left {g.left / sr:g} + chunk {g.chunk / sr:g} + lookahead "
                f"{g.lookahead / sr:g} s; {getattr(self.runner, 'kind', 'custom')} runner")

    def push(self, block: np.ndarray) -> list[StreamUpdate]:
        """Feed one block, ``np.ndarray`` shape (n,) or (n, channels) at ``input_rate``, float in
        [-1, 1] (or integer PCM). Returns the updates it caused (often none; one per chunk).
        Raises ``RuntimeError`` after :meth:`stop`."""
        if self.stopped:
            raise RuntimeError("push() after stop(); make a new StreamingRecognizer")
        return self._feed(self._resampler(block))

    def stop(self) -> list[StreamUpdate]:
        """End of stream: flush the resampler and every buffered sample through the model, finish
        the current utterance (``final`` update) and return the remaining updates."""
        if self.stopped:
            return []
        updates = self._feed(self._resampler(np.zeros(0, np.float32), last=True))
        self.stopped = True
        updates += self._apply(self._endpointer.flush())
        if self._utt is not None:
            updates.append(self._finish())
        return updates

    def run(self, blocks: Iterable[np.ndarray]) -> Iterator[StreamUpdate]:
        """Convenience: push every block, then stop; yields the updates as they come."""
        for block in blocks:
            yield from self.push(block)
        yield from self.stop()

    def run_source(self, source, on_block: Callable[[np.ndarray], None] | None = None) -> Iterator[StreamUpdate]:
        """Recognise an :class:`~speechstudio.asr.sources.AudioSource` live (its ``sample_rate`` must
        equal ``input_rate``): yields updates until the source ends or ``source.stop()`` is called
        (from any thread, e.g. the GUI's Stop button), then flushes like :meth:`stop`.
        ``on_block(block)`` sees each raw block first (input level, mel view)."""
        if int(source.sample_rate) != self.input_rate:
            raise ValueError(f"source rate {source.sample_rate} Hz != input_rate {self.input_rate} Hz")
        for block in source.blocks():
            if on_block is not None:
                on_block(block)
            yield from self.push(block)
        yield from self.stop()

    @property
    def text(self) -> str:
        """Transcript so far: finished utterances plus the current utterance's stable words."""
        parts = [s.text for s in self.segments]
        if self._utt is not None and self._utt.words:
            parts.append(" ".join(w.text for w in self._utt.words))
        return " ".join(p for p in parts if p)

    @property
    def in_utterance(self) -> bool:
        """True while speech is being recognised (between onset and endpoint)."""
        return self._utt is not None

    # ------------------------------------------------------------------ internals
    def _feed(self, x: np.ndarray) -> list[StreamUpdate]:
        self.received += x.shape[0]
        return self._apply(self._endpointer.feed(x))

    def _apply(self, events) -> list[StreamUpdate]:
        """Run the endpointer's events (utterance start / audio / end) through the utterances."""
        updates: list[StreamUpdate] = []
        for ev in events:
            if ev.kind == "start":
                self._utt = self._new_utterance(ev.start)
                if ev.audio.size:
                    updates += self._utt.feed(ev.audio)
            elif ev.kind == "audio":
                updates += self._utt.feed(ev.audio)
            else:
                updates.append(self._finish())
        return updates

    def _new_utterance(self, start: int) -> _Utterance:
        utt = _Utterance(self, self._n_utt, start)
        self._n_utt += 1
        return utt

    def _finish(self) -> StreamUpdate:
        assert self._utt is not None
        u = self._utt.finish()
        seg = self._utt.segment()
        if seg is not None:
            self.segments.append(seg)
        self._utt = None
        return u


def commit_latencies(update: StreamUpdate) -> list[float]:
    """Seconds from the end of each word that became stable with ``update`` to the moment it is
    shown: audio received when the update was made minus the word's end time, plus the update's
    compute time (queueing behind a slow model not included). One value per ``update.words``."""
    return [max(0.0, update.audio_s - w.end_s) + update.compute_s for w in update.words]


def stream_file_blocks(audio: np.ndarray, block: int) -> Iterator[np.ndarray]:
    """Cut ``audio`` (``np.ndarray`` shape (n,) or (n, ch)) into consecutive blocks of ``block``
    samples (the last may be shorter)."""
    for i in range(0, audio.shape[0], max(1, int(block))):
        yield audio[i:i + block]


__all__ = ["StreamConfig", "StreamUpdate", "StreamingRecognizer", "WindowGeometry", "BlockResampler",
           "to_mono_float32", "stream_file_blocks", "commit_latencies", "DEVICE_DEFAULTS", "DEFAULT_CHUNK_S", "DEFAULT_LEFT_CONTEXT_S",
           "DEFAULT_LOOKAHEAD_S", "DEFAULT_ENDPOINT_S"]
