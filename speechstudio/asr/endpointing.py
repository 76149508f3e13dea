"""Energy endpointing for live dictation and :class:`UtteranceStream`, the base of both streaming
recognisers. RMS under ``threshold_db`` dBFS is silence; ``min_speech_s`` starts an utterance
``preroll_s`` early, ``endpoint_s`` of silence ends it (None / 0: one utterance)."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from speechstudio.asr.stream_geometry import BlockResampler
from speechstudio.asr.types import Segment


@dataclass(frozen=True)
class EndpointEvent:
    """What :meth:`EnergyEndpointer.feed` found: ``kind`` ``"start"`` (at global sample ``start``;
    ``audio`` = pre-roll and onset), ``"audio"`` or ``"end"`` (empty ``audio``); ``audio`` float32 (n,)."""

    kind: str
    audio: np.ndarray
    start: int = 0


_EMPTY = np.zeros(0, np.float32)


class EnergyEndpointer:
    """Cut mono float32 samples at ``sample_rate`` Hz into utterances; ``frame_len`` samples per
    decision, other arguments as ``StreamConfig``. Not thread-safe."""

    def __init__(self, sample_rate: int, frame_len: int, *, endpoint_s: float | None, min_speech_s: float,
                 preroll_s: float, threshold_db: float) -> None:
        self.frame_len = int(frame_len)
        self.enabled = bool(endpoint_s)
        self._endpoint_frames = max(1, int(round((endpoint_s or 0) * sample_rate / frame_len)))
        self._min_speech_frames = max(1, int(round(min_speech_s * sample_rate / frame_len)))
        preroll = int(round(preroll_s * sample_rate / frame_len))
        self._ring: deque[np.ndarray] = deque(maxlen=preroll + self._min_speech_frames)
        self._threshold = 10.0 ** (threshold_db / 20.0)  # RMS amplitude
        self._pending = _EMPTY
        self._frame_index = 0      # next global frame
        self._speech_run = 0
        self._silence_run = 0
        self.in_utterance = False

    def feed(self, x: np.ndarray) -> list[EndpointEvent]:
        """Samples ``np.ndarray[float32]`` shape (n,) -> events. With endpointing on, a partial
        last frame waits for the next call (or :meth:`flush`)."""
        if not self.enabled:
            if not self.in_utterance:
                self.in_utterance = True
                return [EndpointEvent("start", x, 0)]
            return [EndpointEvent("audio", x)] if x.size else []
        fl = self.frame_len
        buf = np.concatenate([self._pending, x]) if self._pending.size else x
        nf = buf.shape[0] // fl
        events: list[EndpointEvent] = []
        run_from = 0  # first frame (in buf) not yet given to the open utterance
        for i in range(nf):
            frame = buf[i * fl:(i + 1) * fl]
            g = self._frame_index
            self._frame_index += 1
            loud = float(np.sqrt(np.mean(frame.astype(np.float64) ** 2))) >= self._threshold
            if not self.in_utterance:
                self._ring.append(frame)
                self._speech_run = self._speech_run + 1 if loud else 0
                if self._speech_run >= self._min_speech_frames:
                    frames = list(self._ring)
                    self._ring.clear()
                    self.in_utterance = True
                    self._silence_run = 0
                    events.append(EndpointEvent("start", np.concatenate(frames), (g - len(frames) + 1) * fl))
                    run_from = i + 1
            else:
                self._silence_run = 0 if loud else self._silence_run + 1
                if self._silence_run >= self._endpoint_frames:
                    events.append(EndpointEvent("audio", buf[run_from * fl:(i + 1) * fl]))
                    events.append(EndpointEvent("end", _EMPTY))
                    self.in_utterance = False
                    self._speech_run = 0
                    run_from = i + 1
        if self.in_utterance and nf > run_from:
            events.append(EndpointEvent("audio", buf[run_from * fl:nf * fl]))
        self._pending = buf[nf * fl:].copy()
        return events

    def flush(self) -> list[EndpointEvent]:
        """End of stream: the samples of a partial last frame, when an utterance is open (the
        caller then finishes it)."""
        out = []
        if self.enabled and self.in_utterance and self._pending.size:
            out.append(EndpointEvent("audio", self._pending))
        self._pending = _EMPTY
        return out


class UtteranceStream:
    """Device blocks -> model-rate mono -> :class:`EnergyEndpointer` -> one utterance at a time. Subclasses
    define ``_begin(index, start)``, ``_take(x)``, ``_finish()`` (the ``final`` update) and ``_words()``; each
    finished utterance with words is kept in ``segments``. Not thread-safe."""

    separator = " "

    def __init__(self, sample_rate: int, frame_len: int, config, input_rate: int | None = None) -> None:
        self.input_rate = int(input_rate or sample_rate)
        self._resampler = BlockResampler(self.input_rate, sample_rate)
        self._endpointer = EnergyEndpointer(sample_rate, frame_len, endpoint_s=config.endpoint_s,
                                            min_speech_s=config.min_speech_s, preroll_s=config.preroll_s,
                                            threshold_db=config.threshold_db)
        self._utt = None
        self._n_utt = 0
        self.received = 0          # samples at the model rate received so far
        self.segments: list = []   # finished utterances with words (asr.types.Segment)
        self.chunk_times: list[float] = []  # seconds of compute per model call
        self.stopped = False

    def push(self, block: np.ndarray) -> list:
        """Feed one block (``(n,)`` or ``(n, channels)`` at ``input_rate``, float in [-1, 1] or integer
        PCM); returns the ``StreamUpdate`` s it caused. Raises ``RuntimeError`` after :meth:`stop`."""
        if self.stopped:
            raise RuntimeError(f"push() after stop(); make a new {type(self).__name__}")
        return self._feed(self._resampler(block)) + self._pushed()

    def stop(self) -> list:
        """End of stream: flush the resampler and the endpointer, finish the current utterance
        (``final`` update) and return the remaining updates."""
        if self.stopped:
            return []
        updates = self._feed(self._resampler(np.zeros(0, np.float32), last=True))
        self.stopped = True
        updates += self._apply(self._endpointer.flush())
        if self._utt is not None:
            updates.append(self._end())
        return updates

    def run(self, blocks: Iterable[np.ndarray]) -> Iterator:
        for block in blocks:
            yield from self.push(block)
        yield from self.stop()

    @property
    def text(self) -> str:
        """Transcript so far: finished utterances plus the current utterance's stable words."""
        parts = [s.text for s in self.segments]
        words = self._words() if self._utt is not None else []
        if words:
            parts.append(self.separator.join(w.text for w in words))
        return self.separator.join(p for p in parts if p)

    @property
    def in_utterance(self) -> bool:
        """True while speech is being recognised (between onset and endpoint)."""
        return self._utt is not None

    def _feed(self, x: np.ndarray) -> list:
        self.received += x.shape[0]
        return self._apply(self._endpointer.feed(x))

    def _apply(self, events) -> list:
        """Run the endpointer's events (utterance start / audio / end) through the utterances."""
        updates: list = []
        for ev in events:
            if ev.kind == "start":
                self._utt = self._begin(self._n_utt, ev.start)
                self._n_utt += 1
                if ev.audio.size:
                    updates += self._take(ev.audio)
            elif ev.kind == "audio":
                updates += self._take(ev.audio)
            else:
                updates.append(self._end())
        return updates

    def _end(self):
        update, words = self._finish(), tuple(self._words())
        if words:
            self.segments.append(Segment(words[0].start_s, words[-1].end_s, self.separator.join(w.text for w in words),
                                         words))
        self._utt = None
        return update

    def _pushed(self) -> list:
        """Updates to add after a pushed block's audio was taken (none by default)."""
        return []


