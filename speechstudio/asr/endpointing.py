"""Energy endpointing for live dictation (both streaming recognisers): where utterances start and end in
a stream of samples.

Frames of ``frame_len`` samples (20 ms at 16 kHz); RMS below ``threshold_db`` dBFS is silence.
``min_speech_s`` of loud frames start an utterance ``preroll_s`` earlier; ``endpoint_s`` of silence end
it (silence included). ``endpoint_s`` None or 0: one utterance from sample 0. Model-free."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np


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


__all__ = ["EndpointEvent", "EnergyEndpointer"]
