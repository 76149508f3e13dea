"""Pitch matching of a cloned voice: the offset between the speaker's recordings and the clone.

A voice fine-tuned from a Piper ``.onnx`` base learns the speaker's timbre (spectral envelope)
but keeps the base's pitch: nothing the decoder gets when the voice speaks carries the speaker's
pitch (docs/finetune_voice.md, "Pitch"). So when a run is saved as a voice, this module compares
the median F0 of the prepared recordings with that of the fine-tuned model speaking some of the
same texts, and the voice stores the difference in semitones (``"pitch_semitones"`` in
``voice.json`` and the ``.onnx.json`` ``"speechstudio"`` block); SpeechStudio's synthesis shifts
the model's output by it (``tts.pitch.shift_pitch``, PSOLA: formants and durations kept;
``speak --pitch`` overrides it, ``--pitch 0`` plays the model as trained). Piper itself ignores
the field: an exported clone played by Piper speaks at the model's own pitch.

Since 2026-12-03 a clone of a Piper base speaks at its speaker's pitch through its sample rate
(``finetune.vits.voice_rate``), so the offset measured here is small and the shift is off unless
asked for (``--match-pitch``). Figures: docs/finetune_voice.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["PitchMatch", "measure_pitch_match", "REFERENCE_CLIPS", "PROBE_TEXTS"]

#: Recordings whose voiced frames give the speaker's median F0 (the first N usable clips).
REFERENCE_CLIPS = 40
#: Texts of the dataset the fine-tuned model speaks to give its median F0 (seeded, so the same
#: run always measures the same offset).
PROBE_TEXTS = 8


@dataclass(frozen=True)
class PitchMatch:
    """``recordings_hz`` / ``voice_hz``: median F0 (Hz) of the speaker's clips and of the
    fine-tuned model's synthesis (None when nothing was voiced); ``semitones``: the shift the
    voice stores (``tts.pitch.pitch_offset``: 0 below 0.3 st, limited to +-12)."""

    recordings_hz: float | None
    voice_hz: float | None
    semitones: float
    shifted: bool = True

    def describe(self) -> str:
        """One line for the CLI / wizard."""
        if not self.recordings_hz or not self.voice_hz:
            return "pitch: not measured (no voiced speech found), no pitch shift"
        if not self.shifted:
            off = 12 * np.log2(self.voice_hz / self.recordings_hz)
            return (f"pitch: recordings {self.recordings_hz:.0f} Hz, your voice {self.voice_hz:.0f} Hz ({abs(off):.1f} "
                    f"semitones {'lower' if off < 0 else 'higher'}; the model speaks at its own pitch, here and in Piper"
                    + ("" if abs(off) < 2 else "; --match-pitch shifts it to your recordings' when SpeechStudio speaks")
                    + ")")
        if not self.semitones:
            return (f"pitch: recordings {self.recordings_hz:.0f} Hz, fine-tuned voice {self.voice_hz:.0f} Hz: "
                    "close enough, no pitch shift")
        return (f"pitch: recordings {self.recordings_hz:.0f} Hz, fine-tuned voice {self.voice_hz:.0f} Hz: "
                f"SpeechStudio shifts it {self.semitones:+.1f} semitones when it speaks (formants kept; "
                "--pitch 0 plays the model as trained, Piper ignores the shift)")

    def to_dict(self) -> dict:
        return {"recordings_hz": None if self.recordings_hz is None else round(self.recordings_hz, 1),
                "voice_hz": None if self.voice_hz is None else round(self.voice_hz, 1),
                "semitones": round(self.semitones, 2), "shifted": self.shifted}


def measure_pitch_match(model, base_voice, dataset_dir: str | Path, reference_clips: int = REFERENCE_CLIPS,
                        probe_texts: int = PROBE_TEXTS, seed: int = 0, shift: bool = True) -> PitchMatch:
    """Compare the prepared dataset in ``dataset_dir`` (``finetune.manifest``) with ``model``
    (a fine-tuned ``VitsModel``) speaking through ``base_voice``'s front end (a loaded
    ``tts.vits.VitsVoice``, engine torch). Reads the first ``reference_clips`` usable clips
    (mono WAV at the dataset's rate) and synthesises the texts of the first ``probe_texts`` with
    seeds ``seed + i`` and the voice's default noise. Clips that cannot be read or said are
    skipped. Medians are over voiced frames that are not the decoder's frame-rate buzz
    (``finetune.closeness.pitch_profile``): a buzzing model is never "measured" at 86 Hz.
    ``shift``: False measures only (``PitchMatch.semitones`` 0, the voice is not shifted).
    Returns a ``PitchMatch``."""
    import dataclasses

    import soundfile as sf
    import soxr

    from speechstudio.errors import SpeechStudioError
    from speechstudio.finetune.manifest import Manifest
    from speechstudio.finetune.closeness import pitch_profile
    from speechstudio.tts.pitch import offset_semitones
    from speechstudio.tts.vits import SynthesisSettings

    manifest = Manifest.load(dataset_dir)
    clips = manifest.usable()[: max(reference_clips, probe_texts)]
    rate = int(model.config.sampling_rate)  # a clone may speak at another rate than its base (vits.voice_rate)
    reference = []
    for clip in clips[:reference_clips]:
        try:
            audio, sr = sf.read(str(manifest.path_of(clip, dataset_dir)), dtype="float32", always_2d=True)
        except (OSError, RuntimeError):
            continue
        audio = audio.mean(axis=1)
        reference.append(audio if sr == rate else soxr.resample(audio, sr, rate).astype(np.float32))
    voice = dataclasses.replace(base_voice, model=model.eval(), pitch_semitones=0.0, engine="torch", runner=None,
                                model_loader=None, warnings=[])
    own = []
    for i, clip in enumerate(clips[:probe_texts]):
        try:
            own.append(voice.synthesize(clip.text, SynthesisSettings(seed=seed + i, pitch=0.0)))
        except SpeechStudioError:
            continue
    hop = int(np.prod(model.config.upsample_rates))
    ref_hz, own_hz = pitch_profile(reference, rate, hop).median_hz, pitch_profile(own, rate, hop).median_hz
    return PitchMatch(ref_hz, own_hz, offset_semitones(ref_hz, own_hz) if shift else 0.0, shifted=shift)
