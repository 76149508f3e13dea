"""Presets (quick / standard / best: steps ``PRESETS``, batch by device ``_tier``) and a time + memory
estimate for the detected device (CPU step times measured with ``bench/bench_vits_train.py``; GPU from FLOP
counts at an assumed throughput). Why and the figures: docs/finetune_voice.md, "Presets and what they cost"."""
from __future__ import annotations

from dataclasses import dataclass, replace

from speechstudio.asr.device import resolve_device
from speechstudio.errors import UsageError
from speechstudio.finetune.vits.config import TrainConfig

#: name -> (steps, eval / checkpoint interval in steps)
PRESETS = {"quick": (600, 100), "standard": (2000, 250), "best": (6000, 500)}

# --- measured with bench/bench_vits_train.py (module notes)
CPU_TRAIN_S = (1.5, 0.85)        # GAN step on one core: a + b * batch (s); 2.8 s wall at batch 4, 2 threads
CPU_WARMUP_S = (0.5, 0.70)       # warm-up step on one core (no discriminator)
CPU_DISC_S = (0.3, 0.62)         # discriminator warm-up step (generator without gradient): 1.6 s wall
CONFORM_S_PER_AUDIO_S = 0.1      # pitch-conforming the clips once (Praat + one decoder pass), 2 threads
GFLOP_PER_CLIP = {"train": 136.0, "warmup": 34.0}
ACT_FIXED_BYTES = 155e6          # fp32 activations per clip of the fixed segment (decoder + D)
ACT_BYTES_PER_CLIP_S = 11e6      # fp32 activations per second of clip (posterior encoder, flow)
PARAM_BYTES = 16 * 70e6          # (weights + grads + 2 AdamW moments) x 4 bytes x (G 23.5 M + D 46.7 M)
# --- assumed (not measured on a GPU)
GPU_TFLOPS = (8.0, 25.0)         # effective with autocast: mid-range card, card with >= 20 GB
GPU_STEP_OVERHEAD_S = 0.15
CKPT_SAVING = 0.45               # share of activations that decoder checkpointing does not keep
AMP_FACTOR, ALLOC_SLACK, CUDA_OVERHEAD = 0.6, 1.3, 0.5e9
FEATURE_S_PER_AUDIO_S = 0.01     # caching spectrograms, per second of audio (one core)


@dataclass(frozen=True)
class Estimate:
    """``seconds``: expected wall time of the run; ``peak_memory_bytes``: GPU peak (CUDA) or extra
    process memory (CPU); ``note``: one line of assumptions and advice."""

    seconds: float
    peak_memory_bytes: int
    note: str


def _cuda_memory(device: str) -> int | None:
    try:
        import torch

        if device.startswith("cuda") and torch.cuda.is_available():
            return int(torch.cuda.get_device_properties(torch.device(device).index or 0).total_memory)
    except Exception:  # noqa: BLE001 - no driver / no device: treated as unknown
        return None
    return None


def _device(device: str) -> str:
    return resolve_device(device) if device == "auto" else device


def _gpu_memory(batch: int, checkpointing: bool, clip_s: float = 4.0) -> float:
    """Estimated peak GPU memory (bytes) of a GAN step with autocast (module notes)."""
    act = (ACT_FIXED_BYTES + ACT_BYTES_PER_CLIP_S * clip_s) * batch
    keep = (1 - CKPT_SAVING) if checkpointing else 1.0
    return PARAM_BYTES + act * AMP_FACTOR * keep * ALLOC_SLACK + CUDA_OVERHEAD


def _tier(vram: int | None, clip_s: float = 4.0) -> tuple[int, int, bool]:
    """(batch, grad_accum, checkpointing) for a GPU of ``vram`` bytes (None: assume 16 GB)."""
    budget = 0.6 * (vram or 16 * 2**30)
    for checkpointing in (False, True):
        for batch in (16, 8, 4):
            if _gpu_memory(batch, checkpointing, clip_s) <= budget:
                return batch, 16 // batch, checkpointing
    return 2, 8, True


