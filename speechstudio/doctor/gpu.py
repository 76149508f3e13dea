"""PyTorch's build against the NVIDIA driver, read through NVML without a CUDA context. Rules: NVIDIA
"CUDA Compatibility" (minor version compatibility from :data:`MINOR_COMPAT_MIN_DRIVER`); FP16 needs
compute 5.3, BF16 8.0 (CUDA C++ Programming Guide)."""
from __future__ import annotations

import contextlib
import importlib.util
import re
from pathlib import Path

from speechstudio.doctor.report import FAIL, INFO, OK, WARN, Check

# Linux driver minimum for CUDA minor version compatibility, per CUDA major (NVIDIA CUDA Compatibility guide).
MINOR_COMPAT_MIN_DRIVER = {11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}
DRIVER_FIX = ("update the NVIDIA driver, then reboot: sudo ubuntu-drivers install (Ubuntu) / "
              "sudo apt install nvidia-driver (Debian) / https://www.nvidia.com/drivers")
NAME = "PyTorch and GPU"


def torch_build() -> dict:
    """``{"version": "2.13.0+cpu", "cuda": "12.8" | None}`` read from ``torch/version.py`` (torch is not
    imported); ``{"version": None, "cuda": None}`` when torch is not installed."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return {"version": None, "cuda": None}
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "version.py"
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            ver = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)", text, re.M)
            cuda = re.search(r"^cuda\s*(?::[^=]*)?=\s*['\"]([^'\"]+)", text, re.M)
            return {"version": ver.group(1) if ver else None, "cuda": cuda.group(1) if cuda else None}
    import torch  # frozen app without sources: ask torch itself

    return {"version": torch.__version__, "cuda": torch.version.cuda}


def nvml_text(value) -> str:
    """An NVML string (bytes in older nvidia-ml-py, str in newer) as str."""
    return value.decode() if isinstance(value, bytes) else str(value)


def read_nvml() -> dict:
    """Driver and GPUs through NVML: ``{"driver", "driver_cuda", "gpus": [{"name", "vram_bytes",
    "compute_capability", "fp16", "bf16"}]}``, or ``{"error": reason}`` when NVML cannot load or start."""
    try:
        import pynvml
    except ImportError:
        return {"error": "nvidia-ml-py is not installed (pip install nvidia-ml-py)"}
    try:
        pynvml.nvmlInit()
    except Exception as e:  # NVMLError_LibraryNotFound, NVMLError_DriverNotLoaded, ...
        return {"error": str(e)}
    try:
        cuda_int = int(pynvml.nvmlSystemGetCudaDriverVersion())
        gpus = []
        for i in range(int(pynvml.nvmlDeviceGetCount())):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(h)
            cc = (int(major), int(minor))
            gpus.append({"name": nvml_text(pynvml.nvmlDeviceGetName(h)),
                         "vram_bytes": int(pynvml.nvmlDeviceGetMemoryInfo(h).total),
                         "compute_capability": f"{cc[0]}.{cc[1]}", "fp16": cc >= (5, 3), "bf16": cc >= (8, 0)})
        return {"driver": nvml_text(pynvml.nvmlSystemGetDriverVersion()),
                "driver_cuda": f"{cuda_int // 1000}.{cuda_int % 1000 // 10}", "gpus": gpus}
    except Exception as e:
        return {"error": str(e)}
    finally:
        with contextlib.suppress(Exception):
            pynvml.nvmlShutdown()


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text))


def driver_verdict(torch_cuda: str, driver: str, driver_cuda: str) -> tuple[str, str, str]:
    """``(verdict, summary, fix)`` for a CUDA build of torch (``torch_cuda`` like ``"12.8"``) on a
    driver (``"550.54.15"``) that supports CUDA ``driver_cuda`` (``"12.4"``). Rules in the module doc."""
    need, have = _version_tuple(torch_cuda)[:2], _version_tuple(driver_cuda)[:2]
    if have >= need:
        return OK, f"driver {driver} supports CUDA {driver_cuda} >= torch's CUDA {torch_cuda}", ""
    minimum = MINOR_COMPAT_MIN_DRIVER.get(need[0])
    if have[0] == need[0] and minimum and _version_tuple(driver) >= _version_tuple(minimum):
        return (WARN, f"driver {driver} supports CUDA {driver_cuda}, older than torch's CUDA {torch_cuda}: runs "
                      f"through minor version compatibility (driver >= {minimum}), but JIT-compiled kernels may fail",
                DRIVER_FIX)
    return (FAIL, f"driver {driver} supports CUDA {driver_cuda} only; this torch needs CUDA {torch_cuda}: "
                  "the GPU cannot be used (the app falls back to the CPU)", DRIVER_FIX)


def _torch_cuda_runtime() -> dict:
    """Ask the CUDA build of torch itself: usable GPU, cuDNN version (imports torch, ~1-2 s)."""
    try:
        import torch

        cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        return {"cuda_available": bool(torch.cuda.is_available()), "cudnn": cudnn}
    except Exception as e:
        return {"cuda_available": False, "cudnn": None, "torch_error": str(e)}


def check_gpu() -> Check:
    """The PyTorch-and-GPU check (see the module doc for the rules)."""
    build = torch_build()
    nv = read_nvml()
    details = {"torch": build["version"], "torch_cuda": build["cuda"], **nv}
    if build["version"] is None:
        return Check(NAME, FAIL, "PyTorch is not installed", "pip install torch", details)
    kind = f"torch {build['version']} ({'CUDA ' + build['cuda'] if build['cuda'] else 'CPU build'})"
    if "error" in nv:
        if build["cuda"]:
            return Check(NAME, WARN, f"{kind}, but no NVIDIA driver answers ({nv['error']}): running on the CPU",
                         DRIVER_FIX, details)
        return Check(NAME, INFO, f"{kind}; no NVIDIA driver ({nv['error']}): running on the CPU, cuDNN not used",
                     "", details)
    gpus = "; ".join(f"{g['name']} {g['vram_bytes'] / 2**30:.1f} GiB, compute {g['compute_capability']}, "
                     f"FP16 {'yes' if g['fp16'] else 'no'}, BF16 {'yes' if g['bf16'] else 'no'}"
                     for g in nv["gpus"]) or "no GPU"
    if not build["cuda"]:
        if nv["gpus"]:
            return Check(NAME, WARN, f"{kind} cannot use the GPU ({gpus}; driver {nv['driver']})",
                         "install the CUDA build: pip install --force-reinstall torch --index-url "
                         "https://download.pytorch.org/whl/cu128 (or the cuda artifact of the app)", details)
        return Check(NAME, INFO, f"{kind}; driver {nv['driver']} but no GPU", "", details)
    verdict, summary, fix = driver_verdict(build["cuda"], nv["driver"], nv["driver_cuda"])
    if verdict == FAIL:
        return Check(NAME, FAIL, f"{kind}: {summary} ({gpus})", fix, details)
    runtime = _torch_cuda_runtime()
    details.update(runtime)
    if not runtime["cuda_available"]:
        why = runtime.get("torch_error") or "torch.cuda.is_available() is False"
        return Check(NAME, FAIL, f"{kind}: the GPU is not usable ({why}; {gpus})", DRIVER_FIX, details)
    cudnn = f"cuDNN {runtime['cudnn']}" if runtime["cudnn"] else "no cuDNN"
    return Check(NAME, verdict, f"{kind}, {cudnn}; {summary}; {gpus}", fix, details)
