"""Piper *training* checkpoints (PyTorch Lightning ``.ckpt``) as fine-tuning bases.

Layout (rhasspy/piper ``piper_train/vits/lightning.py``; HF dataset ``rhasspy/piper-checkpoints``,
``config.json`` beside each): ``state_dict["model_g.*"]`` is VITS' ``SynthesizerTrn`` (jaywalnut310/vits
names) with the posterior encoder ``enc_q`` and the duration predictor's training-only flows;
``state_dict["model_d.*"]`` the ``MultiPeriodDiscriminator``. Weight norm (``w = g * v / ||v||``, dim 0)
is folded in the generator, kept in the discriminator. Loading is ``torch.load(weights_only=True)``
only (torch >= 2.5): the Lightning objects the metadata names load as inert :class:`_Inert` stand-ins,
names in ``os`` / ``sys`` are refused, so a crafted file cannot run code. Qt-free."""
from __future__ import annotations

import ast
import contextlib
import json
import math
import pickle
import re
from dataclasses import dataclass, field
from pathlib import Path

from speechstudio.errors import ModelNotFoundError, OfflineError
from speechstudio.hub.download import hub_offline
from speechstudio.tts.piper_import import (PiperVoiceError, _vits_config, fold_weight_norm, hf_name as inference_name,
                                           read_piper_config)
from speechstudio.tts.vits import VitsVoice
from speechstudio.tts.voices import VoiceRef, list_voices

#: ``VoiceRef.kind`` of a base given as a Piper training checkpoint (``location`` = the ``.ckpt``).
CHECKPOINT_KIND = "piper-ckpt"

#: The Hugging Face *dataset* repo of Piper's training checkpoints.
PIPER_CHECKPOINT_REPO = "rhasspy/piper-checkpoints"

#: Short name -> (Piper voice name, ``.ckpt`` path in ``PIPER_CHECKPOINT_REPO``); the voice's
#: ``config.json`` is in the same folder. English single-speaker medium / high checkpoints (sources:
#: docs/finetune_voice.md); a path the Hub no longer has gives a ``ModelNotFoundError`` naming it.
PIPER_CHECKPOINTS: dict[str, tuple[str, str]] = {
    "lessac-medium": ("en_US-lessac-medium", "en/en_US/lessac/medium/epoch=2164-step=1355540.ckpt"),
    "lessac-high": ("en_US-lessac-high", "en/en_US/lessac/high/epoch=2218-step=838782.ckpt"),
    "ryan-medium": ("en_US-ryan-medium", "en/en_US/ryan/medium/epoch=4641-step=3104302.ckpt"),
    "amy-medium": ("en_US-amy-medium", "en/en_US/amy/medium/epoch=6679-step=1554200.ckpt"),
    "hfc_male-medium": ("en_US-hfc_male-medium", "en/en_US/hfc_male/medium/epoch=2785-step=2128064.ckpt"),
    "hfc_female-medium": ("en_US-hfc_female-medium", "en/en_US/hfc_female/medium/epoch=2868-step=1575188.ckpt"),
    "alan-medium": ("en_GB-alan-medium", "en/en_GB/alan/medium/epoch=6339-step=1647790.ckpt"),
    "northern_english_male-medium": ("en_GB-northern_english_male-medium",
                                     "en/en_GB/northern_english_male/medium/epoch=9029-step=2261720.ckpt"),
    "jenny_dioco-medium": ("en_GB-jenny_dioco-medium", "en/en_GB/jenny_dioco/medium/epoch=2748-step=1729300.ckpt"),
}

#: Piper's decoder presets when the checkpoint's ``hyper_parameters`` cannot be read: resblock type
#: -> resblock dilations (piper_train ``__main__``: medium = VitsModel defaults, resblock "2";
#: high = resblock "1", dilations (1, 3, 5) x 3).
_PIPER_DILATIONS = {"2": ((1, 2), (2, 6), (3, 12)), "1": ((1, 3, 5), (1, 3, 5), (1, 3, 5))}
#: Discriminators in VITS' MultiPeriodDiscriminator: the scale one + periods 2, 3, 5, 7, 11.
_N_DISCRIMINATORS = 6


