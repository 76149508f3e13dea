"""GPU check of CTC fine-tuning (speechstudio.finetune.ctc): precisions, memory, FP16 resume, OOM.

Not run yet (no GPU was lent when it was written). On a CUDA machine, from the repository root:

    python bench/gpu_ctc_finetune_check.py [OUT_DIR]

A wav2vec2-base-sized random encoder (95 M parameters, no CTC head) trains for 40 steps on 40
synthetic clips of 3-12 s (noise with random words: the loss must stay finite, nothing is
learnt) in BF16, FP16 (+ GradScaler), FP32 and BF16 with gradient checkpointing, and a layer-norm
variant (attention-mask path); each line gives steps/s and peak GPU memory. Then an FP16 run is
stopped at step 20 and resumed (GradScaler state), and a real out-of-memory error is provoked
with ``torch.cuda.set_per_process_memory_fraction`` and resumed at the batch size it suggests.
"""
from __future__ import annotations

import dataclasses
import math
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(out: Path) -> None:
    import soundfile as sf
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2FeatureExtractor, Wav2Vec2Model

    from speechstudio.finetune.ctc import (CTCConfig, DoneEvent, EvalEvent, InfoEvent, SanityEvent, StepEvent,
                                           TrainControl, train_ctc)
    from speechstudio.finetune.manifest import Clip, Manifest

    os.environ.setdefault("SPEECHSTUDIO_HOME", str(out / "home"))
    os.environ["HF_HUB_OFFLINE"] = "1"
    print("torch", torch.__version__, torch.cuda.get_device_name(0), flush=True)

    def run(name, run_dir, data, base, cfg, stop_at=None, **kw):
        t, events, control = time.time(), [], TrainControl()
        torch.cuda.reset_peak_memory_stats()
        try:
            for ev in train_ctc(run_dir, data, base, cfg, control=control, **kw):
                events.append(ev)
                if isinstance(ev, (EvalEvent, InfoEvent, DoneEvent, SanityEvent)):
                    print(f"  {name}: {str(ev)[:200]}", flush=True)
                if isinstance(ev, StepEvent) and ev.step == stop_at:
                    control.stop.set()
        except Exception as exc:  # noqa: BLE001 - reported, the check goes on
            print(f"  {name}: {type(exc).__name__}: {exc}", flush=True)
        steps = [e for e in events if isinstance(e, StepEvent)]
        finite = all(math.isfinite(s.loss) for s in steps)
        rate = steps[-1].steps_per_s if steps else float("nan")
        print(f"{name}: {time.time() - t:.1f} s, {len(steps)} steps, {rate:.2f} steps/s, peak "
              f"{torch.cuda.max_memory_allocated() / 2**30:.2f} GiB, losses finite: {finite}", flush=True)

    rng = np.random.default_rng(0)
    data = out / "synth"
    (data / "clips").mkdir(parents=True)
    lexicon = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    clips = []
    for i in range(40):
        n = int(rng.uniform(3, 12) * 16000)
        sf.write(data / "clips" / f"c{i:02d}.wav", (0.1 * rng.standard_normal(n)).astype(np.float32), 16000,
                 subtype="PCM_16")
        clips.append(Clip(f"c{i:02d}", f"clips/c{i:02d}.wav", " ".join(rng.choice(lexicon, size=max(1, 2 * n // 16000))),
                          n / 16000))
    Manifest(16000, clips).save(data)
    torch.manual_seed(0)
    Wav2Vec2Model(Wav2Vec2Config()).save_pretrained(out / "base-enc")
    Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000, padding_value=0.0, do_normalize=True,
                             return_attention_mask=False).save_pretrained(out / "base-enc")
    Wav2Vec2Model(Wav2Vec2Config(feat_extract_norm="layer", do_stable_layer_norm=True, conv_bias=True)).save_pretrained(
        out / "base-ln")

    cfg = CTCConfig(max_steps=40, lr=1e-4, batch_size=8, val_count=2, eval_every=20, patience=0, device="cuda",
                    sanity_steps=3)
    for precision, checkpointing in (("bf16", False), ("fp16", False), ("fp32", False), ("bf16", True)):
        run(f"base {precision}{' + gradient checkpointing' if checkpointing else ''}", out / f"b-{precision}-{checkpointing}",
            data, str(out / "base-enc"), dataclasses.replace(cfg, precision=precision, gradient_checkpointing=checkpointing))
    run("base layer-norm bf16 (attention mask)", out / "b-ln", data, str(out / "base-ln"), cfg)
    fp16 = dataclasses.replace(cfg, precision="fp16")
    run("fp16 stopped at 20", out / "fp16", data, str(out / "base-enc"), fp16, stop_at=20)
    run("fp16 resumed", out / "fp16", data, None, fp16, resume=True)

    torch.cuda.empty_cache()
    torch.cuda.set_per_process_memory_fraction(0.03)
    run("out of memory (3 % of the GPU, batch 16)", out / "oom", data, str(out / "base-enc"),
        dataclasses.replace(cfg, batch_size=16, precision="fp32", max_steps=10))
    torch.cuda.set_per_process_memory_fraction(1.0)
    run("resumed at batch 4 x 4", out / "oom", data, None,
        dataclasses.replace(cfg, batch_size=4, grad_accum=4, precision="fp32", max_steps=10), resume=True)


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/gpu_ctc_check")
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    main(target)
