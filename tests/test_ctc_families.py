"""The CTC engine beyond Wav2Vec2ForCTC: HuBERT, Data2Vec-Audio and Wav2Vec2-Conformer checkpoints.

Tiny random-weight models of each family are built from a config (fixtures/tiny_models.py), saved
with their processor files and loaded by the real code. Checked: the family's own layers are
really there, chunked + batched transcription is batch invariant, the CTC frame rate comes from
the config (a 160-sample conv stack gives 10 ms frames and word times), streaming equals the
offline windows, the CLI routes the folders to the CTC engine, and non-CTC folders are refused
with a one-line reason.
"""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

from conftest import torch_threads
from speechstudio import cli
from speechstudio.asr.chunking import WindowPlanner
from speechstudio.asr.streaming import StreamConfig, StreamingRecognizer
from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
from speechstudio.audio.decode import load_audio
from speechstudio.errors import ModelNotFoundError
from speechstudio import cli as hub_cli
from speechstudio.asr.family_ctc import OTHER_CTC_MODEL_TYPES, WAV2VEC2_MODEL_TYPES
from speechstudio.hub.detect import detect_engine

LIBRI = "lhotse_librispeech_2412-153948-0000.flac"      # 16 kHz, 11.66 s

# name -> make_wav2vec2 arguments, model class, family name, a module class the family must contain
VARIANTS = {
    "hubert-layer": (dict(family="hubert", config=dict(feat_extract_norm="layer", do_stable_layer_norm=True,
                                                       conv_bias=True)),
                     "HubertForCTC", "HuBERT", "HubertLayerNormConvLayer"),
    "hubert-group": (dict(family="hubert", do_normalize=False), "HubertForCTC", "HuBERT", "HubertGroupNormConvLayer"),
    "data2vec-audio": (dict(family="data2vec-audio"), "Data2VecAudioForCTC", "Data2Vec-Audio",
                       "Data2VecAudioPositionalConvLayer"),
    "conformer-rotary": (dict(family="wav2vec2-conformer", do_normalize=False), "Wav2Vec2ConformerForCTC",
                         "Wav2Vec2-Conformer", "Wav2Vec2ConformerRotaryPositionalEmbedding"),
    "conformer-relative": (dict(family="wav2vec2-conformer", config=dict(position_embeddings_type="relative")),
                           "Wav2Vec2ConformerForCTC", "Wav2Vec2-Conformer", "Wav2Vec2ConformerRelPositionalEmbedding"),
    # conv strides (5,2,2,2,2,2,1): 160 samples = 10 ms per CTC frame, receptive field still 400
    "data2vec-160": (dict(family="data2vec-audio", config=dict(conv_stride=(5, 2, 2, 2, 2, 2, 1))),
                     "Data2VecAudioForCTC", "Data2Vec-Audio", "Data2VecAudioPositionalConvLayer"),
}
STANDARD = [v for v in VARIANTS if v != "data2vec-160"]


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Tiny models run as fast on one thread, and do not stall when other processes share the CPU."""
    with torch_threads(1):
        yield


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """``model_dir(variant)``: that variant saved once per module (safetensors + processor files)."""
    from tiny_models import make_wav2vec2

    root, built = tmp_path_factory.mktemp("ctc-families"), {}

    def get(variant: str):
        if variant not in built:
            built[variant] = make_wav2vec2(root / variant, **VARIANTS[variant][0])
        return built[variant]

    return get


@pytest.fixture(scope="module")
def speech():
    from conftest import realspeech_file

    path = realspeech_file(LIBRI)
    return load_audio(path, 16000)


def recognizer(path, **kw):
    kw.setdefault("device", "cpu")
    return Wav2Vec2Recognizer(path, "tiny", **kw)


def text_of(e, blocks):
    return " ".join(s.text for s in e.transcribe_blocks(blocks))


# ---------------------------------------------------------------------------------------- loading
@pytest.mark.parametrize("variant", STANDARD)
def test_family_loads_with_its_own_layers(model_dir, speech, variant):
    _, cls, name, layer = VARIANTS[variant]
    e = recognizer(model_dir(variant), chunk_s=30.0)
    modules = {type(m).__name__ for m in e.model.modules()}
    assert type(e.model).__name__ == cls and e.family_name == name and layer in modules
    assert (e.frame_len, e.receptive_field, e.seconds_per_frame, e.sample_rate) == (320, 400, 0.02, 16000)
    assert e.blank_id == 0 and e.id_to_token[5] == "E"
    # per-window normalisation is the processor's own (do_normalize on or off)
    ref = e.feature_extractor(speech, sampling_rate=16000, return_tensors="np").input_values[0]
    assert np.abs(e.normalize(speech) - ref).max() <= 1e-5
    assert e.feature_extractor.do_normalize == (VARIANTS[variant][0].get("do_normalize", True))
    # a clip shorter than one chunk is exactly the model's own full pass
    with torch.inference_mode():
        full = e.model(torch.from_numpy(e.normalize(speech))[None]).logits[0].numpy()
    got = e.logits(speech)
    assert got.shape == full.shape == (582, 32) and np.abs(got - full).max() == 0.0


@pytest.mark.parametrize("variant", STANDARD)
def test_chunked_batched_transcription_is_batch_invariant(model_dir, speech, variant):
    results = {}
    for bs in (1, 4):
        e = recognizer(model_dir(variant), chunk_s=2.0, stride_s=0.4, batch_size=bs)
        results[bs] = (e.logits(speech), text_of(e, [speech]))
    planner = WindowPlanner(e.chunk, e.stride, e.stride, e.frame_len)
    n_windows = len([*planner.push(speech), *planner.finish()])
    assert n_windows == 10                                         # several windows, batched 4 by 4
    assert results[1][0].shape == results[4][0].shape == (582, 32)
    assert np.abs(results[1][0] - results[4][0]).max() <= 1e-4
    assert results[1][1] == results[4][1] and results[1][1]
    blocks = [speech[i:i + 4410] for i in range(0, speech.shape[0], 4410)]
    assert text_of(e, blocks) == results[4][1]                     # block size never matters


# ---------------------------------------------------------------------------------------- frame rate
class EnergyCTC:
    """Stand-in logits with known timing: per CTC frame of the engine's own geometry, 'A' where
    the frame's receptive field is loud, the word delimiter where it is quiet."""

    def __init__(self, e, threshold):
        self.fl, self.rf, self.threshold = e.frame_len, e.receptive_field, threshold

    def __call__(self, windows):
        out = []
        for w in windows:
            n = (w.shape[0] - self.rf) // self.fl + 1
            rms = np.array([np.sqrt(np.mean(w[i * self.fl:i * self.fl + self.rf] ** 2)) for i in range(n)])
            lg = np.full((n, 32), -10.0, np.float32)
            lg[rms > self.threshold, 7] = 10.0        # 'A'
            lg[rms <= self.threshold, 4] = 10.0       # '|'
            out.append(lg)
        return out


