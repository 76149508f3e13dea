"""How close a cloned voice is to its speaker: speaker similarity, naturalness, pitch.

Similarity: SECS, cosine of Resemblyzer GE2E embeddings (Wan et al. 2018; YourTTS, Casanova et al.
2022). Naturalness: DistillMOS (Stahl & Gamper 2025), predicted MOS 1-5. Pitch: Praat F0
(``tts.pitch.voiced_f0``), median, p10-p90 spread, and the share of frames at the decoder's frame rate
(buzz). Typical values: ``docs/finetune_voice.md``. Scorers load lazily."""
from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from speechstudio.audio import speaker_encoder
from speechstudio.finetune.check import resample
from speechstudio.tts.pitch import voiced_f0

#: Resemblyzer and DistillMOS take 16 kHz audio.
SCORER_RATE = 16000
#: Relative distance to the frame rate within which a voiced frame counts as frame-rate buzz.
FRAME_RATE_TOLERANCE = 0.01
#: A clip whose similarity to the rest of the dataset is below this is another speaker (or a recording
#: too damaged to tell); two groups of clips whose mean embeddings are less similar than
#: ``GROUP_SIMILARITY`` are two speakers (the figures: docs/finetune_voice.md, "The three steps").
OUTLIER_SIMILARITY, GROUP_SIMILARITY = 0.72, 0.85
#: A checkpoint more than this many MOS points less natural than the base voice is never recommended
#: (the quick preset on a 2-core CPU fell from 4.38 to 1.70 while similarity moved 0.01: docs/finetune_voice.md).
NATURALNESS_DROP = 0.6
#: Similarity gains under this (SECS) count as "no longer getting closer" (the judge's clips vary by
#: about 0.01 between steps of a voice that does not change).
SIMILARITY_STALL = 0.01
#: "No longer getting closer" needs this many judged similarities (the voice before training and at least
#: three trained checkpoints), the last ``STALL_WINDOW`` of them all within ``SIMILARITY_STALL`` of the best before.
STALL_EVALS, STALL_WINDOW = 4, 2

_LOCK = threading.Lock()
_MOS = None


@dataclass(frozen=True)
class PitchProfile:
    """Pitch of clips (10 ms frames): ``median_hz`` of voiced non-buzz frames (or None), ``p10_hz`` /
    ``p90_hz``, ``spread_st`` = 12 log2(p90 / p10), ``frame_rate_share``, ``voiced_frames``."""

    median_hz: float | None
    p10_hz: float | None
    p90_hz: float | None
    spread_st: float
    frame_rate_share: float
    frame_rate_hz: float
    voiced_frames: int


def pitch_profile(clips: Sequence[np.ndarray], sample_rate: int, hop_length: int = 256) -> PitchProfile:
    """:class:`PitchProfile` of mono float ``clips`` (n_samples,) at ``sample_rate`` Hz; the
    decoder's frame rate is ``sample_rate / hop_length`` (VITS / Piper: hop 256)."""
    frame_rate = sample_rate / float(hop_length)
    f0 = [voiced_f0(np.asarray(c, dtype=np.float32), sample_rate) for c in clips]
    f0 = np.concatenate(f0) if f0 else np.zeros(0)
    if not len(f0):
        return PitchProfile(None, None, None, 0.0, 0.0, frame_rate, 0)
    buzz = np.abs(f0 / frame_rate - 1.0) < FRAME_RATE_TOLERANCE
    real = f0[~buzz]
    if not len(real):
        return PitchProfile(None, None, None, 0.0, float(buzz.mean()), frame_rate, int(len(f0)))
    p10, p50, p90 = np.percentile(real, [10, 50, 90])
    return PitchProfile(float(p50), float(p10), float(p90), float(12 * math.log2(p90 / p10)), float(buzz.mean()),
                        frame_rate, int(len(f0)))


class VoicePrint:
    """GE2E embeddings (the process's ``audio.speaker_encoder``): ``embed`` -> unit float32 ``(256,)``,
    ``speaker`` -> normalised mean, ``similarity`` -> cosine. Audio: mono float, any rate. Building one
    loads Resemblyzer (``ImportError``, ``OSError`` without it); ``embed`` raises ``ValueError`` under
    0.25 s of speech."""

    def __init__(self):
        speaker_encoder.encoder()

    def embed(self, audio: np.ndarray, sample_rate: int) -> np.ndarray:
        audio16k = resample(np.asarray(audio, dtype=np.float32).reshape(-1), sample_rate, SCORER_RATE)
        return speaker_encoder.embed_speech(audio16k, min_s=0.25)

    def speaker(self, clips: Sequence[np.ndarray], sample_rate: int) -> np.ndarray:
        embs = [self.embed(c, sample_rate) for c in clips]
        if not embs:
            raise ValueError("no clips to make a speaker embedding from")
        return self.mean(embs)

    @staticmethod
    def mean(embeddings: Sequence[np.ndarray]) -> np.ndarray:
        m = np.mean(np.stack(embeddings), axis=0)
        return (m / max(float(np.linalg.norm(m)), 1e-9)).astype(np.float32)

    @staticmethod
    def similarity(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.dot(a, b) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-9))


