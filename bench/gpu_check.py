"""GPU check: one short script to run on a CUDA machine (target: under 3-5 minutes on one GPU).

Reports, for wav2vec2-base-sized models built from a config (no download needed):
  * transcription: FP32 vs FP16 RTFx and peak VRAM at batch 1 / 8 / 32 (20 s windows);
  * TTS (``bench/bench_tts.py: gpu_tts_check``) and streaming dictation with CUDA Graph replay
    (``bench/bench_streaming.py: gpu_streaming_check``) when those modules are present.
Without CUDA it says so and, with ``--quick``, runs the same transcription code path on the CPU
with a tiny model, so CI keeps the script working.

Exit status 1 when any check fails (an exception, or a broken promise such as CUDA Graph replay
differing from eager FP16: ``bench_streaming.graph_failures``), 0 when all ran and passed.

Usage: ``python bench/gpu_check.py [--quick] [--seconds 120]``
"""
from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import long_audio  # noqa: E402


def transcription_check(device: str, size: str, seconds: float, batches=(1, 8, 32), precisions=("fp32", "fp16")):
    import torch

    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from tiny_models import make_wav2vec2

    audio = long_audio(seconds)
    dur = audio.size / 16000
    rows = []
    with tempfile.TemporaryDirectory() as d:
        model_dir = make_wav2vec2(Path(d) / size, size=size)
        for precision in precisions:
            recognizer = Wav2Vec2Recognizer(model_dir, size, device=device, precision=precision, batch_size=1)
            for bs in batches:
                recognizer.batch_size = bs
                list(recognizer.words([audio[: 16000 * 25]]))          # warm-up
                if device.startswith("cuda"):
                    torch.cuda.synchronize()
                    torch.cuda.reset_peak_memory_stats()
                t = time.perf_counter()
                n_words = sum(1 for _ in recognizer.words([audio]))
                if device.startswith("cuda"):
                    torch.cuda.synchronize()
                el = time.perf_counter() - t
                vram = torch.cuda.max_memory_allocated() / 2**20 if device.startswith("cuda") else float("nan")
                rows.append((precision, bs, dur / el, vram, n_words))
                print(f"[asr] {size:5s} {device:5s} {precision} batch {bs:2d}: RTFx {dur / el:8.1f}  "
                      f"peak VRAM {vram:7.0f} MB  ({n_words} words)", flush=True)
            del recognizer
    by = {(p, b): r for p, b, r, _, _ in rows}
    for bs in batches:
        if ("fp16", bs) in by and ("fp32", bs) in by:
            print(f"[asr] {size} batch {bs}: FP16/FP32 speed-up {by[('fp16', bs)] / by[('fp32', bs)]:.2f}x")
    return rows


def run_check(name: str, fn, failures: list[str]):
    """Run one check ``fn()``; an exception (an ``AssertionError`` of a broken promise, a missing
    module, a crash) is printed and appended to ``failures`` as ``"name: reason"``; returns
    ``fn()``'s result, or ``None`` when it failed."""
    t = time.perf_counter()
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - every failure is reported, the other checks still run
        failures.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        print(f"[{name}] FAILED: {failures[-1]}", flush=True)
        return None
    print(f"[{name}] took {time.perf_counter() - t:.0f} s", flush=True)
    return out


def _module_check(module: str, func: str):
    return lambda: getattr(importlib.import_module(module), func)()


def main(argv=None) -> int:
    """Exit status 0 when every check ran and kept its promise, 1 otherwise (the failures are
    listed last)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="CPU smoke run with a tiny model when CUDA is absent")
    ap.add_argument("--seconds", type=float, default=120.0, help="audio per measurement")
    args = ap.parse_args(argv)
    import torch

    failures: list[str] = []
    print(f"torch {torch.__version__}, CUDA available: {torch.cuda.is_available()}")
    if torch.cuda.is_available():
        print(f"GPU: {torch.cuda.get_device_name(0)}")
        run_check("asr", lambda: transcription_check("cuda", "base", args.seconds), failures)
        run_check("bench_streaming", _module_check("bench_streaming", "gpu_streaming_check"), failures)
        run_check("bench_tts", _module_check("bench_tts", "gpu_tts_check"), failures)
        run_check("gpu_train_check", _module_check("gpu_train_check", "ctc_train_check"), failures)
        print("VITS fine-tuning: python bench/bench_vits_train.py --model piper-medium --device cuda --batch 16 "
              "--precision fp32 bf16 fp16 --checkpointing both (bench/device_run.sh runs it)")
    else:
        print("CUDA is not available: no GPU figures.")
        if args.quick:
            run_check("asr", lambda: transcription_check("cpu", "tiny", 30.0, batches=(1, 8), precisions=("fp32",)),
                      failures)
            train = importlib.import_module("gpu_train_check")
            run_check("gpu_train_check", lambda: train.ctc_train_check(cpu_smoke=True), failures)
    if failures:
        print(f"FAILED ({len(failures)}):\n  " + "\n  ".join(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
