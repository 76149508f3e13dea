"""``TrainConfig``: the settings of a VITS fine-tuning run, with the source of every default.

Optimizer (VITS configs/ljs_base.json, ``train.py``; Piper ``lightning.py`` the same for the
generator): AdamW, lr 2e-4, betas (0.8, 0.99), eps 1e-9, weight decay 0.01 (``torch.optim.AdamW``'s
default, which VITS keeps), for both the generator and the discriminator; when fine-tuning,
the base's generator runs at ``generator_lr`` = 2e-5 after the warm-up (below).

Learning-rate decay: VITS multiplies the lr by ``lr_decay = 0.999875`` once per *epoch*
(``ExponentialLR`` stepped per epoch; Piper too). An epoch of LJSpeech at VITS' batch size is
13,100 clips / 64 = ~205 optimizer steps, so we decay per optimizer step by
``lr_decay ** (1 / LJS_STEPS_PER_EPOCH)``: the lr follows the same curve over optimizer steps as
in VITS, independent of the size of the user's (much smaller) dataset. Over 10,000 steps that is
a factor 0.994 (VITS' decay only matters over its ~800k-step runs). The rate of step ``n`` is
``lr * lr_gamma ** n`` (``step.VitsTraining.lr_at``), ``warmup_lr`` instead of ``lr`` in the warm-up
and ``generator_lr`` for the generator after it.

Generator lr when fine-tuning (``generator_lr`` = 2e-5, a tenth of VITS' 2e-4; the fresh
discriminator keeps 2e-4): VITS' 2e-4 is a rate for training from scratch, and at it training the
decoder wiped out the base decoder's pitch rendering within ~250 steps (one pulse per latent frame,
the 86 Hz "F0" of early clones); at 2e-5 the contour survives and the envelope is learnt as fast.

Stages for a base without a trained posterior encoder (Piper ``.onnx`` voices):

1. ``warmup`` (``warmup_steps``): only the new posterior encoder, at ``warmup_lr`` = 1e-3 (it
   trains from scratch), reached by a linear ramp over ``warmup_ramp_steps`` = 30 steps (without
   it the result depended on the random init). The voice does not change yet.
2. ``discriminator`` (``disc_warmup_for``): only the fresh discriminator, against the voice's
   rendering of the recordings.
3. ``train``: GAN training (VITS' losses, discriminator). With ``freeze_prior`` (default) the text
   encoder, flow, duration predictor and posterior encoder stay as they are and the decoder
   learns from *prior* latents aligned to each clip (``model.prior_latents``: the text's prior
   expanded along the MAS durations of the posterior mean, noise 0.667, reverse flow), i.e. what
   it gets when the voice speaks, as HiFi-GAN fine-tunes its vocoder on Tacotron 2's
   teacher-forced mels (Kong et al. 2020); training the flow and duration predictor on so little
   data against a young posterior encoder ruined intelligibility. The clone keeps the base voice's
   timing and prosody and learns the new timbre; ``freeze_prior=False`` (``--train-prosody``)
   trains them too, with posterior latents as in VITS, for long datasets and runs. The clone
   reaches the speaker's pitch through its sample rate (``pitch_by_rate``, ``voice_rate``).

The measurements behind each choice (step times, MCD, WER, F0 spread per recipe, the pitch
experiments and why their options were removed) are in ``docs/finetune_voice.md``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from speechstudio.errors import UsageError

__all__ = ["TrainConfig", "LJS_STEPS_PER_EPOCH", "resolve_device", "resolve_precision"]

#: Optimizer steps per epoch of VITS' LJSpeech recipe (13,100 clips / batch 64, rounded).
LJS_STEPS_PER_EPOCH = 205


@dataclass(frozen=True)
class TrainConfig:
    """Settings of one run (JSON-serialisable; stored in ``run_dir/config.json``).

    ``steps``: optimizer steps in total, *including* the warm-up steps (one progress bar);
    ``warmup_steps``: posterior-encoder warm-up steps; ``None`` = 10 % of ``steps`` (at least
    50, at most 1000, never more than half the steps) for bases without a trained posterior
    encoder (Piper voices) and 0 for transformers checkpoints (MMS, vits-ljs) that have one; an int forces that many for any base.
    ``batch_size``: clips per forward; ``grad_accum``: forwards per optimizer step (effective
    batch = batch_size * grad_accum). ``precision``: ``auto`` (CUDA: bf16 where supported, else
    fp16 with a GradScaler; CPU: fp32), ``fp32``, ``fp16`` (CUDA only), ``bf16``. ``lr``, ``betas``,
    ``eps``, ``weight_decay``: AdamW (module notes); ``lr_decay``: VITS' per-epoch factor,
    applied per step as explained above. ``max_grad_norm``: clip the total gradient norm (None:
    no clipping, as VITS). ``segment_size``: audio samples per training slice (VITS 8192 = 32
    frames at hop 256), rounded down to whole frames. ``eval_every`` / ``checkpoint_every``: in
    optimizer steps. ``patience``: evaluations in a row with a rising validation mel loss before
    ``EvalEvent.overtraining`` warns. ``device``: ``auto|cpu|cuda|cuda:N``. ``speaker``: speaker
    id of a multi-speaker base to adapt (default 0). ``val_count``: validation clips (None:
    ``Manifest.split``'s default). ``num_workers``: DataLoader workers (0: in the training thread).
    ``mas_backend``: ``auto|numba|torch``. ``warmup_lr``: the warm-up stage's lr, reached by a
    linear ramp over ``warmup_ramp_steps`` (module notes);
    ``stft_weight``: weight of the multi-resolution STFT loss (``losses.stft_loss``, Parallel
    WaveGAN; 0 = off). ``generator_lr``: the
    generator's lr after the warm-up (the base's trained decoder is fine-tuned, not
    trained: module notes); ``None`` = ``lr`` as VITS trains from scratch; the discriminator
    (fresh) always trains at ``lr``.
    ``pitch_conform``: (Piper bases, ``freeze_prior``) after the warm-up the decoder trains on
    pitch-conformed recordings with their fixed prior latents (``conform``: the contour the base
    speaks from them, PSOLA); False: on the raw recordings with fresh prior noise each step (the
    recipe before 2026-12-03).
    ``pitch_by_rate``: (Piper bases without a posterior encoder) train and save the clone at the
    sample rate that puts the base's pitch on the speaker's (``voice_rate``: recordings resampled
    to ``base rate x F0 ratio``; the voice declares that rate); False: the clone keeps the base's
    rate and pitch.
    ``judge_clone``: at each evaluation, score the voice speaking a few validation texts against
    the recordings (``finetune.closeness.CloneJudge``: speaker similarity, naturalness, pitch) and
    keep as best the checkpoint with the best ``Closeness.score`` instead of the lowest validation
    mel loss (the presets turn it on; needs Resemblyzer, else the mel loss decides).
    ``disc_warmup_steps``: steps after the warm-up in which only the fresh discriminator trains
    (``None``: :meth:`disc_warmup_for`'s default). ``freeze_prior``: keep the flow, duration predictor and posterior encoder frozen in
    the GAN stage, where the decoder then learns from prior latents (module notes). ``discriminator_width``: fraction of VITS'
    discriminator channels (1.0 = VITS, 46.7 M parameters; smaller only for tests / toy voices).
    """

    steps: int = 2000
    warmup_steps: int | None = None
    batch_size: int = 8
    grad_accum: int = 1
    precision: str = "auto"
    lr: float = 2e-4
    betas: tuple[float, float] = (0.8, 0.99)
    eps: float = 1e-9
    weight_decay: float = 0.01
    lr_decay: float = 0.999875
    max_grad_norm: float | None = None
    segment_size: int = 8192
    eval_every: int = 200
    checkpoint_every: int = 200
    patience: int = 3
    seed: int = 1234
    device: str = "auto"
    gradient_checkpointing: bool = False
    num_workers: int = 0
    speaker: int | None = None
    val_count: int | None = None
    mas_backend: str = "auto"
    discriminator_width: float = 1.0
    freeze_text_encoder: bool = True
    warmup_lr: float = 1e-3
    warmup_ramp_steps: int = 30
    freeze_prior: bool = True
    stft_weight: float = 20.0
    generator_lr: float | None = 2e-5
    pitch_conform: bool = True
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
        if not self.warmup_lr > 0:
            raise UsageError(f"warmup_lr must be > 0 (got {self.warmup_lr})")
        if int(self.warmup_ramp_steps) < 0:
            raise UsageError(f"warmup_ramp_steps must be >= 0 (got {self.warmup_ramp_steps})")
        if self.generator_lr is not None and not self.generator_lr > 0:
            raise UsageError(f"generator_lr must be > 0 or None (got {self.generator_lr})")
        if not self.lr > 0 or not 0 < self.lr_decay <= 1:
            raise UsageError(f"lr must be > 0 and lr_decay in (0, 1] (got {self.lr}, {self.lr_decay})")
        if self.precision not in ("auto", "fp32", "fp16", "bf16"):
            raise UsageError(f"unknown precision {self.precision!r} (use auto, fp32, fp16 or bf16)")
        if self.num_workers < 0:
            raise UsageError(f"num_workers must be >= 0 (got {self.num_workers})")
        if self.mas_backend not in ("auto", "numba", "torch"):
            raise UsageError(f"unknown mas_backend {self.mas_backend!r} (use auto, numba or torch)")
        if not 0 < self.discriminator_width <= 4:
            raise UsageError(f"discriminator_width must be in (0, 4] (got {self.discriminator_width})")
        object.__setattr__(self, "betas", tuple(float(b) for b in self.betas))

    @property
    def lr_gamma(self) -> float:
        """Per-optimizer-step lr factor: ``lr_decay ** (1 / LJS_STEPS_PER_EPOCH)``."""
        return float(self.lr_decay) ** (1.0 / LJS_STEPS_PER_EPOCH)

    def warmup_for(self, has_posterior: bool) -> int:
        """Warm-up steps for a base with (``True``) or without a trained posterior encoder."""
        if self.warmup_steps is not None:
            return int(self.warmup_steps)
        if has_posterior:
            return 0
        # at most half of the run: a short run (--steps 50) still trains the decoder on the new voice
        return int(min(1000, max(50, round(0.1 * self.steps)), self.steps // 2))

    def disc_warmup_for(self, has_posterior: bool, fresh_discriminator: bool = True) -> int:
        """Discriminator warm-up steps after the warm-up (the generator's output detached, no
        generator update: the GAN stage starts with a discriminator that already tells your
        recordings from the base's rendering of them): ``disc_warmup_steps`` when set (cut to
        what is left), else none for a trained discriminator (a Piper training checkpoint's) and,
        for a fresh one, as many as a Piper base's warm-up (10 % of the steps, 50..1000) but at
        most a third of the steps left."""
        left = max(0, int(self.steps) - self.warmup_for(has_posterior))
        if self.disc_warmup_steps is not None:
            return min(int(self.disc_warmup_steps), left)
        if not fresh_discriminator:
            return 0
        return min(int(min(1000, max(50, round(0.1 * self.steps)))), left // 3)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["betas"] = list(self.betas)
        return d

    @classmethod
    def from_dict(cls, data: dict) -> "TrainConfig":
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        if "betas" in kwargs:
            kwargs["betas"] = tuple(kwargs["betas"])
        return cls(**kwargs)


def resolve_device(device: str) -> str:
    """``auto`` -> ``cuda`` when available else ``cpu``; checks ``cuda`` / ``cuda:N``. Raises
    ``UsageError``."""
    import torch

    if device not in ("auto", "cpu", "cuda") and not device.startswith("cuda:"):
        raise UsageError(f"unknown device {device!r} (use auto, cpu, cuda or cuda:N)")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise UsageError("--device cuda asked for, but CUDA is not available on this machine")
    return device


def resolve_precision(precision: str, device: str) -> str:
    """``auto`` -> ``bf16`` on CUDA GPUs that support it (Ampere+), else ``fp16``; ``fp32`` on CPU.
    ``fp16`` on CPU is refused (``UsageError``); ``bf16`` on CPU is allowed (slow on most CPUs)."""
    import torch

    if precision == "auto":
        if device.startswith("cuda"):
            return "bf16" if torch.cuda.is_bf16_supported() else "fp16"
        return "fp32"
    if precision == "fp16" and not device.startswith("cuda"):
        raise UsageError("fp16 training needs a CUDA GPU; use --precision fp32 (or bf16) on CPU")
    return precision