class PiperCheckpointError(PiperVoiceError):
    """A ``.ckpt`` that is not a usable Piper training checkpoint (or its config.json is missing /
    does not fit); the message names the file and the reason."""


@dataclass
class PiperCheckpoint:
    """What a training checkpoint adds to the loaded voice (``voice.piper_checkpoint``): ``epoch`` /
    ``global_step`` (None when absent), ``discriminator`` (a ``MultiPeriodDiscriminator`` float32 CPU
    ``state_dict``, or None with the reason in ``notes``), ``discriminator_width`` (channel fraction of
    VITS', 1.0 for Piper) and ``notes`` (lines for the training log)."""

    path: Path
    config_path: Path
    epoch: int | None = None
    global_step: int | None = None
    discriminator: dict | None = field(default=None, repr=False)
    discriminator_width: float | None = None
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        where = ", ".join(f"{k} {v}" for k, v in (("epoch", self.epoch), ("step", self.global_step)) if v is not None)
        return f"Piper training checkpoint {self.path.name}" + (f" ({where})" if where else "")


def is_checkpoint_path(source) -> bool:
    """True for a path ending in ``.ckpt`` (exists or not)."""
    return str(source).lower().endswith(".ckpt")


# ----------------------------------------------------------------------------- safe loading
class _Inert:
    """Stands in for every class / function the checkpoint's metadata names (see the module notes):
    keeps the arguments it is built with and the state it is given, runs nothing."""

    def __init__(self, *args, **kwargs):
        self.args = args

    def __setstate__(self, state):
        self.state = state


def _plain_dict(*_args, **_kwargs) -> dict:
    """``collections.defaultdict(factory)`` rebuilt as a plain dict (its items follow as SETITEMS)."""
    return {}


