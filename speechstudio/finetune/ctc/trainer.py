"""The CTC fine-tuning loop: a generator of progress events (Qt-free; the CLI and GUI consume it).

Yields ``InfoEvent``s, one ``SanityEvent``, the base's ``EvalEvent(base=True)`` (fresh runs), a
``StepEvent`` per optimizer step with ``EvalEvent`` + ``CheckpointEvent`` at each evaluation, and a
``DoneEvent``. Step: length-grouped micro-batches, ``grad_accum`` per step, FP16 (GradScaler) or BF16
autocast, clipped AdamW, linear warm-up and decay; ten non-finite steps in a row stop the run. RNG
states and a (seed, epoch) data order go into each checkpoint, so on one process stop + resume is
bit-exact."""
from __future__ import annotations

import contextlib
import dataclasses
import math
import time
from pathlib import Path
from typing import Iterator

from speechstudio.errors import UsageError
from speechstudio.finetune.ctc.checkpoint import cpu_state_dict, export_best
from speechstudio.finetune.ctc.data import Collator, plan_epoch, steps_per_epoch
from speechstudio.finetune.ctc.evaluate import Decoding, diagnose, evaluate
from speechstudio.finetune.ctc.events import (CheckpointEvent, CTCConfig, CTCTrainingError, DoneEvent, EvalEvent,
                                              InfoEvent, StepEvent, TrainControl)
from speechstudio.finetune.ctc.model import autocast, ctc_loss
from speechstudio.finetune.ctc.sanity import preflight
from speechstudio.finetune.ctc.setup import prepare
from speechstudio.finetune.manifest import DatasetError
from speechstudio.finetune.parallel import Parallel, training_precision
from speechstudio.finetune.run import RunError, RunFolder, capture_rng_state, restore_rng_state, seed_all

MAX_BAD_STEPS = 10


def _check_config(c: CTCConfig) -> None:
    for name in ("epochs", "batch_size", "grad_accum"):
        if int(getattr(c, name)) < 1:
            raise UsageError(f"{name} must be at least 1, got {getattr(c, name)}")
    if c.max_steps is not None and c.max_steps < 1:
        raise UsageError(f"max_steps must be at least 1, got {c.max_steps}")
    if not (c.lr > 0 and math.isfinite(c.lr)):
        raise UsageError(f"lr must be a positive number, got {c.lr}")
    if c.uncovered not in ("error", "drop"):
        raise UsageError(f"uncovered {c.uncovered!r}: expected error or drop")


def train_ctc(run_dir, dataset_dir, base: str | None, config: CTCConfig = CTCConfig(), resume: bool = False,
              control=None) -> Iterator:
    """Fine-tune a CTC model on a prepared dataset; yield events (module docstring).

    ``run_dir``: run folder (``finetune.ctc.checkpoint``); ``dataset_dir``: prepared dataset (16 kHz
    clips; others resampled); ``base``: store name / HF id / folder (the run's when resuming);
    ``control``: ``TrainControl``.

    Raises ``UsageError`` / ``ModelNotFoundError`` (base, options), ``RunError`` (nothing to resume, or
    a run already there), ``DatasetError`` (unusable data), ``CTCTrainingError`` (sanity pass, NaN, out
    of memory, disk full; ``resume=True`` continues)."""
    import torch

    try:
        yield from _train(run_dir, dataset_dir, base, config, resume, control)
    except torch.cuda.OutOfMemoryError:  # = torch.OutOfMemoryError (torch >= 2.5); torch 2.4 has only this name
        raise CTCTrainingError("out of GPU memory outside a training step (the sanity pass or an evaluation): try a "
                               "lower --batch-size or --max-clip-s; the latest checkpoint, if any, is valid "
                               "(--resume)") from None


