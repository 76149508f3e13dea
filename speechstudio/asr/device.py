"""Device and precision (``--device``, ``--precision``): ``auto`` = the first CUDA GPU else CPU, FP16 on
CUDA, FP32 on CPU; fp32 / fp16 / bf16 may be forced."""
from __future__ import annotations

import os
import sys

from speechstudio.errors import UsageError

PRECISIONS = ("auto", "fp32", "fp16", "bf16")


def _torch_gpus() -> int:
    """PyTorch's CUDA device count; 0 without importing torch (~1-3 s) on a Linux machine with no
    NVIDIA / AMD GPU driver, where CUDA cannot be available."""
    if "torch" not in sys.modules and sys.platform.startswith("linux") and not any(
            os.path.exists(p) for p in ("/proc/driver/nvidia/version", "/dev/nvidiactl", "/dev/kfd")):
        return 0
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def resolve_device(device: str = "auto", gpus=None) -> str:
    """Return ``"cpu"`` or ``"cuda[:N]"``. ``gpus``: a callable giving the number of CUDA devices the engine sees
    (default PyTorch's; CTranslate2 engines pass ``ctranslate2.get_cuda_device_count`` so the Whisper path never
    imports torch). Raises :class:`UsageError` for an unknown name or a CUDA device that is not present."""
    device = (device or "auto").strip().lower()
    if device == "cpu":
        return "cpu"
    count = (gpus or _torch_gpus)()
    if device == "auto":
        return "cuda" if count > 0 else "cpu"
    if device == "cuda" or device.startswith("cuda:"):
        if count == 0:
            raise UsageError(f"--device {device}: no CUDA GPU is available here; use --device cpu", kind="no_gpu",
                             value=device)
        if ":" in device:
            try:
                idx = int(device.split(":", 1)[1])
            except ValueError:
                raise UsageError(f"--device {device}: expected cuda:N with N a number") from None
            if idx >= count:
                raise UsageError(f"--device {device}: only {count} CUDA device(s) present")
        return device
    raise UsageError(f"--device {device}: expected auto, cpu, cuda or cuda:N")


def resolve_precision(precision: str, device: str) -> str:
    """Return ``"fp32"``, ``"fp16"`` or ``"bf16"`` for ``device``."""
    precision = (precision or "auto").strip().lower()
    if precision not in PRECISIONS:
        raise UsageError(f"--precision {precision}: expected one of {', '.join(PRECISIONS)}")
    if precision == "auto":
        return "fp16" if device.startswith("cuda") else "fp32"
    return precision


def cpu_cores() -> int:
    """CPU cores this process may use (``os.sched_getaffinity``; ``os.cpu_count()`` where there is none)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def torch_dtype(precision: str):
    import torch

    return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[precision]