def test_frame_rate_and_word_times_come_from_the_config(model_dir, speech, realspeech):
    e = recognizer(model_dir("data2vec-160"), chunk_s=1.0, stride_s=0.2, batch_size=4)
    assert (e.frame_len, e.receptive_field, e.seconds_per_frame) == (160, 400, 0.01)
    n = speech.shape[0]                                            # 186560 samples
    expected = int(e.model._get_feat_extract_output_lengths(torch.tensor(n)))   # transformers' own count
    assert expected == (n - 400) // 160 + 1 == 1164
    lg = e.logits(speech)
    assert lg.shape == (1164, 32)
    words = [w for s in e.transcribe_blocks([speech]) for w in s.words]
    assert words and all(round(w.start_s * 100, 6).is_integer() and w.end_s <= n / 16000 for w in words)
    # known timing: speech after 1.5 s of silence; times in 10 ms frames, not 20 ms ones
    clip = load_audio(realspeech / "pocketsphinx_cards_005.wav")
    silence = np.zeros(int(1.5 * 16000), np.float32)
    audio = np.concatenate([silence, clip, silence])
    rms = np.array([np.sqrt(np.mean(audio[i:i + 400] ** 2)) for i in range(0, audio.size - 400 + 1, 160)])
    threshold = 0.1 * rms.max()
    loud = np.flatnonzero(rms > threshold)
    onset, offset = loud[0] * 0.01, (loud[-1] + 1) * 0.01
    assert 1.5 <= onset < 2.2
    e.window_logits = EnergyCTC(e, threshold)
    words = [w for s in e.transcribe_blocks([audio]) for w in s.words]
    assert words[0].start_s == pytest.approx(onset, abs=0.0101)
    assert words[-1].end_s == pytest.approx(offset, abs=0.0101)


