"""Experiment (issue 9, 2026-12-02): is pitch a direction in the joe voice's decoder latents?

Synthesises N prompts with joe (PyTorch model, seeds 0..N-1), captures the decoder's input
latents, measures F0 per latent frame (librosa pyin, hop 256 = one latent frame), fits a ridge
regression of log F0 (semitones) on the 192 latent channels (80/20 frame split), then moves the
latents of 6 sentences along the fitted direction by 0/+2/+4/+6 semitones and reports the F0 of
joe's decoder output. Result (N=40): R2 0.80 held out, F0 88.9 -> 91.7 / 92.0 / 92.5 Hz: the pitch
is readable from the latents, not controlled by that direction. docs/finetune_voice.md, "Pitch".

Usage: ``python bench/experiments/latent_pitch.py [N]`` (about 1.5 min on 2 CPU cores).
"""
import sys, time
from pathlib import Path
import numpy as np, torch, librosa
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import clone_check as cc
from speechstudio.finetune.prompts import load_prompts
from speechstudio.finetune.vits.trainer import _load_base
from speechstudio.tts.vits import load_voice
torch.set_num_threads(2)
prompts = [p for p in load_prompts() if len(p.split()) >= 5]
voice = load_voice(cc.joe_onnx(), device="cpu", precision="fp32", optimize=False)
model = _load_base(str(cc.joe_onnx())).model.eval()
model.noise_scale, model.noise_scale_duration = 0.667, 0.8
cap = []
h = model.decoder.register_forward_hook(lambda m, i, o: cap.append((i[0].detach(), o.detach())))
t = time.perf_counter()
Z, F, clips = [], [], []
N = int(sys.argv[1]) if len(sys.argv) > 1 else 40
with torch.no_grad():
    for i, text in enumerate(prompts[:N]):
        torch.manual_seed(i)
        model(input_ids=torch.tensor([voice.text_to_ids(text)]))
        z, wav = cap.pop()
        a = wav.squeeze().numpy()
        f0, vo, _ = librosa.pyin(a, fmin=60, fmax=500, sr=22050, frame_length=1024, hop_length=256)
        n = min(z.shape[-1], len(f0))
        Z.append(z[0, :, :n].T.numpy()); F.append(np.where(vo[:n], f0[:n], np.nan)); clips.append((z, a))
print("synth+pyin", time.perf_counter() - t, flush=True)
Zc, Fc = np.concatenate(Z), np.concatenate(F)
ok = np.isfinite(Fc) & (np.abs(Fc / (22050 / 256) - 1) > 0.01)
X, y = Zc[ok], 12 * np.log2(Fc[ok] / 100.0)
ntr = int(0.8 * len(y))
Xa = np.c_[X, np.ones(len(X))]
lam = 1.0
w = np.linalg.solve(Xa[:ntr].T @ Xa[:ntr] + lam * np.eye(Xa.shape[1]), Xa[:ntr].T @ y[:ntr])
pred = Xa @ w
r2 = lambda a, b: 1 - np.sum((a - b) ** 2) / np.sum((a - a.mean()) ** 2)
print(f"frames {len(y)}, R2 train {r2(y[:ntr], pred[:ntr]):.3f} test {r2(y[ntr:], pred[ntr:]):.3f}, y std {y.std():.2f} st")
wv = w[:-1]
u = wv / np.dot(wv, wv)  # +1 st along pred
print("|u|", np.linalg.norm(u), "z std per dim", Zc.std(0).mean())
# shift test on 6 clips
for delta in (0.0, 2.0, 4.0, 6.0):
    outs = []
    with torch.no_grad():
        for z, a in clips[N - 6:]:
            zz = z + torch.from_numpy(u * delta).float().view(1, -1, 1)
            outs.append(model.decoder(zz, None).squeeze().numpy())
    cap.clear()
    s = cc.f0_stats(outs)
    print(f"shift {delta:+.0f} st: F0 {s['f0']:.1f} spread {s['f0_spread_st']:.1f} buzz {s['frame_buzz']:.0%}", flush=True)
