"""Every GPU figure of the README in one table (run by ``bench/device_run.sh`` on a CUDA machine).

Re-uses the benchmark functions of ``bench/`` and prints one Markdown table (also written to
``OUT/gpu_table.md``, the table of ``docs/gpu.md``):

* transcription RTFx, FP32 vs FP16, batch 1 / 8 / 32 (``gpu_check.transcription_check``: a
  wav2vec2-base-sized model, real speech repeated to ``--seconds``);
* streaming per-chunk latency p50, eager FP32 / eager FP16 / CUDA Graph FP16, and graph = eager
  (``bench_streaming.gpu_streaming_check``, which raises when replay differs from eager);
* VITS synthesis RTFx, FP32 and FP16, batch 1 / 8 (``bench_tts.gpu_tts_check``, vits-ljs-sized);
* training steps/s and peak VRAM, FP32 vs AMP: CTC wav2vec2-base batch 8 x 10 s
  (``gpu_train_check.ctc_train_check``) and VITS Piper-medium batch 16 x 4 s
  (``bench_vits_train.measure``).

``--quick`` (under 2 minutes on an H200-class card: 30 s of audio, base model only, fewer calls
and steps); full (under 5 minutes: 120 s, base and large, more calls). Exit status 1 when any part
fails (exception or broken promise), listed under the table; 0 otherwise. Without CUDA it says so
and exits 1 (nothing was measured).

    python bench/device_bench.py [--quick] [--out DIR]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _common  # noqa: E402,F401  (the app's OpenMP policy before torch loads; fixtures/ on sys.path)
from gpu_check import run_check, transcription_check  # noqa: E402


def _asr(rows: list, seconds: float) -> None:
    for precision, bs, rtfx, vram, _words in transcription_check("cuda", "base", seconds):
        rows.append(("Batch transcription RTFx (wav2vec2-base-sized)", f"{precision.upper()}, batch {bs}",
                     f"{rtfx:.0f}x real time, peak {vram:.0f} MiB"))


def _streaming(rows: list, quick: bool) -> None:
    from bench_streaming import gpu_streaming_check

    res = gpu_streaming_check(sizes=("base",) if quick else ("base", "large"), iters=30 if quick else 60)
    for size, r in res.items():
        if size == "end_to_end":
            rows.append(("Streaming, real recording end to end (base, FP16)", "graph vs eager",
                         f"chunk p50 {r['graph_p50_ms']:.2f} vs {r['eager_p50_ms']:.2f} ms; max |logit diff| "
                         f"{r['max_abs_diff']:.3g}; same text {r['same_text']}"))
            continue
        modes = ", ".join(f"{m} {r[m]['p50_ms']:.2f}" for m in ("eager-fp32", "eager-fp16", "graph-fp16"))
        rows.append((f"Streaming per-chunk p50 ms ({size}-sized, batch 1)", modes,
                     f"graph {r['speedup_p50']:.2f}x eager FP16 (target 1.3x); max |diff| {r['max_abs_diff']:.3g}"))


def _tts(rows: list, quick: bool) -> None:
    from bench_tts import gpu_tts_check

    res = gpu_tts_check(batch_sizes=(1, 8), repeats=3 if quick else 5)
    for (precision, bs), r in sorted(res.items()):
        rows.append(("VITS synthesis RTFx (vits-ljs-sized)", f"{precision.upper()}, batch {bs}",
                     f"{r['rtfx']:.0f}x real time, peak {r['peak_vram_mib']:.0f} MiB"))


def _train(rows: list, quick: bool) -> None:
    import torch
    from bench_vits_train import measure
    from gpu_train_check import ctc_train_check

    res = ctc_train_check()
    for (precision, ckpt), r in sorted(res.items()):
        rows.append(("CTC fine-tuning (wav2vec2-base, batch 8 x 10 s)",
                     f"{precision.upper()}{' + checkpointing' if ckpt else ''}",
                     f"{r['steps_per_s']:.2f} steps/s, peak {r['peak_vram_mib']:.0f} MiB"))
    args = argparse.Namespace(model="piper-medium", device="cuda", seconds=4.0, steps=2 if quick else 5,
                              warm=1 if quick else 2, flops=False)
    for precision in ("fp32", "fp16", "bf16"):
        try:
            r = measure(args, precision, 16, False)
        except torch.OutOfMemoryError as e:
            torch.cuda.empty_cache()
            raise AssertionError(f"VITS {precision} batch 16 ran out of GPU memory: {str(e)[:80]}") from None
        rows.append(("VITS fine-tuning (Piper-medium-sized, batch 16 x 4 s)", precision.upper(),
                     f"{1 / r['train_s_per_step']:.2f} GAN steps/s, peak {r['train_peak_mib']} MiB"))


def table(rows: list, gpu: str) -> str:
    """The Markdown table of ``rows`` ``(what, configuration, figure)`` under a title naming ``gpu``."""
    lines = [f"GPU: {gpu}", "", "| What | Configuration | Figure |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="under 2 minutes: fewer sizes, calls and steps")
    ap.add_argument("--out", type=Path, default=Path("."), help="folder for gpu_table.md (default: here)")
    args = ap.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("device_bench: CUDA is not available to torch here: nothing measured")
        return 1
    gpu = f"{torch.cuda.get_device_name(0)}, torch {torch.__version__} (CUDA {torch.version.cuda})"
    rows: list = []
    failures: list[str] = []
    run_check("asr", lambda: _asr(rows, 30.0 if args.quick else 120.0), failures)
    run_check("streaming", lambda: _streaming(rows, args.quick), failures)
    run_check("tts", lambda: _tts(rows, args.quick), failures)
    run_check("training", lambda: _train(rows, args.quick), failures)
    text = table(rows, gpu)
    if failures:
        text += "\nFAILED:\n" + "".join(f"- {f}\n" for f in failures)
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = args.out / "gpu_table.md.tmp"
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(args.out / "gpu_table.md")
    print("\n" + text)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
