"""What the CTC trainer takes (``CTCConfig``), yields (events) and raises (``CTCTrainingError``).

Every event is a small frozen dataclass; the CLI prints them, the GUI's worker turns them into
signals. ``TrainControl`` lets another thread stop (after the current optimizer step, with a
resumable checkpoint) or pause the running trainer.
"""
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
    """Hyper-parameters and policies of one CTC fine-tuning run (defaults: see ``finetune.ctc``).

    Optimisation: ``lr`` peak learning rate of AdamW (1e-4: the transformers blog "Fine-Tune
    Wav2Vec2 for English ASR", wav2vec2-base on TIMIT; the example README uses 3e-4 for XLSR);
    ``warmup_ratio`` of the steps warm up linearly, then the rate decays linearly to 0
    (transformers ``get_linear_schedule_with_warmup``; wav2vec 2.0 paper, appendix B, warms up over
    the first 10 %); ``weight_decay`` 0.005 (same blog); ``max_grad_norm`` 1.0 (transformers
    Trainer default). One optimizer step = ``batch_size`` clips x ``grad_accum`` (x GPUs).
    Length: ``epochs`` over the training split, or ``max_steps`` optimizer steps when set.

    ``precision``: ``auto`` (BF16 on a CUDA GPU that has it, else FP16 with a GradScaler; FP32 on
    CPU) | ``fp32`` | ``fp16`` (CUDA only) | ``bf16``. ``device``: ``auto`` | ``cpu`` | ``cuda[:N]``.

    Data: ``val_count`` held-out clips (None: ``Manifest.split``'s 5 %, 1..20; 0: evaluate on the
    training clips); ``max_clip_s`` longer clips are refused (20 s: the transformers CTC example's
    ``max_duration_in_seconds``); ``uncovered``: ``"error"`` or ``"drop"`` clips whose text has
    characters outside a kept vocabulary. ``vocab``: ``auto`` (keep the base's CTC vocabulary when
    it has one, else build characters from the data) | ``base`` | ``data``; ``casing``: ``auto``
    (the base vocabulary's case; lower case for a new one) | ``lower`` | ``upper`` | ``keep``.

    Evaluation: every ``eval_every`` optimizer steps (None: once per epoch, at most 500 steps
    apart); early stop after ``patience`` evaluations without a better WER (0: never), counted once
    the WER has dropped below 1.0 (a new CTC head first outputs only blanks for a while).
    ``mask_time_prob``: override the model config's SpecAugment time-mask probability (None: keep
    the config's, e.g. 0.05 for wav2vec2-base). ``sanity_steps``: optimizer steps of the
    tiny-batch overfit check before training (0: skip the check).
    """

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
    mask_time_prob: float | None = None
    sanity_steps: int = 10
    seed: int = 0


@dataclass(frozen=True)
class InfoEvent:
    """One line for the user (``resumed from step 120``, ``built a 31-character vocabulary``)."""

    message: str


@dataclass(frozen=True)
class SanityEvent:
    """Result of the pre-flight checks (a few seconds, before the base evaluation and training).

    ``ok``: no blocking problem; ``messages``: one line per finding, problems first;
    ``vocab``: the tokens in id order; ``vocab_source``: ``"base"`` | ``"data"``;
    ``uncovered``: character -> ids of the clips whose text has it (outside the vocabulary);
    ``refused``: ``(clip id, reason)`` for clips left out (too long, text longer than the audio
    allows, unreadable); ``losses``: CTC loss per step of the tiny-batch overfit check;
    ``sample_ref`` / ``sample_hyp``: a clip's target and its greedy output after the check.
    """

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
    """WER / CER (0..1+, jiwer after ``speechstudio.metrics.normalize_text``) on ``split``
    (``"validation"`` or ``"train"`` when no clip is held out) at ``step``. ``base``: the base
    model's figures (step 0, before training); ``best``: the best so far (its checkpoint is kept);
    ``examples``: a few ``(reference, hypothesis)`` pairs; ``note``: a diagnosis (all-blank output,
    WER stuck at 1.0) or ``""``."""

    step: int
    wer: float
    cer: float
    best: bool
    base: bool = False
    split: str = "validation"
    n_clips: int = 0
    examples: tuple[tuple[str, str], ...] = ()
    note: str = ""


@dataclass(frozen=True)
class DoneEvent:
    """The run ended. ``reason``: ``"finished"`` (all epochs / max_steps), ``"early_stop"``
    (patience ran out) or ``"stopped"`` (``TrainControl.stop``; resumable). ``best_dir``: a plain
    transformers model folder (safetensors + feature extractor + tokenizer vocab.json) holding the
    best checkpoint (``RUN/model``), ``None`` when no evaluation has run yet."""

    best_dir: Path | None
    reason: str
    step: int = 0
    best_wer: float | None = None
    base_wer: float | None = None
