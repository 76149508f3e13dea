"""The clone's pitch through its sample rate: a Piper base speaks at the speaker's pitch.

Why (docs/finetune_voice.md, "Pitch"): a HiFi-GAN decoder fine-tuned from a Piper ``.onnx`` keeps
the base's pitch whatever its targets, because it renders about one glottal pulse per latent frame
(joe: 90 Hz against a frame rate of 22050 / 256 = 86 Hz) and a few hundred steps do not teach it
another pattern. Its pitch in *samples* is fixed; its pitch in *Hz* is that times the rate the
samples are played at. So the clone is trained, and saved, at the rate that puts the base's
pitch pattern on the speaker's pitch:

    k = (speaker's median F0) / (base voice's median F0),   model rate = round(base rate x k)

* the recordings are resampled to the model rate (``FeatureConfig.audio_rate``) and the decoder
  trains on those samples as its own output: in its sample domain the speaker's pitch is then the
  base's (a speaker at 108 Hz, k = 1.2, reads as 90 Hz) and their formants are scaled by 1 / k,
  which the decoder learns as it learns any timbre;
* the saved voice's ``sampling_rate`` (``voice.json``, the Piper ``.onnx.json`` ``audio.sample_rate``)
  is the model rate: played at it, the pitch and the formants are the speaker's again. No DSP
  after synthesis: SpeechStudio and Piper both play the model's samples at the rate it declares;
* durations: the duration predictor (frozen) gives the base's frames, which last 1 / k as long at
  the model rate, so the clone's ``speaking_rate`` is divided by k (``length_scale`` x k): the base's
  tempo in seconds.

The same method is how "speed perturbation" (Ko et al. 2015, Interspeech, "Audio augmentation
for speech recognition") changes pitch and formants together; here the factor is chosen so that
the pulse pattern the decoder already renders lands on the speaker's F0. Measured on a real speaker
in docs/finetune_voice.md ("Benchmark: a real speaker").

Speakers within ``MIN_SEMITONES`` of the base keep the base's rate; beyond ``MAX_SEMITONES`` the
factor is limited (formants scaled further than that sound like another person: a closer base voice
is the better choice, and the note says so).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["VoiceRate", "choose_rate", "MIN_SEMITONES", "MAX_SEMITONES"]

#: Below this pitch difference (semitones) the clone keeps the base's sample rate.
MIN_SEMITONES = 0.5
#: The factor is limited to +-this many semitones (k = 2 ** (st / 12): 0.75-1.33).
MAX_SEMITONES = 5.0


@dataclass(frozen=True)
class VoiceRate:
    """``base_rate`` / ``model_rate``: sample rates in Hz (the clone is trained and saved at
    ``model_rate``); ``recordings_hz`` / ``base_hz``: median F0 of the speaker's recordings and of
    the base voice (None when not measured); ``semitones``: 12 log2(model_rate / base_rate)."""

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
    if not recordings_hz or not base_hz:
        return VoiceRate(base_rate, base_rate, recordings_hz, base_hz)
    st = 12 * math.log2(recordings_hz / base_hz)
    if abs(st) < MIN_SEMITONES:
        return VoiceRate(base_rate, base_rate, recordings_hz, base_hz)
    st = max(-MAX_SEMITONES, min(MAX_SEMITONES, st))
    return VoiceRate(base_rate, int(round(base_rate * 2 ** (st / 12))), recordings_hz, base_hz)
