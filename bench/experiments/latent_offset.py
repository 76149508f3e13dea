"""Experiment (issue 9, 2026-12-02): can one constant latent offset pitch-shift joe's decoder?

30 joe sentences (seeds 0..29) and their +4 semitone versions (librosa pitch_shift); a single
(1, 192, 1) offset added to every latent frame is fitted with Adam (lr argv[1], argv[2] steps,
batches of 8 x 32 frames; mel L1 + multi-resolution STFT) with joe's decoder frozen; F0 and MCD
on 6 held-out sentences. Result (0.05, 120): MCD to the target 9.5 -> 7.9 dB, median F0 86.3 Hz
unchanged (target 108.8 on these sentences). docs/finetune_voice.md, "Pitch".

Usage: ``python bench/experiments/latent_offset.py [LR] [STEPS]`` (about 1 min on 2 CPU cores).
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
model, fc, pairs = joe_pairs(30)
c = torch.zeros(1, pairs[0][0].shape[1], 1, requires_grad=True)
opt = torch.optim.Adam([c], lr=float(sys.argv[1]) if len(sys.argv) > 1 else 0.05)
SEG = 32
t = time.perf_counter()
for it in range(int(sys.argv[2]) if len(sys.argv) > 2 else 120):
    zs, ys = [], []
    for k in np.random.randint(24, size=8):
        z, y = pairs[k]
        st = np.random.randint(z.shape[-1] - SEG)
        zs.append(z[0, :, st:st + SEG]); ys.append(y[st * 256:(st + SEG) * 256])
    zb, yb = torch.stack(zs), torch.stack(ys)
    out = model.decoder(zb + c, None).squeeze(1)
    loss = torch.mean(torch.abs(mel_spectrogram(out, fc) - mel_spectrogram(yb, fc))) + stft_loss(yb.unsqueeze(1), out.unsqueeze(1))
    opt.zero_grad(); loss.backward(); opt.step()
    if it % 20 == 0: print(it, round(loss.item(), 3), "|c|", round(c.norm().item(), 2), round(time.perf_counter() - t), flush=True)
with torch.no_grad():
    outs0 = [model.decoder(z, None).squeeze().numpy() for z, _ in pairs[24:]]
    outs = [model.decoder(z + c, None).squeeze().numpy() for z, _ in pairs[24:]]
tg = [y.numpy() for _, y in pairs[24:]]
print("joe", cc.f0_stats(outs0)); print("offset", cc.f0_stats(outs), "mcd", cc.mcd(outs, tg), "joe mcd", cc.mcd(outs0, tg)); print("target", cc.f0_stats(tg))
