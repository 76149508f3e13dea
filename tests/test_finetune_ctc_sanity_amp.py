"""The CTC sanity pass (tiny-batch overfit check) under FP16 loss scaling: updates the GradScaler
skips (gradient overflow, as in the first steps of every FP16 run while the scale comes down
from 2**16) are retried, not counted as steps whose loss did not fall (issue 32: an FP16 run on a
GPU was refused with "the CTC loss did not fall" when its first updates overflowed).

CPU stand-in for the GPU: ``torch.amp.GradScaler`` is replaced, for the sanity pass only, by a
scaler that "overflows" on its first ``skips`` updates (no optimizer step, scale halved), exactly
what the real one does on CUDA; the rest of the run uses the real (FP32: disabled) scaler.
"""
from __future__ import annotations

from dataclasses import replace

import pytest
import torch
from test_finetune_ctc import LEARN, words  # noqa: F401  (the joe-voice words dataset fixture)

from speechstudio.finetune.ctc import CTCTrainingError, SanityEvent, train_ctc
from speechstudio.finetune.ctc.sanity import MAX_SKIPPED_STEPS


class OverflowingScaler:
    """``torch.amp.GradScaler``'s interface; its first ``skips`` updates overflow (skipped)."""

    def __init__(self, skips: int) -> None:
        self.left, self.scale_, self.updates, self.applied = skips, 2.0 ** 16, 0, 0

    def get_scale(self) -> float:
        return self.scale_

    def scale(self, loss):
        return loss

    def unscale_(self, optimizer) -> None:
        pass

    def step(self, optimizer) -> None:
        if not self.left:
            optimizer.step()
            self.applied += 1

    def update(self) -> None:
        self.updates += 1
        if self.left:
            self.left -= 1
            self.scale_ /= 2


# (updates that overflow, sanity steps asked) -> the check must still see that many applied steps
CASES = [(0, 3), (2, 3), (5, 3), (MAX_SKIPPED_STEPS, 3)]


@pytest.mark.parametrize("skips, steps", CASES, ids=[f"{s}-skipped" for s, _ in CASES])
def test_skipped_fp16_updates_are_retried_not_counted(skips, steps, words, tiny_w2v_dir, tmp_path, monkeypatch):
    made = _patch_first_scaler(monkeypatch, skips)
    cfg = replace(LEARN, max_steps=1, lr=1e-3, batch_size=2, val_count=1, eval_every=1, patience=0, sanity_steps=steps)
    events = list(train_ctc(tmp_path / "run", words, str(tiny_w2v_dir), cfg))
    sanity = next(e for e in events if isinstance(e, SanityEvent))
    scaler = made[0]
    assert (scaler.updates, scaler.applied) == (skips + steps, steps)
    assert sanity.ok and len(sanity.losses) == steps
    assert sanity.losses[-1] < sanity.losses[0]


def test_an_fp16_check_whose_every_update_overflows_stops_the_run(words, tiny_w2v_dir, tmp_path, monkeypatch):
    made = _patch_first_scaler(monkeypatch, 1000)
    cfg = replace(LEARN, max_steps=1, batch_size=2, val_count=1, eval_every=1, patience=0, sanity_steps=3)
    events = []
    with pytest.raises(CTCTrainingError, match=r"^sanity check failed: every update of the tiny-batch check "
                       r"overflowed in fp32 \(20 GradScaler skips\): try --precision bf16 or fp32, or a lower --lr$"):
        for ev in train_ctc(tmp_path / "run", words, str(tiny_w2v_dir), cfg):
            events.append(ev)
    assert made[0].updates == 3 + MAX_SKIPPED_STEPS
    sanity = next(e for e in events if isinstance(e, SanityEvent))
    assert not sanity.ok and sanity.losses == ()


def _patch_first_scaler(monkeypatch, skips: int) -> list:
    """The first ``torch.amp.GradScaler(...)`` made (the sanity pass's) is an
    :class:`OverflowingScaler`; later ones (the trainer's) are real. Returns the fakes made."""
    real, made = torch.amp.GradScaler, []

    def factory(*args, **kwargs):
        if made:
            return real(*args, **kwargs)
        made.append(OverflowingScaler(skips))
        return made[0]

    monkeypatch.setattr(torch.amp, "GradScaler", factory)
    return made
