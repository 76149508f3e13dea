"""The dataset check's CER threshold (``finetune.check.CER_THRESHOLD``, docs/finetune_voice.md "Dataset
checks"): Whisper tiny.en (greedy, CPU) on the first 40 of every 2nd line of ``shared/voices/matthes/metadata.csv``;
CER of each clip against its own text and against every other clip's text (``finetune.check.cer``).

Usage: ``HF_HUB_OFFLINE=1 python bench/asr_check_threshold.py [--folder ../shared/voices/matthes]`` (~1 s per clip
on 2 cores; tiny.en must be installed).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from speechstudio.audio.decode import load_audio
from speechstudio.finetune.check import CER_THRESHOLD, cer, whisper_transcriber


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folder", type=Path, default=Path(__file__).resolve().parents[2] / "shared/voices/matthes")
    args = ap.parse_args()
    rows = [line.rstrip("\n").split("|") for line in (args.folder / "metadata.csv").open(encoding="utf-8")
            if line.strip()][::2][:40]
    transcribe = whisper_transcriber(cpu_threads=2)
    heard = {r[0]: transcribe(load_audio(next((args.folder / "wavs").glob(r[0] + ".*")), 16000)) for r in rows}
    right = sorted((cer(r[1], heard[r[0]]), r[0]) for r in rows)
    wrong = np.array([cer(r[1], heard[o[0]]) for r in rows for o in rows if o is not r])
    print(f"right texts ({len(right)}): {right[0][0]:.2f}-{right[-1][0]:.2f}, median {np.median([c for c, _ in right]):.2f}, "
          f"worst {', '.join(f'{i} {c:.2f}' for c, i in right[-3:][::-1])}")
    print(f"another clip's text ({wrong.size} pairs): min {wrong.min():.2f}, median {np.median(wrong):.2f}, "
          f"5th percentile {np.percentile(wrong, 5):.2f}; threshold {CER_THRESHOLD}")


if __name__ == "__main__":
    main()
