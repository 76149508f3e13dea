"""Speaker diarization benchmark on real conversations where every voice shares one channel.

Table 1 (the one that counts): ``bench/diarization_data`` holds real recordings with reference
RTTMs (SOURCES.tsv: pyannote.audio's phone sample, an AMI single-distant-microphone excerpt, AMI
headset-mix excerpts; 2-4 speakers). Per file and overall: DER with ``pyannote.metrics`` (no collar
with overlap scored, and a 0.25 s collar), JER, the count found with ``--speakers auto`` and with
``--speakers N`` (N from the reference), and seconds of diarization per audio minute.

Table 1b: the same recordings over a telephone line (G.711 band and mu-law, :func:`telephone`): two
people sharing a phone line, the condition of the held-back calls.

Table 2: one speaker alone, where any second label is a phantom: the single-speaker recordings of
``../shared/realspeech``, 90 s of the matthes reader, and the same reader close, far (room
reverberation and noise) and over a telephone band in one file (pyannote/pyannote-audio#1742); then
each of them with white or pink noise, mains hum or music under it at 10, 5 and 0 dB SNR.

Table 3 (``--stitched``): conversations stitched from separate recordings (each speaker with their
own microphone), the benchmark of the previous round, kept for comparison only. Then known voices:
the share of turns named right and the false-accept rate.

``--cost SECONDS``: whole-process wall time and peak memory of ``speechstudio transcribe`` on that
much real read speech, with and without ``--speakers auto`` (separate processes).

Usage: ``python bench/bench_diarization.py [--stitched] [--cost 600]`` (about a minute on 2 CPU cores
without the options). Needs ``pip install -e '.[bench,speakers]'``.
"""
from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = ROOT / "bench" / "diarization_data"
sys.path.insert(0, str(ROOT / "bench"))
RATE = 16000

