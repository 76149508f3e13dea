"""Pitch of synthesized speech with Praat through parselmouth (GPL-3.0): ``voiced_f0`` (autocorrelation,
Boersma 1993, 10 ms steps; Hz) and ``shift_pitch`` (PSOLA, Moulines & Charpentier 1990; formants kept).
A clone's offset: docs/finetune_voice.md, "Pitch"."""
from __future__ import annotations

import math
import threading

import numpy as np

#: Pitch search range (Hz): Praat's defaults for speech are 75-600; 60 takes in low male voices.
PITCH_FLOOR_HZ, PITCH_CEILING_HZ = 60.0, 500.0
#: Largest shift ``offset_semitones`` proposes (semitones); beyond it PSOLA artefacts dominate and a
#: base voice nearer the speaker's pitch is the better fix.
MAX_SHIFT_ST = 12.0
#: Offsets smaller than this (semitones) are not worth a resynthesis: ``offset_semitones`` returns 0.
MIN_SHIFT_ST = 0.3
#: Praat keeps global state and is not documented as thread-safe; sentences are synthesized on
#: several threads (``tts.stream``), so every Praat call holds this lock (PSOLA runs at ~0.05x
#: real time: serialising it costs little).
_PRAAT_LOCK = threading.Lock()


def _sound(audio: np.ndarray, sample_rate: int):
    import parselmouth

    a = np.asarray(audio, dtype=np.float64).reshape(-1)
    return parselmouth.Sound(a, sampling_frequency=float(sample_rate))


def voiced_f0(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """F0 (Hz, float64) of the voiced 10 ms frames of mono ``audio`` at ``sample_rate`` Hz; empty when
    nothing is voiced or the clip is under 3 / ``PITCH_FLOOR_HZ`` s."""
    return pitch_contour(audio, sample_rate)[1]


def shift_pitch(audio: np.ndarray, sample_rate: int, semitones: float) -> np.ndarray:
    """``audio`` with its pitch moved by ``semitones`` (PSOLA; formants and duration kept): float32 (n_samples,),
    peaks within [-1, 1]; unchanged for 0, too short or unvoiced. Raises ``ValueError`` for a non-finite shift."""
    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    if not math.isfinite(semitones):
        raise ValueError(f"pitch shift must be a finite number of semitones (got {semitones})")
    if semitones == 0 or len(audio) < 3.0 / PITCH_FLOOR_HZ * sample_rate + 1 or not np.any(audio):
        return audio
    return _resynthesize(audio, sample_rate, semitones=float(semitones))


def pitch_contour(audio: np.ndarray, sample_rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(times in s, F0 in Hz) of the voiced 10 ms frames of mono ``audio`` (Praat "To Pitch"); both
    empty when nothing is voiced or the clip is too short."""
    if len(audio) < 3.0 / PITCH_FLOOR_HZ * sample_rate + 1:
        return np.zeros(0), np.zeros(0)
    with _PRAAT_LOCK:
        pitch = _sound(audio, sample_rate).to_pitch(time_step=0.01, pitch_floor=PITCH_FLOOR_HZ,
                                                    pitch_ceiling=PITCH_CEILING_HZ)
        f0 = pitch.selected_array["frequency"]
        times = np.asarray(pitch.xs())
    voiced = f0 > 0
    return times[voiced], f0[voiced]


def impose_contour(audio: np.ndarray, sample_rate: int, times_s: np.ndarray, f0_hz: np.ndarray) -> np.ndarray:
    """``audio`` resynthesised to follow the contour (``times_s``, ``f0_hz``), formants and duration kept:
    float32 (n_samples,) in [-1, 1]; unchanged when too short, unvoiced or the contour is empty."""
    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    times_s, f0_hz = np.asarray(times_s, dtype=np.float64), np.asarray(f0_hz, dtype=np.float64)
    keep = np.isfinite(f0_hz) & (f0_hz > 0) & np.isfinite(times_s)
    if not keep.any() or len(audio) < 3.0 / PITCH_FLOOR_HZ * sample_rate + 1 or not np.any(audio):
        return audio
    return _resynthesize(audio, sample_rate, contour=zip(times_s[keep], f0_hz[keep]))


def _resynthesize(audio: np.ndarray, sample_rate: int, semitones: float = 0.0, contour=None) -> np.ndarray:
    """PSOLA of float32 ``audio`` (Praat "To Manipulation", 10 ms) on its own pitch tier shifted by ``semitones``
    (no points: ``audio`` itself) or on the ``contour`` points (s, Hz): float32 (n_samples,) in [-1, 1]."""
    from parselmouth.praat import call

    with _PRAAT_LOCK:
        sound = _sound(audio, sample_rate)
        manipulation = call(sound, "To Manipulation", 0.01, PITCH_FLOOR_HZ, PITCH_CEILING_HZ)
        if contour is None:
            tier = call(manipulation, "Extract pitch tier")
            if call(tier, "Get number of points") == 0:
                return audio
            call(tier, "Shift frequencies", sound.xmin, sound.xmax, semitones, "semitones")
        else:
            tier = call("Create PitchTier", "contour", sound.xmin, sound.xmax)
            for t, f in contour:
                call(tier, "Add point", float(t), float(f))
        call([tier, manipulation], "Replace pitch tier")
        out = call(manipulation, "Get resynthesis (overlap-add)").values[0].astype(np.float32)
    return np.clip(np.pad(out, (0, max(0, len(audio) - len(out))))[: len(audio)], -1.0, 1.0)


def offset_semitones(reference_hz: float | None, own_hz: float | None) -> float:
    """Semitones from median F0 ``own_hz`` to ``reference_hz`` (Hz): ``12 * log2(ref / own)``,
    limited to +-``MAX_SHIFT_ST``; 0 when under ``MIN_SHIFT_ST`` or when either is None / 0."""
    if not reference_hz or not own_hz:
        return 0.0
    st = 12.0 * math.log2(reference_hz / own_hz)
    if abs(st) < MIN_SHIFT_ST:
        return 0.0
    return float(max(-MAX_SHIFT_ST, min(MAX_SHIFT_ST, st)))

