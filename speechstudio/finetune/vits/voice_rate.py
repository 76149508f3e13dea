"""The clone's pitch through its sample rate: a Piper base speaks at the speaker's pitch.

A decoder fine-tuned from a Piper ``.onnx`` keeps the base's pitch in samples (``docs/finetune_voice.md``,
"Pitch"), so the clone trains and is saved at ``round(base rate x k)``, ``k = speaker median F0 / base
median F0`` (the resampling of speed perturbation, Ko et al. 2015); ``speaking_rate`` is divided by k to
keep the base's tempo. Within ``MIN_SEMITONES`` the base's rate is kept; the factor is limited at
``MAX_SEMITONES``."""
from __future__ import annotations

import math
from dataclasses import dataclass

#: Below this pitch difference (semitones) the clone keeps the base's sample rate.
MIN_SEMITONES = 0.5
#: The factor is limited to +-this many semitones (k = 2 ** (st / 12): 0.75-1.33).
MAX_SEMITONES = 5.0


@dataclass(frozen=True)
class VoiceRate:
    """``base_rate`` / ``model_rate`` (Hz; the clone runs at ``model_rate``), ``recordings_hz`` /
    ``base_hz`` (median F0, None when not measured), ``semitones`` = 12 log2(model_rate / base_rate)."""

    base_rate: int
    model_rate: int
    recordings_hz: float | None = None
    base_hz: float | None = None

    @property
    def factor(self) -> float:
        return self.model_rate / self.base_rate

    @property
    def semitones(self) -> float:
        return 12 * math.log2(self.factor)

    def describe(self) -> str:
        """One line for the run log / the CLI."""
        if not self.recordings_hz or not self.base_hz:
            return "pitch: not measured (no voiced speech found); the clone keeps the base voice's pitch"
        head = f"pitch: your recordings {self.recordings_hz:.0f} Hz, the base voice {self.base_hz:.0f} Hz"
        if self.model_rate == self.base_rate:
            return head + ": close enough, the clone speaks at the base's pitch"
        want = 12 * math.log2(self.recordings_hz / self.base_hz)
        limited = abs(want) > MAX_SEMITONES + 0.05
        return (head + f": the clone is trained at {self.model_rate} Hz instead of {self.base_rate} Hz, so that it "
                f"speaks {abs(self.semitones):.1f} semitones {'higher' if self.semitones > 0 else 'lower'} than the "
                "base (in SpeechStudio and in Piper)"
                + (f"; limited to {MAX_SEMITONES:.0f} semitones (a base voice closer to yours would suit it better)"
                   if limited else ""))


def choose_rate(base_rate: int, recordings_hz: float | None, base_hz: float | None) -> VoiceRate:
    """The :class:`VoiceRate` for a speaker at ``recordings_hz`` and a base voice at ``base_hz``
    (median F0 in Hz of voiced frames, frame-rate buzz left out: ``finetune.pitch_match``).

    >>> choose_rate(22050, 108.0, 90.0).model_rate
    26460
    >>> choose_rate(22050, 91.0, 90.0).model_rate
    22050
    """
    base_rate = int(base_rate)
    st = 12 * math.log2(recordings_hz / base_hz) if recordings_hz and base_hz else 0.0  # not measured: keep the rate
    if abs(st) < MIN_SEMITONES:
        return VoiceRate(base_rate, base_rate, recordings_hz, base_hz)
    st = max(-MAX_SEMITONES, min(MAX_SEMITONES, st))
    return VoiceRate(base_rate, int(round(base_rate * 2 ** (st / 12))), recordings_hz, base_hz)
