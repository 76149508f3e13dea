"""Start-up time of the desktop app: process start -> main window shown (exposed on screen).

    xvfb-run -a -s "-screen 0 1600x1000x24" python bench/bench_startup.py [--runs 5]
    QT_QPA_PLATFORM=offscreen python bench/bench_startup.py

Each run launches ``python -m speechstudio gui --startup-time`` in a fresh process; the app prints
when its window is exposed and quits. Reported: wall time from just before the process is spawned
to the window being exposed (includes the interpreter start), and whether torch / transformers /
faster_whisper were imported by then (they must not be). Target: <= 2 s.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one_run(env: dict) -> tuple[float, str]:
    t0 = time.time()
    out = subprocess.run([sys.executable, "-m", "speechstudio", "gui", "--startup-time"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    line = next((l for l in out.stdout.splitlines() if l.startswith("SPEECHSTUDIO_STARTUP")), None)
    if out.returncode != 0 or line is None:
        raise SystemExit(f"app failed (exit {out.returncode}):\n{out.stdout}\n{out.stderr}")
    fields = dict(f.split("=", 1) for f in line.split()[2:])
    return float(fields["shown_at"]) - t0, fields["heavy_imported"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    env = dict(os.environ)
    env.setdefault("SPEECHSTUDIO_HOME", tempfile.mkdtemp(prefix="speechstudio-bench-"))
    env.setdefault("HF_HUB_OFFLINE", "1")
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    one_run(env)  # warm the OS file cache
    times, heavy = [], set()
    for _ in range(args.runs):
        t, h = one_run(env)
        times.append(t)
        heavy.add(h)
    platform = env.get("QT_QPA_PLATFORM") or ("xcb" if env.get("DISPLAY") else "?")
    print(f"startup (process start -> window shown), platform {platform}, {args.runs} runs: "
          f"median {statistics.median(times):.2f} s, min {min(times):.2f} s, max {max(times):.2f} s; "
          f"heavy modules imported at that point: {', '.join(sorted(heavy))}")
    return 0 if statistics.median(times) <= 2.0 and heavy == {"none"} else 1


if __name__ == "__main__":
    sys.exit(main())
