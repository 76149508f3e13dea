"""Local speakers and their voice prints while a recording streams: 10 s chunks every ``STEP_S``.

Each chunk goes through the segmentation network (:mod:`.segmentation`: up to 3 local speakers, frame
by frame); each local speaker with at least ``MIN_SPEECH_S`` of speech gets a GE2E embedding of the
mel frames where it speaks alone (all its frames when it is alone for less than that), its mel scaled
as if the chunk were at -30 dBFS (Resemblyzer's normalisation). This is pyannote speaker-diarization-3.1's
recipe (pyannote.audio ``pipelines/speaker_diarization.py``: 10 s chunks, a step of 10 %, one embedding
per chunk and local speaker) with Resemblyzer's encoder in place of WeSpeaker's.

:class:`SpeakerTrack` takes the 16 kHz blocks the recogniser reads and keeps at most ``CHUNK_S`` +
``BATCH`` x ``STEP_S`` of audio; per chunk 1.8 KB of activity and 3 KB of embeddings (1 h: 17 MB).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from speechstudio.audio import speaker_encoder as vp
from speechstudio.diarize.segmentation import CHUNK_S, FRAME_DURATION_S, FRAME_STEP_S, FRAMES, LOCAL_SPEAKERS, RATE, activity


STEP_S = 1.0          #: chunk hop (s); pyannote 3.1: 10 % of the chunk
MIN_SPEECH_S = 0.5    #: speech (s) of a local speaker below which it gets no embedding
BATCH = 16            #: chunks per network call (4: the same peak memory, 10 % slower)
LEVEL_DBFS = -30.0    #: each chunk's level for its voice prints (Resemblyzer's audio_norm_target_dBFS)


@dataclass(frozen=True)
class Chunks:
    """What the track saw. ``starts`` float64 (c,) chunk starts (s); ``activity`` bool (c, 589, 3)
    local speakers per frame; ``embeddings`` float32 (c, 3, 256) unit norm, NaN for a local speaker
    without one; ``solo_s`` float32 (c, 3) seconds each local speaker talks alone; ``duration_s``."""

    starts: np.ndarray
    activity: np.ndarray
    embeddings: np.ndarray
    solo_s: np.ndarray
    duration_s: float


def _partials(mel: np.ndarray) -> list[np.ndarray]:
    """``mel`` (n, 40) cut into GE2E partials of ``vp.PARTIAL`` frames; a last piece under half a partial
    joins only when it is alone."""
    pieces = [mel[i:i + vp.PARTIAL] for i in range(0, len(mel), vp.PARTIAL)]
    if len(pieces) > 1 and len(pieces[-1]) < vp.PARTIAL // 2:
        pieces = pieces[:-1]
    return pieces


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
                self._process(min(BATCH, n - self._done))
        c = len(self._act) and sum(len(a) for a in self._act)
        empty = (0, FRAMES, LOCAL_SPEAKERS)
        return Chunks(np.arange(c) * STEP_S,
                      np.concatenate(self._act) if c else np.zeros(empty, bool),
                      np.concatenate(self._embs) if c else np.zeros((0, LOCAL_SPEAKERS, vp.EMBEDDING_SIZE), np.float32),
                      np.concatenate(self._solo) if c else np.zeros((0, LOCAL_SPEAKERS), np.float32),
                      self._total / RATE)

    def _process(self, count: int) -> None:
        """The next ``count`` chunks (zero-padded past the end of the audio, as pyannote's Inference)."""
        need = self.win + (count - 1) * self.hop
        audio = self._buf[:need]
        if audio.size < need:
            audio = np.pad(audio, (0, need - audio.size))
        chunks = np.stack([audio[j * self.hop: j * self.hop + self.win] for j in range(count)])
        act = activity(chunks)                                            # (b, 589, 3)
        alone = act & (act.sum(-1, keepdims=True) == 1)
        solo_s = alone.sum(1) * FRAME_STEP_S                              # (b, 3)
        mel = vp.mel_frames(audio)                                        # (frames, 40), frame i at i * 10 ms
        # mel_frames raised the whole batch to -30 dBFS when it was quieter (Resemblyzer's
        # normalize_volume, increase_only): undo that, then scale each chunk to LEVEL_DBFS on its own
        rms = float(np.sqrt(np.mean(audio.astype(np.float64) ** 2)))
        raised = 10 ** (max(0.0, vp.TARGET_DBFS - 20 * np.log10(rms)) / 10) if rms > 0 else 1.0
        per_hop, per_win = int(STEP_S / vp.FRAME_S), int(CHUNK_S / vp.FRAME_S)
        # the segmentation frame each mel frame of a chunk falls in
        seg = np.clip(np.rint((np.arange(per_win) * vp.FRAME_S - FRAME_DURATION_S / 2) / FRAME_STEP_S), 0,
                      FRAMES - 1).astype(int)
        pieces = []
        for j in range(count):
            piece = chunks[j].astype(np.float64)
            rms = float(np.sqrt(np.mean(piece ** 2)))
            gain = (10 ** (LEVEL_DBFS / 20) / rms) ** 2 / raised if rms > 1e-5 else 1.0   # mel is power: gain^2
            m = mel[j * per_hop: j * per_hop + per_win] * gain
            for k in range(LOCAL_SPEAKERS):
                frames = (alone if solo_s[j, k] >= MIN_SPEECH_S else act)[j, seg[:len(m)], k]
                if frames.sum() * vp.FRAME_S >= MIN_SPEECH_S:
                    pieces += [(j, k, p) for p in _partials(m[frames])]
        embs = np.zeros((count, LOCAL_SPEAKERS, vp.EMBEDDING_SIZE), np.float32)
        by_len: dict[int, list] = {}
        for j, k, p in pieces:                        # equal lengths embed in one batch
            by_len.setdefault(len(p), []).append((j, k, p))
        for group in by_len.values():
            for (j, k, _), e in zip(group, vp.embed_mels(np.stack([p for _, _, p in group]).astype(np.float32))):
                embs[j, k] += e
        norm = np.linalg.norm(embs, axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            embs = np.where(norm > 0, embs / norm, np.nan).astype(np.float32)
        self._act.append(act)
        self._embs.append(embs)
        self._solo.append(solo_s.astype(np.float32))
        self._done += count
        self._buf = self._buf[count * self.hop:]