class Naturalness:
    """DistillMOS (``finetune.distillmos``, weights in the package): ``score(audio, sample_rate)`` ->
    predicted MOS (float, 1-5) of one mono float clip (resampled to 16 kHz with soxr). One model per
    process, shared by threads."""

    def __init__(self):
        global _MOS
        with _LOCK:
            if _MOS is None:
                from speechstudio.finetune.distillmos import DistillMOS

                _MOS = DistillMOS.load()
        self._model = _MOS

    def score(self, audio: np.ndarray, sample_rate: int) -> float:
        import torch

        x = torch.from_numpy(resample(np.asarray(audio, dtype=np.float32).reshape(-1), sample_rate, SCORER_RATE))[None]
        with _LOCK, torch.no_grad():
            return float(self._model(x)[0])


def _two_groups(x: np.ndarray, iterations: int = 20) -> np.ndarray:
    """Spherical 2-means of unit rows ``x`` (n, d), started from the two least similar rows;
    returns a bool array, True for the rows of the second group."""
    sim = x @ x.T
    i, j = np.unravel_index(np.argmin(sim), sim.shape)
    centres = x[[i, j]]
    second = np.zeros(len(x), dtype=bool)
    for _ in range(iterations):
        new = (x @ centres.T).argmax(axis=1) == 1
        if new.all() or not new.any() or (new == second).all():
            second = new if new.any() and not new.all() else second
            break
        second = new
        centres = np.stack([x[~second].mean(0), x[second].mean(0)])
        centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    return second


def speaker_outliers(embeddings: Sequence[np.ndarray], threshold: float = OUTLIER_SIMILARITY,
                     group_similarity: float = GROUP_SIMILARITY) -> list[tuple[int, float]]:
    """Clips that sound like another speaker, ``(index, similarity)``: spherical 2-means flags the
    smaller of two dissimilar groups, then clips under ``threshold`` leave-one-out. Under 3 clips:
    empty."""
    if len(embeddings) < 3:
        return []
    x = np.stack([np.asarray(e, dtype=np.float64).reshape(-1) for e in embeddings])
    x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    flagged: dict[int, float] = {}
    second = _two_groups(x)
    if second.any() and not second.all():
        minority = second if second.sum() < (~second).sum() else ~second
        major, minor = x[~minority].mean(0), x[minority].mean(0)
        if VoicePrint.similarity(major, minor) < group_similarity:
            for i in np.flatnonzero(minority):
                flagged[int(i)] = VoicePrint.similarity(x[i], major)
    rest = [i for i in range(len(x)) if i not in flagged]
    if len(rest) >= 3:
        total = x[rest].sum(0)
        for i in rest:
            sim = VoicePrint.similarity(x[i], total - x[i])
            if sim < threshold:
                flagged[i] = sim
    return sorted(flagged.items())


@dataclass(frozen=True)
class Closeness:
    """Synthesis against recordings: ``similarity`` (mean SECS), ``naturalness`` (mean DistillMOS),
    ``pitch``, ``speaker_pitch_hz``, ``base_similarity`` (None when not measured)."""

    similarity: float
    naturalness: float | None
    pitch: PitchProfile
    speaker_pitch_hz: float | None = None
    base_similarity: float | None = None

    @property
    def pitch_offset_st(self) -> float | None:
        """Semitones from the speaker's median F0 to the clips' (None if either is missing)."""
        if not self.speaker_pitch_hz or not self.pitch.median_hz:
            return None
        return 12 * math.log2(self.pitch.median_hz / self.speaker_pitch_hz)

    @property
    def score(self) -> float:
        """Checkpoint choice: similarity, less 0.1 per MOS point under 3.5 and 0.5 per unit of frame-rate share."""
        mos = 3.5 if self.naturalness is None else self.naturalness
        return float(self.similarity - 0.1 * max(0.0, 3.5 - mos) - 0.5 * self.pitch.frame_rate_share)

    def describe(self) -> str:
        """Plain words for the wizard, e.g. "Sounds like you: close (similarity 0.81); sounds
        natural (4.1 of 5); pitch 2 semitones lower than your recordings"."""
        s = self.similarity
        like = ("very close" if s >= 0.85 else "close" if s >= 0.75 else "partly" if s >= 0.65 else "not yet")
        parts = [f"sounds like you: {like} (similarity {s:.2f}"
                 + (f", base voice {self.base_similarity:.2f}" if self.base_similarity is not None else "")
                 + ", your own recordings score about 0.9)"]
        n = self.naturalness
        if n is not None:
            nat = ("natural" if n >= 4.0 else "mostly natural" if n >= 3.5 else "somewhat artificial" if n >= 2.5
                   else "buzzy or distorted")
            parts.append(f"{nat} ({n:.1f} of 5)")
        off = self.pitch_offset_st
        if off is not None:
            parts.append("pitch matches your recordings" if abs(off) < 1.0 else
                         f"pitch {abs(off):.0f} semitone{'s' if abs(off) >= 1.5 else ''} "
                         f"{'higher' if off > 0 else 'lower'} than your recordings")
        if self.pitch.frame_rate_share > 0.05:
            parts.append(f"{self.pitch.frame_rate_share:.0%} of the voiced sound is a mechanical buzz")
        text = "; ".join(parts)
        return text[0].upper() + text[1:]

    def to_dict(self) -> dict:
        return {**asdict(self), "pitch_offset_st": self.pitch_offset_st, "score": self.score}


