"""GPU promise 3 (issue 32): mixed precision training steps of both trainers on CUDA.

* VITS (``finetune.vits.step.VitsTraining``, the trainer's own step): the Piper voice
  en_US-joe-medium (``bench/bench_vits_train.build_model("joe")``, a fresh posterior encoder as in
  a real clone run) at the batch the ``quick`` preset picks for this card (``presets.preset``),
  4 s clips (``bench_vits_train.make_batch``): GAN steps in FP16 (GradScaler) and in BF16 give
  finite losses, a finite loss scale, both optimizers step within ``MAX_STEPS`` steps (FP16 may
  skip the first ones while the scale comes down), and the peak of allocated GPU memory stays
  under what ``presets.estimate`` promises for that configuration.
* CTC (``finetune.ctc.train_ctc``, what ``speechstudio finetune asr`` runs): FP16 and BF16 runs of
  6 steps on the six joe-voice words, stopped after step 3 and resumed: finite losses, the resumed
  run goes on at step 4 and ends at 6, the saved GradScaler state has a finite scale and the
  optimizer stepped.
* VITS ``train_voice`` end to end in FP16 / BF16 on the tiny test voice: stopped at step 6 and
  resumed, it continues at step 7 and finishes at 12 with finite losses.

Skipped without CUDA.
"""
from __future__ import annotations

import math
from dataclasses import replace

import pytest
from cuda_promises import LEARN, cuda_marks, encoder, words  # noqa: F401

pytestmark = cuda_marks()

AMP = ("fp16", "bf16")
MAX_STEPS = 10  # GAN steps allowed until both VITS optimizers have stepped (FP16 overflow skips)


@pytest.mark.parametrize("precision", AMP)
def test_vits_amp_step_finite_scaler_steps_and_memory_under_the_estimate(precision):
    import torch
    from bench_vits_train import build_model, make_batch

    from speechstudio.finetune.vits.features import FeatureConfig
    from speechstudio.finetune.vits.model import prepare_for_training
    from speechstudio.finetune.vits.presets import estimate, preset
    from speechstudio.finetune.vits.step import VitsTraining

    config = preset("quick", "cuda", precision=precision)
    promised = estimate(config, "cuda", n_clips=100, total_s=400.0, has_posterior=False).peak_memory_bytes
    torch.manual_seed(0)
    model = build_model("joe")
    prepare_for_training(model, fresh_posterior=True)
    fc = FeatureConfig.for_model(model.config)
    tr = VitsTraining(model, config, fc, "cuda", precision)
    batch = make_batch(fc, config.batch_size, 4.0, tr.segment_frames)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    losses = []
    # FP16: the GradScaler skips updates whose scaled gradients overflow, halving its scale from
    # 2**16 each time; MAX_STEPS steps bring it down to 2**6, by which point both optimizers must
    # have stepped (AdamW keeps a state per parameter only once it really stepped)
    while len(losses) < MAX_STEPS and not (tr.opt_g.state and tr.opt_d.state):
        losses.append(tr.train_step([batch]))
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated()
    print(f"\n[train] VITS joe (Piper medium) {precision} batch {config.batch_size} x {config.grad_accum}"
          f"{' (checkpointing)' if config.gradient_checkpointing else ''}: peak {peak / 2**30:.2f} GiB, "
          f"estimate {promised / 2**30:.2f} GiB; {len(losses)} step(s) until both optimizers stepped; "
          f"scale {tr.scaler.get_scale():g}; mel {losses[-1]['mel']:.3f}")
    assert all(math.isfinite(v) for step in losses for v in step.values()), losses
    assert tr.scaler.is_enabled() == (precision == "fp16")
    assert math.isfinite(tr.scaler.get_scale()) and tr.scaler.get_scale() > 0
    assert tr.step == len(losses)
    assert tr.opt_g.state and tr.opt_d.state
    assert max(float(s["step"]) for s in tr.opt_g.state.values()) >= 1
    assert peak <= promised


def _run_ctc(run_dir, words_dir, base, cfg, stop_at=None, resume=False):
    from speechstudio.finetune.ctc import StepEvent, TrainControl, train_ctc

    control, events = TrainControl(), []
    for ev in train_ctc(run_dir, words_dir, base, cfg, control=control, resume=resume):
        events.append(ev)
        if isinstance(ev, StepEvent) and ev.step == stop_at:
            control.stop.set()
    return events


@pytest.mark.parametrize("precision", AMP)
def test_ctc_amp_run_resumes_at_the_same_step(precision, tmp_path, words, encoder):
    import torch

    from speechstudio.finetune.ctc import DoneEvent, InfoEvent, StepEvent

    cfg = replace(LEARN, max_steps=6, device="cuda", precision=precision, val_count=0, eval_every=3, patience=0,
                  sanity_steps=2)
    torch.cuda.reset_peak_memory_stats()
    first = _run_ctc(tmp_path / "run", words, str(encoder), cfg, stop_at=3)
    rest = _run_ctc(tmp_path / "run", words, None, cfg, resume=True)
    assert isinstance(first[-1], DoneEvent) and (first[-1].reason, first[-1].step) == ("stopped", 3)
    assert any(isinstance(e, InfoEvent) and "resumed from step 3" in e.message for e in rest)
    steps = [e for e in first + rest if isinstance(e, StepEvent)]
    assert [e.step for e in steps] == [1, 2, 3, 4, 5, 6]
    assert all(math.isfinite(e.loss) for e in steps), [e.loss for e in steps]
    assert isinstance(rest[-1], DoneEvent) and (rest[-1].reason, rest[-1].step) == ("finished", 6)
    state = torch.load(tmp_path / "run" / "checkpoints" / "latest.pt", weights_only=True, map_location="cpu")
    assert state["step"] == 6
    scale = state["scaler"].get("scale", 1.0) if precision == "fp16" else 1.0
    assert math.isfinite(scale) and scale > 0
    assert max(float(s["step"]) for s in state["optimizer"]["state"].values()) >= 1
    print(f"\n[train] CTC {precision}: losses {[round(e.loss, 3) for e in steps]}, scale {scale:g}, "
          f"peak {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB")


@pytest.mark.parametrize("precision", AMP)
def test_vits_amp_run_resumes_at_the_same_step(precision, tmp_path):
    from tts_fixtures.dataset import make_dataset, tiny_config
    from tts_fixtures.tiny import make_tiny_vits

    from speechstudio.finetune.vits.events import DoneEvent, StepEvent
    from speechstudio.finetune.vits.trainer import TrainControl, load_trained_generator, train_voice

    base = make_tiny_vits(tmp_path / "tiny", stochastic=True)
    data = make_dataset(tmp_path / "data")
    cfg = tiny_config(device="cuda", precision=precision, steps=12, eval_every=6, checkpoint_every=6)
    control, first = TrainControl(), []
    for ev in train_voice(tmp_path / "run", data, base, cfg, control=control):
        first.append(ev)
        if isinstance(ev, StepEvent) and ev.step == 6:
            control.stop.set()
    rest = list(train_voice(tmp_path / "run", data, base, cfg, resume=True))
    before = [e.step for e in first if isinstance(e, StepEvent)]
    after = [e.step for e in rest if isinstance(e, StepEvent)]
    assert before == list(range(1, 7)) and after == list(range(7, 13))
    assert all(math.isfinite(v) for e in first + rest if isinstance(e, StepEvent) for v in e.losses.values())
    done = [e for e in rest if isinstance(e, DoneEvent)]
    assert done and done[-1].reason == "finished"
    _generator, info = load_trained_generator(tmp_path / "run", "latest")
    assert info.step == 12
