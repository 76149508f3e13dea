"""EXPERIMENT (2026-12-01 session note): the decoder fine-tuned on prior latents aligned by MAS ("GTA");
50 steps gave MCD 9.30 -> 4.98 dB with WER 0.094 here, but the same change inside the trainer gave WER
0.99 (reverted, commit bfb4f32). Needs /tmp/clone_check from bench/clone_check.py. Not part of the product."""
import sys, time, functools, argparse
sys.path.insert(0, __import__('os').path.join(__import__('os').path.dirname(__import__('os').path.abspath(__file__)), '..'))
import _common  # noqa
import numpy as np, torch
from pathlib import Path
import clone_check as cc
from speechstudio.finetune.manifest import Manifest
from speechstudio.finetune.vits.config import TrainConfig
from speechstudio.finetune.vits.data import BucketBatches, ClipDataset, collate, prepare_clips
from speechstudio.finetune.vits.features import FeatureConfig, mel_spectrogram
from speechstudio.finetune.vits.model import prepare_for_training, encode_text, align, expand_prior, slice_segments, rand_slice_segments
from speechstudio.finetune.vits.losses import mel_loss
from speechstudio.finetune.vits.step import VitsTraining
from speechstudio.finetune.prompts import load_prompts
from speechstudio.tts.vits import load_voice
ap = argparse.ArgumentParser()
ap.add_argument('--warm', type=int, default=100); ap.add_argument('--gta', type=int, default=150)
ap.add_argument('--lr', type=float, default=2e-4); ap.add_argument('--n', type=int, default=6); ap.add_argument('--eval-every', type=int, default=50)
a = ap.parse_args()
torch.manual_seed(0)
work = Path('/tmp/clone_check')
prompts = [p for p in load_prompts() if len(p.split()) >= 5]; held = prompts[100:120][:a.n]
data = np.load(work / 'heldout.npz'); targets = [data[k] for k in sorted(data.files, key=int)][:a.n]
voice = load_voice(cc.joe_onnx(), device='cpu', precision='fp32', optimize=False)
evalvoice = load_voice(cc.joe_onnx(), device='cpu', precision='fp32', optimize=False)
model = voice.model; fc = FeatureConfig.for_model(model.config)
prepare_for_training(model, fresh_posterior=True)
cfg = TrainConfig(steps=100000, warmup_steps=0, batch_size=4, device='cpu', precision='fp32', seed=0)
clips = prepare_clips(Manifest.load(work / 'data'), work / 'data', voice, fc, work / 'run' / 'cache', None)
tr = VitsTraining(model, cfg, fc, 'cpu', 'fp32'); seg = tr.segment_frames
cf = functools.partial(collate, hop_length=fc.hop_length, min_frames=seg)
it = iter(torch.utils.data.DataLoader(ClipDataset(clips.train), collate_fn=cf, batch_sampler=BucketBatches([c.frames for c in clips.train], 4, 0, 0)))
def ev(tag):
    t = time.time(); tr.model.eval(); evalvoice.model = tr.model
    with torch.random.fork_rng():
        m = cc.evaluate(evalvoice, held, targets, with_wer=True)
    tr.model.train(); print(f'EVAL {tag}: F0 {m["f0"]:.1f} MCD {m["mcd"]:.2f} WER {m["wer"]:.3f} ({time.time()-t:.0f}s)', flush=True)
t0 = time.time()
for s in range(1, a.warm + 1):
    l = tr.warmup_step([next(it)])
    if s % 25 == 0: print(f'warm {s} mel {l["mel"]:.3f} kl {l["kl"]:.3f} {(time.time()-t0)/s:.1f}s/step', flush=True)
ev('after warm')
for n, p in model.named_parameters(): p.requires_grad_(n.startswith('decoder.'))
opt = torch.optim.AdamW([p for n, p in model.named_parameters() if n.startswith('decoder.')], lr=a.lr, betas=cfg.betas, eps=cfg.eps, weight_decay=cfg.weight_decay)
t0 = time.time()
for s in range(1, a.gta + 1):
    b = next(it)
    with torch.no_grad():
        _h, m_p, logs_p, x_mask = encode_text(model, b['input_ids'], b['input_mask'])
        z_mask = b['spec_mask'].unsqueeze(1).float()
        z, m_q, logs_q = model.posterior_encoder(b['spec'], z_mask, None)
        z_p = model.flow(z, z_mask, None, reverse=False)
        attn = align(z_p, m_p, logs_p, x_mask, z_mask)
        m_f, logs_f = expand_prior(attn, m_p, logs_p)
        zp_prior = (m_f + torch.randn_like(m_f) * torch.exp(logs_f) * 0.667) * z_mask
        z_prior = model.flow(zp_prior, z_mask, None, reverse=True) * z_mask
    z_slice, ids = rand_slice_segments(z_prior, b['spec_mask'].sum(1).long(), seg)
    wav = model.decoder(z_slice, None)
    y_mel = slice_segments(b['mel'], ids, seg)
    loss = mel_loss(y_mel, mel_spectrogram(wav.squeeze(1), fc))
    (45 * loss).backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if s % 10 == 0: print(f'gta {s} mel {float(loss):.3f} {(time.time()-t0)/s:.1f}s/step', flush=True)
    if s % a.eval_every == 0: ev(f'gta {s}')
