"""Training throughput on CUDA for the two fine-tuning tracks (part of ``bench/gpu_check.py``).

* ``ctc_train_check``: a wav2vec2-base-sized ``Wav2Vec2ForCTC`` (transformers defaults, 95 M
  parameters, random weights) at batch 8 of 10 s clips, feature encoder frozen as in the CTC
  recipe: optimizer steps/s and peak VRAM for FP32, FP16 autocast + GradScaler and BF16 autocast,
  each with and without gradient checkpointing.
* ``vits_train_check``: the VITS generator + discriminator of a Piper-medium-sized voice at
  batch 16 (the issue's figure): steps/s FP32 vs AMP and peak VRAM, through the trainer's own
  training step (``speechstudio.finetune.vits``).

Each function returns a dict and prints one line per configuration; with ``cpu_smoke=True`` a tiny
model runs 2 steps on the CPU so CI keeps the code path alive.
"""
from __future__ import annotations

import time


def _timed_steps(step, n_warm: int, n: int, cuda: bool) -> float:
    import torch

    for _ in range(n_warm):
        step()
    if cuda:
        torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        step()
    if cuda:
        torch.cuda.synchronize()
    return n / (time.perf_counter() - t)


def ctc_train_check(cpu_smoke: bool = False, batch: int = 8, seconds: float = 10.0, print_fn=print) -> dict:
    """Steps/s and peak VRAM (MiB) of CTC fine-tuning steps; keys ``(precision, checkpointing)``."""
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2ForCTC

    cuda = torch.cuda.is_available() and not cpu_smoke
    device = "cuda" if cuda else "cpu"
    if cuda:
        cfg = Wav2Vec2Config(vocab_size=32, pad_token_id=0, ctc_loss_reduction="mean", ctc_zero_infinity=True)
    else:
        cfg = Wav2Vec2Config(vocab_size=32, pad_token_id=0, hidden_size=32, num_hidden_layers=2,
                             num_attention_heads=2, intermediate_size=64, conv_dim=(32,) * 7,
                             num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2)
        batch, seconds = 2, 2.0
    precisions = ("fp32", "fp16", "bf16") if cuda else ("fp32",)
    results = {}
    gen = torch.Generator().manual_seed(0)
    audio = torch.randn(batch, int(16000 * seconds), generator=gen).to(device)
    labels = torch.randint(5, 32, (batch, int(seconds * 12)), generator=gen).to(device)  # ~12 chars/s
    for checkpointing in (False, True):
        for precision in precisions:
            torch.manual_seed(0)
            model = Wav2Vec2ForCTC(cfg).to(device).train()
            model.freeze_feature_encoder()
            if checkpointing:
                model.gradient_checkpointing_enable()
            opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
            dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
            scaler = torch.amp.GradScaler("cuda", enabled=precision == "fp16")

            def step():
                opt.zero_grad(set_to_none=True)
                with torch.autocast(device_type=device, dtype=dtype or torch.float32, enabled=dtype is not None):
                    loss = model(input_values=audio, labels=labels).loss
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()

            if cuda:
                torch.cuda.reset_peak_memory_stats()
            sps = _timed_steps(step, 2 if cuda else 1, 10 if cuda else 1, cuda)
            vram = torch.cuda.max_memory_allocated() / 2**20 if cuda else float("nan")
            results[(precision, checkpointing)] = {"steps_per_s": sps, "peak_vram_mib": vram}
            print_fn(f"[ctc-train] {'base' if cuda else 'tiny'} batch {batch} x {seconds:.0f} s {precision} "
                     f"checkpointing={'on ' if checkpointing else 'off'}: {sps:6.2f} steps/s  "
                     f"peak VRAM {vram:7.0f} MiB")
            del model, opt
            if cuda:
                torch.cuda.empty_cache()
    if cuda:
        for ck in (False, True):
            base = results[("fp32", ck)]["steps_per_s"]
            print_fn(f"[ctc-train] checkpointing={ck}: FP16/FP32 {results[('fp16', ck)]['steps_per_s'] / base:.2f}x, "
                     f"BF16/FP32 {results[('bf16', ck)]['steps_per_s'] / base:.2f}x")
    return results