REAL = {   # third / fourth speakers of the stitched table; one-speaker table
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
        from speechstudio.tts.family import SynthesisSettings, load_voice

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


def read_rttm(path: Path) -> list[tuple[float, float, str]]:
    """``[(start_s, end_s, speaker)]`` of an RTTM file."""
    out = []
    for line in path.read_text().splitlines():
        p = line.split()
        if p and p[0] == "SPEAKER":
            out.append((float(p[3]), float(p[3]) + float(p[4]), p[7]))
    return out


def _annotation(items):
    from pyannote.core import Annotation, Segment

    ann = Annotation()
    for i, (a, b, s) in enumerate(items):
        ann[Segment(a, b), i] = s
    return ann


def scores(reference, turns) -> dict:
    """DER (no collar, overlap scored), DER with a 0.25 s collar, JER, and DER's parts (no collar)."""
    from pyannote.metrics.diarization import DiarizationErrorRate, JaccardErrorRate

    ref, hyp = _annotation(reference), _annotation([(t.start_s, t.end_s, t.speaker) for t in turns])
    d = DiarizationErrorRate(collar=0.0, skip_overlap=False)(ref, hyp, detailed=True)
    total = d["total"] or 1.0
    return dict(der=d["diarization error rate"], missed=d["missed detection"] / total,
                false_alarm=d["false alarm"] / total, confusion=d["confusion"] / total,
                der25=DiarizationErrorRate(collar=0.25, skip_overlap=False)(ref, hyp),
                jer=JaccardErrorRate(collar=0.0, skip_overlap=False)(ref, hyp))


def der(reference, turns, duration_s: float):
    s = scores(reference, turns)
    return s["der25"], s["missed"], s["false_alarm"], s["confusion"]


def diarize_audio(audio: np.ndarray, count, library=None):
    from speechstudio.diarize.family import get

    session = get().start(count, library=library)
    for i in range(0, len(audio), RATE):
        session.push(audio[i:i + RATE])
    return session.finish()


def real_table(line=None) -> list[dict]:
    """Table 1: every recording of ``bench/diarization_data`` with ``--speakers auto`` and ``N``; with
    ``line`` (a function of the audio, :func:`telephone`) each recording as that line carries it."""
    from speechstudio.diarize.speakers import SpeakerCount, parse_speakers

    sources = {}
    with open(DATA / "SOURCES.tsv") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            sources[Path(row["file"]).stem] = row
    rows = []
    print("| recording | condition | speakers | found (auto) | count sure | DER | DER 0.25 s | JER | "
          "missed | false alarm | confusion | found (N) | DER (N) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in sorted(DATA.glob("*.flac")):
        ref = read_rttm(path.with_suffix(".rttm"))
        n = len({r[2] for r in ref})
        audio = _load(path) if line is None else line(_load(path))
        t = time.perf_counter()
        auto = diarize_audio(audio, parse_speakers("auto"))
        took = time.perf_counter() - t
        asked = diarize_audio(audio, SpeakerCount(n, n))
        a, k = scores(ref, auto.turns), scores(ref, asked.turns)
        cond = sources.get(path.stem, {}).get("condition", "?")
        row = dict(recording=path.stem, condition=cond, speakers=n, found=len(auto.speakers),
                   sure=getattr(auto, "could_be", None) is None, found_n=len(asked.speakers), der_n=k["der"],
                   seconds=len(audio) / RATE, took=took, **a)
        rows.append(row)
        print(f"| {path.stem} | {cond} | {n} | {row['found']} | {'yes' if row['sure'] else 'no'} | {a['der']:.3f} | "
              f"{a['der25']:.3f} | {a['jer']:.3f} | {a['missed']:.3f} | {a['false_alarm']:.3f} | {a['confusion']:.3f} | "
              f"{row['found_n']} | {k['der']:.3f} |", flush=True)
    minutes = sum(r["seconds"] for r in rows) / 60
    print(f"| **all {len(rows)} ({minutes:.1f} min)** | | | count right {sum(r['found'] == r['speakers'] for r in rows)}"
          f"/{len(rows)} | | **{np.mean([r['der'] for r in rows]):.3f}** | {np.mean([r['der25'] for r in rows]):.3f} | "
          f"{np.mean([r['jer'] for r in rows]):.3f} | {np.mean([r['missed'] for r in rows]):.3f} | "
          f"{np.mean([r['false_alarm'] for r in rows]):.3f} | {np.mean([r['confusion'] for r in rows]):.3f} | "
          f"N given {sum(r['found_n'] == r['speakers'] for r in rows)}/{len(rows)} | "
          f"{np.mean([r['der_n'] for r in rows]):.3f} |")
    print(f"diarization: {sum(r['took'] for r in rows) / minutes:.2f} s per audio minute (auto, this process)")
    return rows


def telephone(audio: np.ndarray) -> np.ndarray:
    """``audio`` (16 kHz) over a telephone line: G.711's band (300-3400 Hz, 4th-order Butterworth), 8 kHz,
    mu-law at 8 bits, back at 16 kHz, peak 0.5."""
    import scipy.signal as ss

    b, a = ss.butter(4, [300, 3400], btype="band", fs=RATE)
    phone = ss.resample_poly(ss.resample_poly(ss.lfilter(b, a, audio), 1, 2), 2, 1)
    phone = np.clip(phone / np.abs(phone).max(), -1, 1)
    mu = 255.0
    q = np.round(np.sign(phone) * np.log1p(mu * np.abs(phone)) / np.log1p(mu) * 127) / 127
    return (0.5 * np.sign(q) * ((1 + mu) ** np.abs(q) - 1) / mu).astype(np.float32)


def _degraded(audio: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Thirds of ``audio``: as recorded, far (reverberation 0.12 s decay + noise), :func:`telephone`."""
    import scipy.signal as ss

    n = len(audio) // 3
    close, far, phone = audio[:n], audio[n:2 * n], audio[2 * n:]
    t = np.arange(int(0.5 * RATE)) / RATE
    ir = rng.standard_normal(t.size) * np.exp(-t / 0.12)
    ir[0] = 8.0
    far = ss.fftconvolve(far, ir)[: far.size]
    far = far / np.abs(far).max() * 0.1 + rng.standard_normal(far.size) * 0.004
    return np.concatenate([close, far, telephone(phone)]).astype(np.float32)


def _noise(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` samples of white or pink noise, 50 Hz mains hum with its first 7 harmonics, or "music" (five gated
    tones, 165-440 Hz, each switched on and off at its own rate)."""
    t = np.arange(n) / RATE
    if kind == "white":
        return rng.standard_normal(n)
    if kind == "pink":
        spectrum = np.fft.rfft(rng.standard_normal(n))
        return np.fft.irfft(spectrum / np.sqrt(np.maximum(np.arange(spectrum.size), 1)), n)
    if kind == "hum":
        return sum(np.sin(2 * np.pi * 50 * k * t) / k for k in range(1, 8))
    return sum((np.sin(2 * np.pi * (0.5 + 0.3 * i) * t) > 0) * np.sin(2 * np.pi * f0 * t) * 0.6 ** i
               for i, f0 in enumerate([220, 277, 330, 440, 165]))


def with_noise(audio: np.ndarray, kind: str, snr_db: float, rng: np.random.Generator) -> np.ndarray:
    """``audio`` plus :func:`_noise` at ``snr_db`` below the speech (RMS of the louder half of its 20 ms frames),
    peak-limited to 1."""
    frames = audio[: audio.size // 320 * 320].reshape(-1, 320)
    power = (frames ** 2).mean(axis=1)
    speech_rms = np.sqrt(power[power >= np.median(power)].mean())
    noise = _noise(kind, audio.size, rng)
    mixed = audio + noise / np.sqrt((noise ** 2).mean()) * speech_rms / 10 ** (snr_db / 20)
    return (mixed / max(1.0, np.abs(mixed).max())).astype(np.float32)


def one_speaker_table() -> list[dict]:
    """Table 2: one voice per recording (then each with noise, hum or music under it at 10, 5 and 0 dB SNR); the
    count found with ``--speakers auto``."""
    from speechstudio.diarize.speakers import parse_speakers

    clips = {k: _load(SHARED / "realspeech" / "files" / f) for k, f in REAL.items()}
    wavs = sorted((SHARED / "voices" / "matthes" / "wavs").glob("*.*"))

    def joined(paths):
        return np.concatenate([np.concatenate([_load(p), np.zeros(RATE * 2 // 5, np.float32)]) for p in paths])

    clips["matthes 90 s"] = joined(wavs[20:40])[: 90 * RATE]
    clips["matthes close / far / phone"] = _degraded(joined(wavs[60:90]), np.random.default_rng(0))
    rows = []
    print("\n| one speaker | seconds | found (auto) | note |\n|---|---|---|---|")
    for name, audio in clips.items():
        result = diarize_audio(audio, parse_speakers("auto"))
        rows.append(dict(recording=name, found=len(result.speakers)))
        print(f"| {name} | {len(audio) / RATE:.0f} | {len(result.speakers)} | {'; '.join(result.notes)} |", flush=True)
    print(f"one label on {sum(r['found'] == 1 for r in rows)}/{len(rows)}")
    rng = np.random.default_rng(1)
    print("\n| one speaker with | SNR (dB) | one label | recordings with more |\n|---|---|---|---|")
    for snr in (10, 5, 0):
        for kind in ("white", "pink", "hum", "music"):
            found = {name: len(diarize_audio(with_noise(audio, kind, snr, rng), parse_speakers("auto")).speakers)
                     for name, audio in clips.items() if name != "matthes close / far / phone"}
            more = [f"{name} ({k})" for name, k in found.items() if k != 1]
            rows += [dict(recording=f"{name} + {kind} {snr} dB", found=k) for name, k in found.items()]
            print(f"| {kind} | {snr} | {len(found) - len(more)}/{len(found)} | {', '.join(more)} |", flush=True)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stitched", action="store_true", help="also the stitched conversations and known voices")
    ap.add_argument("--n", type=int, default=6, help="stitched conversations per speaker count")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/speechstudio-diarization-bench"))
    ap.add_argument("--cost", type=float, default=0.0, help="seconds of conversation for the cost run (0: skip)")
    ap.add_argument("--out", type=Path, default=None, help="write the real recordings' rows as CSV")
    args = ap.parse_args()
    rows = real_table()
    print("\nThe same recordings over a telephone line (bench_diarization.telephone):")
    real_table(telephone)
    if args.out:
        with open(args.out, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    one_speaker_table()
    if args.stitched:
        stitched(args)
    if args.cost > 0:
        cost(args.cost, args.cache)
    return 0


def stitched(args) -> None:
    """Table 3: conversations stitched from separate recordings, and known voices."""
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

    # ------------------------------------------------------------------ known voices
    from speechstudio.diarize.embedding import embed_speech
    from speechstudio.diarize.library import KnownVoice, Library

    voices = tuple(KnownVoice(name, embed_speech(np.concatenate(clips)), sum(len(c) for c in clips) / RATE, "bench",
                              "", Path(name)) for name, clips in library_clips.items())
    library = Library(voices)
    right = total_known = false_accept = total_unknown = 0
    same, other = [], []            # cosine of a found voice to the saved print of its own / another speaker
    rng = np.random.default_rng(11)
    for j in range(args.n):
        extra = extra_sets[3][j % len(extra_sets[3])]
        speakers = ["matthes", "joe"] + extra
        audio, ref = make_conversation(material, speakers, rng, turns=24, used=used)
        result = diarize_audio(audio, parse_speakers("auto"), library)
        for label, centroid in result.embeddings.items():
            heard: dict = {}
            for t in result.turns:
                for a, b, who in ref:
                    if t.speaker == label and min(b, t.end_s) > max(a, t.start_s):
                        heard[who] = heard.get(who, 0.0) + min(b, t.end_s) - max(a, t.start_s)
            truth = max(heard, key=heard.get) if heard else None
            for v in voices:
                (same if v.name == truth else other).append(float(v.embedding @ centroid))
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
    print("cosine to the saved print: own voice " + " / ".join(f"{q:.2f}" for q in np.percentile(same, [5, 50, 95]))
          + ", another " + " / ".join(f"{q:.2f}" for q in np.percentile(other, [5, 50, 95])) + " (5th / 50th / 95th)")


def cost(seconds: float, cache: Path) -> None:
    """Whole-process wall time and peak RSS (``/usr/bin/time``) of ``speechstudio transcribe`` on
    ``seconds`` of the matthes reader's recordings one after another (clean read speech: Whisper
    decodes it without temperature fallbacks, whose sampling made the far-field meeting's timings
    vary by +-25 % between identical runs), without and with ``--speakers auto``: each run its own
    process, alternating, 2 runs each; the median wall time and the largest peak."""
    import soundfile as sf

    cache.mkdir(parents=True, exist_ok=True)
    wavs = sorted((SHARED / "voices" / "matthes" / "wavs").glob("*.*"))
    audio = np.concatenate([np.concatenate([_load(p), np.zeros(RATE // 2, np.float32)]) for p in wavs])
    audio = np.tile(audio, int(np.ceil(seconds * RATE / len(audio))))[: int(seconds * RATE)]
    path = cache / f"cost-{int(seconds)}.wav"
    sf.write(path, audio, RATE)
    exe = [sys.executable, "-m", "speechstudio", "transcribe", str(path), "--output-dir", str(cache / "cost-out"),
           "--format", "json", "--overwrite", "--quiet"]
    runs: dict[str, list[tuple[float, float]]] = {"plain": [], "speakers": []}
    for _ in range(2):
        for label, extra in (("plain", []), ("speakers", ["--speakers", "auto"])):
            done = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + exe + extra, check=True, stderr=subprocess.PIPE,
                                  text=True)
            wall_s, kb = done.stderr.strip().splitlines()[-1].split()
            runs[label].append((float(wall_s), int(kb) / 1024))
    wall = {k: float(np.median([r[0] for r in v])) for k, v in runs.items()}
    peak = {k: max(r[1] for r in v) for k, v in runs.items()}
    print(f"cost on {seconds / 60:.1f} min: transcribe {wall['plain']:.1f} s, with --speakers auto "
          f"{wall['speakers']:.1f} s (+{wall['speakers'] / wall['plain'] - 1:.1%}); peak RSS {peak['plain']:.0f} MB "
          f"-> {peak['speakers']:.0f} MB (/usr/bin/time)", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
