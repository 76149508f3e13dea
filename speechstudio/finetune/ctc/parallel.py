"""The CTC trainer's process layout: ``Parallel`` (shared, ``speechstudio.finetune.parallel``;
re-exported here) and its training precision rule.

    accelerate launch --multi_gpu --num_processes 2 -m speechstudio finetune asr --base ... --data ... --out NAME
"""
from __future__ import annotations

from speechstudio.errors import UsageError
from speechstudio.finetune.parallel import Parallel

__all__ = ["Parallel", "resolve_training_precision"]


def resolve_training_precision(precision: str, device: str) -> str:
    """``fp32`` / ``fp16`` / ``bf16`` for training on ``device``. ``auto``: BF16 on a CUDA GPU that
    supports it (Ampere and newer: same exponent range as FP32, no loss scaling needed), else FP16
    with a GradScaler; FP32 on CPU. Raises ``UsageError`` for FP16 on CPU."""
    import torch

    precision = (precision or "auto").strip().lower()
    if precision not in ("auto", "fp32", "fp16", "bf16"):
        raise UsageError(f"--precision {precision}: expected auto, fp32, fp16 or bf16")
    cuda = device.startswith("cuda")
    if precision == "auto":
        if not cuda:
            return "fp32"
        return "bf16" if torch.cuda.is_bf16_supported() else "fp16"
    if precision == "fp16" and not cuda:
        raise UsageError("--precision fp16 needs a CUDA GPU (mixed-precision FP16 training); use bf16 or fp32 on CPU")
    return precision
