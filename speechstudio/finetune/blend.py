"""A blend of the base voice and a fine-tuned checkpoint in weight space: WiSE-FT (Wortsman et al.,
"Robust fine-tuning of zero-shot models", CVPR 2022): ``theta = (1 - alpha) theta_base + alpha
theta_tuned``, for every floating-point tensor of the generator. ``alpha`` 0 is the base voice (at the
run's rate), 1 the checkpoint; in between the naturalness of the base is traded back for similarity
(the curve of a run: ``bench/clone_blend.py``). The base is the run's ``step_0`` snapshot, so both
share one architecture and one sample rate. Qt-free."""
from __future__ import annotations

from pathlib import Path

from speechstudio.finetune.vits.trained import load_checkpoint_state, load_trained_generator


def blend_name(alpha: float, which: str = "best") -> str:
    """The table's name of a blend, e.g. ``blend_0.3`` (of ``best``) or ``blend_0.3_step_300``."""
    return f"blend_{alpha:g}" + ("" if which == "best" else f"_{which}")


def blend_states(base: dict, tuned: dict, alpha: float) -> dict:
    """``{name: (1 - alpha) base + alpha tuned}`` of two generator ``state_dict``s with the same keys and
    shapes (integer tensors from ``tuned``). Raises ``ValueError`` for ``alpha`` outside [0, 1] or
    state dicts of different networks."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"blend must be between 0 (the base voice) and 1 (the checkpoint), not {alpha}")
    if base.keys() != tuned.keys() or any(base[k].shape != tuned[k].shape for k in tuned):
        raise ValueError("the base and the checkpoint are different networks: they cannot be blended")
    return {k: (base[k].float() + alpha * (v.float() - base[k].float()) if v.is_floating_point() else v)
            for k, v in tuned.items()}


def blend_generator(run_dir: Path, alpha: float, which: str = "best"):
    """``(VitsModel, BaseInfo)``: checkpoint ``which`` of run ``run_dir`` blended ``alpha`` of the way
    from the base (``step_0``). Raises ``RunError`` (no ``step_0``: a run from an older version or
    without the clone judge; missing checkpoint), ``ValueError`` (bad ``alpha``)."""
    base = load_checkpoint_state(run_dir, "step_0")
    tuned = load_checkpoint_state(run_dir, which)
    state = dict(tuned, generator=blend_states(base["generator"], tuned["generator"], alpha))
    return load_trained_generator(run_dir, which, state=state)
