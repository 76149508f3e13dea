"""One process or several (DDP under ``accelerate launch`` / ``torchrun``) for both trainers: with
``WORLD_SIZE`` > 1 accelerate's ``PartialState`` joins the process group (NCCL on GPUs, gloo on CPU),
models are wrapped in ``DistributedDataParallel``, and rank 0 evaluates, logs and writes checkpoints
while the others wait."""
from __future__ import annotations

import contextlib
import os
import shlex
from datetime import timedelta
from typing import Callable

from speechstudio.asr.device import resolve_device
from speechstudio.errors import SpeechStudioError, UsageError

#: How long a process waits for the others in one collective (PyTorch's NCCL default is 10 min):
#: process 0 alone builds the dataset, with the Whisper cross-check ~1 s a clip, while they wait.
WAIT_LIMIT_S = 4 * 3600


class OtherRankFailed(SpeechStudioError):
    """Raised on the other processes when the main one failed (its own error says why)."""


def launcher_world() -> int | None:
    """``WORLD_SIZE`` set by a launcher (``accelerate launch``, ``torchrun``), or None when this
    process was started without one."""
    value = os.environ.get("WORLD_SIZE", "").strip()
    try:
        return int(value) if value else None
    except ValueError:
        return None


def launch_command(argv: list[str], num_processes: int | None = None) -> str:
    """The ``accelerate launch`` line that runs ``speechstudio ARGV`` once per GPU; ``num_processes``:
    GPUs to use (default: those torch sees, at least 2)."""
    if num_processes is None:
        try:
            import torch

            num_processes = torch.cuda.device_count() if torch.cuda.is_available() else 0
        except Exception:  # noqa: BLE001 - a broken CUDA setup: the user fills in N
            num_processes = 0
        num_processes = max(2, num_processes)
    return (f"accelerate launch --multi_gpu --num_processes {int(num_processes)} -m speechstudio "
            + " ".join(shlex.quote(a) for a in argv))


def training_precision(precision: str, device: str) -> str:
    """``fp32`` / ``fp16`` / ``bf16`` for training on ``device``. ``auto``: BF16 on a CUDA GPU that
    supports it (Ampere and newer: same exponent range as FP32, no loss scaling needed), else FP16
    with a GradScaler; FP32 on CPU. Raises ``UsageError`` for FP16 on CPU."""
    import torch

    precision = (precision or "auto").strip().lower()
    if precision not in ("auto", "fp32", "fp16", "bf16"):
        raise UsageError(f"--precision {precision}: expected auto, fp32, fp16 or bf16")
    cuda = device.startswith("cuda")
    if precision == "auto":
        return ("bf16" if torch.cuda.is_bf16_supported() else "fp16") if cuda else "fp32"
    if precision == "fp16" and not cuda:
        raise UsageError("--precision fp16 needs a CUDA GPU (mixed-precision FP16 training); use bf16 or fp32 on CPU")
    return precision


class Parallel:
    """Process layout for training: ``device`` (``"cpu"`` / ``"cuda[:N]"``), ``world``, ``rank``,
    ``main`` (rank 0). A single process's device is ``asr.device.resolve_device``'s (``UsageError`` for a
    missing GPU); under a launcher it is accelerate's."""

    def __init__(self, device: str = "auto") -> None:
        import torch

        self.world = int(launcher_world() or 1)
        if self.world > 1:
            from accelerate import PartialState

            state = PartialState(cpu=(device == "cpu"), timeout=timedelta(seconds=WAIT_LIMIT_S))
            self.rank = state.process_index
            self.device = "cpu" if state.device.type == "cpu" else str(state.device)  # not "cpu:0": torch.load's map_location refuses it
        else:
            self.rank = 0
            self.device = resolve_device(device)
            if self.device.startswith("cuda:"):
                torch.cuda.set_device(self.device)
        self.main = self.rank == 0
        self._torch = torch

    @property
    def is_cuda(self) -> bool:
        return self.device.startswith("cuda")

    def wrap(self, model, find_unused_parameters: bool = False):
        """DDP-wrap ``model`` (already on ``self.device``) when distributed, else return it. Only
        parameters with ``requires_grad`` now are synchronised: wrap again after (un)freezing."""
        if self.world == 1:
            return model
        from torch.nn.parallel import DistributedDataParallel

        ids = [self._torch.device(self.device).index] if self.is_cuda else None
        return DistributedDataParallel(model, device_ids=ids, find_unused_parameters=find_unused_parameters)

    def no_sync(self, model, skip: bool):
        """Skip the gradient all-reduce for a micro-batch that is not the last of an accumulation."""
        return model.no_sync() if self.world > 1 and skip and hasattr(model, "no_sync") else contextlib.nullcontext()

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

    def mean_dict(self, values: dict[str, float]) -> dict[str, float]:
        """Each value averaged over processes (one all-reduce); NaN / inf on any process makes the
        mean non-finite everywhere, so every process takes the same decision on it."""
        if self.world == 1:
            return dict(values)
        keys = list(values)
        t = self._torch.tensor([float(values[k]) for k in keys], device=self.device, dtype=self._torch.float64)
        self._torch.distributed.all_reduce(t)
        return {k: float(v) / self.world for k, v in zip(keys, t.tolist())}

    def gather(self, obj) -> list:
        """``[obj of rank 0, obj of rank 1, ...]`` on every process (picklable ``obj``)."""
        if self.world == 1:
            return [obj]
        out = [None] * self.world
        self._torch.distributed.all_gather_object(out, obj)
        return out

    def on_main(self, fn: Callable[[], object], what: str = "the main process"):
        """Run ``fn`` on rank 0 only and return its result there (None elsewhere); if it raises, the
        other ranks raise ``OtherRankFailed`` instead of waiting forever."""
        if self.world == 1:
            return fn()
        result, error = None, None
        if self.main:
            try:
                result = fn()
            except BaseException as exc:  # noqa: BLE001 - re-raised below, after telling the others
                error = exc
        if self.any(error is not None):
            if error is not None:
                raise error
            raise OtherRankFailed(f"process {self.rank}: {what} failed in process 0 (its message says why)")
        return result
