"""VITS fine-tuning on CUDA end to end (``finetune.vits.trainer.train_voice``), for a lent GPU.

For each precision (fp16 + GradScaler, bf16, auto, fp32): train the tiny test voice
(``fixtures/tts_fixtures/tiny.py``) on the synthetic test dataset for 12 steps, stopping at step 6
through ``TrainControl`` and resuming (CUDA RNG state restored), then load the trained generator.
Prints one JSON line per precision: finite losses, the steps seen, mel loss first / last, wall time,
and the largest weight difference to an uninterrupted run (CUDA kernels are not bit-deterministic,
so this is reported, not asserted). Needs ``soundfile``; without PyAV, clips are read with it.

    python bench/gpu_vits_finetune_check.py OUT_DIR [DEVICE]     (DEVICE: cuda, or cpu for a dry run)
"""
from __future__ import annotations

import json
import math
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "fixtures")]


def main(out: Path, device: str = "cuda") -> int:
    import soundfile as sf
    import torch

    try:
        import av  # noqa: F401
    except ImportError:  # the GPU machine has no PyAV: read the PCM-16 clips with soundfile
        import speechstudio.audio.decode as decode

        decode.load_audio = lambda path, sample_rate=16000, **kw: sf.read(str(path), dtype="float32")[0]
    from tts_fixtures.dataset import make_dataset, tiny_config
    from tts_fixtures.tiny import make_tiny_vits

    from speechstudio.finetune.vits.events import DoneEvent, StepEvent
    from speechstudio.finetune.vits.trainer import TrainControl, load_trained_generator, train_voice

    out.mkdir(parents=True, exist_ok=True)
    work = out / "work"
    shutil.rmtree(work, ignore_errors=True)
    base = make_tiny_vits(work / "tiny", stochastic=True)
    data = make_dataset(work / "data")
    results = {}
    for precision in ("fp16", "bf16", "auto", "fp32") if device.startswith("cuda") else ("fp32",):
        cfg = tiny_config(device=device, precision=precision, steps=12, eval_every=6, checkpoint_every=6)
        t = time.perf_counter()
        whole = list(train_voice(work / f"whole-{precision}", data, base, cfg))
        control, first = TrainControl(), []
        for ev in train_voice(work / f"split-{precision}", data, base, cfg, control=control):
            first.append(ev)
            if isinstance(ev, StepEvent) and ev.step == 6:
                control.stop.set()
        second = list(train_voice(work / f"split-{precision}", data, base, cfg, resume=True))
        steps = [e for e in first + second if isinstance(e, StepEvent)]
        a, _ = load_trained_generator(work / f"whole-{precision}", "latest")
        b, info = load_trained_generator(work / f"split-{precision}", "latest")
        diff = max(float((a.state_dict()[k] - b.state_dict()[k]).abs().max()) for k in a.state_dict())
        done = [e for e in first + second if isinstance(e, DoneEvent)]
        results[precision] = {
            "finite": all(math.isfinite(v) for e in steps for v in e.losses.values()),
            "steps": [e.step for e in steps], "done": [(e.step, e.reason) for e in done],
            "mel_first": round(steps[0].losses["mel"], 4), "mel_last": round(steps[-1].losses["mel"], 4),
            "whole_finished": isinstance(whole[-1], DoneEvent) and whole[-1].reason == "finished",
            "max_weight_diff_vs_uninterrupted": diff, "loaded_step": info.step,
            "wall_s": round(time.perf_counter() - t, 1),
            "gpu": torch.cuda.get_device_name(0) if device.startswith("cuda") else None}
        print(json.dumps({"precision": precision, **results[precision]}), flush=True)
    (out / "vits_finetune_gpu.json").write_text(json.dumps(results, indent=1))
    shutil.rmtree(work, ignore_errors=True)
    return 0 if all(r["finite"] and r["whole_finished"] for r in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/vits_gpu_check"),
                          sys.argv[2] if len(sys.argv) > 2 else "cuda"))
