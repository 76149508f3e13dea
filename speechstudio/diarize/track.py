"""Local speakers and their voice prints while a recording streams (:class:`SpeakerTrack`): 10 s chunks every
``STEP_S`` through the segmentation network (:mod:`.segmentation`), a CAM++ print (:mod:`.embedding`) per local
speaker with ``MIN_SPEECH_S`` of speech, on a thread of the track's own at a lower CPU priority than the recogniser.
The recipe (pyannote speaker-diarization-3.1 with CAM++, a 2 s step) and its costs: ``docs/diarization.md``."""
from __future__ import annotations

import atexit
import queue
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from speechstudio.diarize import embedding
from speechstudio.diarize.segmentation import CHUNK_S, FRAME_DURATION_S, FRAME_STEP_S, FRAMES, LOCAL_SPEAKERS, RATE, activity
from speechstudio.runtime import lower_thread_priority, trim_heap


STEP_S = 2.0          #: chunk hop (s); pyannote 3.1: 1 s (the real table: DER 0.282 -> 0.298, cost +31 -> +22 %)
MIN_SPEECH_S = 0.5    #: speech (s) of a local speaker below which it gets no embedding
BATCH = 4             #: chunks per network call (16: the same speed, 170 MB more at the peak)
TRIM_EVERY = 16       #: chunks between two trims of the C heap (runtime.trim_heap; 10 min: 18 trims, 0.14 s)
QUEUED_BLOCKS = 40    #: blocks waiting for the track's thread before push() waits (docs/diarization.md)


#: Set at exit: the tracks' threads end between two blocks (:func:`_stop_at_exit`).
_STOP = threading.Event()
_THREADS: "weakref.WeakSet[threading.Thread]" = weakref.WeakSet()


@atexit.register
def _stop_at_exit(timeout_s: float = 10.0) -> None:
    """End the tracks' threads before the interpreter shuts down: a daemon thread still inside ONNX Runtime
    then aborts the process (``terminate called without an active exception``, exit 134 after Ctrl+C)."""
    _STOP.set()
    for thread in list(_THREADS):
        thread.join(timeout_s)


@dataclass(frozen=True)
class Chunks:
    """What the track saw. ``starts`` float64 (c,) chunk starts (s); ``activity`` bool (c, 589, 3)
    local speakers per frame; ``embeddings`` float32 (c, 3, 192) unit norm, NaN for a local speaker
    without one; ``solo_s`` float32 (c, 3) seconds each local speaker talks alone; ``duration_s``."""

    starts: np.ndarray
    activity: np.ndarray
    embeddings: np.ndarray
    solo_s: np.ndarray
    duration_s: float


