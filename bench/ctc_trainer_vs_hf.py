"""Our CTC training loop (``finetune.ctc.train_ctc``) against ``transformers.Trainer`` on the same run.

Issue 26 asked whether the hand-written CTC loop should give way to ``transformers.Trainer`` with a
callback. This measures the two on one machine in one run, each in its own process (peak RSS is
per process):

* Data and model: ``bench/asr_adapt_check.py``'s command set spoken by the Piper joe voice
  (``--utterances`` commands, one augmented copy each, ``--held-out`` unseen commands) and its small
  random-init wav2vec2 (filterbank front end, hidden 192 x 4 layers); ``finetune.ctc.setup.prepare``
  builds the vocabulary, the items and the CTC head for both, from the same seed.
* Same recipe: AdamW (decay on matrices only), linear warm-up 8 % then linear decay, gradient
  clipping 1.0, batch 8 in length-grouped batches, FP32 on CPU, our ``ctc_loss`` (each clip over its
  own frames) as the Trainer's ``compute_loss``; no evaluation while training (ours evaluates the
  base and the last step on 10 validation clips, the Trainer nothing: an edge for the Trainer).
* Four runs: each trainer uninterrupted for ``--steps``, and stopped at half then resumed from its
  own checkpoint in a new process (mid-epoch: half + 7 steps). Reported: training seconds and steps/s, peak RSS, the final
  weights' max |difference| between the uninterrupted and the resumed run (0 = a stop + resume is
  bit-exact), the checkpoint bytes on disk, and greedy held-out WER / CER of the final weights.

Usage: ``python bench/ctc_trainer_vs_hf.py [--steps 2000] [--work /tmp/ctc_vs_hf] > /tmp/ctc_vs_hf.log 2>&1``
(about 13 minutes on 2 cores for 2000 steps; needs the ``bench`` extra). Figures and the decision:
``docs/finetune_asr.md`` ("Why our own loop and not transformers.Trainer").
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402,F401  (OpenMP policy, paths)

SEED = 0


def _config(steps: int):
    from speechstudio.finetune.ctc import CTCConfig

    return CTCConfig(max_steps=steps, lr=2e-3, batch_size=8, device="cpu", precision="fp32",
                     freeze_feature_encoder=False, warmup_ratio=0.08, weight_decay=0.005, eval_every=steps,
                     patience=0, val_count=10, sanity_steps=0, seed=SEED)


def run_ours(work: Path, run: Path, steps: int, stop_at: int | None, resume: bool) -> dict:
    from speechstudio.finetune.ctc import StepEvent, TrainControl, train_ctc

    control, last, t0 = TrainControl(), None, time.perf_counter()
    for ev in train_ctc(run, work / "data", str(work / "base-encoder"), _config(steps), resume=resume,
                        control=control):
        if isinstance(ev, StepEvent):
            last = ev
            if stop_at and ev.step == stop_at:
                control.stop.set()
    import torch

    state = torch.load(run / "checkpoints" / "latest.pt", map_location="cpu", weights_only=False)
    torch.save(state["model"], run / "final_weights.pt")
    return {"seconds": time.perf_counter() - t0, "steps_per_s": last.steps_per_s, "step": last.step}


def run_hf(work: Path, run: Path, steps: int, stop_at: int | None, resume: bool) -> dict:
    import torch
    from transformers import Trainer, TrainerCallback, TrainingArguments
    from transformers.trainer_pt_utils import LengthGroupedSampler

    from speechstudio.finetune.ctc.data import Collator
    from speechstudio.finetune.ctc.model import ctc_loss
    from speechstudio.finetune.ctc.setup import prepare
    from speechstudio.finetune.run import seed_all

    config = _config(steps)
    seed_all(config.seed)   # as train_ctc seeds a fresh run before building the CTC head
    run.mkdir(parents=True, exist_ok=True)
    p = prepare(run, work / "data", str(work / "base-encoder"), config)
    lengths = [it.n_samples for it in p.train]

    class Items(torch.utils.data.Dataset):
        def __len__(self):
            return len(p.train)

        def __getitem__(self, i):
            return p.train[i]

    class CTCTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            n, labels = inputs.pop("input_lengths"), inputs.pop("labels")
            return ctc_loss(model, model(**inputs).logits, labels, n)

        def _get_train_sampler(self, train_dataset=None):
            return LengthGroupedSampler(self.args.train_batch_size, lengths=lengths)

    class StopAt(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if stop_at and state.global_step == stop_at:
                control.should_save = control.should_training_stop = True

    args = TrainingArguments(
        output_dir=str(run / "hf"), max_steps=steps, per_device_train_batch_size=config.batch_size,
        learning_rate=config.lr, weight_decay=config.weight_decay, warmup_steps=round(config.warmup_ratio * steps),
        lr_scheduler_type="linear", max_grad_norm=config.max_grad_norm, adam_beta1=0.9, adam_beta2=0.999,
        adam_epsilon=1e-8, logging_steps=25, save_strategy="steps", save_steps=stop_at or steps, seed=SEED,
        dataloader_num_workers=0, remove_unused_columns=False, report_to=["tensorboard"], use_cpu=True,
        disable_tqdm=True)
    trainer = CTCTrainer(model=p.model, args=args, train_dataset=Items(), data_collator=Collator(p.feature_extractor),
                         callbacks=[StopAt()])
    t0 = time.perf_counter()
    out = trainer.train(resume_from_checkpoint=True if resume else None)
    torch.save({k: v.detach().cpu().clone() for k, v in p.model.state_dict().items()}, run / "final_weights.pt")
    return {"seconds": time.perf_counter() - t0, "steps_per_s": out.metrics.get("train_steps_per_second"),
            "step": trainer.state.global_step}


def child(a) -> int:
    import resource

    fn = run_ours if a.variant == "ours" else run_hf
    res = fn(a.work, a.run, a.steps, a.stop_at, a.resume)
    res["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("RESULT " + json.dumps(res), flush=True)
    return 0


def greedy_wer(work: Path, weights: Path) -> tuple[float, float]:
    """Greedy CTC WER / CER of ``weights`` on the held-out commands, transcribed by the product's
    engine (``asr_adapt_check.transcribe_held_out``: ``load_model`` -> ``transcribe_blocks``)."""
    import shutil

    import torch

    import asr_adapt_check as aac
    from speechstudio.finetune.ctc.checkpoint import model_from_state

    proc = work / "run-ours-full" / "processor"
    folder = weights.parent / "final_model"
    shutil.rmtree(folder, ignore_errors=True)
    model_from_state(proc, torch.load(weights)).save_pretrained(folder, safe_serialization=True)
    for f in proc.iterdir():
        if f.name not in ("config.json", "vocabulary.txt"):
            shutil.copy2(f, folder / f.name)
    r = aac.transcribe_held_out(folder, work / "held_out", vocabulary="off")
    return r["offline_wer"], r["offline_cer"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/ctc_vs_hf"))
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--utterances", type=int, default=120)
    ap.add_argument("--held-out", type=int, default=30)
    ap.add_argument("--variant", choices=("ours", "hf"), help=argparse.SUPPRESS)
    ap.add_argument("--run", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--stop-at", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--resume", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.variant:
        return child(a)
    import shutil

    import asr_adapt_check as aac

    if a.work.exists():
        shutil.rmtree(a.work)
    a.work.mkdir(parents=True)
    train_texts, held_texts = aac.command_texts(a.utterances, a.held_out, SEED)
    data = aac.make_data(a.work, train_texts, held_texts, 1, SEED)
    aac.save_base(a.work / "base-encoder", aac.model_config(192, 4, 256), SEED)
    print(f"data: {data['train_clips']} clips ({data['train_minutes']:.1f} min), {data['held_out_clips']} held out",
          flush=True)
    half = a.steps // 2 + 7   # mid-epoch (the data order must be carried, not only the RNG)
    plan = [("ours", "full", [(None, False)]), ("hf", "full", [(None, False)]),
            ("ours", "resumed", [(half, False), (None, True)]), ("hf", "resumed", [(half, False), (None, True)])]
    res: dict = {}
    for variant, kind, legs in plan:
        run = a.work / f"run-{variant}-{kind}"
        legs_out = []
        for stop_at, resume in legs:
            cmd = [sys.executable, __file__, "--variant", variant, "--run", str(run), "--work", str(a.work),
                   "--steps", str(a.steps)] + (["--stop-at", str(stop_at)] if stop_at else []) + \
                  (["--resume"] if resume else [])
            out = subprocess.run(cmd, capture_output=True, text=True)
            line = [x for x in out.stdout.splitlines() if x.startswith("RESULT ")]
            if out.returncode or not line:
                print(out.stdout[-3000:], out.stderr[-5000:], flush=True)
                raise SystemExit(f"{variant} {kind} failed")
            legs_out.append(json.loads(line[0][7:]))
        ckpt_bytes = sum(f.stat().st_size for f in run.rglob("*") if f.is_file() and f.name != "final_weights.pt"
                         and "processor" not in f.parts and "runs" not in f.parts and "tensorboard" not in f.parts)
        res[(variant, kind)] = {"legs": legs_out, "weights": run / "final_weights.pt", "ckpt_mb": ckpt_bytes / 1e6}
        print(variant, kind, legs_out, flush=True)

    import torch

    def max_diff(x: Path, y: Path) -> float:
        sx, sy = torch.load(x), torch.load(y)
        return max(float((sx[k].float() - sy[k].float()).abs().max()) for k in sx)

    print(f"\n{'':28}{'ours (train_ctc)':>20}{'transformers.Trainer':>24}")
    for label, fn in [
        ("training s (full run)", lambda v: f"{res[(v, 'full')]['legs'][0]['seconds']:.1f}"),
        ("steps/s", lambda v: f"{res[(v, 'full')]['legs'][0]['steps_per_s']:.2f}"),
        ("peak RSS MB", lambda v: f"{res[(v, 'full')]['legs'][0]['peak_rss_mb']:.0f}"),
        ("checkpoint MB on disk", lambda v: f"{res[(v, 'full')]['ckpt_mb']:.1f}"),
        ("resume max |dW|", lambda v: f"{max_diff(res[(v, 'full')]['weights'], res[(v, 'resumed')]['weights']):.2e}"),
        ("held-out WER / CER", lambda v: "%.3f / %.3f" % greedy_wer(a.work, res[(v, 'full')]['weights'])),
    ]:
        print(f"{label:28}{fn('ours'):>20}{fn('hf'):>24}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
