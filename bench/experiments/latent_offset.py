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
import numpy as np, torch, librosa
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import clone_check as cc
from speechstudio.finetune.prompts import load_prompts
from speechstudio.finetune.vits.trainer import _load_base
from speechstudio.finetune.vits.features import FeatureConfig, mel_spectrogram
from speechstudio.finetune.vits.losses import stft_loss
from speechstudio.tts.vits import load_voice
torch.set_num_threads(2)
prompts = [p for p in load_prompts() if len(p.split()) >= 5]
voice = load_voice(cc.joe_onnx(), device="cpu", precision="fp32", optimize=False)
model = _load_base(str(cc.joe_onnx())).model.eval()
for p in model.parameters(): p.requires_grad_(False)
model.noise_scale, model.noise_scale_duration = 0.667, 0.8
fc = FeatureConfig.for_model(model.config)
cap = []
h = model.decoder.register_forward_hook(lambda m, i, o: cap.append((i[0].detach(), o.detach())))
pairs = []
with torch.no_grad():
    for i, text in enumerate(prompts[:30]):
        torch.manual_seed(i)
        model(input_ids=torch.tensor([voice.text_to_ids(text)]))
        z, wav = cap.pop()
        a = wav.squeeze().numpy()
        tgt = librosa.effects.pitch_shift(a, sr=22050, n_steps=4.0).astype(np.float32)
        pairs.append((z, torch.from_numpy(tgt)))
h.remove()
c = torch.zeros(1, z.shape[1], 1, requires_grad=True)
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
