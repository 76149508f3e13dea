"""One process or several (DDP under ``accelerate launch`` / ``torchrun``): device, rank, wrapping.

Single process (the usual case, and the GUI): no process group, the model is used as is.
Several processes (``WORLD_SIZE`` > 1 in the environment, set by the launcher): accelerate's
``PartialState`` joins the process group (NCCL on GPUs, gloo on CPU) and picks this process's
device; the model is wrapped in ``torch.nn.parallel.DistributedDataParallel``; the main process
(rank 0) evaluates, logs and writes checkpoints while the others wait.

    accelerate launch --multi_gpu --num_processes 2 -m speechstudio finetune asr --base ... --data ... --out NAME
"""
from __future__ import annotations

import contextlib
import os

from speechstudio.errors import UsageError

__all__ = ["Parallel"]


class Parallel:
    """Process layout for training. ``device``: ``"cpu"`` or ``"cuda[:N]"``; ``world`` processes,
    this one ``rank``; ``main``: rank 0."""

    def __init__(self, device: str = "auto") -> None:
        import torch

        self.world = int(os.environ.get("WORLD_SIZE", "1") or 1)
        if self.world > 1:
            from accelerate import PartialState

            state = PartialState(cpu=(device == "cpu"))
            self.rank = state.process_index
            self.device = str(state.device)
        else:
            from speechstudio.asr.device import resolve_device

            self.rank = 0
            self.device = resolve_device(device)
            if self.device.startswith("cuda:"):
                torch.cuda.set_device(self.device)
        self.main = self.rank == 0
        self._torch = torch

    @property
    def is_cuda(self) -> bool:
        return self.device.startswith("cuda")

    def wrap(self, model):
        """DDP-wrap ``model`` (already on ``self.device``) when distributed; else return it."""
        if self.world == 1:
            return model
        from torch.nn.parallel import DistributedDataParallel

        ids = [self._torch.device(self.device).index] if self.is_cuda else None
        return DistributedDataParallel(model, device_ids=ids)

    @staticmethod
    def unwrap(model):
        return getattr(model, "module", model)

    def no_sync(self, model, skip: bool):
        """Skip the gradient all-reduce for a micro-batch that is not the last of an accumulation."""
        if self.world > 1 and skip:
            return model.no_sync()
        return contextlib.nullcontext()

    def barrier(self) -> None:
        if self.world > 1:
            self._torch.distributed.barrier()

    def any(self, flag: bool) -> bool:
        """True on every process when ``flag`` is true on any of them (stop requests, errors)."""
        if self.world == 1:
            return bool(flag)
        t = self._torch.tensor([1 if flag else 0], device=self.device)
        self._torch.distributed.all_reduce(t, op=self._torch.distributed.ReduceOp.MAX)
        return bool(t.item())

    def mean(self, value: float) -> float:
        """Mean of ``value`` over processes (the logged loss)."""
        if self.world == 1:
            return float(value)
        t = self._torch.tensor([float(value)], device=self.device, dtype=self._torch.float64)
        self._torch.distributed.all_reduce(t)
        return float(t.item()) / self.world


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
