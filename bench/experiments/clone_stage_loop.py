"""EXPERIMENT (2026-12-01 session note): the stand-alone stage loop that gave better clone figures than
`train_voice` did in bench/clone_check.py (warm-up, then a decoder / flow stage chosen by --adapt-prefixes;
evaluates F0 / MCD / WER on 6 held-out sentences). Needs /tmp/clone_check from bench/clone_check.py.
Kept to find the gap between this loop and the trainer; not part of the product."""
import sys, time, functools, argparse
sys.path.insert(0, __import__('os').path.join(__import__('os').path.dirname(__import__('os').path.abspath(__file__)), '..'))
import _common  # noqa
import numpy as np, torch
from pathlib import Path
import clone_check as cc
from speechstudio.finetune.manifest import Manifest
from speechstudio.finetune.vits.config import TrainConfig
from speechstudio.finetune.vits.data import BucketBatches, ClipDataset, collate, prepare_clips
from speechstudio.finetune.vits.features import FeatureConfig
from speechstudio.finetune.vits.model import prepare_for_training
from speechstudio.finetune.vits.step import VitsTraining
from speechstudio.finetune.prompts import load_prompts
from speechstudio.tts.vits import load_voice

ap = argparse.ArgumentParser()
ap.add_argument('--warm', type=int, default=100)
ap.add_argument('--warm-lr', type=float, default=1e-3)
ap.add_argument('--adapt', type=int, default=150)
ap.add_argument('--adapt-lr', type=float, default=2e-4)
ap.add_argument('--adapt-prefixes', default='posterior_encoder.,flow.,duration_predictor.')
ap.add_argument('--eval-every', type=int, default=50)
ap.add_argument('--n', type=int, default=6)
ap.add_argument('--bs', type=int, default=4)
ap.add_argument('--save', default='')
a = ap.parse_args()
torch.manual_seed(0)
work = Path('/tmp/clone_check')
prompts = [p for p in load_prompts() if len(p.split()) >= 5]
held = prompts[100:120][:a.n]
targets = [x for x in np.load(work / 'heldout.npz').values()]
data = np.load(work / 'heldout.npz'); targets = [data[k] for k in sorted(data.files, key=int)][:a.n]
voice = load_voice(cc.joe_onnx(), device='cpu', precision='fp32', optimize=False)
evalvoice = load_voice(cc.joe_onnx(), device='cpu', precision='fp32', optimize=False)
model = voice.model
fc = FeatureConfig.for_model(model.config)
prepare_for_training(model, fresh_posterior=True)
cfg = TrainConfig(steps=100000, warmup_steps=0, batch_size=a.bs, device='cpu', precision='fp32', seed=0, lr=a.warm_lr)
man = Manifest.load(work / 'data')
clips = prepare_clips(man, work / 'data', voice, fc, work / 'run' / 'cache', None)
tr = VitsTraining(model, cfg, fc, 'cpu', 'fp32')
seg = tr.segment_frames
cf = functools.partial(collate, hop_length=fc.hop_length, min_frames=seg)
loader = torch.utils.data.DataLoader(ClipDataset(clips.train), collate_fn=cf, batch_sampler=BucketBatches([c.frames for c in clips.train], a.bs, 0, 0))
it = iter(loader)
def ev(tag):
    t = time.time()
    tr.model.eval(); evalvoice.model = tr.model
    with torch.random.fork_rng():
        m = cc.evaluate(evalvoice, held, targets, with_wer=True)
    tr.model.train()
    print(f'EVAL {tag}: F0 {m["f0"]:.1f} MCD {m["mcd"]:.2f} WER {m["wer"]:.3f} ({time.time()-t:.0f}s)', flush=True)
def setlr(lr):
    for g in tr.opt_g.param_groups: g['lr'] = lr
ev('base')
t0 = time.time()
for s in range(1, a.warm + 1):
    l = tr.warmup_step([next(it)])
    if s % 10 == 0: print(f'warm {s} ' + ' '.join(f'{k} {v:.3f}' for k, v in l.items()) + f' {(time.time()-t0)/s:.1f}s/step', flush=True)
ev(f'after warm {a.warm}')
tr.warmup_prefixes = tuple(a.adapt_prefixes.split(','))
tr.stage = None
setlr(a.adapt_lr)
t0 = time.time()
for s in range(1, a.adapt + 1):
    l = tr.warmup_step([next(it)])
    if s % 10 == 0: print(f'adapt {s} ' + ' '.join(f'{k} {v:.3f}' for k, v in l.items()) + f' {(time.time()-t0)/s:.1f}s/step', flush=True)
    if s % a.eval_every == 0: ev(f'adapt {s}')
if a.save: torch.save(tr.model.state_dict(), a.save)
