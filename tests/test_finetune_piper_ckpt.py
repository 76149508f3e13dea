"""Piper training checkpoints (Lightning ``.ckpt``) as fine-tuning bases (finetune.vits.piper_ckpt).

The checkpoint is built here in Piper's layout (rhasspy/piper ``piper_train/vits/lightning.py``:
``state_dict`` with ``model_g.<VITS name>`` = ``SynthesizerTrn`` and ``model_d.<...>`` = its
``MultiPeriodDiscriminator``; weight norm as ``weight_g`` / ``weight_v``; Lightning metadata with a
``pathlib`` path and other objects) from a tiny transformers VITS, with a Piper ``config.json``
beside it ("text" phonemes, 16 kHz). The Hugging Face boundary (``hf_hub_download``) is faked.
"""
import collections
import copy
import json
import os
import pathlib
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from conftest import torch_threads
from speechstudio.errors import ModelNotFoundError, OfflineError
from speechstudio.tts.piper_import import piper_name as vits_parameter_name
from speechstudio.finetune.manifest import Clip, Manifest
from speechstudio.finetune.vits import piper_ckpt
from speechstudio.finetune.vits import step as vits_step
from speechstudio.finetune.vits.discriminator import MultiPeriodDiscriminator
from speechstudio.finetune.vits.events import StageEvent, StepEvent
from speechstudio.finetune.vits.piper_ckpt import (PiperCheckpointError, build_discriminator, fetch_piper_checkpoint,
                                                   load_piper_checkpoint)
from speechstudio.finetune.vits.trainer import TrainConfig, load_trained_generator, train_voice

SR = 16000
LESSAC = "en/en_US/lessac/medium/epoch=2164-step=1355540.ckpt"
SYMBOLS = list("abcdefghijklmnopqrstuvwxyz .,?!'-")
ID_MAP = {"_": [0], "^": [1], "$": [2], **{s: [i + 3] for i, s in enumerate(SYMBOLS)}}
TEXTS = ["hello world.", "a quick test of the voice.", "she sells sea shells.", "good morning to you.",
         "one more short line.", "the end is near."]
#: VITS layers under weight norm (models.py / modules.py: WN layers, Generator ups, ResBlock convs).
WEIGHT_NORMED = re.compile(r"(\.enc\.(in_layers|res_skip_layers)\.\d+|\.enc\.cond_layer|^dec\.ups\.\d+|"
                           r"^dec\.resblocks\.\d+\.convs[12]?\.\d+)\.weight$")
RAN: list = []  # code in a checkpoint's metadata would leave a trace here


class LightningThing:
    """Stands for Lightning's own objects in a checkpoint's metadata (callback / loop state)."""

    def __init__(self):
        self.best = 1.5

    def __setstate__(self, state):
        RAN.append("LightningThing.__setstate__")
        self.__dict__.update(state)


