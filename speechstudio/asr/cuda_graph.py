"""Fixed-shape window runners for streaming CTC: eager on a static buffer, or captured once as a CUDA
Graph (own pool, ``capture_error_mode="thread_local"``) and replayed; ``window_runner`` caches one per
(model, precision, window)."""
from __future__ import annotations

import logging
import time

import numpy as np

from speechstudio.asr.device import torch_dtype

log = logging.getLogger(__name__)

_CACHE_ATTR = "_speechstudio_window_runners"


class StaticWindowRunner:
    """Run a CTC model eagerly on float32 ``(window_samples,)`` 16 kHz windows (normalised as
    ``window_logits``) -> float32 ``(n_frames, vocab_size)``. Raises ``ValueError`` for another shape."""

    kind = "eager"

    def __init__(self, recognizer, window_samples: int) -> None:
        import torch

        self.recognizer = recognizer
        self.window_samples = int(window_samples)
        if self.window_samples < recognizer.receptive_field:
            raise ValueError(f"window of {self.window_samples} samples is shorter than the model's "
                             f"receptive field ({recognizer.receptive_field})")
        self.n_frames = (self.window_samples - recognizer.receptive_field) // recognizer.frame_len + 1
        self.vocab_size = int(recognizer.model.config.vocab_size)
        self.dtype = torch_dtype(recognizer.precision)
        # the model's own device (not the recogniser's label) decides where the static buffers live
        self.device = next(recognizer.model.parameters()).device
        self._torch = torch
        # Static buffers: the same tensors are reused for every call (and, for the graph runner,
        # are the addresses the captured kernels read and write).
        self.static_input = torch.zeros((1, self.window_samples), dtype=self.dtype, device=self.device)
        pin = self.device.type == "cuda"
        self._host_input = torch.zeros((1, self.window_samples), dtype=torch.float32, pin_memory=pin)
        self.static_output = None  # (1, n_frames, vocab) in model dtype, set by the first forward

    def load(self, window: np.ndarray) -> None:
        """Validate ``window`` (shape ``(window_samples,)``), normalise it and copy it into the
        static input tensor (host float32 staging buffer -> device, dtype cast in the copy)."""
        window = np.asarray(window, dtype=np.float32)
        if window.shape != (self.window_samples,):
            raise ValueError(f"window shape {window.shape} != ({self.window_samples},) this runner was built for")
        self._host_input[0].copy_(self._torch.from_numpy(self.recognizer.normalize(window).astype(np.float32)))
        self.static_input.copy_(self._host_input, non_blocking=True)

    def forward(self) -> None:
        """Compute ``static_output`` from ``static_input`` (eager model call)."""
        with self._torch.no_grad():
            self.static_output = self.recognizer.model(self.static_input).logits

    def read(self) -> np.ndarray:
        """The logits of the last forward: ``np.ndarray[float32]`` shape (n_frames, vocab)."""
        out = self.static_output[0].float().cpu().numpy()
        if out.shape != (self.n_frames, self.vocab_size):
            raise RuntimeError(f"model returned logits of shape {out.shape}, expected {(self.n_frames, self.vocab_size)}")
        return out

    def __call__(self, window: np.ndarray) -> np.ndarray:
        self.load(window)
        self.forward()
        return self.read()


class CudaGraphWindowRunner(StaticWindowRunner):
    """:class:`StaticWindowRunner` as one CUDA Graph replay, captured after ``warmup`` eager calls on a
    side stream. Raises ``RuntimeError`` off CUDA or when capture fails."""

    kind = "cuda-graph"

    def __init__(self, recognizer, window_samples: int, warmup: int = 3) -> None:
        super().__init__(recognizer, window_samples)
        torch = self._torch
        if self.device.type != "cuda":
            raise RuntimeError(f"CUDA Graphs need a CUDA device, not {self.device}")
        model = recognizer.model
        side = torch.cuda.Stream(device=self.device)
        side.wait_stream(torch.cuda.current_stream(self.device))
        with torch.no_grad(), torch.cuda.stream(side):
            for _ in range(max(1, int(warmup))):
                model(self.static_input)
        torch.cuda.current_stream(self.device).wait_stream(side)
        torch.cuda.synchronize(self.device)
        self.pool = torch.cuda.graph_pool_handle()
        self.graph = torch.cuda.CUDAGraph()
        with torch.no_grad(), torch.cuda.graph(self.graph, pool=self.pool, stream=side,
                                               capture_error_mode="thread_local"):
            self.static_output = model(self.static_input).logits
        torch.cuda.synchronize(self.device)

    def forward(self) -> None:
        self.graph.replay()


def window_runner(recognizer, window_samples: int, use_cuda_graph: bool | str = "auto") -> StaticWindowRunner:
    """The runner for ``(model, precision, window_samples)``, cached on the recogniser; ``use_cuda_graph``
    ``"auto"`` / True captures on CUDA; a failed capture is logged and falls back to eager."""
    want_graph = use_cuda_graph in (True, "auto") and str(recognizer.device).startswith("cuda")
    key = (id(recognizer.model), recognizer.precision, int(window_samples), bool(want_graph))
    cache = recognizer.__dict__.setdefault(_CACHE_ATTR, {})
    runner = cache.get(key)
    if runner is not None:
        return runner
    if want_graph:
        try:
            t0 = time.perf_counter()
            runner = CudaGraphWindowRunner(recognizer, window_samples)
            log.info("captured a CUDA Graph for %s (%s, window %d samples) in %.2f s",
                     getattr(recognizer, "model_id", "model"), recognizer.precision, window_samples,
                     time.perf_counter() - t0)
        except Exception as e:  # capture can fail in many driver/model-specific ways
            log.warning("CUDA Graph capture failed (%s: %s); running the streaming model eagerly",
                        type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
    if runner is None:
        runner = StaticWindowRunner(recognizer, window_samples)
    cache[key] = runner
    return runner