class SpeakerTrack:
    """Feed mono float32 16 kHz blocks with :meth:`push`, then :meth:`finish` -> :class:`Chunks`. The
    chunks are worked on by a thread of the track's own, beside the recogniser; :meth:`finish` waits
    for it and raises what it raised. An abandoned track's thread ends once the track is collected."""

    def __init__(self) -> None:
        self.win, self.hop = int(CHUNK_S * RATE), int(STEP_S * RATE)
        self._buf = np.zeros(0, np.float32)
        self._total = 0
        self._done = 0           # chunks processed
        self._act: list[np.ndarray] = []
        self._embs: list[np.ndarray] = []
        self._solo: list[np.ndarray] = []
        self._queue: queue.Queue = queue.Queue(maxsize=QUEUED_BLOCKS)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=_work, args=(weakref.ref(self), self._queue), name="speaker-track",
                                        daemon=True)
        _THREADS.add(self._thread)
        self._thread.start()

    def push(self, block: np.ndarray) -> None:
        """Queue float32 16 kHz ``block`` (samples in [-1, 1]) as 16-bit PCM: half the memory while it
        waits, and lossless for the 16-bit recordings most users bring."""
        pcm = np.clip(np.rint(np.asarray(block, np.float32).reshape(-1) * 32768), -32768, 32767)
        self._put(pcm.astype(np.int16))

    def finish(self) -> Chunks:
        self._put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result

    def _put(self, item) -> None:
        while True:
            if self._error is not None:
                raise self._error
            try:
                return self._queue.put(item, timeout=1.0)
            except queue.Full:
                continue

    def _feed(self, b: np.ndarray) -> None:
        self._total += b.size
        self._buf = np.concatenate([self._buf, b]) if self._buf.size else b
        while self._buf.size >= self.win + (BATCH - 1) * self.hop and not _STOP.is_set():   # at exit: one call more
            self._process(BATCH)

    def _chunks(self) -> Chunks:
        n = max(1, int(np.ceil(max(0, self._total - self.win) / self.hop)) + 1)
        if self._total:
            while self._done < n and not _STOP.is_set():
                self._process(min(BATCH, n - self._done))
        c = len(self._act) and sum(len(a) for a in self._act)
        empty = (0, FRAMES, LOCAL_SPEAKERS)
        return Chunks(np.arange(c) * STEP_S,
                      np.concatenate(self._act) if c else np.zeros(empty, bool),
                      np.concatenate(self._embs) if c else np.zeros((0, LOCAL_SPEAKERS, embedding.SIZE), np.float32),
                      np.concatenate(self._solo) if c else np.zeros((0, LOCAL_SPEAKERS), np.float32),
                      self._total / RATE)

    def _process(self, count: int) -> None:  # on the track's thread
        """The next ``count`` chunks (zero-padded past the end of the audio, as pyannote's Inference)."""
        need = self.win + (count - 1) * self.hop
        audio = self._buf[:need]
        if audio.size < need:
            audio = np.pad(audio, (0, need - audio.size))
        chunks = np.stack([audio[j * self.hop: j * self.hop + self.win] for j in range(count)])
        act = activity(chunks)                                            # (b, 589, 3)
        alone = act & (act.sum(-1, keepdims=True) == 1)
        solo_s = alone.sum(1) * FRAME_STEP_S                              # (b, 3)
        bank = embedding.fbank(audio)                                     # frame i covers 10 ms i .. i + 25 ms
        per_hop, per_win = int(STEP_S / embedding.FRAME_S), int((self.win - 400) // 160 + 1)
        # the segmentation frame each filter-bank frame of a chunk falls in (frame centres)
        seg = np.clip(np.rint((np.arange(per_win) * embedding.FRAME_S + 0.0125 - FRAME_DURATION_S / 2)
                              / FRAME_STEP_S), 0, FRAMES - 1).astype(int)
        embs = np.full((count, LOCAL_SPEAKERS, embedding.SIZE), np.nan, np.float32)
        for j in range(count):
            frames = bank[j * per_hop: j * per_hop + per_win]
            for k in range(LOCAL_SPEAKERS):
                mask = (alone if solo_s[j, k] >= MIN_SPEECH_S else act)[j, seg[:len(frames)], k]
                if mask.sum() * embedding.FRAME_S >= MIN_SPEECH_S:
                    embs[j, k] = embedding.embed(frames[mask])
        self._act.append(act)
        self._embs.append(embs)
        self._solo.append(solo_s.astype(np.float32))
        self._done += count
        self._buf = self._buf[count * self.hop:]
        if self._done % TRIM_EVERY < count:
            trim_heap()


def _work(ref: weakref.ref, blocks: queue.Queue) -> None:
    """The track's thread: feed it the queued blocks until ``None`` (then the chunks are built by
    :meth:`SpeakerTrack._chunks`, still here); only a weak reference between blocks."""
    lower_thread_priority()
    while not _STOP.is_set():
        try:
            block = blocks.get(timeout=1.0)
        except queue.Empty:
            if ref() is None:
                return
            continue
        track = ref()
        if track is None or _STOP.is_set():
            return
        try:
            if block is None:
                track._result = track._chunks()
                return
            track._feed(block.astype(np.float32) / 32768)
        except BaseException as exc:   # handed to finish()/push() on the caller's thread
            track._error = exc
            return
        finally:
            del track
