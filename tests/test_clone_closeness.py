"""How close a clone is (finetune.closeness) and the dataset's speaker check, on real voices:
one real speaker (../shared/voices/matthes) against other real speakers (../shared/realspeech)."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from conftest import realspeech_file

MATTHES = Path(os.environ.get("SPEECHSTUDIO_VOICES", Path(__file__).resolve().parents[2] / "shared" / "voices")) / "matthes"
OTHERS = ["speechbrain_LJ050-0131.wav", "lhotse_librispeech_2412-153948-0000.flac", "whisper_jfk.flac",
          "pocketsphinx_sense_and_sensibility_0870.wav"]


def _matthes(n: int) -> list[tuple[str, str, Path]]:
    """(id, text, audio) of the first ``n`` clips of the real speaker; fails in CI if absent."""
    meta = MATTHES / "metadata.csv"
    if not meta.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"real speaker not found at {MATTHES}")
        pytest.skip(f"real speaker not found at {MATTHES}")
    rows = [ln.split("|") for ln in meta.read_text(encoding="utf-8").splitlines() if ln.strip()][:n]
    return [(r[0], r[-1], MATTHES / "wavs" / f"{r[0]}.flac") for r in rows]


def matthes_folder(folder: Path, n: int) -> Path:
    """An LJSpeech folder (metadata.csv + links in wavs/) of the first ``n`` clips of the real speaker."""
    (folder / "wavs").mkdir(parents=True)
    rows = _matthes(n)
    for _ident, _text, path in rows:
        (folder / "wavs" / path.name).symlink_to(path)
    (folder / "metadata.csv").write_text("".join(f"{i}|{t}\n" for i, t, _ in rows), encoding="utf-8")
    return folder


def _read(path: Path) -> tuple[np.ndarray, int]:
    a, sr = sf.read(str(path), dtype="float32")
    return (a.mean(axis=1) if a.ndim > 1 else a), sr


@pytest.fixture(scope="module")
def voiceprint():
    from speechstudio.finetune.closeness import VoicePrint

    return VoicePrint()


@pytest.fixture(scope="module")
def embeddings(voiceprint):
    own = [voiceprint.embed(*_read(p)) for _, _, p in _matthes(12)]
    others = [voiceprint.embed(*_read(realspeech_file(name))) for name in OTHERS]
    return own, others


def test_embeddings_tell_one_speaker_from_others(embeddings):
    from speechstudio.finetune.closeness import VoicePrint

    own, others = embeddings
    assert all(e.shape == (256,) and e.dtype == np.float32 and abs(np.linalg.norm(e) - 1) < 1e-4 for e in own)
    speaker = VoicePrint.mean(own[:6])
    same = [VoicePrint.similarity(e, speaker) for e in own[6:]]
    other = [VoicePrint.similarity(e, speaker) for e in others]
    assert min(same) > 0.8, same
    assert max(other) < 0.72, other


def test_outliers_one_voice_clean_stray_clips_and_two_voices(embeddings):
    from speechstudio.finetune.closeness import speaker_outliers

    own, others = embeddings
    assert speaker_outliers(own) == []
    # two stray clips of other people among one speaker's
    flagged = speaker_outliers(own[:8] + others[:2])
    assert [i for i, _ in flagged] == [8, 9]
    assert all(s < 0.72 for _, s in flagged)
    # two people, one with fewer clips: that one is the other speaker, all of its clips
    flagged = speaker_outliers(own[:5] + [others[0]] * 3)
    assert [i for i, _ in flagged] == [5, 6, 7]
    assert speaker_outliers(own[:2]) == []  # too few to tell


def test_dataset_check_leaves_out_another_speakers_clips(tmp_path):
    from speechstudio.finetune.build import build_dataset
    from speechstudio.finetune.report import format_report, report

    src = tmp_path / "src"
    (src / "wavs").mkdir(parents=True)
    lines = []
    for ident, text, path in _matthes(8):
        (src / "wavs" / path.name).symlink_to(path)
        lines.append(f"{ident}|{text}")
    for k, name in enumerate(OTHERS[:2]):
        a, sr = _read(realspeech_file(name))
        sf.write(src / "wavs" / f"other{k}.wav", a, sr)
        lines.append(f"other{k}|a sentence read by somebody else")
    (src / "metadata.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")

    m = build_dataset(src, tmp_path / "data", 22050, speaker_check=True)
    flagged = sorted(c.id for c in m.clips if "other_speaker" in c.flags)
    assert flagged == ["other0", "other1"]
    assert {c.id for c in m.usable()} == {ident for ident, _, _ in _matthes(8)}
    sims = m.notes["speaker_similarity"]
    assert sims["other0"] < 0.72 and sims["other1"] < 0.72 and min(sims[i] for i, _, _ in _matthes(8)) > 0.8
    text = format_report(report(m))
    assert "other speaker? other0" in text and "left out: similarity 0." in text
    assert "2 clip(s) sound like another speaker than the rest: left out of training" in text
    # the check is for voice datasets: off by default (recognition datasets may hold many voices)
    m2 = build_dataset(src, tmp_path / "data2", 16000)
    assert not any("other_speaker" in c.flags for c in m2.clips) and "speaker_similarity" not in m2.notes


def _pulses(rate_hz: float, sr: int = 22050, seconds: float = 2.0) -> np.ndarray:
    n = int(sr * seconds)
    x = np.zeros(n, dtype=np.float32)
    x[(np.arange(0, seconds, 1.0 / rate_hz) * sr).astype(int)] = 0.8
    # a little resonance so it is voiced speech-like, not clicks
    kernel = np.exp(-np.arange(200) / 40.0) * np.sin(2 * np.pi * 700 * np.arange(200) / sr)
    return np.convolve(x, kernel)[:n].astype(np.float32)


def test_pitch_profile_tells_a_pitch_from_the_frame_rate_buzz():
    from speechstudio.finetune.closeness import pitch_profile

    buzz = pitch_profile([_pulses(22050 / 256)], 22050, 256)
    assert buzz.frame_rate_hz == pytest.approx(86.13, abs=0.01)
    assert buzz.frame_rate_share > 0.9 and buzz.median_hz is None
    voice = pitch_profile([_pulses(120.0)], 22050, 256)
    assert voice.median_hz == pytest.approx(120.0, rel=0.01) and voice.frame_rate_share == 0.0
    both = pitch_profile([_pulses(22050 / 256), _pulses(120.0)], 22050, 256)
    assert both.median_hz == pytest.approx(120.0, rel=0.01)  # the buzz is never the measured pitch
    assert 0.3 < both.frame_rate_share < 0.7
    assert pitch_profile([np.zeros(22050, dtype=np.float32)], 22050).voiced_frames == 0


def test_naturalness_scores_real_speech_above_a_buzz():
    from speechstudio.finetune.closeness import Naturalness

    mos = Naturalness()
    real = mos.score(*_read(_matthes(1)[0][2]))
    buzz = mos.score(_pulses(22050 / 256, seconds=3.0), 22050)
    assert real > 4.0, real
    assert buzz < 2.5, buzz


def test_closeness_words_and_score():
    from speechstudio.finetune.closeness import Closeness, PitchProfile

    p = PitchProfile(94.0, 80.0, 120.0, 7.0, 0.02, 86.13, 500)
    c = Closeness(0.78, 4.1, p, speaker_pitch_hz=108.0, base_similarity=0.59)
    text = c.describe()
    assert text.startswith("Sounds like you: close (similarity 0.78, base voice 0.59")
    assert "natural (4.1 of 5)" in text and "pitch 2 semitones lower than your recordings" in text
    assert c.score == pytest.approx(0.78 - 0.5 * 0.02)
    buzzy = Closeness(0.80, 1.7, PitchProfile(None, None, None, 0.0, 0.3, 86.13, 400), 108.0)
    assert "buzzy or distorted (1.7 of 5)" in buzzy.describe() and "30% of the voiced sound is a mechanical buzz" in buzzy.describe()
    assert buzzy.score < c.score  # a buzzing voice is not the best checkpoint even if a bit more similar
    assert buzzy.pitch_offset_st is None


def test_dataset_builds_without_the_speaker_encoder(tmp_path, monkeypatch):
    """Resemblyzer missing (or its weights, in a trimmed bundle): the check is skipped and says why."""
    from speechstudio.audio import speaker_encoder
    from speechstudio.finetune.build import build_dataset

    src = matthes_folder(tmp_path / "src", 3)

    def missing():
        raise FileNotFoundError("pretrained.pt")

    monkeypatch.setattr(speaker_encoder, "_ENCODER", None)
    monkeypatch.setattr(speaker_encoder, "import_resemblyzer", missing)
    m = build_dataset(src, tmp_path / "data", 22050, speaker_check=True)
    assert len(m.usable()) == 3 and not any("other_speaker" in c.flags for c in m.clips)
    assert m.notes["speaker_check"] == "skipped: the speaker encoder could not load (pretrained.pt)"