class Exploit:
    """A crafted object: unpickling it calls ``func(*args)``."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    with torch_threads(1):
        yield


def vits_name(hf: str) -> str:
    """transformers ``VitsModel`` name -> VITS / Piper name, training-only parts included."""
    for ours, theirs in (("posterior_encoder.conv_pre.", "enc_q.pre."), ("posterior_encoder.wavenet.", "enc_q.enc."),
                         ("posterior_encoder.conv_proj.", "enc_q.proj.")):
        if hf.startswith(ours):
            return theirs + hf[len(ours):]
    if hf.startswith("duration_predictor.post_"):
        return vits_parameter_name("duration_predictor." + hf[len("duration_predictor.post_"):]).replace(
            "dp.", "dp.post_", 1)
    name = vits_parameter_name(hf)
    assert name is not None, hf
    return name


def tiny_model():
    from transformers import VitsConfig, VitsModel

    cfg = VitsConfig(
        vocab_size=len(SYMBOLS) + 3, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, window_size=2,
        ffn_dim=32, ffn_kernel_size=3, flow_size=8, spectrogram_bins=9, upsample_initial_channel=16,
        upsample_rates=[4, 4], upsample_kernel_sizes=[8, 8], resblock_kernel_sizes=[3],
        resblock_dilation_sizes=[[1, 3, 5]], prior_encoder_num_flows=2, prior_encoder_num_wavenet_layers=2,
        posterior_encoder_num_wavenet_layers=3, duration_predictor_num_flows=2, depth_separable_num_layers=2,
        use_stochastic_duration_prediction=True, sampling_rate=SR, layerdrop=0.0)
    torch.manual_seed(1234)
    model = VitsModel(cfg).eval()
    with torch.no_grad():  # training-only flows away from their (zero) init, so equality means something
        for name, p in model.named_parameters():
            if name.startswith(("duration_predictor.post_", "duration_predictor.flows.1.")):
                p.add_(0.01 * torch.randn_like(p))
    return model


def piper_config(**changes) -> dict:
    cfg = {"audio": {"sample_rate": SR, "quality": "low"}, "espeak": {"voice": "en-us"},
           "language": {"code": "en_US"}, "inference": {"noise_scale": 0.667, "length_scale": 1, "noise_w": 0.8},
           "phoneme_type": "text", "phoneme_map": {}, "phoneme_id_map": ID_MAP, "num_symbols": len(SYMBOLS) + 3,
           "num_speakers": 1, "speaker_id_map": {}, "dataset": "tiny", "piper_version": "1.0.0"}
    cfg.update(changes)
    return {k: v for k, v in cfg.items() if v is not None}  # None: leave the key out


def make_checkpoint(folder: Path, metadata: dict | None = None) -> tuple[Path, dict, dict]:
    """``folder/epoch=7-step=1234.ckpt`` + ``folder/config.json`` in Piper's layout.

    Returns (ckpt path, the generator's folded state (transformers names), the discriminator's
    state (``MultiPeriodDiscriminator`` names))."""
    from speechstudio.tts.piper_import import fold_weight_norm

    folder.mkdir(parents=True, exist_ok=True)
    model = tiny_model()
    folded = copy.deepcopy(model)
    fold_weight_norm(folded)
    expected = {k: v.clone() for k, v in folded.state_dict().items()}
    state = collections.OrderedDict()
    for hf, w in expected.items():
        name = vits_name(hf)
        if re.search(r"attention\.(q|k|v|out)_proj\.weight$", hf):
            w = w.unsqueeze(-1)  # VITS: 1x1 Conv1d
        if WEIGHT_NORMED.search(name):
            base = name[: -len(".weight")]
            g = torch.linalg.vector_norm(w, dim=tuple(range(1, w.dim())), keepdim=True)
            if name == "enc_q.enc.in_layers.0.weight":  # newer torch: parametrizations
                state[f"model_g.{base}.parametrizations.weight.original0"] = g
                state[f"model_g.{base}.parametrizations.weight.original1"] = 2 * w
            else:  # torch.nn.utils.weight_norm, as Piper: v = w * 2 (folding must normalise it)
                state[f"model_g.{base}.weight_g"] = g
                state[f"model_g.{base}.weight_v"] = 2 * w
        else:
            state[f"model_g.{name}"] = w
    torch.manual_seed(99)
    disc = MultiPeriodDiscriminator(width=1 / 16)
    disc_state = {k: v.clone() for k, v in disc.state_dict().items()}
    for key, value in disc_state.items():
        m = re.match(r"(.*)\.parametrizations\.weight\.original([01])$", key)
        state["model_d." + (f"{m.group(1)}.weight_{'g' if m.group(2) == '0' else 'v'}" if m else key)] = value
    ckpt = {"epoch": 7, "global_step": 1234, "pytorch-lightning_version": "1.7.7", "state_dict": state,
            "hyper_parameters": {"num_symbols": len(SYMBOLS) + 3, "num_speakers": 1, "resblock": "1",
                                 "resblock_kernel_sizes": [3], "resblock_dilation_sizes": [[1, 3, 5]],
                                 "upsample_rates": [4, 4], "upsample_initial_channel": 16,
                                 "upsample_kernel_sizes": [8, 8], "filter_length": 16, "hop_length": 16,
                                 "win_length": 16, "sample_rate": SR, "use_spectral_norm": False,
                                 "dataset": [pathlib.PosixPath("/data/tiny/dataset.jsonl")]},
            "callbacks": {"ModelCheckpoint": LightningThing(), "counts": collections.defaultdict(list, {"a": [1]})},
            "optimizer_states": [{"state": {}, "param_groups": [{"lr": 2e-4}]}]}
    ckpt.update(metadata or {})
    path = folder / "epoch=7-step=1234.ckpt"
    torch.save(ckpt, path)
    (folder / "config.json").write_text(json.dumps(piper_config()), encoding="utf-8")
    return path, expected, disc_state


@pytest.fixture(scope="module")
def tiny_ckpt(tmp_path_factory):
    return make_checkpoint(tmp_path_factory.mktemp("piper-ckpt") / "tiny" / "low")


def make_dataset(folder: Path) -> Path:
    (folder / "clips").mkdir(parents=True)
    import soundfile as sf

    rng = np.random.default_rng(0)
    clips = []
    for i, text in enumerate(TEXTS):
        n = int(SR * (0.35 + 0.04 * i))
        t = np.arange(n) / SR
        wav = sum(np.sin(2 * np.pi * (110 + 15 * i) * k * t) / k for k in range(1, 6)) * np.hanning(n) * 0.3
        wav = (wav + 0.01 * rng.standard_normal(n)).astype(np.float32)
        sf.write(folder / "clips" / f"c{i}.wav", wav, SR, subtype="PCM_16")
        clips.append(Clip(f"c{i}", f"clips/c{i}.wav", text, n / SR))
    Manifest(SR, clips).save(folder)
    return folder


# ----------------------------------------------------------------------------- (a) loading
def test_loads_the_full_vits_with_posterior_encoder_and_discriminator(tiny_ckpt):
    path, expected, disc_state = tiny_ckpt
    RAN.clear()
    voice = load_piper_checkpoint(path)
    assert not RAN  # the metadata's objects were never built from the file's classes
    model = voice.model
    assert voice.kind == "piper" and voice.name == "en_US-tiny-low" and voice.sample_rate == SR
    assert voice.piper.config_path == path.parent / "config.json" and voice.piper.phoneme_type == "text"
    assert type(model).__name__ == "VitsModel" and not model.training
    assert model.config.posterior_encoder_num_wavenet_layers == 3 and model.config.spectrogram_bins == 9
    assert model.config.resblock == "1" and model.config.upsample_rates == [4, 4]
    got = model.state_dict()
    assert got.keys() == expected.keys()
    for key in expected:  # weight_g * weight_v / ||weight_v|| folded back to the weights written
        torch.testing.assert_close(got[key], expected[key], rtol=1e-5, atol=1e-6, msg=key)
    assert any(k.startswith("posterior_encoder.wavenet.in_layers.2.") for k in got)
    assert any(k.startswith("duration_predictor.post_flows.2.") for k in got)

    info = voice.piper_checkpoint
    assert (info.epoch, info.global_step, info.discriminator_width) == (7, 1234, 1 / 16)
    disc = build_discriminator(info)
    assert disc.training and disc.state_dict().keys() == disc_state.keys()
    assert all(torch.equal(disc.state_dict()[k], disc_state[k]) for k in disc_state)
    wav = voice.synthesize("hello there.")
    assert wav.dtype == np.float32 and len(wav) > 0 and np.isfinite(wav).all()


def test_metadata_cannot_run_code(tmp_path):
    """A name in the metadata is only ever an inert stand-in; os / posix names are refused."""
    marker = tmp_path / "ran"
    path, _, _ = make_checkpoint(tmp_path / "a", {"loops": {
        "x": Exploit(exec, f"open({str(marker)!r}, 'w').close()"), "y": Exploit(eval, "1 + 1")}})
    voice = load_piper_checkpoint(path)  # exec / eval were not called: the weights load, nothing else happens
    assert not marker.exists() and voice.piper_checkpoint.global_step == 1234
    path, _, _ = make_checkpoint(tmp_path / "b", {"callbacks": Exploit(os.system, f"touch {marker}")})
    with pytest.raises(PiperCheckpointError, match=r"epoch=7-step=1234\.ckpt: refused to load: .*system"):
        load_piper_checkpoint(path)
    assert not marker.exists()


# ----------------------------------------------------------------------------- (b) training
def test_fine_tunes_without_warmup_from_the_checkpoints_discriminator(tiny_ckpt, tmp_path, monkeypatch):
    path, _expected, disc_state = tiny_ckpt
    starts = []
    init = vits_step.VitsTraining.__init__

    def spy(self, *args, **kwargs):
        init(self, *args, **kwargs)
        starts.append({k: v.detach().clone() for k, v in self.disc.state_dict().items()})

    monkeypatch.setattr(vits_step.VitsTraining, "__init__", spy)
    data = make_dataset(tmp_path / "data")
    config = TrainConfig(steps=3, batch_size=2, lr=2e-3, generator_lr=None, segment_size=512, eval_every=3,
                         checkpoint_every=3, discriminator_width=1.0, device="cpu", precision="fp32", seed=3)
    events = list(train_voice(tmp_path / "run", data, str(path), config))
    stages = [e.stage for e in events if isinstance(e, StageEvent)]
    assert "warmup" not in stages and "train" in stages
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert [(e.step, e.stage) for e in steps] == [(1, "train"), (2, "train"), (3, "train")]
    assert all(np.isfinite(v) for e in steps for v in e.losses.values())
    prepare = " ".join(e.message for e in events if isinstance(e, StageEvent) and e.stage == "prepare")
    assert "posterior encoder and discriminator from the checkpoint, no warm-up" in prepare
    assert "epoch 7, step 1234" in prepare
    # the discriminator started as the checkpoint's (its 1/16 width, not the config's 1.0)
    assert len(starts) == 1 and starts[0].keys() == disc_state.keys()
    assert all(torch.equal(starts[0][k], disc_state[k]) for k in disc_state)
    model, info = load_trained_generator(tmp_path / "run", "latest")
    assert info.kind == "piper" and info.source == str(path.resolve()) and info.step == 3
    assert info.piper_config["phoneme_id_map"] == ID_MAP
    assert model.config.posterior_encoder_num_wavenet_layers == 3


def test_a_clone_of_a_checkpoint_is_saved_as_a_piper_voice(tiny_ckpt, tmp_path, monkeypatch):
    from speechstudio.errors import UsageError
    from speechstudio.finetune import voice_run
    from speechstudio.finetune.voice_run import save_trained_voice
    from speechstudio.tts.piper_import import load_piper_model

    path, _expected, _disc = tiny_ckpt
    data = make_dataset(tmp_path / "data")
    config = TrainConfig(steps=1, batch_size=2, segment_size=512, eval_every=1, checkpoint_every=1,
                         device="cpu", precision="fp32", val_count=0)
    list(train_voice(tmp_path / "run", data, str(path), config))
    ref = piper_ckpt.checkpoint_base_ref(str(path))
    assert ref.kind == "piper-ckpt" and ref.name == "en_US-tiny-low" and ref.location == str(path.resolve())
    clone = save_trained_voice(tmp_path / "run", "tiny-clone", ref, which="latest")
    assert clone.kind == "piper" and clone.location.endswith("tiny-clone.onnx")
    cfg = json.loads(Path(clone.location + ".json").read_text(encoding="utf-8"))
    assert cfg["phoneme_id_map"] == ID_MAP and cfg["audio"]["sample_rate"] == SR and cfg["phoneme_type"] == "text"
    assert cfg["speechstudio"]["synthetic"] and cfg["speechstudio"]["base"] == "en_US-tiny-low"
    model, _ = load_piper_model(clone.location)  # Piper's layout: reads back
    assert model.config.vocab_size == len(SYMBOLS) + 3
    # a taken name is refused before the checkpoint is loaded, blended or its pitch measured (the app's Save
    # waited for all of that)
    monkeypatch.setattr(voice_run, "load_trained_generator", lambda *a: pytest.fail("loaded before the name check"))
    with pytest.raises(UsageError, match="a voice named 'tiny-clone' already exists"):
        save_trained_voice(tmp_path / "run", "tiny-clone", ref, which="latest")


# ----------------------------------------------------------------------------- (c) bad inputs
def test_not_a_piper_checkpoint_names_the_file(tmp_path):
    bad = tmp_path / "other.ckpt"
    torch.save({"state_dict": {"model.encoder.weight": torch.zeros(2, 2)}, "epoch": 1}, bad)
    (tmp_path / "config.json").write_text(json.dumps(piper_config()), encoding="utf-8")
    with pytest.raises(PiperCheckpointError, match=r"other\.ckpt: not a Piper training checkpoint \(no model_g"):
        load_piper_checkpoint(bad)
    junk = tmp_path / "junk.ckpt"
    junk.write_bytes(b"not a checkpoint at all")
    with pytest.raises(PiperCheckpointError, match=r"junk\.ckpt: not a readable PyTorch checkpoint"):
        load_piper_checkpoint(junk)
    with pytest.raises(ModelNotFoundError, match=r"missing\.ckpt: Piper checkpoint file not found"):
        load_piper_checkpoint(tmp_path / "missing.ckpt")


def test_missing_config_and_mismatched_config_are_clear(tiny_ckpt, tmp_path):
    path, _, _ = tiny_ckpt
    lone = tmp_path / "lone" / path.name
    lone.parent.mkdir()
    lone.write_bytes(path.read_bytes())
    with pytest.raises(PiperCheckpointError, match=r"epoch=7-step=1234\.ckpt: missing config\.json beside it"):
        load_piper_checkpoint(lone)
    (lone.parent / "config.json").write_text(json.dumps(piper_config(num_symbols=99)), encoding="utf-8")
    with pytest.raises(PiperCheckpointError, match=r"config\.json: does not match epoch=7-step=1234\.ckpt "
                                                   r"\(config has num_symbols 99, the checkpoint 36"):
        load_piper_checkpoint(lone)
    far = dict(ID_MAP, z=[50])
    (lone.parent / "config.json").write_text(json.dumps(piper_config(phoneme_id_map=far, num_symbols=None)),
                                             encoding="utf-8")
    with pytest.raises(PiperCheckpointError, match=r"uses phoneme id 50, the checkpoint has 36 symbols"):
        load_piper_checkpoint(lone)


# ----------------------------------------------------------------------------- (d) download
def fake_hub(monkeypatch, tiny_ckpt, tmp_path, calls):
    import huggingface_hub
    from huggingface_hub import errors as hf_errors

    path = tiny_ckpt[0]
    files = {LESSAC: path, LESSAC.rsplit("/", 1)[0] + "/config.json": path.parent / "config.json"}

    def hf_hub_download(repo_id, filename, *, repo_type=None, revision=None, cache_dir=None, local_files_only=False):
        calls.append((repo_id, filename, repo_type, local_files_only))
        if local_files_only or filename not in files:
            raise hf_errors.LocalEntryNotFoundError(f"{filename} is not cached")
        dest = tmp_path / "hf" / "snapshots" / "abc" / filename
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not dest.exists():
            os.link(files[filename], dest)
        return str(dest)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", hf_hub_download)
    # huggingface_hub reads HF_HUB_OFFLINE once, at import (CI sets it): the tests that are online say so
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)


def test_fetch_downloads_the_ckpt_and_its_config(tiny_ckpt, tmp_path, monkeypatch):
    calls = []
    fake_hub(monkeypatch, tiny_ckpt, tmp_path, calls)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    ckpt, config = fetch_piper_checkpoint("lessac-medium")
    assert ckpt.name == "epoch=2164-step=1355540.ckpt" and config == ckpt.parent / "config.json"
    assert ckpt.read_bytes() == tiny_ckpt[0].read_bytes()
    assert calls[0] == ("rhasspy/piper-checkpoints", "en/en_US/lessac/medium/config.json", "dataset", False)
    assert calls[1] == ("rhasspy/piper-checkpoints", LESSAC, "dataset", False)
    assert fetch_piper_checkpoint("en_US-lessac-medium")[0] == ckpt
    with pytest.raises(ModelNotFoundError, match="unknown Piper checkpoint 'nobody-medium'"):
        fetch_piper_checkpoint("nobody-medium")


def test_fetch_offline_is_one_line_saying_how_to_use_a_local_ckpt(tiny_ckpt, tmp_path, monkeypatch):
    calls = []
    fake_hub(monkeypatch, tiny_ckpt, tmp_path, calls)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OfflineError) as err:
        fetch_piper_checkpoint("lessac-medium")
    text = str(err.value)
    assert "\n" not in text and "lessac-medium" in text and "offline" in text
    assert "--base PATH/epoch=2164-step=1355540.ckpt with config.json beside it" in text
    assert calls and all(local for *_, local in calls)


def test_plan_takes_a_ckpt_path_or_a_short_name(tiny_ckpt, tmp_path, monkeypatch):
    from speechstudio.finetune import voice_run

    calls = []
    fake_hub(monkeypatch, tiny_ckpt, tmp_path, calls)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    data = make_dataset(tmp_path / "data")
    for base in (str(tiny_ckpt[0]), "lessac-medium"):
        p = voice_run.plan(base=base, data=str(data), name="mine", run_dir=tmp_path / f"run-{len(calls)}",
                           device="cpu")
        assert p.base.kind == "piper-ckpt" and p.base.location.endswith(".ckpt")
        assert p.base_info.lacks == () and p.base_info.sample_rate == SR
        assert "no warm-up stage" in p.base_info.note
    assert p.base.name == "en_US-lessac-medium" and calls
