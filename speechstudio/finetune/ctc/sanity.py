"""Pre-flight check of a CTC fine-tune: a few optimizer steps on the two shortest training clips in eval
mode (no SpecAugment, no dropout), then greedy decoding of that batch; the weights are restored exactly
afterwards. Catches a NaN / inf loss (precision, learning rate, broken audio) and a loss that does not
fall (learning rate, labels that do not match), and warns about an all-blank output."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Iterator, Sequence

from speechstudio.finetune.ctc.checkpoint import cpu_state_dict
from speechstudio.finetune.ctc.data import Collator, Item
from speechstudio.finetune.ctc.evaluate import Decoding
from speechstudio.finetune.ctc.events import CTCTrainingError, SanityEvent
from speechstudio.finetune.ctc.model import autocast, ctc_loss, output_frames
from speechstudio.finetune.ctc.vocab import describe_chars
from speechstudio.finetune.manifest import DatasetError


@dataclass(frozen=True)
class OverfitResult:
    """``losses`` per step; ``ok``; ``problem`` (blocking, ``""`` if none); ``warning`` (not
    blocking); ``ref`` / ``hyp``: the first clip's target and greedy output after the steps."""

    losses: tuple[float, ...]
    ok: bool
    problem: str
    warning: str
    ref: str
    hyp: str


#: FP16 updates the check may lose to GradScaler overflow skips on top of ``steps``: the scale starts at
#: 2**16 (``torch.amp.GradScaler``'s ``init_scale``) and halves on each skip, so 17 skips reach 0.5.
MAX_SKIPPED_STEPS = 17


def overfit_check(model, items: Sequence[Item], collator: Collator, decoding: Decoding, *, device: str,
                  precision: str, lr: float, steps: int, time_budget_s: float = 15.0) -> OverfitResult:
    """Train ``model`` (unwrapped, on ``device``) for up to ``steps`` AdamW steps at ``lr`` on the
    two shortest ``items`` (stopping early after ``time_budget_s`` seconds), then restore its weights bit
    for bit; the caller saves and restores the RNG states. ``losses``: one per applied update (an FP16
    update the GradScaler skips is retried, up to ``MAX_SKIPPED_STEPS`` times: docs/finetune_asr.md)."""
    import torch

    batch_items = sorted(items, key=lambda it: it.n_samples)[:2]
    snapshot = cpu_state_dict(model)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    scaler = torch.amp.GradScaler("cuda", enabled=precision == "fp16")
    inputs, labels, input_lengths = collator.on(device, batch_items)
    lengths = input_lengths.tolist()
    losses: list[float] = []
    was_training = model.training
    model.eval()
    start = time.monotonic()
    attempts = 0
    try:
        while len(losses) < steps and attempts < steps + MAX_SKIPPED_STEPS:
            attempts += 1
            with autocast(device, precision):
                logits = model(**inputs).logits
            loss = ctc_loss(model, logits, labels, input_lengths)
            value = float(loss.detach().float())
            if not math.isfinite(value):
                losses.append(value)
                break
            scale = scaler.get_scale()
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            if scaler.get_scale() < scale:
                # FP16: the scaled gradients overflowed, the scaler skipped this update and lowered
                # its scale; the weights did not change, so this loss is not a step of the check
                continue
            losses.append(value)
            if time.monotonic() - start > time_budget_s and len(losses) >= 3:
                break
        with torch.inference_mode(), autocast(device, precision):
            logits = model(**inputs).logits.float()
        hyp = decoding.texts(logits, [output_frames(model, n) for n in lengths])[0]
    finally:
        optimizer.zero_grad(set_to_none=True)
        del optimizer
        model.load_state_dict(snapshot)
        model.train(was_training)
    ref = batch_items[0].target
    problem = warning = ""
    if steps > 0 and not losses:
        problem = (f"every update of the tiny-batch check overflowed in {precision} ({attempts} GradScaler skips): "
                   "try --precision bf16 or fp32, or a lower --lr")
    elif not all(math.isfinite(v) for v in losses):
        problem = (f"NaN / inf CTC loss at sanity step {len(losses)} of a tiny batch ({precision}): "
                   "try --precision fp32 (or bf16), a lower --lr, and check the clips for silence or clipping")
    elif len(losses) >= 2 and not (losses[-1] < losses[0] or losses[0] < 0.05):
        problem = (f"the CTC loss did not fall while overfitting a tiny batch ({losses[0]:.3f} -> {losses[-1]:.3f} "
                   f"in {len(losses)} steps at lr {lr:g}): try a higher --lr, and check that the texts match the audio")
    elif not hyp.strip():
        warning = ("greedy output is still empty (all CTC blank) after the tiny-batch check: normal for a new CTC "
                   "head at first; if the evaluations keep showing empty output, raise --lr or train longer")
    return OverfitResult(tuple(losses), not problem, problem, warning, ref, hyp)


def preflight(p, model, collator: Collator, decoding: Decoding, config, precision: str, device: str, main: bool,
              eval_items: Sequence[Item]) -> Iterator[SanityEvent]:
    """The sanity pass of a fresh run: vocabulary coverage, refused clips, rare characters and (main
    process) the tiny-batch overfit check, reported as one ``SanityEvent``; then raises
    ``DatasetError`` (uncovered characters, ``config.uncovered == "error"``) or
    ``CTCTrainingError`` (NaN loss, loss not falling) when something blocks the run.
    ``p``: the run's ``setup.Prepared``. The caller saves / restores the RNG states around it."""
    problems, notes = [], []
    if p.uncovered:
        msg = f"characters outside the vocabulary of the base: {describe_chars(p.uncovered)}"
        if config.uncovered == "error":
            problems.append(msg + " — fix those texts, build a new vocabulary (--new-vocab) or drop those clips "
                                  "(--drop-uncovered)")
        else:
            notes.append(msg + " — those clips are left out")
    for what, clips in (("left out", [f"{i}: {why}" for i, why in p.refused if "outside the vocabulary" not in why]),
                        ("flagged in the dataset and left out", [f"{i} ({flags})" for i, flags in p.flagged])):
        if clips:
            notes.append(f"{len(clips)} clip(s) {what}: {'; '.join(clips[:5])}" + (" ..." if len(clips) > 5 else ""))
    if p.rare:
        notes.append(f"characters seen in one clip only (typo?): {describe_chars(p.rare)}")
    result = None
    if not problems and config.sanity_steps > 0 and main:
        result = overfit_check(model, p.train, collator, decoding, device=device, precision=precision,
                               lr=config.lr, steps=config.sanity_steps)
        if result.problem:
            problems.append(result.problem)
        elif result.warning:
            notes.append(result.warning)
        else:
            notes.append(f"tiny-batch check: loss {result.losses[0]:.3f} -> {result.losses[-1]:.3f} in "
                         f"{len(result.losses)} steps, output {result.hyp!r}")
    vocab = tuple(sorted(p.vocab, key=p.vocab.get))
    notes.insert(0, f"vocabulary: {len(vocab)} tokens from the {p.info['vocab_source']} ({p.info['casing']} case): "
                    + "".join(t for t in vocab if len(t) == 1))
    yield SanityEvent(not problems, tuple(problems + notes), vocab, p.info["vocab_source"], dict(p.uncovered),
                      tuple(p.refused), result.losses if result else (), result.ref if result else "",
                      result.hyp if result else "", len(p.train), len(eval_items))
    if problems:
        if p.uncovered and config.uncovered == "error":
            raise DatasetError(f"{p.info['dataset']}/manifest.json: {problems[0]}")
        raise CTCTrainingError(f"sanity check failed: {problems[0]}")
