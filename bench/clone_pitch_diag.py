"""Pitch experiments of issue 9 (docs/finetune_voice.md "Known problem"): train joe on clone_check's
target for a few stages, then report F0 stats of (a) the posterior-mean reconstruction of the
held-out target through the trained decoder, (b) with ``--synth`` the clone's own synthesis, (c) the
trained decoder fed joe's own latents (the pitch probe).

Example (2026-12-02 figures in the docs): ``python bench/clone_pitch_diag.py --run e5 --warmup 150
--decoder 300 --lr 2e-5 --synth``; ``--init-pe FILE`` starts from a distilled posterior encoder
(``bench/clone_posterior_distill.py``). Work folder ``--work`` (default /tmp/cc) holds the target
made by ``clone_check.make_target`` and the runs."""
import argparse, sys, time
from pathlib import Path
import numpy as np, torch
sys.path.insert(0, str(Path(__file__).resolve().parent))
import clone_check as cc
from speechstudio.finetune.dataset import build_dataset
from speechstudio.finetune.prompts import load_prompts
from speechstudio.finetune.vits.trainer import TrainConfig, train_voice
from speechstudio.finetune.vits.trained import load_trained_generator
from speechstudio.finetune.vits.features import FeatureConfig, linear_spectrogram

ap = argparse.ArgumentParser()
ap.add_argument("--work", type=Path, default=Path("/tmp/cc"))
ap.add_argument("--run", default="warm")
ap.add_argument("--warmup", type=int, default=150)
ap.add_argument("--decoder", type=int, default=0)
ap.add_argument("--stft", type=float, default=0.0)
ap.add_argument("--vae", action="store_true")
ap.add_argument("--ramp", type=int, default=30)
ap.add_argument("--wlr", type=float, default=1e-3)
ap.add_argument("--only-eval", action="store_true")
ap.add_argument("--init-pe")
ap.add_argument("--gan", type=int, default=0)
ap.add_argument("--lr", type=float, default=2e-4)
ap.add_argument("--dwidth", type=float, default=1.0)
ap.add_argument("--synth", action="store_true")
args = ap.parse_args()
prompts = [p for p in load_prompts() if len(p.split()) >= 5]
train_texts, held_out = prompts[:100], prompts[100:120]
args.work.mkdir(parents=True, exist_ok=True)
target_dir, targets = cc.make_target(args.work, train_texts, held_out)
data_dir = args.work / "data"
if not (data_dir / "manifest.json").is_file():
    build_dataset(target_dir, data_dir, cc.SR)
run_dir = args.work / args.run
if args.init_pe:
    import speechstudio.finetune.vits.model as vm
    _orig = vm.prepare_for_training
    def _patched(model, fresh_posterior):
        notes = _orig(model, fresh_posterior)
        model.posterior_encoder.load_state_dict(torch.load(args.init_pe))
        return notes + ["posterior from " + args.init_pe]
    vm.prepare_for_training = _patched
steps = args.warmup + args.decoder + args.gan
if not args.only_eval:
    cfg = TrainConfig(steps=steps, warmup_steps=args.warmup, decoder_steps=args.decoder, batch_size=4, device="cpu",
                      precision="fp32", checkpoint_every=steps, eval_every=steps, seed=0, stft_weight=args.stft,
                      vae_decoder=args.vae, discriminator_width=args.dwidth, lr=args.lr, warmup_ramp_steps=args.ramp, warmup_lr=args.wlr)
    t = time.perf_counter()
    for ev in train_voice(run_dir, data_dir, str(cc.joe_onnx()), cfg, resume=(run_dir / "checkpoints").is_dir()):
        if type(ev).__name__ == "StepEvent" and ev.step % 10 == 0:
            print(f"step {ev.step} {ev.stage}: " + " ".join(f"{k} {v:.3f}" for k, v in ev.losses.items()),
                  f"{time.perf_counter()-t:.0f}s", flush=True)
model, info = load_trained_generator(run_dir, "latest")
model.eval()
fc = FeatureConfig.for_model(model.config)
recs = []
with torch.no_grad():
    for a in targets:
        spec = linear_spectrogram(torch.from_numpy(a)[None], fc)
        mask = torch.ones(1, 1, spec.shape[-1])
        z, m_q, logs_q = model.posterior_encoder(spec, mask, None)
        recs.append(model.decoder(m_q, None).squeeze().numpy())
print("target", cc.f0_stats(targets))
print("recon (posterior mean -> decoder)", cc.f0_stats(recs), "mcd", cc.mcd(recs, targets))
import soundfile as sf
for i in range(3):
    sf.write(str(run_dir / f"rec{i}.wav"), recs[i], cc.SR)

if args.synth:
    from speechstudio.tts.vits import load_voice
    base = load_voice(cc.joe_onnx(), device="cpu", precision="fp32", optimize=False)
    base.model = model
    clips = cc.synth(base, held_out, seed=7000)
    print("clone synth", cc.f0_stats(clips), "mcd", cc.mcd(clips, targets))
    for i in range(2):
        sf.write(str(run_dir / f"syn{i}.wav"), clips[i], cc.SR)

# probe: the trained decoder on joe's own latents (clone_check's pitch probe)
from speechstudio.tts.vits import load_voice
jv = load_voice(cc.joe_onnx(), device="cpu", precision="fp32", optimize=False)
latents = cc.base_latents(jv, held_out[:8])
print("probe joe latents: joe decoder", cc.pitch_probe(jv.model, latents), "trained decoder", cc.pitch_probe(model, latents))
