"""Choose the compute device and precision (``--device``, ``--precision``).

``auto`` device: the first CUDA GPU when torch sees one, else the CPU. ``auto`` precision: FP16 on
CUDA (tensor cores; what the design card asks for), FP32 on CPU (FP16 kernels on CPU are slow or
missing). Users may force fp32/fp16/bf16.
"""
from __future__ import annotations

from speechstudio.errors import UsageError

PRECISIONS = ("auto", "fp32", "fp16", "bf16")


def resolve_device(device: str = "auto") -> str:
    """Return ``"cpu"`` or ``"cuda[:N]"``. Raises :class:`UsageError` for an unknown name or a
    CUDA device that is not present."""
    import torch

    device = (device or "auto").strip().lower()
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        return "cpu"
    if device == "cuda" or device.startswith("cuda:"):
        if not torch.cuda.is_available():
            raise UsageError(f"--device {device}: no CUDA GPU is available to PyTorch here; use --device cpu")
        if ":" in device:
            try:
                idx = int(device.split(":", 1)[1])
            except ValueError:
                raise UsageError(f"--device {device}: expected cuda:N with N a number") from None
            if idx >= torch.cuda.device_count():
                raise UsageError(f"--device {device}: only {torch.cuda.device_count()} CUDA device(s) present")
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


def torch_dtype(precision: str):
    import torch

    return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[precision]
