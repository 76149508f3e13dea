"""Speaker embeddings of a recording while it streams: 1.6 s windows of speech, every ``hop_s``.

:class:`SpeakerTrack` takes the same 16 kHz blocks the recogniser reads (``push``), so a file is
decoded once and memory stays bounded: it keeps at most one chunk of audio (``CHUNK_S``) and, per
window, two times and a 256-d embedding (1 KiB; 1 h of speech at the default hop ~5 MB).

Per chunk: Silero VAD speech probabilities (32 ms frames, :class:`~speechstudio.audio.vad.SileroVad`),
Resemblyzer's mel frames, then every ``hop_s`` a 160-frame window whose frames are at least
``min_speech`` speech is embedded (:mod:`.voiceprint`), its mel scaled as if the window's audio
were at -30 dBFS (Resemblyzer's volume normalisation, per window so a quiet and a loud speaker
are compared on their voices, not their levels).

Short turns ("yes", "mm-hm": a stretch of speech between pauses of ``SHORT_MIN_S`` to ``SHORT_MAX_S``)
are shorter than a window, so windows label them with whoever talks around them. Each such stretch
also gets an embedding of its own (its frames, zero-padded to a window as Resemblyzer pads short
utterances); they are not clustered (too noisy) but labelled with the nearest speaker afterwards.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from speechstudio.diarize import voiceprint as vp

__all__ = ["SpeakerTrack", "Windows", "CHUNK_S", "HOP_S", "MIN_SPEECH"]

CHUNK_S = 30.0      #: audio processed at once (s)
SHORT_MIN_S, SHORT_MAX_S = 0.3, 1.6   #: stretches of speech embedded on their own (s)
PAUSE_S = 0.15      #: a pause at least this long ends a stretch
HOP_S = 0.75        #: window hop (s): Wang et al. 2018 used 0.4 s steps of 0.24 s segments; 1.6 s partials here
MIN_SPEECH = 0.5    #: share of a window's VAD frames that must be speech


@dataclass(frozen=True)
class Windows:
    """Embedded windows: ``times`` float64 (n, 2) start/end seconds, ``embeddings`` float32 (n, 256)
    unit norm; ``duration_s``: the audio's length; ``speech``: float64 (m, 2) VAD speech spans (s);
    ``short_times`` (k, 2) / ``short_embeddings`` (k, 256): the short stretches embedded on their own."""

    times: np.ndarray
    embeddings: np.ndarray
    duration_s: float
    speech: np.ndarray
    short_times: np.ndarray = None
    short_embeddings: np.ndarray = None

    def __len__(self) -> int:
        return int(self.times.shape[0])


class SpeakerTrack:
    """Feed mono float32 16 kHz blocks with :meth:`push`, then :meth:`finish` -> :class:`Windows`."""

    def __init__(self, hop_s: float = HOP_S, min_speech: float = MIN_SPEECH, vad=None) -> None:
        from speechstudio.audio.vad import SileroVad

        self.hop = max(1, int(round(hop_s / vp.FRAME_S)))          # frames
        self.min_speech = float(min_speech)
        self.vad = vad if vad is not None else SileroVad(threads=1)
        self._buf = np.zeros(0, np.float32)
        self._start = 0            # absolute sample of _buf[0]
        self._total = 0
        self._times: list[tuple[float, float]] = []
        self._embs: list[np.ndarray] = []
        self._speech: list[tuple[float, float]] = []
        self._speech_until = 0     # absolute sample up to which VAD spans were recorded
        self._short_times: list[tuple[float, float]] = []
        self._short_embs: list[np.ndarray] = []
        self._short_until = 0      # absolute sample: short stretches starting before it are done

    def push(self, block: np.ndarray) -> None:
        b = np.asarray(block, np.float32).reshape(-1)
        self._total += b.size
        self._buf = np.concatenate([self._buf, b]) if self._buf.size else b.copy()
        if self._buf.size >= int((CHUNK_S + vp.WINDOW_S) * vp.RATE):
            self._process(final=False)

    def finish(self) -> Windows:
        self._process(final=True)
        times = np.asarray(self._times, np.float64).reshape(-1, 2)
        embs = np.stack(self._embs) if self._embs else np.zeros((0, vp.EMBEDDING_SIZE), np.float32)
        short = np.stack(self._short_embs) if self._short_embs else np.zeros((0, vp.EMBEDDING_SIZE), np.float32)
        return Windows(times, embs, self._total / vp.RATE, np.asarray(self._speech, np.float64).reshape(-1, 2),
                       np.asarray(self._short_times, np.float64).reshape(-1, 2), short)

    # ------------------------------------------------------------------ internals
    def _process(self, final: bool) -> None:
        from speechstudio.audio.vad import FRAME

        audio = self._buf
        hop_samples = int(vp.FRAME_S * vp.RATE)                       # 160
        win = vp.WINDOW_FRAMES * hop_samples                          # 25600 samples
        if audio.size < (win if not final else int(0.8 * vp.RATE)):
            if final:
                self._record_speech(audio, final)
            return
        probs = self.vad.probs(audio)                                 # per 512 samples
        speech = probs >= 0.5
        self._record_speech(audio, final, probs)
        mel = vp.mel_frames(np.pad(audio, (0, max(0, win - audio.size))))   # (frames, 40), frame i at i*160
        starts = list(range(0, max(1, mel.shape[0] - vp.WINDOW_FRAMES + 1), self.hop))
        if not final:   # keep the tail for the next chunk: windows must end inside this buffer
            starts = [f for f in starts if f * hop_samples + win <= audio.size]
        picked, mels = [], []
        for f in starts:
            s0, s1 = f * hop_samples, min(f * hop_samples + win, audio.size)
            if s1 - s0 < int(0.8 * vp.RATE):
                continue
            v = speech[s0 // FRAME: max(s0 // FRAME + 1, s1 // FRAME)]
            if not v.size or v.mean() < self.min_speech:
                continue
            seg = audio[s0:s1]
            rms = float(np.sqrt(np.mean(seg.astype(np.float64) ** 2)))
            if rms < 1e-5:
                continue
            gain_power = (10 ** (vp.TARGET_DBFS / 20) / rms) ** 2      # mel is power: scales with gain^2
            picked.append((s0, s1))
            mels.append(mel[f:f + vp.WINDOW_FRAMES] * gain_power)
        short = self._short_stretches(speech, audio.size, final)
        for s0, s1 in short:
            f0, f1 = s0 // hop_samples, max(s0 // hop_samples + 1, s1 // hop_samples)
            seg = audio[s0:s1]
            rms = float(np.sqrt(np.mean(seg.astype(np.float64) ** 2)))
            if rms < 1e-5:
                continue
            m = np.zeros((vp.WINDOW_FRAMES, mel.shape[1]), np.float32)
            part = mel[f0:f1][: vp.WINDOW_FRAMES]
            m[: part.shape[0]] = part * (10 ** (vp.TARGET_DBFS / 20) / rms) ** 2
            picked.append((s0, s1, True))
            mels.append(m)
        if mels:
            embs = vp.embed_mels(np.stack(mels).astype(np.float32))
            for p, e in zip(picked, embs):
                span = ((self._start + p[0]) / vp.RATE, (self._start + p[1]) / vp.RATE)
                if len(p) == 3:
                    self._short_times.append(span)
                    self._short_embs.append(e)
                else:
                    self._times.append(span)
                    self._embs.append(e)
        if final:
            self._buf = np.zeros(0, np.float32)
            self._start += audio.size
            return
        nxt = (starts[-1] + self.hop) * hop_samples if starts else 0
        nxt = min(nxt, audio.size)
        self._buf = audio[nxt:].copy()
        self._start += nxt

    def _short_stretches(self, speech: np.ndarray, n: int, final: bool) -> list[tuple[int, int]]:
        """Sample spans (in this buffer) of speech stretches SHORT_MIN_S..SHORT_MAX_S long between
        pauses, not yet done and not cut by the buffer's end (unless ``final``)."""
        from speechstudio.audio.vad import FRAME

        pause = max(1, int(round(PAUSE_S * vp.RATE / FRAME)))
        runs, i = [], 0
        while i < speech.size:
            if not speech[i]:
                i += 1
                continue
            j = i
            while True:
                while j < speech.size and speech[j]:
                    j += 1
                k = j
                while k < speech.size and not speech[k] and k - j < pause:
                    k += 1
                if k < speech.size and speech[k] and k - j < pause:
                    j = k
                    continue
                break
            runs.append((i * FRAME, min(n, j * FRAME), j >= speech.size))
            i = j
        out = []
        for s0, s1, open_end in runs:
            if open_end and not final:
                continue
            if self._start + s0 < self._short_until:
                continue
            if SHORT_MIN_S * vp.RATE <= s1 - s0 <= SHORT_MAX_S * vp.RATE:
                out.append((s0, s1))
        if out:
            self._short_until = self._start + out[-1][1]
        return out

    def _record_speech(self, audio: np.ndarray, final: bool, probs: np.ndarray | None = None) -> None:
        """Speech spans (for DER's "missed" side and the JSON): new frames of this buffer only."""
        from speechstudio.audio.vad import FRAME

        if probs is None:
            probs = self.vad.probs(audio) if audio.size >= FRAME else np.zeros(0, np.float32)
        first = max(0, (self._speech_until - self._start) // FRAME)
        for i in range(int(first), probs.shape[0]):
            t0 = (self._start + i * FRAME) / vp.RATE
            if probs[i] >= 0.5:
                if self._speech and abs(self._speech[-1][1] - t0) < 1e-6:
                    self._speech[-1] = (self._speech[-1][0], t0 + FRAME / vp.RATE)
                else:
                    self._speech.append((t0, t0 + FRAME / vp.RATE))
        self._speech_until = self._start + probs.shape[0] * FRAME
