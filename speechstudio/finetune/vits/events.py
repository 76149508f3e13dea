"""Events the VITS trainer yields (small frozen dataclasses) and the ``TrainControl`` it obeys; the CLI
prints them, the GUI's worker turns them into Qt signals."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from speechstudio.finetune.events import CheckpointEvent, TrainControl

__all__ = ["StageEvent", "StepEvent", "EvalEvent", "SampleEvent", "CheckpointEvent", "DoneEvent", "TrainControl"]


@dataclass(frozen=True)
class StageEvent:
    """A stage starts or has news: ``stage`` is ``"prepare"`` (reading clips, caching features;
    skipped clips are listed in ``message``), ``"warmup"`` (posterior encoder only),
    ``"discriminator"`` (the fresh discriminator only) or ``"train"`` (full GAN training);
    ``message`` is one or more human-readable lines; ``steps``: ``(first, last)`` step of a training
    stage as it starts, else ``()``."""

    stage: str
    message: str
    steps: tuple = ()


@dataclass(frozen=True)
class StepEvent:
    """After each optimizer step. ``losses``: name -> float (unweighted terms: ``mel`` (L1 of
    log-mel), ``kl``, ``dur``, ``gen``, ``fm``, ``disc``; ``total_g`` weighted sum); ``steps_per_s``
    over the recent steps; ``eta_s``: seconds to ``total_steps`` at that rate; ``lr``: the
    generator's current learning rate; ``step_s``: this step's seconds (no evaluation, checkpoint
    or pause in it)."""

    step: int
    total_steps: int
    losses: dict
    steps_per_s: float
    eta_s: float
    lr: float
    stage: str = "train"
    step_s: float = 0.0


@dataclass(frozen=True)
class EvalEvent:
    """Validation result. ``val_mel_loss``: mean L1 of log-mel over the validation clips,
    synthesised from their text with aligned durations (see ``step.evaluate``); ``best``: lowest so
    far (``best.pt`` was just written); ``overtraining``: a warning text when the loss rose for
    ``patience`` evaluations in a row, else ``""``. ``closeness``: ``finetune.closeness.Closeness.to_dict``
    of the voice speaking validation texts (``TrainConfig.judge_clone``; None without it), and
    ``closeness_text`` its plain words with advice; ``best`` then means the best ``Closeness.score``."""

    step: int
    val_mel_loss: float
    best: bool
    overtraining: str = ""
    closeness: dict | None = None
    closeness_text: str = ""


@dataclass(frozen=True)
class SampleEvent:
    """Audio written at a checkpoint: ``paths`` = ``run_dir/samples/step_N_*.wav`` (a fixed
    sentence, then one of the user's validation texts)."""

    step: int
    paths: list = field(default_factory=list)


@dataclass(frozen=True)
class DoneEvent:
    """The run ended: ``reason`` ``"finished"`` (all steps) or ``"stopped"`` (``control.stop``);
    ``best_path``: the checkpoint to export (``checkpoints/best.pt``)."""

    step: int
    best_path: Path | None
    reason: str
