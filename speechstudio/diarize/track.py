"""Local speakers and their voice prints while a recording streams: 10 s chunks every ``STEP_S``.

Each chunk goes through the segmentation network (:mod:`.segmentation`: up to 3 local speakers, frame
by frame); in every ``EMBED_EVERY``-th chunk each local speaker with at least ``MIN_SPEECH_S`` of speech
gets a CAM++ embedding (:mod:`.embedding`) of the filter-bank frames where it speaks alone (all its
frames when it is alone for less than that). This is pyannote speaker-diarization-3.1's recipe
(pyannote.audio ``pipelines/speaker_diarization.py``: 10 s chunks, a step of 10 %, one embedding per
chunk and local speaker) with CAM++ in place of WeSpeaker's ResNet and half the embeddings: the chunks
between follow their neighbours (:func:`.cluster.cluster_chunks`).

:class:`SpeakerTrack` takes the 16 kHz blocks the recogniser reads and keeps at most ``CHUNK_S`` +
``BATCH`` x ``STEP_S`` of audio; per chunk 1.8 KB of activity and 2.3 KB of embeddings (1 h: 15 MB).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from speechstudio.diarize import embedding
from speechstudio.diarize.segmentation import CHUNK_S, FRAME_DURATION_S, FRAME_STEP_S, FRAMES, LOCAL_SPEAKERS, RATE, activity


STEP_S = 1.0          #: chunk hop (s); pyannote 3.1: 10 % of the chunk
MIN_SPEECH_S = 0.5    #: speech (s) of a local speaker below which it gets no embedding
BATCH = 16            #: chunks per network call (4: the same peak memory, 10 % slower)
EMBED_EVERY = 2       #: chunks with embeddings: every 2nd (every one: DER 0.290 vs 0.282, twice the cost)


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
    """Feed mono float32 16 kHz blocks with :meth:`push`, then :meth:`finish` -> :class:`Chunks`."""

    def __init__(self) -> None:
        self.win, self.hop = int(CHUNK_S * RATE), int(STEP_S * RATE)
        self._buf = np.zeros(0, np.float32)
        self._total = 0
        self._done = 0           # chunks processed
        self._act: list[np.ndarray] = []
        self._embs: list[np.ndarray] = []
        self._solo: list[np.ndarray] = []

    def push(self, block: np.ndarray) -> None:
        b = np.asarray(block, np.float32).reshape(-1)
        self._total += b.size
        self._buf = np.concatenate([self._buf, b]) if self._buf.size else b.copy()
        while self._buf.size >= self.win + (BATCH - 1) * self.hop:
            self._process(BATCH)

    def finish(self) -> Chunks:
        n = max(1, int(np.ceil(max(0, self._total - self.win) / self.hop)) + 1)
        if self._total:
            while self._done < n:
                count = min(BATCH, n - self._done)
                self._process(count, final=self._done + count == n)
        c = len(self._act) and sum(len(a) for a in self._act)
        empty = (0, FRAMES, LOCAL_SPEAKERS)
        return Chunks(np.arange(c) * STEP_S,
                      np.concatenate(self._act) if c else np.zeros(empty, bool),
                      np.concatenate(self._embs) if c else np.zeros((0, LOCAL_SPEAKERS, embedding.SIZE), np.float32),
                      np.concatenate(self._solo) if c else np.zeros((0, LOCAL_SPEAKERS), np.float32),
                      self._total / RATE)

    def _process(self, count: int, final: bool = False) -> None:
        """The next ``count`` chunks (zero-padded past the end of the audio, as pyannote's Inference);
        ``final``: the last of them is the recording's last chunk (a recording of one batch, under 25 s,
        has prints in every chunk: they are few)."""
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
            if (self._done + j) % EMBED_EVERY and not (final and self._done == 0):
                continue
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