def preset(name: str, device: str = "auto", vram_bytes: int | None = None, **overrides) -> TrainConfig:
    """``TrainConfig`` for preset ``name`` (``quick|standard|best``) on ``device``; ``vram_bytes``
    (default: read from the device); ``overrides`` replace fields. Raises ``UsageError``."""
    if name not in PRESETS:
        raise UsageError(f"unknown preset {name!r} (use {', '.join(PRESETS)})")
    steps, every = PRESETS[name]
    dev = _device(device)
    cuda = dev.startswith("cuda")
    batch, accum, ckpt = _tier(vram_bytes if vram_bytes is not None else _cuda_memory(dev)) if cuda else (4, 1, False)
    config = TrainConfig(steps=steps, batch_size=batch, grad_accum=accum, gradient_checkpointing=ckpt,
                         eval_every=every, checkpoint_every=every, device=device, judge_clone=True)
    return replace(config, **overrides) if overrides else config


def estimate(name_or_config, device: str = "auto", n_clips: int = 100, total_s: float = 600.0,
             vram_bytes: int | None = None, threads: int | None = None, has_posterior: bool = False) -> Estimate:
    """Expected run time and peak memory for a preset name or ``TrainConfig``, from ``n_clips`` /
    ``total_s`` (seconds of audio), ``vram_bytes``, ``threads`` and ``has_posterior`` (False: a warm-up
    runs first)."""
    config = name_or_config if isinstance(name_or_config, TrainConfig) else preset(name_or_config, device, vram_bytes)
    dev = _device(device if device != "auto" else config.device)
    warmup, disc = config.warmup_for(has_posterior), config.disc_warmup_for(has_posterior)
    warm = warmup + disc
    gan = config.steps - warm
    b, k = config.batch_size, config.grad_accum
    clip_s = total_s / max(n_clips, 1)
    act = (ACT_FIXED_BYTES + ACT_BYTES_PER_CLIP_S * clip_s) * b
    prep = FEATURE_S_PER_AUDIO_S * total_s
    n_evals = config.steps // config.eval_every + 1
    val_s = min(20, max(1, round(0.05 * n_clips))) * clip_s  # validation audio per evaluation
    if dev.startswith("cuda"):
        vram = vram_bytes if vram_bytes is not None else _cuda_memory(dev)
        tflops = GPU_TFLOPS[1] if (vram or 0) >= 20 * 2**30 else GPU_TFLOPS[0]
        step_s = k * (GPU_STEP_OVERHEAD_S + GFLOP_PER_CLIP["train"] * b / (tflops * 1e3))
        warm_s = k * (GPU_STEP_OVERHEAD_S + GFLOP_PER_CLIP["warmup"] * b / (tflops * 1e3))
        seconds = gan * step_s + warm * warm_s + n_evals * val_s * 0.05 + prep
        mem = _gpu_memory(b, config.gradient_checkpointing, clip_s)
        note = (f"GPU, ~{step_s:.2f} s per step at batch {b} x {k}"
                f"{' with gradient checkpointing' if config.gradient_checkpointing else ''} (assumes ~{tflops:.0f} "
                "TFLOP/s effective; not yet measured on a GPU)")
        if vram is not None and mem > 0.9 * vram:
            note += (f"; needs ~{mem / 2**30:.1f} GB of {vram / 2**30:.1f} GB: use --batch-size {max(1, b // 2)} "
                     f"--grad-accum {k * 2} --gradient-checkpointing")
        return Estimate(float(seconds), int(mem), note)
    import torch

    n = threads or torch.get_num_threads()
    speed = min(max(n, 1), 8) ** 0.8
    train_s = k * (CPU_TRAIN_S[0] + CPU_TRAIN_S[1] * b) / speed
    warm_s = k * (CPU_WARMUP_S[0] + CPU_WARMUP_S[1] * b) / speed
    disc_s = k * (CPU_DISC_S[0] + CPU_DISC_S[1] * b) / speed
    conform = CONFORM_S_PER_AUDIO_S * total_s if not has_posterior else 0
    seconds = (gan * train_s + warmup * warm_s + disc * disc_s + n_evals * val_s * 0.5 / speed
               + prep / speed + conform * 1.74 / speed)
    mem = PARAM_BYTES + act
    note = (f"CPU, {n} thread(s), ~{train_s:.0f} s per step at batch {b} x {k} (measured on an "
            "en_US-joe-medium-sized voice); a CUDA GPU is far faster")
    return Estimate(float(seconds), int(mem), note)
