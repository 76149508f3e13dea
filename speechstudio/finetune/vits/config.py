"""``TrainConfig``: the settings of a VITS fine-tuning run, with the source of every default.

AdamW lr 2e-4, ``ADAMW`` betas, eps and weight decay (VITS ``configs/ljs_base.json``, Piper
``lightning.py``); after the warm-up the generator runs at ``generator_lr`` 2e-5. VITS' per-epoch lr
decay ``LR_DECAY`` is applied per step as ``LR_DECAY ** (1 / LJS_STEPS_PER_EPOCH)``. ``freeze_prior``
follows HiFi-GAN fine-tuning on teacher-forced mels (Kong et al. 2020). Measurements behind the
defaults: ``docs/finetune_voice.md``."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from speechstudio.errors import UsageError

#: Optimizer steps per epoch of VITS' LJSpeech recipe (13,100 clips / batch 64, rounded).
LJS_STEPS_PER_EPOCH = 205
#: AdamW settings and per-epoch lr decay of VITS ``configs/ljs_base.json``.
ADAMW, LR_DECAY = {"betas": (0.8, 0.99), "eps": 1e-9, "weight_decay": 0.01}, 0.999875
#: The warm-up's generator lr (the fresh posterior encoder), reached linearly over the first steps.
WARMUP_LR, WARMUP_RAMP_STEPS = 1e-3, 30


@dataclass(frozen=True)
class TrainConfig:
    """Settings of one run (JSON, ``run_dir/config.json``). ``steps`` includes the warm-up;
    ``warmup_steps`` None = 10 % (50..1000, at most half) without a posterior encoder, else 0.

    ``precision``: ``auto|fp32|fp16|bf16``; ``segment_size`` in samples (VITS 8192); ``eval_every`` /
    ``checkpoint_every`` in steps; ``patience``: rising evaluations before a warning; ``stft_weight``:
    multi-resolution STFT loss (Parallel WaveGAN; 0 = off); ``judge_clone``: best checkpoint by
    ``closeness.Closeness.score`` among those ``closeness.natural_enough``, and the run ends when
    ``closeness.trade_stalled``; ``discriminator_width``: fraction of VITS' channels."""

    steps: int = 2000
    warmup_steps: int | None = None
    batch_size: int = 8
    grad_accum: int = 1
    precision: str = "auto"
    lr: float = 2e-4
    segment_size: int = 8192
    eval_every: int = 200
    checkpoint_every: int = 200
    patience: int = 3
    seed: int = 1234
    device: str = "auto"
    gradient_checkpointing: bool = False
    val_count: int | None = None
    discriminator_width: float = 1.0
    freeze_prior: bool = True
    stft_weight: float = 20.0
    generator_lr: float | None = 2e-5
    pitch_by_rate: bool = True
    judge_clone: bool = False
    disc_warmup_steps: int | None = None

    def __post_init__(self):
        for name in ("steps", "batch_size", "grad_accum", "eval_every", "checkpoint_every", "patience"):
            if int(getattr(self, name)) < 1:
                raise UsageError(f"{name} must be at least 1 (got {getattr(self, name)})")
        if self.warmup_steps is not None and not 0 <= self.warmup_steps <= self.steps:
            raise UsageError(f"warmup_steps must be between 0 and steps={self.steps} (got {self.warmup_steps})")
        if self.disc_warmup_steps is not None and not 0 <= int(self.disc_warmup_steps) <= self.steps:
            raise UsageError(f"disc_warmup_steps must be between 0 and steps={self.steps} (got {self.disc_warmup_steps})")
        if self.generator_lr is not None and not self.generator_lr > 0:
            raise UsageError(f"generator_lr must be > 0 or None (got {self.generator_lr})")
        if not self.lr > 0:
            raise UsageError(f"lr must be > 0 (got {self.lr})")
        if self.precision not in ("auto", "fp32", "fp16", "bf16"):
            raise UsageError(f"unknown precision {self.precision!r} (use auto, fp32, fp16 or bf16)")
        if not 0 < self.discriminator_width <= 4:
            raise UsageError(f"discriminator_width must be in (0, 4] (got {self.discriminator_width})")

    @property
    def lr_gamma(self) -> float:
        """Per-optimizer-step lr factor: ``LR_DECAY ** (1 / LJS_STEPS_PER_EPOCH)``."""
        return LR_DECAY ** (1.0 / LJS_STEPS_PER_EPOCH)

    def warmup_for(self, has_posterior: bool) -> int:
        """Warm-up steps for a base with (``True``) or without a trained posterior encoder."""
        if self.warmup_steps is not None:
            return int(self.warmup_steps)
        if has_posterior:
            return 0
        # at most half of the run: a short run (--steps 50) still trains the decoder on the new voice
        return int(min(1000, max(50, round(0.1 * self.steps)), self.steps // 2))

    def disc_warmup_for(self, has_posterior: bool, fresh_discriminator: bool = True) -> int:
        """Discriminator-only steps after the warm-up: ``disc_warmup_steps`` if set, else 0 for a
        trained discriminator, else a Piper warm-up's count capped at a third of the steps left."""
        left = max(0, int(self.steps) - self.warmup_for(has_posterior))
        if self.disc_warmup_steps is not None:
            return min(int(self.disc_warmup_steps), left)
        return min(int(min(1000, max(50, round(0.1 * self.steps)))), left // 3) if fresh_discriminator else 0

    def to_dict(self) -> dict:
        return asdict(self)
