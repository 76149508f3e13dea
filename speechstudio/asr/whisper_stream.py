"""Live dictation with Whisper: re-decode a growing buffer and commit what LocalAgreement-n agrees on
(Macháček et al. 2023); the CTC recogniser's interface, ``stop`` commits the last hypothesis."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from typing import Callable, Protocol

import numpy as np

from speechstudio.asr.endpointing import UtteranceStream
from speechstudio.asr.local_agreement import LocalAgreement
from speechstudio.asr.streaming import StreamUpdate
from speechstudio.asr.types import Word
from speechstudio.asr.whisper_buffer import WhisperHypotheses
from speechstudio.errors import UsageError

log = logging.getLogger(__name__)

# ufal/whisper_streaming: --min-chunk-size 1.0, 200-character prompt, n = 2 (LocalAgreement-2);
# a 30 s cap is Whisper's input length (openai/whisper audio.py CHUNK_LENGTH).
DEFAULT_UPDATE_S = 1.0
DEFAULT_AGREEMENT = 2
DEFAULT_TRIM_S = 10.0
DEFAULT_MAX_BUFFER_S = 20.0
DEFAULT_PROMPT_CHARS = 200
WHISPER_WINDOW_S = 30.0


@dataclass(frozen=True)
class AgreementConfig:
    """Settings (s, dBFS, characters): ``update_s``, ``agreement`` n, ``trim_s``, ``max_buffer_s`` <= 30,
    ``prompt_chars``, endpointing as ``StreamConfig``; :meth:`check` raises ``UsageError``."""

    update_s: float = DEFAULT_UPDATE_S
    agreement: int = DEFAULT_AGREEMENT
    trim_s: float = DEFAULT_TRIM_S
    max_buffer_s: float = DEFAULT_MAX_BUFFER_S
    prompt_chars: int = DEFAULT_PROMPT_CHARS
    endpoint_s: float | None = 1.0
    threshold_db: float = -45.0
    min_speech_s: float = 0.06
    preroll_s: float = 0.3

    @classmethod
    def from_stream_config(cls, c) -> "AgreementConfig":
        """The endpointing settings of a :class:`~speechstudio.asr.stream_geometry.StreamConfig`; its
        ``chunk_s`` (audio per model call), when set, becomes ``update_s``."""
        out = cls(endpoint_s=c.endpoint_s, threshold_db=c.threshold_db, min_speech_s=c.min_speech_s,
                  preroll_s=c.preroll_s)
        return replace(out, update_s=c.chunk_s) if c.chunk_s else out

    def check(self) -> "AgreementConfig":
        if not 0.05 <= self.update_s <= 10:
            raise UsageError(f"update interval (--update-s) {self.update_s} s: expected 0.05 to 10 s")
        if not 1 <= self.agreement <= 10:
            raise UsageError(f"LocalAgreement n (--agreement) = {self.agreement}: expected 1 to 10")
        if not self.update_s < self.max_buffer_s <= WHISPER_WINDOW_S:
            raise UsageError(f"max buffer {self.max_buffer_s} s: expected more than the update interval and at "
                             f"most Whisper's {WHISPER_WINDOW_S:g} s window")
        if not 0 < self.trim_s <= self.max_buffer_s:
            raise UsageError(f"trim length {self.trim_s} s: expected 0 < trim <= max buffer ({self.max_buffer_s} s)")
        return self


class BufferDecoder(Protocol):
    """What :class:`LocalAgreementRecognizer` re-decodes the buffer with (:class:`WhisperHypotheses`,
    or a scripted fake in tests)."""

    sample_rate: int
    model_id: str
    device: str
    separator: str       # joins words into text: " ", or "" for scripts without spaces

    def __call__(self, audio: np.ndarray, prompt: str, offset_s: float) -> list[Word]:
        """Words of ``audio`` (``np.ndarray[float32]`` shape (n,), ``sample_rate`` Hz) with times in
        seconds from the stream start (``offset_s`` = the buffer's start), in order."""
        ...


class _Utterance:
    """Buffer and agreement state of one utterance (starts at global sample ``start``)."""

    def __init__(self, index: int, start: int, agreement: int, sample_rate: int) -> None:
        self.index, self.start = index, int(start)
        self.la = LocalAgreement(agreement, start_s=start / sample_rate)
        self.buf = np.zeros(0, np.float32)
        self.buf_start = int(start)      # global sample of buf[0]
        self.n = 0                       # samples received in this utterance
        self.since_update = 0            # samples received since the last decode
        self.decoded = False


class LocalAgreementRecognizer(UtteranceStream):
    """Streaming by re-decoding over a :class:`BufferDecoder` (``input_rate`` Hz; decodes wait while ``backlog_s()``
    > 0); interface: ``UtteranceStream``, ``stop`` commits the newest hypothesis. Not thread-safe."""

    def __init__(self, decoder: BufferDecoder, config: AgreementConfig | None = None, *,
                 input_rate: int | None = None, backlog_s: Callable[[], float] | None = None) -> None:
        self.decoder = self.recognizer = decoder
        self.config = c = (config or AgreementConfig()).check()
        self.sample_rate = sr = int(decoder.sample_rate)
        super().__init__(sr, sr // 50, c, input_rate)
        self.backlog_s = backlog_s
        self._update_n = int(round(c.update_s * sr))
        self.committed: list[Word] = []          # every committed word of the session
        self.update_audio_s: list[float] = []
        self.buffer_s: list[float] = []

    def describe(self) -> str:
        """One line for the CLI / GUI: the policy and its settings."""
        c, d = self.config, self.decoder
        parts = [f"LocalAgreement-{c.agreement} re-decoding every {c.update_s:g} s",
                 f"buffer cut at sentence ends past {c.trim_s:g} s, at most {c.max_buffer_s:g} s"]
        if getattr(d, "beam_size", None):
            parts.append(f"beam {d.beam_size}")
        parts.append(f"language {getattr(d, 'language', None) or 'auto'}")
        return "; ".join(parts)

    @property
    def separator(self) -> str:
        return self.decoder.separator         # "" once the language is found to be one without spaces

    def _pushed(self) -> list[StreamUpdate]:
        u = self._utt
        if (u is not None and u.since_update >= self._update_n
                and not (self.backlog_s is not None and self.backlog_s() > 0.0)):    # not behind the source
            hyp, dt = self._hypothesis(u)
            new = u.la.insert(hyp)
            self.committed.extend(new)
            return [self._update("partial", u, new + self._trim(u), dt)]
        return []

    def _begin(self, index: int, start: int) -> _Utterance:
        return _Utterance(index, start, self.config.agreement, self.sample_rate)

    def _words(self) -> list[Word]:
        return self._utt.la.committed

    def _take(self, x: np.ndarray) -> list[StreamUpdate]:
        u = self._utt
        if x.size:
            u.buf = np.concatenate([u.buf, x]) if u.buf.size else x.copy()
            u.n += x.shape[0]
            u.since_update += x.shape[0]
        return []

    def _prompt(self, u: _Utterance) -> str:
        """The last ``prompt_chars`` characters of committed words ending before the buffer."""
        limit = self.config.prompt_chars
        t = u.buf_start / self.sample_rate + 1e-6
        out: list[str] = []
        size = 0
        for w in reversed(self.committed):
            if w.end_s > t:
                continue
            if size >= limit:
                break
            out.append(w.text)
            size += len(w.text) + 1
        return self.separator.join(reversed(out))

    def _hypothesis(self, u: _Utterance) -> tuple[list[Word], float]:
        t0 = time.perf_counter()
        words = self.decoder(u.buf, self._prompt(u), u.buf_start / self.sample_rate)
        dt = time.perf_counter() - t0
        self.chunk_times.append(dt)
        self.update_audio_s.append(u.since_update / self.sample_rate)
        self.buffer_s.append(u.buf.shape[0] / self.sample_rate)
        u.since_update = 0
        u.decoded = True
        return words, dt

    def _trim(self, u: _Utterance) -> list[Word]:
        """Cut the buffer (module docstring); returns words committed without agreement."""
        c, sr = self.config, self.sample_rate
        start_s = u.buf_start / sr
        length_s = u.buf.shape[0] / sr
        forced: list[Word] = []
        cut = None
        if length_s > c.trim_s:
            t = u.la.last_sentence_end()
            if t is not None and t > start_s:
                cut = t
        if cut is None and length_s > c.max_buffer_s:
            t = u.la.committed_in_buffer[-1].end_s if u.la.committed_in_buffer else None
            if t is None or t <= start_s:
                half = start_s + c.max_buffer_s / 2
                forced = u.la.force(half)
                self.committed.extend(forced)
                t = forced[-1].end_s if forced else half
                log.debug("buffer over %.1f s with nothing agreed: %d words committed, cut at %.2f s",
                          c.max_buffer_s, len(forced), t)
            cut = t
        if cut is not None:
            k = min(max(0, int(round(cut * sr)) - u.buf_start), u.buf.shape[0])
            u.buf = u.buf[k:].copy()
            u.buf_start += k
            u.la.pop_committed(u.buf_start / sr)
        return forced

    def _finish(self) -> StreamUpdate:
        """End of the utterance (endpoint or Stop): last decode if needed, commit everything."""
        u = self._utt
        new: list[Word] = []
        dt = 0.0
        if u.since_update > 0 or not u.decoded:
            hyp, dt = self._hypothesis(u)
            new = u.la.insert(hyp)
        new = new + u.la.flush()
        self.committed.extend(new)
        return self._update("final", u, new, dt)

    def _update(self, kind: str, u: _Utterance, new: list[Word], dt: float) -> StreamUpdate:
        sr = self.sample_rate
        audio_s = round((u.start + u.n) / sr, 3)
        tail = u.la.tail if kind == "partial" else []
        if tail:
            stable_s = u.la.committed[-1].end_s if u.la.committed else u.start / sr
        else:
            stable_s = audio_s
        join = self.separator.join
        return StreamUpdate(kind, u.index, tuple(new), join(w.text for w in u.la.committed),
                            join(w.text for w in tail), audio_s, round(min(stable_s, audio_s), 3), dt)


