"""Pitch matching of a cloned voice: the offset in semitones between the speaker's recordings and the
clone (median F0), stored as ``"pitch_semitones"`` and applied at synthesis by ``tts.pitch.shift_pitch``
(PSOLA, formants kept) when the saved voice is ``AUTO_SHIFT_ST`` or more off (the base voice the judge
kept, a checkpoint short of the speaker's pitch) or when asked for (``--match-pitch``); Piper ignores it.
Why and figures: docs/finetune_voice.md, "The base voice at your pitch"."""
from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from speechstudio.audio.decode import load_audio
from speechstudio.errors import AudioDecodeError, SpeechStudioError
from speechstudio.finetune.closeness import pitch_profile
from speechstudio.finetune.manifest import Manifest
from speechstudio.tts.family import SynthesisSettings
from speechstudio.tts.pitch import offset_semitones

#: Recordings whose voiced frames give the speaker's median F0 (the first N usable clips).
REFERENCE_CLIPS = 40
#: Texts of the dataset the fine-tuned model speaks to give its median F0 (seeded, so the same
#: run always measures the same offset).
PROBE_TEXTS = 8
#: Offset (semitones) from which a saved voice is shifted without asking: the clone judge's "pitch
#: matches" ends at 1 st (``closeness.Closeness.describe``; figures: docs/finetune_voice.md, "Benchmark:
#: the base voice at your pitch", ``bench/clone_blend.py --pitch-to 0``).
AUTO_SHIFT_ST = 1.0


@dataclass(frozen=True)
class PitchMatch:
    """``recordings_hz`` / ``voice_hz``: median F0 of the clips and of the synthesis (None if unvoiced);
    ``semitones``: the stored shift (``tts.pitch.offset_semitones``: 0 below 0.3 st, within +-12)."""

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
            return (f"pitch: recordings {self.recordings_hz:.0f} Hz, the saved voice {self.voice_hz:.0f} Hz: "
                    "close enough, no pitch shift")
        return (f"pitch: recordings {self.recordings_hz:.0f} Hz, the saved voice {self.voice_hz:.0f} Hz: SpeechStudio "
                f"moves everything it says {self.semitones:+.1f} semitones to your pitch (PSOLA, formants kept; "
                f"speak --pitch 0 turns it off); Piper and exported files play it at {self.voice_hz:.0f} Hz")

    def to_dict(self) -> dict:
        return {"recordings_hz": None if self.recordings_hz is None else round(self.recordings_hz, 1),
                "voice_hz": None if self.voice_hz is None else round(self.voice_hz, 1),
                "semitones": round(self.semitones, 2), "shifted": self.shifted}


def measure_pitch_match(model, base_voice, dataset_dir: str | Path, reference_clips: int = REFERENCE_CLIPS,
                        probe_texts: int = PROBE_TEXTS, seed: int = 0, shift: bool | None = None) -> PitchMatch:
    """Compare the first ``reference_clips`` usable clips of ``dataset_dir`` with ``model`` (a
    fine-tuned ``VitsModel``) saying the first ``probe_texts`` through ``base_voice``'s front end (seeds
    ``seed + i``). Medians skip the decoder's frame-rate buzz (``closeness.pitch_profile``); unreadable
    or unsayable clips are skipped. ``shift``: None stores the offset when it is ``AUTO_SHIFT_ST`` or
    more, True from 0.3 st (``tts.pitch.MIN_SHIFT_ST``), False never (measures only). Returns a ``PitchMatch``."""
    manifest = Manifest.load(dataset_dir)
    clips = manifest.usable()[: max(reference_clips, probe_texts)]
    rate = int(model.config.sampling_rate)  # a clone may speak at another rate than its base (vits.voice_rate)
    reference = []
    for clip in clips[:reference_clips]:
        with contextlib.suppress(AudioDecodeError):
            reference.append(load_audio(manifest.path_of(clip, dataset_dir), rate))
    voice = dataclasses.replace(base_voice, model=model.eval(), pitch_semitones=0.0, runtime="torch", runner=None,
                                model_loader=None, warnings=[])
    own = []
    for i, clip in enumerate(clips[:probe_texts]):
        with contextlib.suppress(SpeechStudioError):  # a text the voice cannot say
            own.append(voice.synthesize(clip.text, SynthesisSettings(seed=seed + i, pitch=0.0)))
    hop = int(np.prod(model.config.upsample_rates))
    ref_hz, own_hz = pitch_profile(reference, rate, hop).median_hz, pitch_profile(own, rate, hop).median_hz
    offset = offset_semitones(ref_hz, own_hz)
    if shift is None:
        shift = abs(offset) >= AUTO_SHIFT_ST
    return PitchMatch(ref_hz, own_hz, offset if shift else 0.0, shifted=shift)
