"""Speaker embeddings of a recording while it streams: 1 s windows of speech every ``HOP_S``.

:class:`SpeakerTrack` takes the 16 kHz blocks the recogniser reads, keeps at most one ``CHUNK_S``
chunk of audio, 4 bytes per 32 ms VAD frame and 1 KiB per window (1 h of speech: 14 MB). A window
whose Silero VAD frames are at least ``MIN_SPEECH`` speech is embedded with GE2E, its mel scaled as
if the window were at -30 dBFS (Resemblyzer's normalisation, per window). The speech timeline is
silero's state machine (0.5 / 0.35) widened by ``PAD_MS``. Window, hop and padding:
``docs/diarization.md``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from speechstudio.audio.vad import FRAME, SileroVad, speech_spans
from speechstudio.audio import speaker_encoder as vp


CHUNK_S = 30.0      #: audio processed at once (s)
WINDOW_S = 1.0      #: window length (s)
HOP_S = 0.25        #: window hop (s)
MIN_SPEECH = 0.5    #: share of a window's VAD frames that must be speech
PAD_MS = 200        #: speech spans widened by this much on each side


@dataclass(frozen=True)
class Windows:
    """Embedded windows: ``times`` float64 (n, 2) start/end seconds, ``embeddings`` float32 (n, 256)
    unit norm; ``duration_s``: the audio's length; ``speech``: float64 (m, 2) VAD speech spans (s)."""

    times: np.ndarray
    embeddings: np.ndarray
    duration_s: float
    speech: np.ndarray

    def __len__(self) -> int:
        return int(self.times.shape[0])


class SpeakerTrack:
    """Feed mono float32 16 kHz blocks with :meth:`push`, then :meth:`finish` -> :class:`Windows`."""

    def __init__(self, vad=None) -> None:
        self.hop = int(round(HOP_S / vp.FRAME_S))                  # mel frames
        self.length = int(round(WINDOW_S / vp.FRAME_S))
        self.vad = vad if vad is not None else SileroVad(threads=1)
        self._buf = np.zeros(0, np.float32)
        self._start = 0            # absolute sample of _buf[0] (a multiple of FRAME)
        self._total = 0
        self._times: list[tuple[float, float]] = []
        self._embs: list[np.ndarray] = []
        self._probs: list[np.ndarray] = []
        self._vad_until = 0        # absolute sample up to which VAD probabilities are kept

    def push(self, block: np.ndarray) -> None:
        b = np.asarray(block, np.float32).reshape(-1)
        self._total += b.size
        self._buf = np.concatenate([self._buf, b]) if self._buf.size else b.copy()
        if self._buf.size >= int((CHUNK_S + WINDOW_S) * vp.RATE):
            self._process(final=False)

    def finish(self) -> Windows:
        self._process(final=True)
        times = np.asarray(self._times, np.float64).reshape(-1, 2)
        embs = np.stack(self._embs) if self._embs else np.zeros((0, vp.EMBEDDING_SIZE), np.float32)
        probs = np.concatenate(self._probs) if self._probs else np.zeros(0, np.float32)
        spans = speech_spans(probs, self._total, PAD_MS) if probs.size else ()
        speech = np.asarray(spans, np.float64).reshape(-1, 2) / vp.RATE
        return Windows(times, embs, self._total / vp.RATE, speech)

    # ------------------------------------------------------------------ internals
    def _process(self, final: bool) -> None:
        audio = self._buf
        hop_samples = int(vp.FRAME_S * vp.RATE)                       # 160
        win = self.length * hop_samples                               # 16000 samples
        if audio.size < FRAME:
            return
        probs = self.vad.probs(audio)                                 # per 512 samples
        first = (self._vad_until - self._start) // FRAME
        self._probs.append(probs[first:] if final else probs[first: audio.size // FRAME])
        self._vad_until = self._start + (audio.size if final else (audio.size // FRAME) * FRAME)
        speech = probs >= 0.5
        mel = vp.mel_frames(np.pad(audio, (0, max(0, win - audio.size))))   # (frames, 40), frame i at i*160
        starts = list(range(0, max(1, mel.shape[0] - self.length + 1), self.hop))
        if not final:   # keep the tail for the next chunk: windows must end inside this buffer
            starts = [f for f in starts if f * hop_samples + win <= audio.size]
        picked, mels = [], []
        for f in starts:
            s0, s1 = f * hop_samples, min(f * hop_samples + win, audio.size)
            if s1 - s0 < win // 2:
                continue
            v = speech[s0 // FRAME: max(s0 // FRAME + 1, s1 // FRAME)]
            if not v.size or v.mean() < MIN_SPEECH:
                continue
            rms = float(np.sqrt(np.mean(audio[s0:s1].astype(np.float64) ** 2)))
            if rms < 1e-5:
                continue
            gain_power = (10 ** (vp.TARGET_DBFS / 20) / rms) ** 2      # mel is power: scales with gain^2
            picked.append(((self._start + s0) / vp.RATE, (self._start + s1) / vp.RATE))
            mels.append(mel[f:f + self.length] * gain_power)
        if mels:
            self._times += picked
            self._embs += list(vp.embed_mels(np.stack(mels).astype(np.float32)))
        if final:
            self._buf = np.zeros(0, np.float32)
            self._start += audio.size
            return
        nxt = (starts[-1] + self.hop) * hop_samples if starts else 0
        nxt = min(nxt - nxt % FRAME, audio.size)                       # chunks start on a VAD frame
        self._buf = audio[nxt:].copy()
        self._start += nxt
