"""Speaker diarization benchmark: conversations built from real recordings of different speakers.

Speakers: matthes (``../shared/voices/matthes``, 14 min, real), joe (the Piper voice, synthesised
sentences), and for a third and fourth speaker the longer real clips of ``../shared/realspeech``
(LibriSpeech 2412, JFK, LJSpeech, the Sense and Sensibility reader, the Vosk test speaker, the
Spanish Picovoice speaker), each cut at pauses into turns of 1.5-4 s. A conversation alternates
turns at random (seeded): gaps of 0.1-0.6 s, some overlaps of 0.3-0.8 s, short back-channel turns of
0.5-1.0 s. The reference is where each turn was put.

Reported per speaker count (2, 3, 4): DER with ``pyannote.metrics`` (0.25 s collar, overlap scored),
its missed / false-alarm / confusion parts, and how often ``--speakers auto`` found the right number.
Then known voices: matthes and joe saved from recordings not in the conversations; the share of
their turns named right in new conversations and the false-accept rate (turns of other voices
given a saved name). With ``--cost``: wall time of transcribing a long conversation with and without
``--speakers auto`` (the product's CLI, in this process) and the peak memory.

Usage: ``python bench/bench_diarization.py [--n 6] [--cost 600]`` (a few minutes on 2 CPU cores;
``--cost`` adds two transcriptions of that many seconds).
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT / "bench"))
RATE = 16000

REAL = {   # third / fourth speakers: real clips of ../shared/realspeech
    "librispeech": "lhotse_librispeech_2412-153948-0000.flac",
    "jfk": "whisper_jfk.flac",
    "lj": "speechbrain_LJ050-0131.wav",
    "austen": "pocketsphinx_sense_and_sensibility_0870.wav",
    "vosk": "vosk_test.wav",
    "es": "picovoice_test_es.wav",
}


def _load(path: Path) -> np.ndarray:
    from speechstudio.audio.decode import load_audio

    return load_audio(path, RATE)


def _cut_at_pauses(audio: np.ndarray, lo: float = 1.5, hi: float = 4.0) -> list[np.ndarray]:
    """Pieces of ``audio`` between lo and hi seconds, cut at the quietest 20 ms frame in range."""
    frame = RATE // 50
    energy = np.convolve(audio.astype(np.float64) ** 2, np.ones(frame) / frame, mode="same")
    out, start = [], 0
    while len(audio) - start > lo * RATE:
        a, b = start + int(lo * RATE), min(len(audio), start + int(hi * RATE))
        if b >= len(audio) or len(audio) - start <= hi * RATE:
            out.append(audio[start:])
            break
        cut = a + int(np.argmin(energy[a:b]))
        out.append(audio[start:cut])
        start = cut
    return out


def speaker_material(cache: Path) -> dict[str, list[np.ndarray]]:
    """Turns per speaker (16 kHz float32), cached in ``cache``."""
    cache.mkdir(parents=True, exist_ok=True)
    out: dict[str, list[np.ndarray]] = {}
    wavs = sorted((SHARED / "voices" / "matthes" / "wavs").glob("*.*"))
    out["matthes"] = [_load(p) for p in wavs]
    joe_file = cache / "joe.npz"
    if not joe_file.exists():
        from _common import joe_onnx

        from speechstudio.finetune.check import resample
        from speechstudio.finetune.prompts import load_prompts
        from speechstudio.tts.vits import SynthesisSettings, load_voice

        voice = load_voice(joe_onnx(), device="cpu")
        clips = []
        for i, text in enumerate(load_prompts()[:110]):
            wav = voice.synthesize(text, SynthesisSettings())
            clips.append(resample(wav, voice.sample_rate, RATE).astype(np.float32))
        np.savez(joe_file, *clips)
    with np.load(joe_file) as z:
        out["joe"] = [z[k] for k in sorted(z.files, key=lambda s: int(s.split("_")[1]))]
    for name, file in REAL.items():
        out[name] = _cut_at_pauses(_trim(_load(SHARED / "realspeech" / "files" / file)))
    return {k: [_trim(c) for c in v] for k, v in out.items()}


def _trim(clip: np.ndarray, below_db: float = 35.0) -> np.ndarray:
    """``clip`` without its leading / trailing stretch quieter than ``below_db`` under its loudest 20 ms."""
    frame = RATE // 50
    n = len(clip) // frame
    if n < 3:
        return clip
    db = 10 * np.log10((clip[: n * frame].astype(np.float64).reshape(n, frame) ** 2).mean(axis=1) + 1e-12)
    loud = np.nonzero(db > db.max() - below_db)[0]
    return clip[loud[0] * frame: (loud[-1] + 1) * frame]


def make_conversation(material, speakers: list[str], rng: np.random.Generator, turns: int, used: dict):
    """(audio, reference [(start, end, speaker)]) of one conversation among ``speakers``."""
    ref = []
    t = 0.0
    prev = None
    total = np.zeros(0, np.float32)
    for i in range(turns):
        choices = [s for s in speakers if s != prev] if len(speakers) > 1 else speakers
        # the main pair talks most; the others join less often (short clips)
        weights = np.array([3.0 if s in ("matthes", "joe") else 1.0 for s in choices])
        who = choices[rng.choice(len(choices), p=weights / weights.sum())]
        pool = material[who]
        k = used.setdefault(who, 0)
        clip = pool[k % len(pool)]
        used[who] = k + 1
        if rng.random() < 0.15 and i > 0:             # back-channel: a short piece of a turn
            n = int(rng.uniform(0.5, 1.0) * RATE)
            s0 = int(rng.integers(0, max(1, len(clip) - n)))
            clip = clip[s0:s0 + n]
        if len(clip) > 8 * RATE:
            clip = clip[: 8 * RATE]
        r = rng.random()
        if i > 0 and r < 0.15:                         # overlap with the previous turn
            start = max(0.0, t - rng.uniform(0.3, 0.8))
        else:
            start = t + rng.uniform(0.1, 0.6)
        s = int(start * RATE)
        end = s + len(clip)
        if end > total.size:
            total = np.concatenate([total, np.zeros(end - total.size, np.float32)])
        total[s:end] += clip * (0.5 / max(1e-3, float(np.abs(clip).max())))
        ref.append((start, end / RATE, who))
        t = max(t, end / RATE)
        prev = who
    return total, ref


def der(reference, turns, duration_s: float):
    from pyannote.core import Annotation, Segment
    from pyannote.metrics.diarization import DiarizationErrorRate

    ref, hyp = Annotation(), Annotation()
    for i, (a, b, s) in enumerate(reference):
        ref[Segment(a, b), i] = s
    for i, t in enumerate(turns):
        hyp[Segment(t.start_s, t.end_s), i] = t.speaker
    metric = DiarizationErrorRate(collar=0.25, skip_overlap=False)
    d = metric(ref, hyp, detailed=True)
    total = d["total"] or 1.0
    return (d["diarization error rate"], d["missed detection"] / total, d["false alarm"] / total,
            d["confusion"] / total)


def diarize_audio(audio: np.ndarray, count, library=None):
    from speechstudio.diarize.family import get

    session = get().start(count, library=library)
    for i in range(0, len(audio), RATE):
        session.push(audio[i:i + RATE])
    return session.finish()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=6, help="conversations per speaker count")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/speechstudio-diarization-bench"))
    ap.add_argument("--cost", type=float, default=0.0, help="seconds of conversation for the cost run (0: skip)")
    ap.add_argument("--out", type=Path, default=None, help="write the per-conversation rows as CSV")
    args = ap.parse_args()

    from speechstudio.diarize.speakers import parse_speakers

    t0 = time.perf_counter()
    material = speaker_material(args.cache)
    print("material: " + ", ".join(f"{k} {sum(len(c) for c in v) / RATE:.0f} s" for k, v in material.items())
          + f" (prepared in {time.perf_counter() - t0:.0f} s)", flush=True)
    # hold back recordings for the known-voice library
    library_clips = {"matthes": material["matthes"][-12:], "joe": material["joe"][-12:]}
    material["matthes"], material["joe"] = material["matthes"][:-12], material["joe"][:-12]
    rng = np.random.default_rng(7)
    extra_sets = {2: [[]], 3: [["librispeech"], ["jfk"], ["lj"], ["austen"], ["vosk"], ["es"]],
                  4: [["librispeech", "jfk"], ["lj", "austen"], ["vosk", "es"]]}
    rows = []
    used: dict = {}
    diar_s = audio_s = 0.0
    for n_spk in (2, 3, 4):
        for j in range(args.n):
            extra = extra_sets[n_spk][j % len(extra_sets[n_spk])]
            speakers = ["matthes", "joe"] + extra
            audio, ref = make_conversation(material, speakers, rng, turns=24 if n_spk == 2 else 28, used=used)
            t = time.perf_counter()
            result = diarize_audio(audio, parse_speakers("auto"))
            diar_s += time.perf_counter() - t
            audio_s += len(audio) / RATE
            d, miss, fa, conf = der(ref, result.turns, len(audio) / RATE)
            rows.append(dict(speakers=n_spk, who="+".join(speakers), duration_s=round(len(audio) / RATE, 1),
                             der=d, missed=miss, false_alarm=fa, confusion=conf, found=len(result.speakers)))
            print(f"{n_spk} speakers ({'+'.join(speakers)}), {len(audio) / RATE:.0f} s: DER {d:.3f} (missed {miss:.3f}, "
                  f"false alarm {fa:.3f}, confusion {conf:.3f}); found {len(result.speakers)}", flush=True)
    print()
    print("| speakers | conversations | DER | missed | false alarm | confusion | count right (auto) |")
    print("|---|---|---|---|---|---|---|")
    for n_spk in (2, 3, 4):
        r = [x for x in rows if x["speakers"] == n_spk]
        print(f"| {n_spk} | {len(r)} | {np.mean([x['der'] for x in r]):.3f} | {np.mean([x['missed'] for x in r]):.3f} | "
              f"{np.mean([x['false_alarm'] for x in r]):.3f} | {np.mean([x['confusion'] for x in r]):.3f} | "
              f"{sum(x['found'] == n_spk for x in r)}/{len(r)} |")
    print(f"diarization alone: {diar_s:.1f} s for {audio_s:.0f} s of audio (RTF {diar_s / audio_s:.3f})")
    if args.out:
        with open(args.out, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)

    # ------------------------------------------------------------------ known voices
    from speechstudio.diarize import voiceprint as vp
    from speechstudio.diarize.library import KnownVoice, Library

    voices = tuple(KnownVoice(name, vp.embed_speech(np.concatenate(clips)), sum(len(c) for c in clips) / RATE, "bench",
                              "", Path(name)) for name, clips in library_clips.items())
    library = Library(voices)
    right = total_known = false_accept = total_unknown = 0
    rng = np.random.default_rng(11)
    for j in range(args.n):
        extra = extra_sets[3][j % len(extra_sets[3])]
        speakers = ["matthes", "joe"] + extra
        audio, ref = make_conversation(material, speakers, rng, turns=24, used=used)
        result = diarize_audio(audio, parse_speakers("auto"), library)
        for a, b, who in ref:
            said = [t.speaker for t in result.turns if t.start_s < b and t.end_s > a]
            if not said:
                continue
            # the name that covers most of this reference turn
            cover = {}
            for t in result.turns:
                ov = min(b, t.end_s) - max(a, t.start_s)
                if ov > 0:
                    cover[t.speaker] = cover.get(t.speaker, 0.0) + ov
            name = max(cover, key=cover.get)
            if who in library_clips:
                total_known += 1
                right += name == who
            else:
                total_unknown += 1
                false_accept += name in library_clips
    print(f"known voices: named right on {right}/{total_known} turns ({right / max(1, total_known):.1%}); "
          f"unknown voices given a saved name on {false_accept}/{total_unknown} turns "
          f"(false-accept rate {false_accept / max(1, total_unknown):.1%})", flush=True)

    if args.cost > 0:
        cost(material, args.cost, args.cache)
    return 0


def cost(material, seconds: float, cache: Path) -> None:
    """Wall time of `speechstudio transcribe` on one long 2-speaker conversation, with and
    without --speakers auto, in this process (model loaded once before timing)."""
    import resource

    import soundfile as sf

    from speechstudio import cli

    rng = np.random.default_rng(3)
    used: dict = {}
    audio = np.zeros(0, np.float32)
    while len(audio) / RATE < seconds:
        a, _ = make_conversation(material, ["matthes", "joe"], rng, turns=24, used=used)
        audio = np.concatenate([audio, a])
    path = cache / f"cost-{int(seconds)}.wav"
    sf.write(path, audio, RATE)
    out = cache / "cost-out"
    cli.main(["transcribe", str(path), "--output-dir", str(out), "--format", "json", "--overwrite", "--quiet"])  # warm
    times = {}
    for label, extra in (("plain", []), ("speakers", ["--speakers", "auto"])):
        t = time.perf_counter()
        cli.main(["transcribe", str(path), "--output-dir", str(out), "--format", "json", "--overwrite", "--quiet"] + extra)
        times[label] = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"cost on {len(audio) / RATE / 60:.1f} min: transcribe {times['plain']:.1f} s, with --speakers auto "
          f"{times['speakers']:.1f} s (+{(times['speakers'] / times['plain'] - 1):.1%}); peak RSS {peak:.0f} MB",
          flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
