"""Experiment (issue 9, 2026-12-02): can joe's frozen decoder be made to say joe +4 semitones
by optimising its input latents (decoder inversion)?

4 joe sentences (seeds 0..3) shifted +4 semitones (librosa pitch_shift); per clip the latents
are optimised with Adam (argv[2] lr, argv[1] steps; mel L1 + multi-resolution STFT) from argv[3]
= ``joe`` (joe's own latents), ``smooth`` (joe's latents averaged over 9 frames: no fine pitch
detail) or ``zeros``. Result (100, 0.05, smooth): MCD 5.2 dB to the target, median F0 85.8 Hz,
contour spread 2.2 st (target 114.6 Hz, 7.2 st). docs/finetune_voice.md, "Pitch".

Usage: ``python bench/experiments/latent_invert.py 100 0.05 smooth`` (about 1.5 min on 2 CPU cores).
"""
import sys, time
from pathlib import Path
import numpy as np, torch
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import clone_check as cc
from _joe_pairs import joe_pairs
from speechstudio.finetune.vits.features import mel_spectrogram
from speechstudio.finetune.vits.losses import stft_loss
ITERS = int(sys.argv[1]); LR = float(sys.argv[2]); INIT = sys.argv[3]
model, fc, pairs = joe_pairs(4)
outs, tg = [], []
t = time.perf_counter()
for z0, y in pairs:
    n = z0.shape[-1]; y = y[: n * 256]
    if INIT == "joe": zi = z0.clone()
    elif INIT == "smooth":  # per-phone-ish blur of joe's latents: loses the contour detail
        zi = torch.nn.functional.avg_pool1d(z0, 9, 1, 4, count_include_pad=False)
    else: zi = torch.zeros_like(z0)
    z = zi.clone().requires_grad_(True)
    opt = torch.optim.Adam([z], lr=LR)
    ym = mel_spectrogram(y[None], fc)
    for it in range(ITERS):
        out = model.decoder(z, None).squeeze(1)
        m = mel_spectrogram(out, fc)
        k = min(m.shape[-1], ym.shape[-1])
        loss = torch.mean(torch.abs(m[..., :k] - ym[..., :k])) + stft_loss(y[None, None, : out.shape[-1]], out.unsqueeze(1)[..., : y.shape[-1]])
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"clip loss {loss.item():.3f} {time.perf_counter() - t:.0f}s", flush=True)
    with torch.no_grad(): outs.append(model.decoder(z, None).squeeze().numpy())
    tg.append(y.numpy())
print("inverted", cc.f0_stats(outs), "mcd", cc.mcd(outs, tg)); print("target", cc.f0_stats(tg))
