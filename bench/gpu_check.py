"""GPU check: one short script to run on a CUDA machine (target: under 3-5 minutes on one GPU).

Reports, for wav2vec2-base-sized models built from a config (no download needed):
  * transcription: FP32 vs FP16 RTFx and peak VRAM at batch 1 / 8 / 32 (20 s windows);
  * TTS (``bench/bench_tts.py: gpu_tts_check``) and streaming dictation with CUDA Graph replay
    (``bench/bench_streaming.py: gpu_streaming_check``) when those modules are present.
Without CUDA it says so and, with ``--quick``, runs the same transcription code path on the CPU
with a tiny model, so CI keeps the script working.

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


def optional(module: str, func: str) -> None:
    try:
        mod = importlib.import_module(module)
    except ImportError as e:
        print(f"[{module}] not available: {e}")
        return
    fn = getattr(mod, func, None)
    if fn is None:
        print(f"[{module}] has no {func}()")
        return
    t = time.perf_counter()
    fn()
    print(f"[{module}] {func} took {time.perf_counter() - t:.0f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="CPU smoke run with a tiny model when CUDA is absent")
    ap.add_argument("--seconds", type=float, default=120.0, help="audio per measurement")
    args = ap.parse_args()
    import torch

    print(f"torch {torch.__version__}, CUDA available: {torch.cuda.is_available()}")
    if torch.cuda.is_available():
        print(f"GPU: {torch.cuda.get_device_name(0)}")
        transcription_check("cuda", "base", args.seconds)
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        optional("bench_streaming", "gpu_streaming_check")
        optional("bench_tts", "gpu_tts_check")
        optional("gpu_train_check", "ctc_train_check")
        print("VITS fine-tuning: python bench/bench_vits_train.py --model piper-medium --device cuda --batch 16 "
              "--precision fp32 bf16 fp16 --checkpointing both (bench/device_run.sh runs it)")
        return 0
    print("CUDA is not available: no GPU figures.")
    if args.quick:
        transcription_check("cpu", "tiny", 30.0, batches=(1, 8), precisions=("fp32",))
        from gpu_train_check import ctc_train_check

        ctc_train_check(cpu_smoke=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