class CloneJudge:
    """Scores a voice against ``reference`` (mono float clips at ``sample_rate`` Hz): :meth:`judge` ->
    ``Closeness``. Raises ``ImportError`` (no Resemblyzer), ``ValueError`` (no reference speech)."""

    def __init__(self, reference: Sequence[np.ndarray], sample_rate: int, hop_length: int = 256):
        self.rate, self.hop = int(sample_rate), int(hop_length)
        self.print = VoicePrint()
        embs = []
        for clip in reference:
            with contextlib.suppress(ValueError):
                embs.append(self.print.embed(clip, self.rate))
        if not embs:
            raise ValueError("no speech in the reference recordings")
        self.speaker = VoicePrint.mean(embs)
        self.speaker_hz = pitch_profile(reference, self.rate, self.hop).median_hz
        self.mos = Naturalness()
        self.base_similarity: float | None = None

    def similarity(self, clips: Sequence[np.ndarray], sample_rate: int | None = None) -> float:
        sims = []
        for clip in clips:
            try:
                sims.append(VoicePrint.similarity(self.print.embed(clip, sample_rate or self.rate), self.speaker))
            except ValueError:
                sims.append(0.0)  # a clip with no speech left is not like the speaker at all
        return float(np.mean(sims)) if sims else 0.0

    def judge(self, clips: Sequence[np.ndarray], sample_rate: int | None = None) -> Closeness:
        """``Closeness`` of ``clips`` (the voice speaking a few sentences, at ``sample_rate``, default the
        judge's; the decoder's frame rate is that rate / ``hop_length``)."""
        rate = int(sample_rate or self.rate)
        mos = float(np.mean([self.mos.score(c, rate) for c in clips])) if self.mos and len(clips) else None
        return Closeness(self.similarity(clips, rate), mos, pitch_profile(clips, rate, self.hop), self.speaker_hz,
                         self.base_similarity)


def getting_closer(similarities: Sequence[float]) -> bool | None:
    """Whether more steps still bring the voice closer to the speaker, from the judge's ``similarities`` in step
    order: the voice before it started changing (step 0) first, then each checkpoint judged since.

    The rule: True ("still getting closer") when the latest is more than ``SIMILARITY_STALL`` above every earlier
    one; False ("no longer getting closer") only with enough evidence: at least ``STALL_EVALS`` values and none of
    the last ``STALL_WINDOW`` more than ``SIMILARITY_STALL`` above the best before them (one judgement varies by
    about that much, so a single flat or lower step says nothing); None otherwise: too early to tell.

    >>> getting_closer([0.60, 0.66]), getting_closer([0.60, 0.60]), getting_closer([0.60, 0.70, 0.70, 0.705])
    (True, None, False)
    """
    s = [float(v) for v in similarities]
    if len(s) >= 2 and s[-1] > max(s[:-1]) + SIMILARITY_STALL:
        return True
    if len(s) >= STALL_EVALS and max(s[-STALL_WINDOW:]) <= max(s[:-STALL_WINDOW]) + SIMILARITY_STALL:
        return False
    return None


def natural_enough(naturalness: float | None, base_naturalness: float | None) -> bool:
    """True unless both are known and ``naturalness`` < ``base_naturalness`` - ``NATURALNESS_DROP``."""
    return naturalness is None or base_naturalness is None or naturalness >= base_naturalness - NATURALNESS_DROP


def recommend(rows: Sequence[dict], base_naturalness: float | None) -> int | None:
    """Index of the checkpoint a listener would pick among ``rows`` (dicts with ``score`` and
    ``naturalness``, the base voice's own row included): the highest :attr:`Closeness.score` among
    those :func:`natural_enough`; None when no row is."""
    ok = [i for i, r in enumerate(rows) if natural_enough(r.get("naturalness"), base_naturalness)]
    return max(ok, key=lambda i: rows[i]["score"]) if ok else None


def trade_stalled(rows: Sequence[dict], base_naturalness: float | None) -> bool:
    """Early stop: the latest of the trained ``rows`` (``similarity``, ``naturalness``; at
    least two, step order) is not :func:`natural_enough` and is no more than ``SIMILARITY_STALL``
    more similar than the best earlier row: more steps would trade naturalness for nothing."""
    return (len(rows) >= 2 and not natural_enough(rows[-1].get("naturalness"), base_naturalness)
            and rows[-1]["similarity"] <= max(r["similarity"] for r in rows[:-1]) + SIMILARITY_STALL)
