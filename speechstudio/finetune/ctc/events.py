"""What the CTC trainer takes (``CTCConfig``), yields (small frozen dataclasses, printed by the CLI and
turned into signals by the GUI's worker) and raises (``CTCTrainingError``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from speechstudio.errors import SpeechStudioError
from speechstudio.finetune.events import CheckpointEvent, TrainControl

__all__ = ["CTCConfig", "CTCTrainingError", "TrainControl", "InfoEvent", "SanityEvent", "StepEvent", "EvalEvent",
           "CheckpointEvent", "DoneEvent"]


class CTCTrainingError(SpeechStudioError):
    """Training cannot go on (NaN loss, out of memory, disk full, failed sanity pass); the message
    says which and what to try; the last checkpoint stays valid, so ``resume=True`` continues."""


@dataclass(frozen=True)
class CTCConfig:
    """Hyper-parameters and policies of one CTC fine-tuning run (the defaults' sources: ``finetune.ctc``).

    A step is ``batch_size`` x ``grad_accum`` (x GPUs) clips; ``epochs`` or ``max_steps``; linear warm-up
    over ``warmup_ratio`` of the steps. ``precision``: ``auto|fp32|fp16|bf16``; ``device``:
    ``auto|cpu|cuda[:N]``. ``val_count`` (None: 5 %, 1..20; 0: the training clips); ``max_clip_s`` 20 s
    (transformers CTC example); ``uncovered``: ``"error"`` | ``"drop"``; ``vocab``: ``auto|base|data``;
    ``casing``: ``auto|lower|upper|keep``. ``eval_every`` (None: per epoch, <= 500 steps); ``patience``
    evaluations without a better WER once below 1.0 (0: never); ``sanity_steps`` of the overfit check
    (0: skip). SpecAugment is the base config's."""

    epochs: int = 20
    max_steps: int | None = None
    lr: float = 1e-4
    batch_size: int = 8
    grad_accum: int = 1
    precision: str = "auto"
    device: str = "auto"
    freeze_feature_encoder: bool = True
    gradient_checkpointing: bool = False
    warmup_ratio: float = 0.1
    weight_decay: float = 0.005
    max_grad_norm: float = 1.0
    eval_every: int | None = None
    patience: int = 5
    val_count: int | None = None
    max_clip_s: float = 20.0
    uncovered: str = "error"
    vocab: str = "auto"
    casing: str = "auto"
    sanity_steps: int = 10
    seed: int = 0


@dataclass(frozen=True)
class InfoEvent:
    """One line for the user (``resumed from step 120``, ``built a 31-character vocabulary``)."""

    message: str


@dataclass(frozen=True)
class SanityEvent:
    """Pre-flight check result: ``ok``, ``messages`` (problems first), ``vocab`` (tokens by id),
    ``vocab_source``, ``uncovered`` (character -> clip ids), ``refused`` ``(clip id, reason)``,
    ``losses`` of the tiny-batch overfit, ``sample_ref`` / ``sample_hyp``."""

    ok: bool
    messages: tuple[str, ...]
    vocab: tuple[str, ...] = ()
    vocab_source: str = ""
    uncovered: dict = field(default_factory=dict)
    refused: tuple[tuple[str, str], ...] = ()
    losses: tuple[float, ...] = ()
    sample_ref: str = ""
    sample_hyp: str = ""
    train_clips: int = 0
    val_clips: int = 0


@dataclass(frozen=True)
class StepEvent:
    """After each optimizer step: ``loss`` (CTC, mean over the step's clips), ``lr``, speed since
    the (re)start in optimizer steps per second, ``eta_s`` seconds to ``total`` steps."""

    step: int
    total: int
    loss: float
    lr: float
    steps_per_s: float
    eta_s: float
    epoch: int = 0


@dataclass(frozen=True)
class EvalEvent:
    """WER / CER (jiwer after ``normalize_text``) on ``split`` at ``step``; ``base``: step-0 figures;
    ``best`` so far; ``examples`` ``(reference, hypothesis)``; ``note``: a diagnosis or ``""``, of ``note_kind``
    (``"new_head"`` on the base's, else :func:`~speechstudio.finetune.ctc.evaluate.diagnose`'s kinds)."""

    step: int
    wer: float
    cer: float
    best: bool
    base: bool = False
    split: str = "validation"
    n_clips: int = 0
    examples: tuple[tuple[str, str], ...] = ()
    note: str = ""
    note_kind: str = ""


@dataclass(frozen=True)
class DoneEvent:
    """The run ended: ``reason`` ``"finished"`` | ``"early_stop"`` | ``"stopped"`` (resumable);
    ``best_dir``: the best checkpoint as a plain transformers folder (``RUN/model``), None before any
    evaluation."""

    best_dir: Path | None
    reason: str
    step: int = 0
    best_wer: float | None = None
    base_wer: float | None = None