def _safe_load(path: Path) -> dict:
    """``torch.load(path, weights_only=True)`` with the metadata's extra names as inert stand-ins."""
    import torch

    def fail(exc: BaseException) -> PiperCheckpointError:
        text = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        return PiperCheckpointError(f"{path}: not a readable PyTorch checkpoint ({text})")

    extra = []
    unsafe_lister = getattr(torch.serialization, "get_unsafe_globals_in_checkpoint", None)
    if unsafe_lister is not None:
        try:
            names = unsafe_lister(str(path))
        except Exception as exc:  # noqa: BLE001 - not a zip checkpoint, truncated, ...
            raise fail(exc) from exc
        extra = [(_plain_dict if n == "collections.defaultdict" else _Inert, n) for n in names]
    guard = torch.serialization.safe_globals(extra) if extra else contextlib.nullcontext()
    try:
        with guard:
            try:
                return torch.load(str(path), map_location="cpu", weights_only=True, mmap=True)
            except RuntimeError as exc:
                if "mmap" not in str(exc):
                    raise
                return torch.load(str(path), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        text = str(exc)
        m = re.search(r"GLOBAL ([\w.]+)", text)
        detail = re.search(r"WeightsUnpickler error: (.+)", text)
        what = (f"it refers to {m.group(1)}" if m else detail.group(1)[:160] if detail else
                (text.strip().splitlines() or [type(exc).__name__])[-1][:160])
        hint = "" if unsafe_lister is not None else " (PyTorch >= 2.5 reads Lightning checkpoints safely)"
        raise PiperCheckpointError(f"{path}: refused to load: {what}, which is not plain weights and metadata"
                                   f"{hint}") from exc
    except (OSError, EOFError, ValueError, RuntimeError, TypeError, AttributeError) as exc:
        raise fail(exc) from exc


# ----------------------------------------------------------------------------- config
def read_checkpoint_config(ckpt_path):
    """The Piper voice config of a training checkpoint (the ``config.json`` beside ``ckpt_path``, else
    ``NAME.json`` / ``NAME.ckpt.json``; no weights read). Raises ``ModelNotFoundError``,
    ``PiperCheckpointError`` (no config.json) or ``PiperVoiceError`` (invalid config)."""
    ckpt = Path(ckpt_path).expanduser()
    if not ckpt.is_file():
        raise ModelNotFoundError(f"{ckpt}: Piper checkpoint file not found")
    for cand in (ckpt.parent / "config.json", ckpt.with_suffix(".json"), ckpt.with_name(ckpt.name + ".json")):
        if cand.is_file():
            return read_piper_config(ckpt, cand)
    raise PiperCheckpointError(f"{ckpt}: missing config.json beside it (Piper's voice config for this checkpoint, "
                               "published next to the .ckpt; the voice's .onnx.json works too)")


def _hparam(hp: dict, key: str):
    """A ``hyper_parameters`` value as a plain Python value, or None (absent, or an object the
    safe load left inert); piper1-gpl may store tuples as strings such as ``"(8, 8, 4)"``."""
    value = hp.get(key)
    if isinstance(value, str) and value[:1] in "([{":
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return None
    return value if isinstance(value, (bool, int, float, str, list, tuple)) else None


# ----------------------------------------------------------------------------- weights
def _tensors(state: dict, prefix: str, ckpt: Path) -> dict:
    import torch

    out = {}
    for key, value in state.items():
        if isinstance(key, str) and key.startswith(prefix):
            if not isinstance(value, torch.Tensor):
                raise PiperCheckpointError(f"{ckpt}: {key} is not a tensor ({type(value).__name__})")
            out[key[len(prefix):]] = value
    return out


def _fold_generator(g: dict, ckpt: Path) -> dict:
    """Weight-norm pairs (``weight_g`` / ``weight_v`` or ``parametrizations.weight.original0/1``)
    -> plain ``weight`` = g * v / ||v|| (norm over all dims but 0); everything float32."""
    import torch

    pairs: dict[str, dict] = {}
    out = {}
    for key, value in g.items():
        m = re.match(r"^(.*)\.(?:weight_(g|v)|parametrizations\.weight\.original([01]))$", key)
        if m:
            part = m.group(2) or ("g" if m.group(3) == "0" else "v")
            pairs.setdefault(m.group(1), {})[part] = value
        else:
            out[key] = value.detach().to(dtype=torch.float32)
    for base, gv in pairs.items():
        if set(gv) != {"g", "v"}:
            raise PiperCheckpointError(f"{ckpt}: model_g.{base} has half a weight-norm pair ({sorted(gv)})")
        gain, v = gv["g"].float(), gv["v"].float()
        if gain.shape[0] != v.shape[0] or gain.numel() != v.shape[0]:
            raise PiperCheckpointError(f"{ckpt}: model_g.{base}: weight-norm gain {tuple(gain.shape)} does not fit "
                                       f"its weight {tuple(v.shape)}")
        norm = torch.linalg.vector_norm(v, dim=tuple(range(1, v.dim())), keepdim=True)
        out[f"{base}.weight"] = v * (gain.reshape(norm.shape) / norm)
    return out


def _hf_name(name: str) -> str | None:
    """VITS / Piper generator name -> transformers ``VitsModel`` name, including ``enc_q.*`` ->
    ``posterior_encoder.*`` and ``dp.post_*`` -> ``duration_predictor.post_*``."""
    for vits, hf in (("enc_q.pre.", "posterior_encoder.conv_pre."), ("enc_q.enc.", "posterior_encoder.wavenet."),
                     ("enc_q.proj.", "posterior_encoder.conv_proj.")):
        if name.startswith(vits):
            return hf + name[len(vits):]
    if name.startswith("dp.post_"):
        inner = inference_name("dp." + name[len("dp.post_"):])
        return None if inner is None else "duration_predictor.post_" + inner[len("duration_predictor."):]
    return inference_name(name)


def _attrs(params: dict, hp: dict, ckpt: Path, notes: list[str]) -> dict:
    """The ONNX-style layer attributes ``piper_import._vits_config`` reads (upsample strides, resblock
    dilations, WaveNet dilation), from Piper's ``hyper_parameters`` (else Piper's presets)."""
    n_ups = len({m.group(1) for k in params if (m := re.match(r"dec\.ups\.(\d+)\.weight$", k))})
    resblock = "2" if "dec.resblocks.0.convs.0.weight" in params else "1"
    conv_key = "convs" if resblock == "2" else "convs1"
    n_res = len({m.group(1) for k in params if (m := re.match(r"dec\.resblocks\.(\d+)\.", k))})
    per_up = n_res // max(n_ups, 1)
    try:
        rates = [int(v) for v in _hparam(hp, "upsample_rates") or []]
    except (TypeError, ValueError):
        rates = None
    if not rates or len(rates) != n_ups:
        rates = [int(params[f"dec.ups.{i}.weight"].shape[2]) // 2 for i in range(n_ups)]
        notes.append(f"upsample rates {rates} taken as half the kernel sizes (Piper's presets; the checkpoint's "
                     "hyper_parameters do not give them)")
    dilations = _hparam(hp, "resblock_dilation_sizes")
    try:
        dilations = [[int(d) for d in ds] for ds in dilations]
    except (TypeError, ValueError):
        dilations = None
    if not dilations or len(dilations) != per_up:
        dilations = [list(d) for d in _PIPER_DILATIONS[resblock]]
        if len(dilations) != per_up:
            raise PiperCheckpointError(f"{ckpt}: cannot tell the decoder's resblock dilations (no hyper_parameters "
                                       f"and {per_up} resblocks per upsampling, not Piper's 3)")
        notes.append(f"resblock dilations {dilations} from Piper's resblock-{resblock} preset")
    hop = _hparam(hp, "hop_length")
    if isinstance(hop, int) and hop != math.prod(rates):
        raise PiperCheckpointError(f"{ckpt}: hyper_parameters hop_length {hop} != product of upsample_rates {rates}")
    return {"flow.flows.0.enc.in_layers.1": {"dilations": [1]},  # VITS / Piper: dilation rate 1
            **{f"dec.ups.{i}": {"strides": [u]} for i, u in enumerate(rates)},
            **{f"dec.resblocks.{j}.{conv_key}.{c}": {"dilations": [d]} for j, ds in enumerate(dilations)
               for c, d in enumerate(ds)}}


def _map_discriminator(d: dict, hp: dict, ckpt: Path, notes: list[str]) -> tuple[dict | None, float | None]:
    """``model_d`` weights -> (``MultiPeriodDiscriminator`` state_dict, width) or (None, None) with the
    reason in ``notes``: weight_g / weight_v become ``parametrizations.weight.original0`` / ``1``."""
    import torch

    from speechstudio.finetune.vits.discriminator import MultiPeriodDiscriminator

    def fresh(why: str) -> tuple[None, None]:
        notes.append(f"{why}: it starts fresh")
        return None, None

    if not d:
        return fresh("the checkpoint has no discriminator (model_d)")
    if _hparam(hp, "use_spectral_norm") is True or any(k.endswith(("weight_orig", "weight_u")) for k in d):
        return fresh("the checkpoint's discriminator uses spectral norm, which the trainer's does not")
    state = {}
    for key, value in d.items():
        m = re.match(r"^(.*)\.weight_([gv])$", key)
        name = f"{m.group(1)}.parametrizations.weight.original{0 if m.group(2) == 'g' else 1}" if m else key
        state[name] = value.detach().to(dtype=torch.float32)
    n = len({m.group(1) for k in state if (m := re.match(r"discriminators\.(\d+)\.", k))})
    top = state.get("discriminators.1.convs.3.parametrizations.weight.original1")
    if n != _N_DISCRIMINATORS or top is None:
        return fresh(f"the checkpoint's discriminator is not VITS' multi-period one ({n} discriminators)")
    width = float(top.shape[0]) / 1024.0  # the period discriminators' widest conv: 1024 channels in VITS
    with torch.device("meta"):  # shapes only, no memory
        own = MultiPeriodDiscriminator(width=width).state_dict()
    bad = [k for k in own if k not in state or tuple(own[k].shape) != tuple(state[k].shape)]
    extra = [k for k in state if k not in own]
    if bad or extra:
        return fresh(f"the checkpoint's discriminator does not fit VITS' layout (e.g. {(bad or extra)[0]})")
    return state, width


def build_discriminator(info: PiperCheckpoint | None):
    """A ``discriminator.MultiPeriodDiscriminator`` (train mode, CPU, float32) with the checkpoint's
    ``model_d`` weights, or None when ``info`` is None or carries none."""
    if info is None or info.discriminator is None:
        return None
    from speechstudio.finetune.vits.discriminator import MultiPeriodDiscriminator

    disc = MultiPeriodDiscriminator(width=float(info.discriminator_width or 1.0))
    disc.load_state_dict(info.discriminator)
    return disc.train()


# ----------------------------------------------------------------------------- load
def _default_name(piper, ckpt: Path) -> str:
    try:
        raw = json.loads(Path(piper.config_path).read_text(encoding="utf-8"))
        code = str((raw.get("language") or {}).get("code") or "")
        dataset = str(raw.get("dataset") or "")
        quality = str((raw.get("audio") or {}).get("quality") or "")
    except (OSError, ValueError, AttributeError):
        code = dataset = quality = ""
    if code and dataset and quality and re.fullmatch(r"[\w.-]+", f"{code}{dataset}{quality}"):
        return f"{code}-{dataset}-{quality}"
    return ckpt.stem


def load_piper_checkpoint(ckpt_path, *, name: str | None = None):
    """Load a Piper training checkpoint as a fine-tuning base; its config (``read_checkpoint_config``) gives
    the front end, ``audio.sample_rate`` (Hz) and inference defaults.

    Returns a ``VitsVoice`` of kind ``"piper"`` whose ``model`` is a float32 CPU eval ``VitsModel``
    (weight norm folded) holding all of ``model_g``, posterior encoder included (16 WaveNet layers, 513
    spectrogram bins for n_fft 1024); discriminator weights, epoch and step are in
    ``voice.piper_checkpoint``.

    Raises ``ModelNotFoundError`` (no such file), ``PiperCheckpointError`` (unreadable or unsafe, no
    ``model_g.*``, no config.json, weights that do not fit the config), ``PiperVoiceError``."""
    from transformers import VitsModel

    from speechstudio.tts.decoder import install_decoder

    ckpt = Path(ckpt_path).expanduser()
    piper = read_checkpoint_config(ckpt)
    raw = _safe_load(ckpt)
    if not isinstance(raw, dict):
        raise PiperCheckpointError(f"{ckpt}: not a Piper training checkpoint (a {type(raw).__name__}, "
                                   "not a Lightning checkpoint dict)")
    state = raw.get("state_dict") if isinstance(raw.get("state_dict"), dict) else raw
    g = _tensors(state, "model_g.", ckpt)
    if not g:
        keys = ", ".join(str(k) for k in list(state)[:4]) or "none"
        raise PiperCheckpointError(f"{ckpt}: not a Piper training checkpoint (no model_g.* generator weights; "
                                   f"keys: {keys})")
    hp = raw.get("hyper_parameters") if isinstance(raw.get("hyper_parameters"), dict) else {}
    notes: list[str] = []
    params = _fold_generator(g, ckpt)
    for required in ("enc_p.emb.weight", "enc_q.pre.weight", "enc_q.proj.weight", "dec.conv_pre.weight",
                     "flow.flows.0.pre.weight", "dp.flows.0.logs", "dp.post_pre.weight"):
        if required not in params:
            what = "posterior encoder" if required.startswith("enc_q") else \
                "stochastic duration predictor" if required.startswith("dp.") else "VITS generator"
            raise PiperCheckpointError(f"{ckpt}: not a complete Piper VITS checkpoint (model_g.{required} missing: "
                                       f"no {what})")
    vocab = int(params["enc_p.emb.weight"].shape[0])
    n_spk = int(params["emb_g.weight"].shape[0]) if "emb_g.weight" in params else 1
    max_id = max(i for ids in piper.phoneme_id_map.values() for i in ids)
    rate = _hparam(hp, "sample_rate")
    mismatch = [text for bad, text in (
        (piper.num_symbols_declared and piper.num_symbols != vocab,
         f"config has num_symbols {piper.num_symbols}, the checkpoint {vocab}"),
        (max_id >= vocab, f"config uses phoneme id {max_id}, the checkpoint has {vocab} symbols"),
        (piper.num_speakers != n_spk, f"config has {piper.num_speakers} speakers, the checkpoint {n_spk}"),
        (isinstance(rate, int) and rate != piper.sample_rate,
         f"config sample rate {piper.sample_rate} Hz, the checkpoint was trained at {rate} Hz")) if bad]
    if mismatch:
        raise PiperCheckpointError(f"{piper.config_path}: does not match {ckpt.name} ({'; '.join(mismatch)})")
    try:
        config = _vits_config(params, _attrs(params, hp, ckpt, notes), piper)
    except (KeyError, IndexError, ValueError) as exc:
        raise PiperCheckpointError(f"{ckpt}: not a Piper VITS checkpoint (missing {exc})") from exc
    config.spectrogram_bins = int(params["enc_q.pre.weight"].shape[1])
    config.posterior_encoder_num_wavenet_layers = len(
        {m.group(1) for k in params if (m := re.match(r"enc_q\.enc\.in_layers\.(\d+)\.weight$", k))})
    filter_length = _hparam(hp, "filter_length")
    if isinstance(filter_length, int) and filter_length // 2 + 1 != config.spectrogram_bins:
        raise PiperCheckpointError(f"{ckpt}: posterior encoder takes {config.spectrogram_bins} bins, hyper_parameters "
                                   f"filter_length {filter_length} gives {filter_length // 2 + 1}")

    model = VitsModel(config)
    fold_weight_norm(model)
    install_decoder(model)
    mapped, unused = {}, []
    for vits_name, tensor in params.items():
        hf = _hf_name(vits_name)
        if hf is None:
            unused.append(vits_name)
            continue
        if re.search(r"attention\.(q|k|v|out)_proj\.weight$", hf):
            tensor = tensor.squeeze(-1)  # VITS' 1x1 Conv1d -> transformers' Linear
        mapped[hf] = tensor
    own = model.state_dict()
    unexpected = [k for k in mapped if k not in own] + unused
    bad_shape = [f"{k} {tuple(mapped[k].shape)} vs {tuple(own[k].shape)}" for k in mapped
                 if k in own and own[k].shape != mapped[k].shape]
    missing = [k for k in own if k not in mapped]
    if unexpected or bad_shape or missing:
        parts = [f"{label} {items[:3]}" for label, items in (("unexpected", unexpected), ("shape mismatch", bad_shape),
                                                              ("missing", missing)) if items]
        raise PiperCheckpointError(f"{ckpt}: weights do not fit the VITS layout built from their shapes and "
                                   f"{piper.config_path.name} ({'; '.join(parts)})")
    model.load_state_dict(mapped, strict=True)
    model.eval()

    disc, width = _map_discriminator(_tensors(state, "model_d.", ckpt), hp, ckpt, notes)
    others = sorted({k.split(".", 1)[0] for k in state if isinstance(k, str)} - {"model_g", "model_d"})
    if others:
        notes.append(f"not used: {', '.join(others)} (other training-only parts of the checkpoint)")
    epoch, step = raw.get("epoch"), raw.get("global_step")
    info = PiperCheckpoint(ckpt, Path(piper.config_path), epoch if isinstance(epoch, int) else None,
                           step if isinstance(step, int) else None, disc, width, notes)
    voice = VitsVoice(
        name=name or _default_name(piper, ckpt), kind="piper", model=model, sample_rate=piper.sample_rate,
        num_speakers=piper.num_speakers, speakers=dict(piper.speaker_id_map),
        language=(piper.language or piper.espeak_voice).lower().replace("_", "-"), piper=piper,
        device="cpu", dtype="fp32", runtime="torch",
        defaults={"noise_scale": piper.noise_scale, "noise_w": piper.noise_w, "length_scale": piper.length_scale},
    )
    voice.piper_checkpoint = info
    return voice


# ----------------------------------------------------------------------------- download
def _entry(name: str) -> tuple[str, str, str]:
    """(short name, Piper voice name, .ckpt path) of a short or full Piper name in the table."""
    key = name.strip()
    for short, (voice, path) in PIPER_CHECKPOINTS.items():
        if key.lower() in (short.lower(), voice.lower()):
            return short, voice, path
    known = ", ".join(PIPER_CHECKPOINTS)
    raise ModelNotFoundError(f"unknown Piper checkpoint {name!r} (known: {known}); or give the path of a .ckpt "
                             "with its config.json beside it")


def fetch_piper_checkpoint(name: str) -> tuple[Path, Path]:
    """Download (or find in the Hugging Face cache) Piper's training checkpoint ``name`` (a short name
    of :data:`PIPER_CHECKPOINTS` or its voice name) with its ``config.json`` and ``MODEL_CARD`` from
    :data:`PIPER_CHECKPOINT_REPO` (~850 MB for medium voices). Offline settings use only the cache.

    Returns ``(ckpt_path, config_path)``. Raises ``ModelNotFoundError`` (unknown name), ``OfflineError``
    (offline or unreachable, with how to use a local ``.ckpt``)."""
    import huggingface_hub
    from huggingface_hub import errors as hf_errors

    short, _voice, path = _entry(name)
    folder, filename = path.rsplit("/", 1)
    url = f"https://huggingface.co/datasets/{PIPER_CHECKPOINT_REPO}/resolve/main/{path}"
    offline = hub_offline()
    hint = (f"to use it without network, download {url} and its config.json (same folder) elsewhere and give "
            f"the .ckpt as --base PATH/{filename} with config.json beside it")

    def get(file: str) -> Path:
        return Path(huggingface_hub.hf_hub_download(PIPER_CHECKPOINT_REPO, file, repo_type="dataset",
                                                    local_files_only=offline))

    try:
        config = get(f"{folder}/config.json")
        ckpt = get(path)
    except hf_errors.LocalEntryNotFoundError:
        why = "offline (HF_HUB_OFFLINE) and not downloaded yet" if offline else "the Hugging Face Hub is unreachable"
        raise OfflineError(f"cannot get Piper checkpoint {short}: {why}; {hint}") from None
    except (hf_errors.RepositoryNotFoundError, hf_errors.RevisionNotFoundError, hf_errors.EntryNotFoundError) as exc:
        raise ModelNotFoundError(f"{PIPER_CHECKPOINT_REPO}: no {path} ({type(exc).__name__}); give the path of a "
                                 "local .ckpt instead") from None
    except (hf_errors.HfHubHTTPError, OSError) as exc:  # OfflineModeIsEnabled, connection errors, HTTP 5xx
        raise OfflineError(f"cannot get Piper checkpoint {short}: the Hugging Face Hub is unreachable "
                           f"({type(exc).__name__}); {hint}") from None
    with contextlib.suppress(Exception):  # optional (the clone's license then reads "unknown")
        get(f"{folder}/MODEL_CARD")
    if config.parent != ckpt.parent:
        raise OfflineError(f"Piper checkpoint {short}: {ckpt.name} and config.json were stored in different folders "
                           f"({ckpt.parent}, {config.parent})")
    return ckpt, config


def checkpoint_base_ref(spec: str):
    """A ``VoiceRef`` of kind :data:`CHECKPOINT_KIND` (``location`` the ``.ckpt``) for ``--base`` given
    as a ``.ckpt`` path or a short name of :data:`PIPER_CHECKPOINTS` (fetched),
    or None (an installed voice of that name wins). Raises ``ModelNotFoundError``, ``OfflineError``."""
    if spec is None:
        return None
    path = Path(str(spec)).expanduser()
    if is_checkpoint_path(spec):
        if not path.is_file():
            raise ModelNotFoundError(f"{spec}: Piper checkpoint file not found")
        try:
            name = _default_name(read_checkpoint_config(path), path)
        except PiperVoiceError:
            name = path.stem  # the loader says what is wrong with it
        return VoiceRef(name, CHECKPOINT_KIND, str(path.resolve()), "path", f"given as {spec}")
    short = str(spec).strip()
    if short not in PIPER_CHECKPOINTS or path.exists() or any(v.name == short for v in list_voices()):
        return None
    voice, _path = PIPER_CHECKPOINTS[short]
    ckpt, _cfg = fetch_piper_checkpoint(short)
    return VoiceRef(voice, CHECKPOINT_KIND, str(ckpt), "hf-cache",
                    f"Piper training checkpoint {short} ({PIPER_CHECKPOINT_REPO})")
