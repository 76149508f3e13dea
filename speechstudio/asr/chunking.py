"""Cut audio blocks into fixed-length CTC windows with left/right stride (transformers' ASR pipeline
``chunk_iter``), with every window but an end-aligned tail exactly ``chunk`` samples so batching never
changes results. Positions: samples at the model rate, multiples of ``frame_len``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np


@dataclass(frozen=True)
class Window:
    """One model input: ``start`` (global sample), ``audio`` float32 ``(n_samples,)``, ``keep_from`` /
    ``keep_to`` (global frames kept; None: to the end), ``final``."""

    start: int
    audio: np.ndarray
    keep_from: int
    keep_to: int | None
    final: bool

    @property
    def n_samples(self) -> int:
        return int(self.audio.shape[0])


def align(n: int, frame_len: int) -> int:
    """Round ``n`` samples down to a multiple of ``frame_len`` (at least one frame)."""
    return max(frame_len, (int(n) // frame_len) * frame_len)


class WindowPlanner:
    """Streaming planner: :meth:`push` blocks, get :class:`Window` s. ``chunk``, ``stride_left``,
    ``stride_right`` in samples (rounded down to ``frame_len``), strides < ``chunk``."""

    def __init__(self, chunk: int, stride_left: int, stride_right: int, frame_len: int = 320) -> None:
        self.frame_len = int(frame_len)
        self.chunk = align(chunk, self.frame_len)
        self.left = (int(stride_left) // self.frame_len) * self.frame_len
        self.right = (int(stride_right) // self.frame_len) * self.frame_len
        if self.left + self.right >= self.chunk:
            raise ValueError(f"stride {self.left}+{self.right} samples must be shorter than the chunk ({self.chunk})")
        self.step = self.chunk - self.left - self.right
        self._buf = np.zeros(0, np.float32)
        self._buf_start = 0           # global sample index of self._buf[0]
        self._next_start = 0          # start of the next regular window
        self._kept_to = 0             # global frame up to which logits were assigned
        self._n_windows = 0
        self._total = 0

    def _window(self, start: int, length: int, final: bool) -> Window:
        a = start - self._buf_start
        audio = self._buf[a:a + length]
        keep_from = self._kept_to
        keep_to = None if final else (start + self.chunk - self.right) // self.frame_len
        self._n_windows += 1
        if keep_to is not None:
            self._kept_to = keep_to
        return Window(start, audio.copy(), keep_from, keep_to, final)

    def push(self, block: np.ndarray) -> Iterator[Window]:
        """Add float32 ``(n,)`` samples; yield the windows now known not to be final."""
        block = np.asarray(block, dtype=np.float32).reshape(-1)
        if block.size:
            self._buf = np.concatenate([self._buf, block]) if self._buf.size else block.copy()
            self._total += block.size
        while self._total > self._next_start + self.chunk:
            start = self._next_start
            yield self._window(start, self.chunk, final=False)
            self._next_start = start + self.step
            # Keep audio from the window just emitted: an end-aligned tail may start inside it.
            drop = start - self._buf_start
            if drop > 0:
                self._buf = self._buf[drop:]
                self._buf_start = start

    def finish(self) -> Iterator[Window]:
        """End of stream: yield the final window (full-length, tail, or the whole short clip)."""
        total = self._total
        if total == 0:
            return
        if self._n_windows == 0:
            yield self._window(0, total, final=True)
        elif total >= self._next_start + self.chunk:     # exactly one more full window
            yield self._window(self._next_start, self.chunk, final=True)
        elif total > self._kept_to * self.frame_len:
            start = max(self._buf_start, ((total - self.chunk) // self.frame_len) * self.frame_len)
            yield self._window(start, total - start, final=True)