def _train(run_dir, dataset_dir, base, config: CTCConfig, resume: bool, control) -> Iterator:
    import torch
    from transformers import get_linear_schedule_with_warmup

    _check_config(config)
    control = control or TrainControl()
    run, dataset_dir = RunFolder(run_dir), Path(dataset_dir)
    par = Parallel(config.device)
    precision = training_precision(config.precision, par.device)
    run.check_start(resume, "output name / run folder")
    state = run.load_checkpoint("latest") if resume else None
    if state is None:
        seed_all(config.seed)
    p = prepare(run.path, dataset_dir, base, config, resumed=run.read_config() if resume else None,
                model_state=state["model"] if state else None, main=par.main)
    if par.main:
        run.start({**p.info, "train": dataclasses.asdict(config)}, resume=resume)
    model = p.model.to(par.device)
    if config.freeze_feature_encoder:
        model.freeze_feature_encoder()
    if config.gradient_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    bs, accum = config.batch_size, config.grad_accum
    collator = Collator(p.feature_extractor)
    decoding = Decoding.from_tokenizer(p.tokenizer, model.config.vocab_size)
    eval_items, split = (p.val, "validation") if p.val else (p.train, "train")
    ev = dict(device=par.device, precision=precision, batch_size=bs, language=p.info["language"])
    if len(p.train) < bs * par.world:
        raise DatasetError(f"{dataset_dir / 'manifest.json'}: {len(p.train)} usable training clips, fewer than one "
                           f"batch of {bs}{f' x {par.world} processes' if par.world > 1 else ''}; add clips or use "
                           f"--batch-size {max(1, len(p.train) // par.world)}")
    spe = steps_per_epoch(len(p.train), bs, accum, par.world)
    total = int(config.max_steps or config.epochs * spe)
    eval_every = int(config.eval_every or max(1, min(spe, 500)))
    yield InfoEvent(f"{len(p.train)} training clips, {len(eval_items)} {split} clips; {spe} steps per epoch, "
                    f"{total} steps; {precision} on {par.device}" + (f" x {par.world} processes" if par.world > 1 else ""))

    if state is None:
        rng = capture_rng_state()
        try:
            yield from preflight(p, model, collator, decoding, config, precision, par.device, par.main, eval_items)
        finally:
            restore_rng_state(rng)
        base_res = evaluate(model, eval_items, collator, decoding, **ev) if par.main else None
        base_wer, base_cer = (base_res.wer, base_res.cer) if base_res else (None, None)
        if base_res is not None:
            note = "the base has no CTC head for this vocabulary (random head)" if p.new_head else ""
            yield EvalEvent(0, base_res.wer, base_res.cer, False, True, split, len(eval_items),
                            tuple(zip(base_res.refs[:3], base_res.hyps[:3])), note, "new_head" if note else "")
        par.barrier()
        seed_all(config.seed + par.rank)
    else:
        base_wer, base_cer = state["base_wer"], state["base_cer"]
        yield InfoEvent(f"resumed from step {state['step']}")

    ddp = par.wrap(model)
    params = [q for q in model.parameters() if q.requires_grad]
    # weight decay on matrices, none on biases and norm scales (transformers Trainer)
    groups = [{"params": [q for q in params if q.ndim >= 2], "weight_decay": config.weight_decay},
              {"params": [q for q in params if q.ndim < 2], "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=config.lr, betas=(0.9, 0.999), eps=1e-8)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(round(config.warmup_ratio * total)), total)
    scaler = torch.amp.GradScaler("cuda", enabled=precision == "fp16")
    step = epoch = micro = bad_evals = bad_steps = 0
    best_wer = best_cer = None
    history: list[float] = []
    if state is not None:
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        scaler.load_state_dict(state["scaler"])
        step, epoch, micro = state["step"], state["epoch"], state["micro"]
        if state["batch_size"] != bs:  # e.g. after an out-of-memory error: keep the position in clips
            micro = (micro * state["batch_size"]) // bs
        best_wer, best_cer, bad_evals = state["best_wer"], state["best_cer"], state["bad_evals"]
        history = list(state["history"])
        restore_rng_state(state["rng"])
        del state

    def save(position: int, rng: dict, best: dict | None) -> Path:
        weights = cpu_state_dict(model)
        try:
            if best is not None:
                run.save_checkpoint({"model": weights, "step": step, **best}, "best")
            return run.save_checkpoint(
                {"model": weights, "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                 "scaler": scaler.state_dict(), "rng": rng, "step": step, "epoch": epoch, "micro": position,
                 "batch_size": bs, "grad_accum": accum, "world": par.world, "total": total, "best_wer": best_wer,
                 "best_cer": best_cer, "bad_evals": bad_evals, "history": history, "base_wer": base_wer,
                 "base_cer": base_cer}, "latest")
        except RunError as exc:
            raise CTCTrainingError(f"{exc}: free some space, then resume (--resume)") from exc

    writer = run.tensorboard(purge_step=step + 1 if resume else None) if par.main else None
    if writer is not None and not resume and base_wer is not None:
        writer.add_scalar("eval/wer", base_wer, 0)
        writer.add_scalar("eval/cer", base_cer, 0)
    clip_lengths = [it.n_samples for it in p.train]
    seed = int(p.info["seed"])
    reason, t0, step0 = "finished", time.monotonic(), step
    ddp.train()
    try:
        while step < total and reason == "finished":
            batches = plan_epoch(clip_lengths, bs, seed, epoch, par.world, par.rank)
            while micro < len(batches) and step < total:
                while control.pause.is_set() and not control.stop.is_set():
                    time.sleep(0.1)
                group = batches[micro:micro + accum]
                rng_before = capture_rng_state()
                loss_sum = 0.0
                try:
                    for j, idx in enumerate(group):
                        inputs, labels, n_samples = collator.on(par.device, [p.train[i] for i in idx])
                        with par.no_sync(ddp, skip=j < len(group) - 1):
                            with autocast(par.device, precision):
                                logits = ddp(**inputs).logits
                            loss = ctc_loss(model, logits, labels, n_samples) / len(group)
                            scaler.scale(loss).backward()
                        loss_sum += float(loss.detach().float())
                except torch.cuda.OutOfMemoryError:
                    raise _oom_error(optimizer, par, p, group, collator, config, precision, step,
                                     lambda: save(micro, rng_before, None)) from None
                scaler.unscale_(optimizer)
                norm = torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
                finite = math.isfinite(loss_sum) and bool(torch.isfinite(norm))
                if precision == "fp16":
                    scaler.step(optimizer)  # skips the update itself when gradients are inf / NaN
                    scaler.update()
                elif finite:
                    optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                scheduler.step()
                step, micro = step + 1, micro + len(group)
                bad_steps = 0 if finite else bad_steps + 1
                if par.any(bad_steps >= MAX_BAD_STEPS):
                    raise CTCTrainingError(
                        f"the CTC loss was NaN / inf for {MAX_BAD_STEPS} steps in a row (step {step}, {precision}, "
                        f"lr {config.lr:g}): try --precision fp32 or bf16, a lower --lr, and check the clips "
                        "(silence, clipping, texts that do not match); the last checkpoint is valid (--resume)")
                loss_mean, lr = par.mean_dict({"loss": loss_sum})["loss"], scheduler.get_last_lr()[0]
                rate = (step - step0) / max(1e-9, time.monotonic() - t0)
                if writer is not None:
                    writer.add_scalar("train/loss", loss_mean, step)
                    writer.add_scalar("train/lr", lr, step)
                    writer.add_scalar("train/grad_norm", float(norm), step)
                yield StepEvent(step, total, loss_mean, lr, rate, (total - step) / rate if rate > 0 else math.inf, epoch)
                stop = par.any(control.stop.is_set())
                if step % eval_every == 0 or step == total:
                    early = False
                    if par.main:
                        res = evaluate(model, eval_items, collator, decoding, **ev)
                        improved = best_wer is None or (res.wer, res.cer) < (best_wer, best_cer)
                        if improved:
                            best_wer, best_cer, bad_evals = res.wer, res.cer, 0
                        elif best_wer < 1.0:  # patience counts once the model emits text (past the all-blank phase)
                            bad_evals += 1
                        history.append(res.wer)
                        if writer is not None:
                            writer.add_scalar("eval/wer", res.wer, step)
                            writer.add_scalar("eval/cer", res.cer, step)
                            writer.flush()
                        kind, note = diagnose(res, history, step, spe)
                        event = EvalEvent(step, res.wer, res.cer, improved, False, split, len(eval_items),
                                          tuple(zip(res.refs[:3], res.hyps[:3])), note, kind)
                        run.log(f"step {step}: WER {res.wer:.4f} CER {res.cer:.4f}{' (best)' if improved else ''}")
                        yield event
                        path = save(micro, capture_rng_state(), {"wer": res.wer, "cer": res.cer} if improved else None)
                        yield CheckpointEvent(step, path, "latest+best" if improved else "latest")
                        early = bool(config.patience) and bad_evals >= config.patience
                    par.barrier()
                    if par.any(early):
                        reason = "early_stop"
                        break
                elif stop and par.main:
                    yield CheckpointEvent(step, save(micro, capture_rng_state(), None), "latest")
                if stop:
                    reason = "stopped"
                    break
            if micro >= len(batches):
                epoch, micro = epoch + 1, 0
        best_dir = export_best(run) if par.main else None
        par.barrier()
        if par.main:
            run.log(f"done ({reason}) at step {step}: best WER {best_wer}, base WER {base_wer}")
        yield DoneEvent(best_dir, reason, step, best_wer, base_wer)
    finally:
        if writer is not None:
            writer.close()


def _oom_error(optimizer, par, p, group, collator, config, precision, step, save_start) -> CTCTrainingError:
    """Free what the failed step holds, save a checkpoint of the step's start (``save_start``), and
    word the advice: a smaller batch with more accumulation, gradient checkpointing, shorter clips."""
    import torch

    optimizer.zero_grad(set_to_none=True)
    if par.is_cuda:
        torch.cuda.empty_cache()
    longest = max(p.train[i].n_samples for idx in group for i in idx) / collator.rate
    saved = ""
    if par.main:
        with contextlib.suppress(CTCTrainingError):
            save_start()
            saved = f"; a checkpoint of step {step} was saved"
    bs, accum = config.batch_size, config.grad_accum
    hints = [f"--batch-size {max(1, bs // 2)} --grad-accum {accum * 2} (same effective batch)"]
    if not config.gradient_checkpointing:
        hints.append("--gradient-checkpointing")
    hints.append(f"a lower clip length limit (the longest clip in this batch is {longest:.1f} s)")
    return CTCTrainingError(f"out of GPU memory at step {step + 1} (batch of {bs} clips, {precision}){saved}: try "
                            f"{', or '.join(hints)}; then resume (--resume)")
