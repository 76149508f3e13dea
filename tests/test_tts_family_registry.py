"""A new voice family is one module plus one registry line: a fake family registered here is listed,
detected, loaded, validated (the same answer for the CLI and the voice itself), downloaded into the
store and used by ``speechstudio speak`` without touching another file."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from speechstudio import cli
from speechstudio.errors import UsageError
from speechstudio.tts import family
from speechstudio.tts.voice_text import FamilyVoice
from speechstudio.tts.family import TtsCapabilities, TtsFamily
from speechstudio.tts.family import SynthesisSettings

RATE = 16000
SAMPLES_PER_ID = 800  # 50 ms of tone per token id


# ----------------------------------------------------------------------------- the "module"
class ToneVoice(FamilyVoice):
    """Says every character as 50 ms of a sine at ``hz`` (from its ``tone.json``); slower with
    ``length_scale``."""

    hz = 440.0

    def _tokenize(self, text: str) -> list[int]:
        return [ord(c) for c in text if not c.isspace()]

    def _run(self, ids, settings):
        import torch

        scale = settings.length_scale if settings.length_scale is not None else 1.0
        n = int(len(ids) * SAMPLES_PER_ID * scale)
        return 0.1 * torch.sin(2 * torch.pi * self.hz * torch.arange(n) / RATE)


class ToneFamily(TtsFamily):
    def detect(self, source) -> bool:
        return "tone.json" in source.names

    def load(self, source, *, device, precision, name, **options):
        voice = ToneVoice(name=name or source.path.name, model=None, sample_rate=RATE, family=self.name,
                          controls=self.capabilities.controls, device=device,
                          defaults={"length_scale": 1.0, "controls": self.capabilities.controls})
        voice.hz = json.loads((source.path / "tone.json").read_text())["hz"]
        return voice


TONE = ToneFamily("tone", "Tone (test family)", TtsCapabilities(controls=("length_scale",)))


# ----------------------------------------------------------------------------- fixtures
@pytest.fixture
def tone_family():
    family.register(TONE)          # the "one line"
    yield TONE
    family.unregister("tone")


@pytest.fixture
def tone_dir(tmp_path) -> Path:
    d = tmp_path / "tone-voice"
    d.mkdir()
    (d / "tone.json").write_text(json.dumps({"hz": 300.0}))
    return d


# ----------------------------------------------------------------------------- tests
def test_registered_family_is_listed_detected_and_loaded(tone_family, tone_dir):
    from speechstudio.tts.family import load_voice
    from speechstudio.tts.voices import resolve_voice

    assert [f.name for f in family.families()] == ["vits", "speecht5", "fastspeech2", "tone"]
    assert family.detect(family.read_source(tone_dir)) is TONE
    assert resolve_voice(str(tone_dir)).family == "tone"
    voice = load_voice(tone_dir, device="cpu")
    assert (type(voice).__name__, voice.family, voice.name, voice.sample_rate, voice.hz) == \
        ("ToneVoice", "tone", "tone-voice", RATE, 300.0)
    assert family.of(voice) is TONE
    wav = voice.synthesize("abc", SynthesisSettings(length_scale=2.0))
    assert wav.dtype == np.float32 and wav.shape == (3 * SAMPLES_PER_ID * 2,)


def test_unregistered_folder_is_refused_with_the_families_named(tone_dir):
    from speechstudio.errors import ModelNotFoundError
    from speechstudio.tts.family import load_voice

    with pytest.raises(ModelNotFoundError, match=r"tone-voice: no voice here .*voice families: vits, speecht5, "
                                                 r"fastspeech2\)$"):
        load_voice(tone_dir, device="cpu")


@pytest.mark.parametrize("settings, notes", [
    (SynthesisSettings(length_scale=1.5), []),
    (SynthesisSettings(noise_scale=0.5), ["voice tone-voice (tone) has no noise_scale control; ignored"]),
    (SynthesisSettings(noise_w=0.3, seed=7), ["voice tone-voice (tone) has no noise_w control; ignored",
                                              "voice tone-voice (tone) has no seed control; ignored"]),
])
def test_controls_the_family_has_not_are_noted_once(tone_family, tone_dir, settings, notes):
    from speechstudio.tts.family import load_voice

    voice = load_voice(tone_dir, device="cpu")
    assert family.check_options(voice, settings) == notes
    voice.synthesize("abc", settings)                     # the voice asks the same family
    assert voice.warnings == notes


@pytest.mark.parametrize("settings, message", [
    (SynthesisSettings(length_scale=-1.0), "length_scale must be > 0 and <= 10 (got -1.0)"),
    (SynthesisSettings(noise_scale=float("nan")), "noise_scale must be >= 0 and <= 10 (got nan)"),
    (SynthesisSettings(seed=2**70), f"seed must be a 64-bit integer (got {2**70})"),
])
def test_bad_values_are_refused_with_one_answer(tone_family, tone_dir, settings, message):
    from speechstudio.tts.family import load_voice

    voice = load_voice(tone_dir, device="cpu")
    with pytest.raises(UsageError) as by_family:
        family.check_options(voice, settings)
    with pytest.raises(UsageError) as by_voice:
        voice.synthesize("abc", settings)
    assert str(by_family.value) == str(by_voice.value) == message


def test_speak_uses_the_family(tone_family, tone_dir, tmp_path, capsys):
    out = tmp_path / "hello.wav"
    assert cli.main(["speak", "Hi there. Bye now.", "--voice", str(tone_dir), "--out", str(out),
                     "--noise-scale", "0.5"]) == 0
    audio, rate = sf.read(out, dtype="float32")
    assert rate == RATE
    said = "Hi there." + "Bye now."                      # spaces carry no tone
    tones = sum(1 for c in said if not c.isspace()) * SAMPLES_PER_ID
    assert tones <= audio.shape[0] <= tones + RATE        # plus the pause between the two sentences
    assert abs(float(np.max(np.abs(audio))) - 0.1) < 0.01
    captured = capsys.readouterr()
    assert "voice: tone-voice (given as" in captured.out
    assert "warning: voice tone-voice (tone) has no noise_scale control; ignored" in captured.err


def test_download_and_voices_list_use_the_family(tone_family, tone_dir, monkeypatch, capsys):
    import huggingface_hub

    from speechstudio.tts import voices

    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda repo_id, **kw: str(tone_dir))
    ref = voices.download_voice("someone/tone-voice")
    assert (ref.name, ref.family, ref.location) == ("tone-voice", "tone", str(tone_dir))
    assert voices.resolve_voice("tone-voice").family == "tone"
    assert cli.main(["voices", "list"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "tone-voice" in ln)
    assert line.split()[:3] == ["tone-voice", "tone", "store"]
