"""The trade a clone run offers, on the real speaker's held-back sentences (issue 45).

For a run made by ``bench/clone_real.py`` (``--work DIR``; the same held-back split), every judged
checkpoint of the run (``checkpoints/step_N.pt``, ``finetune.trade``) and WiSE-FT blends of the best
one with the base (``finetune.blend``, Wortsman et al. 2022: ``--alphas``) speak the held-back
sentences and are scored as ``clone_real.py`` scores: SECS, naturalness (SpeechStudio's bundled
DistillMOS), WER, median F0. With ``--agreement`` the same clips are also scored by the ``distillmos``
package (``pip install --no-deps distillmos xls-r-sqa`` in a bench environment) and the largest
difference is reported, on the speaker's recordings, the base voice (Piper joe) and degraded copies too.
``--pitch-to -2,-1.5,0`` adds the base voice's output shifted by PSOLA (``tts.pitch.shift_pitch``: formants
and timing kept) to those semitones from the speaker's median F0, measured as the product measures it
(``finetune.pitch_match.measure_pitch_match`` on the prepared training set: its first 40 clips against
the base speaking 8 of their texts); ``--no-checkpoints`` leaves the run's checkpoints out, ``--alphas ""``
the blends.

Usage: ``python bench/clone_blend.py --work /tmp/clone45 [--sentences N] [--alphas 0.3,0.5,0.7] [--of step_N]
[--agreement] [--pitch-to -2,-1.5,0] [--no-checkpoints]``."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import clone_real  # noqa: E402


def package_mos():
    """The ``distillmos`` package's own model (torchaudio stood in for: its scoring never calls it)."""
    import contextlib
    import io
    import types

    sys.modules.setdefault("torchaudio", types.ModuleType("torchaudio"))
    try:
        import distillmos
    finally:
        if isinstance(sys.modules.get("torchaudio"), types.ModuleType) and not hasattr(sys.modules["torchaudio"], "__file__"):
            del sys.modules["torchaudio"]
    with contextlib.redirect_stdout(io.StringIO()):
        return distillmos.ConvTransformerSQAModel().eval()


def agreement(model, clips: list[np.ndarray], rate: int) -> tuple[float, float]:
    """(mean MOS by the package, largest |ours - package|) over ``clips`` at ``rate``."""
    import torch

    from speechstudio.finetune.check import resample
    from speechstudio.finetune.closeness import Naturalness

    ours = Naturalness()
    diffs, ref = [], []
    for c in clips:
        x = torch.from_numpy(resample(c, rate, 16000))[None]
        with torch.no_grad():
            r = float(model(x).reshape(-1)[0])
        ref.append(r)
        diffs.append(abs(ours.score(c, rate) - r))
    return float(np.mean(ref)), float(np.max(diffs))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "voices" / "matthes")
    ap.add_argument("--held-out", type=int, default=28)
    ap.add_argument("--work", type=Path, default=Path("/tmp/clone_real"))
    ap.add_argument("--sentences", type=int, help="score only the first N held-back sentences (a busy machine)")
    ap.add_argument("--alphas", default="0.3,0.5,0.7")
    ap.add_argument("--of", metavar="step_N", help="blend this checkpoint (default: the recommended one)")
    ap.add_argument("--agreement", action="store_true")
    ap.add_argument("--pitch-to", default="", help="semitones from the speaker's median F0 the base is shifted to")
    ap.add_argument("--no-checkpoints", action="store_true")
    args = ap.parse_args()

    from speechstudio.finetune.blend import blend_generator
    from speechstudio.finetune.trade import load_trade
    from speechstudio.finetune.vits.trained import load_trained_generator
    from speechstudio.tts.family import load_voice

    run = args.work / "run"
    train_dir, held = clone_real.split(args.data, args.work, args.held_out)
    held = held[:args.sentences] if args.sentences else held
    texts = [t for t, _ in held]
    base = load_voice(clone_real.joe_onnx(), device="cpu", precision="fp32", optimize=False)
    rate = base.sample_rate
    scorer = clone_real.Scorer([clone_real.read_audio(p, rate) for p in sorted((train_dir / "wavs").iterdir())], rate)
    pkg = package_mos() if args.agreement else None
    speaker_clips = [clone_real.read_audio(p, rate) for _, p in held]
    base_clips = clone_real.synth(base, texts)
    speaker, base_m = scorer(speaker_clips, texts), scorer(base_clips, texts)
    rows = [("speaker's held-back recordings", speaker), ("base voice (joe)", base_m)]
    agree = []
    if pkg is not None:
        rng = np.random.default_rng(0)
        for name, clips in (("speaker", speaker_clips), ("base joe", base_clips),
                            ("speaker + noise", [c + 0.03 * rng.standard_normal(len(c)).astype(np.float32) for c in speaker_clips]),
                            ("joe clipped", [np.clip(c * 8, -0.3, 0.3) for c in base_clips])):
            agree.append((name, *agreement(pkg, clips, rate)))

    results = {"speaker": speaker, "base": base_m, "voices": {}}
    if args.pitch_to:
        from speechstudio.finetune.pitch_match import measure_pitch_match
        from speechstudio.tts.pitch import shift_pitch

        match = measure_pitch_match(base.model, base, args.work / "data", shift=False)
        print(match.describe(), flush=True)
        for target in (float(x) for x in args.pitch_to.split(",")):
            semitones = 12 * np.log2(match.recordings_hz / match.voice_hz) + target
            t = time.perf_counter()
            r = scorer([shift_pitch(c, rate, semitones) for c in base_clips], texts)
            name = f"base, PSOLA {semitones:+.1f} st ({target:+g} st)"
            results["voices"][name] = dict(r, shift_st=semitones)
            rows.append((name, r))
            print(f"{name}: SECS {r['secs']:.3f} MOS {r['mos']:.2f} WER {r['wer']:.3f} F0 {r['f0'] or 0:.1f} "
                  f"({time.perf_counter() - t:.0f} s)", flush=True)
    trade = load_trade(run)
    best = trade.rows[trade.recommended].checkpoint if trade.recommended is not None else "best"
    of = args.of or best
    voices = [] if args.no_checkpoints else [(r.checkpoint, lambda w=r.checkpoint: load_trained_generator(run, w))
                                             for r in trade.rows if r.step > 0]
    voices += [(f"blend {a:g} of {of}", lambda a=a: blend_generator(run, a, of))
               for a in (float(x) for x in args.alphas.split(",") if x)]
    for name, load in voices:
        t = time.perf_counter()
        model, _ = load()
        clips = clone_real.synth(base, texts, model=model)
        r = scorer(clips, texts, int(model.config.sampling_rate))
        results["voices"][name] = r
        rows.append((name, r))
        if pkg is not None:
            agree.append((name, *agreement(pkg, clips, rate)))
        print(f"{name}: SECS {r['secs']:.3f} MOS {r['mos']:.2f} WER {r['wer']:.3f} F0 {r['f0'] or 0:.1f} "
              f"({time.perf_counter() - t:.0f} s)", flush=True)
    print("\n" + clone_real.table(rows, speaker, base_m))
    print("\n" + "recommended in training: " + best + "\n")
    if agree:
        print(f"{'clips':34s} {'package MOS':>11s} {'max |ours - package|':>20s}")
        for name, mean, diff in agree:
            print(f"{name:34s} {mean:11.2f} {diff:20.4f}")
        results["agreement"] = agree
    (args.work / "blend.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