# ---------------------------------------------------------------------------------------- streaming
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_streaming_equals_offline_windows(model_dir, speech, variant):
    from streaming_reference import Collect, greedy_text, offline_logits

    e = recognizer(model_dir(variant))
    audio = speech[:5 * 16000 + 123]
    col = Collect()
    rec = StreamingRecognizer(e, StreamConfig(chunk_s=0.5, left_context_s=1.0, lookahead_s=0.24, endpoint_s=None),
                              input_rate=16000, on_logits=col)
    updates = list(rec.run(np.split(audio, range(320, len(audio), 320))))
    geo = rec.geometry
    assert (geo.frame_len, geo.receptive_field) == (e.frame_len, 400) and rec.runner.kind == "eager"
    ref = offline_logits(e, audio, geo)
    assert col.logits.shape == ref.shape == (geo.n_frames(audio.shape[0]), 32)
    assert np.abs(col.logits - ref).max() <= 1e-4
    assert rec.text == greedy_text(e, ref) and rec.text
    assert updates[-1].kind == "final" and updates[-1].stable_s == pytest.approx(ref.shape[0] * e.seconds_per_frame)


def test_dictate_cli_streams_a_conformer(model_dir, speech, realspeech, tmp_path, capsys, monkeypatch):
    from streaming_reference import greedy_text, offline_logits

    from speechstudio.asr.streaming import WindowGeometry

    d = model_dir("conformer-relative")
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    rc = cli.main(["dictate", "--file", str(realspeech / LIBRI), "--fast", "--model", str(d), "--device", "cpu",
                   "--endpoint-s", "0", "--chunk-s", "1.0", "--left-context-s", "0.5", "--lookahead-s", "0.24"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    e = recognizer(d)
    ref = greedy_text(e, offline_logits(e, speech, WindowGeometry.from_seconds(1.0, 0.5, 0.24)))
    assert out.splitlines()[-1] == ref and ref


# ---------------------------------------------------------------------------------------- CLI + hub
@pytest.mark.parametrize("variant", ["hubert-layer", "data2vec-audio", "conformer-rotary"])
def test_cli_transcribe_routes_the_folder_to_the_ctc_engine(model_dir, realspeech, tmp_path, capsys, home, variant):
    d = model_dir(variant)
    f = tmp_path / "talk.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    code = cli.main(["transcribe", str(f), "--model", str(d), "--device", "cpu", "--format", "json",
                     "--chunk-s", "1.0", "--stride-s", "0.2"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"({VARIANTS[variant][2]} CTC, local dir) on cpu (fp32)" in err
    meta = json.loads((tmp_path / "talk.json").read_text())
    ref = text_of(recognizer(d, chunk_s=1.0, stride_s=0.2), [load_audio(f, 16000)])
    assert meta["engine"] == "wav2vec2" and meta["text"] == ref and ref


def test_models_import_list_and_transcribe_by_name(model_dir, realspeech, tmp_path, capsys, home):
    for variant in ("hubert-group", "data2vec-audio", "conformer-relative"):
        assert detect_engine(model_dir(variant)) == "wav2vec2"
        assert hub_cli.main(["models", "import", str(model_dir(variant)), "--name", variant]) == 0
        assert capsys.readouterr().out.startswith(f"imported wav2vec2 model {variant} to ")
    assert hub_cli.main(["models", "list", "--installed"]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()[1:] if line.strip()}
    for variant in ("hubert-group", "data2vec-audio", "conformer-relative"):
        assert rows[variant][1] == "wav2vec2" and rows[variant][-1] == "imported"
    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    assert cli.main(["transcribe", str(f), "--model", "data2vec-audio", "--device", "cpu", "--format", "txt"]) == 0
    assert "using data2vec-audio (Data2Vec-Audio CTC, imported)" in capsys.readouterr().err
    assert (tmp_path / "a.txt").read_text().strip() == text_of(recognizer(model_dir("data2vec-audio")), [load_audio(f, 16000)])


# ---------------------------------------------------------------------------------------- refusals
def _save_config(path, config):
    path.mkdir(parents=True)
    config.save_pretrained(path)
    return path


def _non_ctc(kind, root, model_dir):
    """A folder of ``kind`` that is not a runnable CTC checkpoint."""
    import transformers as T

    d = root / kind
    if kind == "whisper":
        _save_config(d, T.WhisperConfig(d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                                        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32))
        (d / "model.safetensors").write_bytes(b"")
    elif kind == "vits":
        _save_config(d, T.VitsConfig())
        (d / "model.safetensors").write_bytes(b"")
    elif kind == "wav2vec2-bert":
        _save_config(d, T.Wav2Vec2BertConfig(vocab_size=32))
        (d / "model.safetensors").write_bytes(b"")
    elif kind in ("hubert-base", "base-weights-ctc-config"):
        src = model_dir("hubert-group")
        shutil.copytree(src, d)
        cfg = T.HubertConfig.from_pretrained(src)
        T.HubertModel(cfg).save_pretrained(d)       # weights (and architectures) of a base without head
        if kind == "base-weights-ctc-config":       # config says ForCTC, weights lack lm_head
            conf = json.loads((d / "config.json").read_text())
            conf["architectures"] = ["HubertForCTC"]
            (d / "config.json").write_text(json.dumps(conf))
    elif kind == "faster-whisper":
        d.mkdir()
        (d / "config.json").write_text(json.dumps({"alignment_heads": [[1, 0]], "lang_ids": []}))
        (d / "model.bin").write_bytes(b"\0" * 16)
        (d / "vocabulary.txt").write_text("a\nb\n")
    return d


REFUSALS = {  # kind -> (engine message, detect_engine message or its engine)
    "whisper": ("model_type 'whisper' is not a CTC speech-recognition model (a Whisper encoder-decoder",
                "CTranslate2"),
    "vits": ("model_type 'vits' is not a CTC speech-recognition model (a VITS text-to-speech voice",
             "is a VITS text-to-speech voice"),
    "wav2vec2-bert": ("Wav2Vec2BertForCTC reads input_features (filter-bank features)",
                      "wav2vec2-bert CTC model that reads filter-bank features"),
    "hubert-base": ("the checkpoint is a HubertModel without a CTC head", "hubert checkpoint without a CTC head"),
    "base-weights-ctc-config": ("the weights hold no trained CTC head (lm_head.bias, lm_head.weight", "wav2vec2"),
    "faster-whisper": ("is a CTranslate2 (faster-whisper) model, not a CTC checkpoint", "whisper"),
}


@pytest.mark.parametrize("kind", list(REFUSALS))
def test_non_ctc_folders_are_refused_with_the_reason(kind, model_dir, tmp_path):
    d = _non_ctc(kind, tmp_path, model_dir)
    engine_msg, detect_msg = REFUSALS[kind]
    with pytest.raises(ModelNotFoundError) as err:
        recognizer(d)
    assert str(d) in str(err.value) and engine_msg in str(err.value) and "\n" not in str(err.value)
    if detect_msg in ("wav2vec2", "whisper"):     # the hub cannot tell from the files; the engine can
        assert detect_engine(d) == detect_msg
    else:
        with pytest.raises(ModelNotFoundError, match=detect_msg):
            detect_engine(d)


def test_cli_transcribe_with_a_vits_folder_is_one_line(model_dir, realspeech, tmp_path, capsys, home):
    d = _non_ctc("vits", tmp_path, model_dir)
    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    assert cli.main(["transcribe", str(f), "--model", str(d), "--device", "cpu", "-q"]) == 1
    err = capsys.readouterr().err
    assert f"speechstudio: error: {d} is a VITS text-to-speech voice" in err and "Traceback" not in err


def test_hub_model_types_follow_transformers_ctc_mapping():
    """Every AutoModelForCTC type is either runnable (raw waveform + conv feature encoder, in
    WAV2VEC2_MODEL_TYPES) or refused with a reason (OTHER_CTC_MODEL_TYPES); the engine agrees."""
    import transformers
    from transformers import CONFIG_MAPPING
    from transformers.models.auto.modeling_auto import MODEL_FOR_CTC_MAPPING_NAMES

    from speechstudio.asr.ctc_checkpoint import FAMILY_NAMES, ctc_config_problem

    runnable, other = set(), set()
    for model_type, cls_name in MODEL_FOR_CTC_MAPPING_NAMES.items():
        config = CONFIG_MAPPING[model_type]()
        ok = (getattr(transformers, cls_name).main_input_name == "input_values"
              and bool(getattr(config, "conv_kernel", None)))
        assert (ctc_config_problem(config) is None) == ok, model_type
        (runnable if ok else other).add(model_type.replace("_", "-"))
    assert runnable == set(WAV2VEC2_MODEL_TYPES) == set(FAMILY_NAMES)
    assert other <= set(OTHER_CTC_MODEL_TYPES)
