"""GPU / system monitor: :func:`sample_system` (Qt-free; NVML per GPU, this process's VRAM, CPU %, RAM;
``no_gpu_reason`` without one) and :class:`SystemMonitor`, sampling off the GUI thread."""
from __future__ import annotations

import logging
import sys
import threading
from dataclasses import dataclass, field

import psutil
from PySide6.QtCore import QObject, QTimer, Signal

from speechstudio.doctor.gpu import nvml_text
from speechstudio.errors import ErrorLine

log = logging.getLogger(__name__)

# NVML clocks-throttle-reason bits (nvml.h, nvmlClocksEventReasons*) -> short words.
THROTTLE_REASONS = {
    0x1: "idle", 0x2: "app clocks", 0x4: "power cap", 0x8: "HW slowdown", 0x10: "sync boost",
    0x20: "SW thermal", 0x40: "HW thermal", 0x80: "power brake", 0x100: "display clocks",
}


@dataclass(frozen=True)
class GpuSample:
    """One GPU at one instant. Memory in MiB, power in W, temperature in °C, clock in MHz;
    any field may be ``None`` when the driver does not report it."""

    index: int
    name: str
    util_pct: float | None
    mem_used_mib: float | None
    mem_total_mib: float | None
    temp_c: float | None
    power_w: float | None
    power_limit_w: float | None
    sm_clock_mhz: float | None
    throttle: str
    process_vram_mib: float | None = None


@dataclass(frozen=True)
class SystemSample:
    """GPUs (may be empty, then ``no_gpu_reason`` is set), CPU % (all cores), RAM used/total MiB,
    this process's RSS MiB."""

    gpus: tuple[GpuSample, ...]
    no_gpu_reason: str
    cpu_pct: float
    ram_used_mib: float
    ram_total_mib: float
    process_rss_mib: float
    driver: str = ""
    extra: dict = field(default_factory=dict)


_nvml_state = {"init": False}       # NVML initialised once per process


def _nvml_error(e: Exception) -> str:
    text = str(e) or type(e).__name__
    if "LibraryNotFound" in type(e).__name__ or "library" in text.lower():
        return "NVIDIA driver library not found"
    return text


def _try(fn, *args):
    try:
        return fn(*args)
    except Exception:
        return None


def _scaled(value, divisor: float = 1.0) -> float | None:
    return float(value) / divisor if value is not None else None


def sample_gpus() -> tuple[list[GpuSample], str, str]:
    """``(gpus, no_gpu_reason, driver_version)`` right now; the reason is an ``ErrorLine`` of kind ``gpu_monitor``
    without pynvml."""
    try:
        import pynvml as nv
    except ImportError:
        line = ErrorLine("No NVIDIA GPU monitoring (nvidia-ml-py is not installed)")
        line.kind = "gpu_monitor"
        return [], line, ""
    if not _nvml_state["init"]:
        try:
            nv.nvmlInit()
        except Exception as e:  # NVMLError_LibraryNotFound, DriverNotLoaded, ...
            return [], f"No NVIDIA GPU found ({_nvml_error(e)})", ""
        _nvml_state["init"] = True
    try:
        count = nv.nvmlDeviceGetCount()
    except Exception as e:
        return [], f"NVML error: {_nvml_error(e)}", ""
    if count == 0:
        return [], "No NVIDIA GPU found (the driver reports none)", ""
    driver = _try(nv.nvmlSystemGetDriverVersion) or ""
    torch = sys.modules.get("torch")            # this process's VRAM, where it has used CUDA
    cuda_on = torch is not None and _try(lambda: torch.cuda.is_initialized())
    out = []
    for i in range(count):
        h = _try(nv.nvmlDeviceGetHandleByIndex, i)
        if h is None:
            continue
        name = _try(nv.nvmlDeviceGetName, h) or f"GPU {i}"
        util = _try(nv.nvmlDeviceGetUtilizationRates, h)
        mem = _try(nv.nvmlDeviceGetMemoryInfo, h)
        temp = _try(nv.nvmlDeviceGetTemperature, h, getattr(nv, "NVML_TEMPERATURE_GPU", 0))
        power = _try(nv.nvmlDeviceGetPowerUsage, h)
        limit = _try(nv.nvmlDeviceGetEnforcedPowerLimit, h)
        clock = _try(nv.nvmlDeviceGetClockInfo, h, getattr(nv, "NVML_CLOCK_SM", 1))
        reasons_fn = getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
            getattr(nv, "nvmlDeviceGetCurrentClocksThrottleReasons", None)
        mask = _try(reasons_fn, h) if reasons_fn else None
        throttle = (", ".join(w for bit, w in THROTTLE_REASONS.items() if mask & bit) or f"0x{mask:x}") if mask \
            else "none"
        out.append(GpuSample(
            index=i, name=nvml_text(name), util_pct=_scaled(util.gpu if util is not None else None),
            mem_used_mib=_scaled(mem.used if mem is not None else None, 2**20),
            mem_total_mib=_scaled(mem.total if mem is not None else None, 2**20),
            temp_c=_scaled(temp), power_w=_scaled(power, 1000), power_limit_w=_scaled(limit, 1000),
            sm_clock_mhz=_scaled(clock), throttle=throttle,
            process_vram_mib=_try(lambda: torch.cuda.memory_reserved(i) / 2**20) if cuda_on else None))
    return out, "", nvml_text(driver)


def sample_system() -> SystemSample:
    gpus, reason, driver = sample_gpus()
    vm = psutil.virtual_memory()
    try:
        rss = psutil.Process().memory_info().rss / 2**20
    except Exception:
        rss = 0.0
    return SystemSample(tuple(gpus), reason, psutil.cpu_percent(interval=None), (vm.total - vm.available) / 2**20,
                        vm.total / 2**20, rss, driver)


class SystemMonitor(QObject):
    """Samples :func:`sample_system` every ``interval_s`` seconds in a daemon thread and emits ``sampled(SystemSample)``
    from the GUI thread: the thread only stores its newest sample, a timer of the monitor's thread (started and
    stopped there) hands it over; no Qt signal from the sampling thread (why: docs/gpu.md, the GPU monitor's thread)."""

    sampled = Signal(object)

    def __init__(self, interval_s: float = 1.0, parent=None) -> None:
        super().__init__(parent)
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._newest: list[SystemSample] = []        # at most one, swapped under the GIL
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._hand_over)

    def start(self) -> None:
        self._timer.start(max(10, min(100, int(self.interval_s * 500))))    # twice per sample, at most 10 Hz
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="speechstudio-monitor", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._timer.stop()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        self._newest.clear()

    def _hand_over(self) -> None:
        if self._newest:
            self.sampled.emit(self._newest.pop())

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                s = sample_system()
            except Exception as e:  # never let the monitor die silently
                log.debug("monitor sample failed", exc_info=True)
                s = SystemSample((), f"monitor error: {e}", 0.0, 0.0, 0.0, 0.0)
            if self._stop.is_set():
                break
            self._newest[:] = [s]
            self._stop.wait(self.interval_s)
