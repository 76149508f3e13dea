"""A file whose language changes: the router (``--model auto``, Whisper tiny.en + base) on real recordings
joined with 1 s pauses, against the same recordings decoded alone (issue 43: <= 1.3x the sum of the
parts, each part's WER within 0.03 of the part alone).

Two files, as the tests build them (``tests/test_language_stretches.py``): German, Spanish, Russian,
then three English recordings (62 s), and three English recordings, then German, Spanish, English. Each
is decoded once joined and once part by part, both by the loaded router in auto mode (detection
included), in this process, with a fixed CTranslate2 seed. Reported: CPU seconds (all threads,
``time.process_time``: stays meaningful on a shared machine) and wall seconds, the ratio joined / sum
of parts, and per part the WER (CER for ru) against the reference transcript of the joined file's
segments in that part's span, and of the part alone.

Usage: ``python bench/bench_mixed_language.py`` (needs the ``models`` extra; a few minutes on 2 cores).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fixtures"))
RATE = 16000
ENGLISH = ["whisper_jfk.flac", "lhotse_librispeech_2412-153948-0000.flac", "pocketsphinx_sense_and_sensibility_0870.wav"]
FILES = {
    "other languages, then English": ["picovoice_test_de.wav", "picovoice_test_es.wav", "deepspeech_ru.wav"] + ENGLISH,
    "English, then German and Spanish": ENGLISH + ["picovoice_test_de.wav", "picovoice_test_es.wav",
                                                   "speechbrain_spk1_snt1.wav"],
}


DETECTIONS = [0]


def _run(router, audio):
    import ctranslate2

    ctranslate2.set_random_seed(2026)
    c, w = time.process_time(), time.perf_counter()
    segments, _ = router.transcribe(audio)
    segments = list(segments)
    return segments, time.process_time() - c, time.perf_counter() - w


def _counted(detector):
    """Count the detector's encoder passes (the cost a changing language adds)."""
    detect = detector.detect_language

    def counting(speech):
        DETECTIONS[0] += 1
        return detect(speech)

    detector.detect_language = counting


def main() -> int:
    from realspeech import REALSPEECH, realspeech_rows
    from speechstudio.asr.load import load_recognizer
    from speechstudio.audio.decode import load_audio
    from speechstudio.metrics import normalize_text, wer

    refs = {r["filename"]: r for r in realspeech_rows()}
    router, _ = load_recognizer(None, allow_download=False, progress=False)
    _counted(router.detector)
    _run(router, load_audio(REALSPEECH / "files" / ENGLISH[0], RATE))          # warm up both models
    ratios = []
    for title, names in FILES.items():
        parts = [load_audio(REALSPEECH / "files" / n, RATE) for n in names]
        pause = np.zeros(RATE, np.float32)
        joined = np.concatenate([x for p in parts for x in (p, pause)])
        DETECTIONS[0] = 0
        segs, cpu, wall = _run(router, joined)
        det_joined, DETECTIONS[0] = DETECTIONS[0], 0
        alone = [_run(router, p) for p in parts]
        cpu_parts, wall_parts = sum(a[1] for a in alone), sum(a[2] for a in alone)
        ratios.append(cpu / cpu_parts)
        print(f"\n{title} ({joined.shape[0] / RATE:.0f} s): joined {cpu:.1f} CPU s / {wall:.1f} wall s, "
              f"{det_joined} language detections; parts alone {cpu_parts:.1f} / {wall_parts:.1f}, {DETECTIONS[0]} "
              f"detections: **{cpu / cpu_parts:.2f}x** CPU, {wall / wall_parts:.2f}x wall")
        print("| part | language | WER joined | WER alone | joined text |\n|---|---|---|---|---|")
        t = 0.0
        for name, p, (alone_segs, _, _) in zip(names, parts, alone):
            span = (t, t + p.shape[0] / RATE)
            t = span[1] + 1.0
            ref = refs[name]
            lang = ref["language"]
            said = " ".join(s.text for s in segs if span[0] - 0.5 <= (s.start_s + s.end_s) / 2 <= span[1] + 0.5)
            def score(hyp: str) -> float:
                if lang in ("ru", "ja", "zh", "ko"):      # CER: jiwer on characters
                    import jiwer

                    return jiwer.cer(normalize_text(ref["reference_transcript"], lang), normalize_text(hyp, lang))
                return wer([ref["reference_transcript"]], [hyp], lang)

            langs = sorted({s.language for s in segs if span[0] - 0.5 <= (s.start_s + s.end_s) / 2 <= span[1] + 0.5})
            print(f"| {name} | {lang} (got {','.join(map(str, langs))}) | {score(said):.3f} | "
                  f"{score(' '.join(s.text for s in alone_segs)):.3f} | {said[:60]} |")
    print(f"\nratio joined / parts alone (CPU): {', '.join(f'{r:.2f}x' for r in ratios)} (target <= 1.3x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
