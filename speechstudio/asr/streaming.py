"""Live dictation with streaming CTC on fixed-shape windows (:mod:`.stream_geometry`): blocks resampled
to 16 kHz (soxr HQ), utterances from the energy endpointer; ``push(block)`` yields ``StreamUpdate``s,
``stop()`` flushes. docs/transcribe.md."""
from __future__ import annotations

import copy
import logging
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from speechstudio.asr.cuda_graph import window_runner
from speechstudio.asr.endpointing import UtteranceStream
from speechstudio.asr.stream_geometry import (DEVICE_DEFAULTS, PREVIEW_MAX_WINDOW_S, BlockResampler,  # noqa: F401
                                              StreamConfig, WindowGeometry, to_mono_float32)
from speechstudio.asr.types import Word
from speechstudio.asr.wav2vec2 import feed_decoder
from speechstudio.errors import UsageError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StreamUpdate:
    """One display update: ``kind`` ``"partial"`` | ``"final"``; ``utterance`` (0-based); newly stable ``words`` (s
    from stream start); ``stable_text``; ``tail_text`` (``""`` on final); ``audio_s``, ``stable_s``, ``compute_s``."""

    kind: str
    utterance: int
    words: tuple[Word, ...]
    stable_text: str
    tail_text: str
    audio_s: float
    stable_s: float
    compute_s: float = 0.0


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
        self.decoder = rec.recognizer.new_decoder()
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
        r = self.rec.recognizer
        return StreamUpdate(kind, self.index, tuple(new), " ".join(w.text for w in self.words), tail,
                            round((self.start + self.n) / r.sample_rate, 3),
                            round((self.frame0 + self.kept) * r.seconds_per_frame, 3), compute_s)

    def feed(self, x: np.ndarray) -> list[StreamUpdate]:
        geo, fl = self.geo, self.geo.frame_len
        if x.size:
            self.buf = np.concatenate([self.buf, x]) if self.buf.size else x.copy()
            self.n += x.shape[0]
        updates: list[StreamUpdate] = []
        while self.n >= (s := geo.window_start(self.k)) + geo.window:
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
        if (self.kept == 0 and geo.window <= self.rec.preview_max and self.n < geo.window
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


class StreamingRecognizer(UtteranceStream):
    """Streaming dictation over a loaded ``Wav2Vec2Recognizer`` (``input_rate`` Hz): ``runner`` gives logits
    per ``geometry.window`` samples, ``on_logits(first_frame, logits)`` sees each committed slice.
    Interface: :class:`~speechstudio.asr.endpointing.UtteranceStream`. Not thread-safe."""

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
            runner = window_runner(recognizer, self.geometry.window, c.use_cuda_graph)
        self.runner = runner
        self.on_logits = on_logits
        self.preview_max = int(PREVIEW_MAX_WINDOW_S * recognizer.sample_rate)
        super().__init__(recognizer.sample_rate, recognizer.frame_len, c, input_rate)

    def describe(self) -> str:
        """One line for the CLI / GUI, e.g. ``"window 1.74 s = left 0.5 + chunk 1 + lookahead 0.24 s;
        eager runner"``."""
        g, sr = self.geometry, self.recognizer.sample_rate
        return (f"window {g.window / sr:g} s = left {g.left / sr:g} + chunk {g.chunk / sr:g} + lookahead "
                f"{g.lookahead / sr:g} s; {getattr(self.runner, 'kind', 'custom')} runner")

    def _begin(self, index: int, start: int) -> _Utterance:
        return _Utterance(self, index, start)

    def _take(self, x: np.ndarray) -> list[StreamUpdate]:
        return self._utt.feed(x)

    def _words(self) -> list[Word]:
        return self._utt.words

    def _finish(self) -> StreamUpdate:
        return self._utt.finish()


def commit_latencies(update: StreamUpdate) -> list[float]:
    """Seconds from the end of each of ``update.words`` to its display: audio received minus the word's
    end, plus the update's compute time."""
    return [max(0.0, update.audio_s - w.end_s) + update.compute_s for w in update.words]


