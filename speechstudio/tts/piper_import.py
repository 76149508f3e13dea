"""Import a Piper voice (``NAME.onnx`` + ``.onnx.json``) into transformers' ``VitsModel``: weights found by
walking the ONNX graph, architecture from weight shapes (docs/tts.md, "Piper import"). x_low voices raise
``PiperVoiceError``."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from speechstudio.errors import SpeechStudioError, UnknownModelError


class PiperVoiceError(SpeechStudioError):
    """A Piper voice file pair is missing, mismatched, or not a VITS voice."""


@dataclass(frozen=True)
class PiperVoiceConfig:
    """The parts of ``NAME.onnx.json`` the engine needs: ``sample_rate`` Hz; default ``noise_scale``
    (0.667), ``length_scale`` (1.0), ``noise_w`` (0.8), as Piper."""

    onnx_path: Path
    config_path: Path
    sample_rate: int
    espeak_voice: str
    phoneme_type: str
    phoneme_id_map: dict
    num_symbols: int
    num_speakers: int
    speaker_id_map: dict = field(default_factory=dict)
    noise_scale: float = 0.667
    length_scale: float = 1.0
    noise_w: float = 0.8
    language: str = ""
    num_symbols_declared: bool = False  # "num_symbols" was in the .json (then it must match the model)


#: ``VitsModel`` parameters inference never uses: the posterior encoder and duration-predictor posterior
#: flows (training only) and the first ConvFlow, which VITS drops when inferring ("useless vflow").
INFERENCE_UNUSED = ("posterior_encoder.", "duration_predictor.post_", "duration_predictor.flows.1.")
#: Piper voice qualities and their sample rates (rhasspy/piper TRAINING.md / VOICES.md).
QUALITY_SAMPLE_RATES = {"x_low": 16000, "low": 16000, "medium": 22050, "high": 22050}


def read_piper_config(onnx_path: str | Path, config_path: str | Path | None = None) -> PiperVoiceConfig:
    """Read and check the ``.onnx.json`` of ``onnx_path`` (or ``config_path``). Raises
    ``UnknownModelError`` (no model file: a usage error) or ``PiperVoiceError`` (json missing, bad, incomplete)."""
    onnx_path = Path(onnx_path)
    if onnx_path.is_dir():
        found = ", ".join(sorted(f.name for f in onnx_path.glob("*.onnx"))) or "none here"
        raise PiperVoiceError(f"{onnx_path}: is a folder; give the voice's .onnx file in it ({found})")
    if not onnx_path.is_file():
        raise UnknownModelError(f"{onnx_path}: Piper voice file not found")
    beside = (onnx_path.with_name(onnx_path.name + ".json"), onnx_path.with_suffix(".json"))
    cfg_path = Path(config_path) if config_path is not None else next((c for c in beside if c.is_file()), None)
    if (cfg_path is None or not cfg_path.is_file()) and onnx_path.suffix.lower() != ".onnx":
        raise PiperVoiceError(f"{onnx_path}: not a Piper voice (a VOICE.onnx file with its VOICE.onnx.json beside it)")
    if cfg_path is None or not cfg_path.is_file():
        raise PiperVoiceError(f"{onnx_path}: missing its voice config {cfg_path or onnx_path.name + '.json'} "
                              "(download it with the voice)")
    try:
        raw = json.loads(cfg_path.read_text(encoding="utf-8"))
        id_map = {str(k): [int(i) for i in v] for k, v in raw["phoneme_id_map"].items()}
        sample_rate = int(raw["audio"]["sample_rate"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        why = (f"no {exc.args[0]!r} entry" if isinstance(exc, KeyError) else f"not JSON: {exc}"
               if isinstance(exc, json.JSONDecodeError) else f"{type(exc).__name__}: {exc}")
        raise PiperVoiceError(f"{cfg_path}: not a valid Piper voice config ({why})") from exc
    for sym in ("_", "^", "$"):
        if sym not in id_map:
            raise PiperVoiceError(f"{cfg_path}: phoneme_id_map lacks the {sym!r} symbol")
    quality = str((raw.get("audio") or {}).get("quality", "")).lower()
    expected_rate = QUALITY_SAMPLE_RATES.get(quality)
    # a SpeechStudio clone trained at another rate to speak at its speaker's pitch declares it
    # (finetune.vits.voice_rate): its quality names the base's rate
    trained_at = ((raw.get("speechstudio") or {}).get("voice_rate") or {}).get("model_rate")
    if expected_rate is not None and sample_rate != expected_rate and trained_at != sample_rate:
        # The weights do not store the rate; Piper's qualities fix it (piper/TRAINING.md).
        raise PiperVoiceError(f"{cfg_path}: audio.sample_rate {sample_rate} does not match quality "
                              f"{quality!r} (Piper {quality} voices are {expected_rate} Hz)")
    inference = raw.get("inference") or {}
    return PiperVoiceConfig(
        onnx_path=onnx_path,
        config_path=cfg_path,
        sample_rate=sample_rate,
        espeak_voice=str((raw.get("espeak") or {}).get("voice", "en-us")),
        phoneme_type=str(raw.get("phoneme_type", "espeak")),
        phoneme_id_map=id_map,
        num_symbols=int(raw.get("num_symbols", max(i for v in id_map.values() for i in v) + 1)),
        num_speakers=int(raw.get("num_speakers", 1)),
        num_symbols_declared="num_symbols" in raw,
        speaker_id_map={str(k): int(v) for k, v in (raw.get("speaker_id_map") or {}).items()},
        noise_scale=float(inference.get("noise_scale", 0.667)),
        length_scale=float(inference.get("length_scale", 1.0)),
        noise_w=float(inference.get("noise_w", 0.8)),
        language=str((raw.get("language") or {}).get("code", "")),
    )


# ----------------------------------------------------------------------------- ONNX graph walk
_PARAM_RE = re.compile(r"^(enc_p|dp|flow|dec|emb_g)\.")


def read_onnx_weights(onnx_path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, dict]]:
    """``(params, conv_attrs)`` of a Piper ONNX file in jaywalnut310/vits names: float32 arrays and each conv's
    dilations / strides / pads / group. Raises ``PiperVoiceError``."""
    import onnx
    from onnx import numpy_helper

    onnx_path = Path(onnx_path)
    try:
        model = onnx.load(str(onnx_path))
    except Exception as exc:  # protobuf DecodeError, OSError, ...
        raise PiperVoiceError(f"{onnx_path}: not a readable ONNX file ({type(exc).__name__})") from exc
    graph = model.graph
    inputs = {i.name for i in graph.input}
    if not {"input", "input_lengths", "scales"} <= inputs:
        raise PiperVoiceError(f"{onnx_path}: not a Piper VITS voice (graph inputs {sorted(inputs)}, "
                              "expected input, input_lengths, scales)")
    inits = {t.name: t for t in graph.initializer}

    def arr(name: str) -> np.ndarray:
        return numpy_helper.to_array(inits[name]).astype(np.float32, copy=False)

    params = {name: arr(name) for name, tensor in inits.items()
              if _PARAM_RE.match(name) and tensor.data_type == onnx.TensorProto.FLOAT}
    attrs: dict[str, dict] = {}

    consumers: dict[str, list] = {}
    for node in graph.node:
        for inp in node.input:
            consumers.setdefault(inp, []).append(node)

    for node in graph.node:
        if node.op_type in ("Conv", "ConvTranspose"):
            weight = node.input[1]
            bias = node.input[2] if len(node.input) > 2 and node.input[2] else None
            if bias and bias.endswith(".bias") and _PARAM_RE.match(bias):
                path = bias[: -len(".bias")]
            elif weight.endswith(".weight") and _PARAM_RE.match(weight):
                path = weight[: -len(".weight")]
            else:  # the node's scope: /flow/flows.0/enc/in_layers.0/Conv -> flow.flows.0.enc.in_layers.0
                path = ".".join(node.name.strip("/").split("/")[:-1]) if node.name.startswith("/") else ""
            if not path:
                raise PiperVoiceError(f"{onnx_path}: cannot tell which layer Conv node {node.name!r} belongs to")
            if weight in inits:
                params[path + ".weight"] = arr(weight)
            if bias and bias in inits:
                params[path + ".bias"] = arr(bias)
            attrs[path] = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        elif node.op_type == "Gather" and node.input[0] in inits:
            if node.input[1] == "input":
                params["enc_p.emb.weight"] = arr(node.input[0])
            elif node.input[1] == "sid":
                params["emb_g.weight"] = arr(node.input[0])

    # ElementwiseAffine of the duration predictor: reverse pass is (x - m) * exp(-logs).
    if "dp.flows.0.logs" not in params and "dp.flows.0.m" in params:
        for sub in consumers.get("dp.flows.0.m", []):
            for mul in consumers.get(sub.output[0], []):
                other = [i for i in mul.input if i != sub.output[0]]
                if mul.op_type == "Mul" and other and other[0] in inits:
                    params["dp.flows.0.logs"] = -np.log(arr(other[0]))
        if "dp.flows.0.logs" not in params:
            raise PiperVoiceError(f"{onnx_path}: duration predictor scale (dp.flows.0.logs) not found in graph")

    for required in ("enc_p.emb.weight", "enc_p.proj.weight", "dp.flows.0.m", "flow.flows.0.pre.weight",
                     "dec.conv_pre.weight", "dec.conv_post.weight"):
        if required not in params:
            raise PiperVoiceError(f"{onnx_path}: not a Piper VITS voice ({required} not found)")
    return params, attrs


# ----------------------------------------------------------------------------- config + mapping
def _count(params: dict, pattern: str) -> int:
    rx = re.compile(pattern)
    return len({m.group(1) for k in params if (m := rx.match(k))})


def _vits_config(params: dict, attrs: dict, voice: PiperVoiceConfig):
    from transformers import VitsConfig

    vocab, hidden = params["enc_p.emb.weight"].shape
    rel = params["enc_p.encoder.attn_layers.0.emb_rel_k"]
    head_dim = rel.shape[2]
    ffn = params["enc_p.encoder.ffn_layers.0.conv_1.weight"]
    flow_size = params["enc_p.proj.weight"].shape[0] // 2
    n_wn = _count(params, r"flow\.flows\.0\.enc\.in_layers\.(\d+)\.weight")
    wn_dilation = attrs.get("flow.flows.0.enc.in_layers.1", {}).get("dilations", [1])[0]
    dp_filter = params["dp.pre.weight"].shape[0]
    dp_flow_ids = {int(m.group(1)) for k in params if (m := re.match(r"dp\.flows\.(\d+)\.pre\.weight", k))}
    n_ups = _count(params, r"dec\.ups\.(\d+)\.weight")
    n_res = _count(params, r"dec\.resblocks\.(\d+)\.")
    resblock = "2" if "dec.resblocks.0.convs.0.weight" in params else "1"
    conv_key = "convs" if resblock == "2" else "convs1"
    per_up = n_res // n_ups
    res_k, res_d = [], []
    for j in range(per_up):
        n_convs = _count(params, rf"dec\.resblocks\.{j}\.{conv_key}\.(\d+)\.weight")
        res_k.append(int(params[f"dec.resblocks.{j}.{conv_key}.0.weight"].shape[2]))
        res_d.append([int(attrs[f"dec.resblocks.{j}.{conv_key}.{c}"]["dilations"][0]) for c in range(n_convs)])
    emb_g = params.get("emb_g.weight")

    problems = []
    if params["flow.flows.0.pre.weight"].shape[0] != hidden:
        problems.append("flow width differs from hidden size")
    if dp_filter != hidden:
        problems.append(f"duration predictor width {dp_filter} != hidden size {hidden} (x_low voice?)")
    if params["flow.flows.0.post.weight"].shape[0] != flow_size // 2:
        problems.append("flow is not mean-only")
    if problems:
        raise PiperVoiceError(f"{voice.onnx_path}: unsupported VITS layout: {'; '.join(problems)}")

    cfg = VitsConfig(
        vocab_size=int(vocab),
        hidden_size=int(hidden),
        num_hidden_layers=_count(params, r"enc_p\.encoder\.attn_layers\.(\d+)\.conv_q\.weight"),
        num_attention_heads=int(hidden // head_dim),
        window_size=int((rel.shape[1] - 1) // 2),
        use_bias=True,
        ffn_dim=int(ffn.shape[0]),
        ffn_kernel_size=int(ffn.shape[2]),
        flow_size=int(flow_size),
        spectrogram_bins=513,
        hidden_act="relu",
        layer_norm_eps=1e-5,
        use_stochastic_duration_prediction=True,
        num_speakers=int(emb_g.shape[0]) if emb_g is not None else 1,
        speaker_embedding_size=int(emb_g.shape[1]) if emb_g is not None else 0,
        upsample_initial_channel=int(params["dec.conv_pre.weight"].shape[0]),
        upsample_rates=[int(attrs[f"dec.ups.{i}"]["strides"][0]) for i in range(n_ups)],
        upsample_kernel_sizes=[int(params[f"dec.ups.{i}.weight"].shape[2]) for i in range(n_ups)],
        resblock_kernel_sizes=res_k,
        resblock_dilation_sizes=res_d,
        leaky_relu_slope=0.1,
        depth_separable_channels=2,
        depth_separable_num_layers=_count(params, r"dp\.convs\.convs_sep\.(\d+)\.weight"),
        duration_predictor_flow_bins=int((params[f"dp.flows.{max(dp_flow_ids)}.proj.weight"].shape[0] + 1) // 3),
        duration_predictor_tail_bound=5.0,
        duration_predictor_kernel_size=int(params["dp.convs.convs_sep.0.weight"].shape[2]),
        duration_predictor_num_flows=int((max(dp_flow_ids) + 1) // 2),
        prior_encoder_num_flows=_count(params, r"flow\.flows\.(\d+)\.pre\.weight"),
        prior_encoder_num_wavenet_layers=int(n_wn),
        posterior_encoder_num_wavenet_layers=1,  # posterior encoder is training-only, not exported
        wavenet_kernel_size=int(params["flow.flows.0.enc.in_layers.0.weight"].shape[2]),
        wavenet_dilation_rate=int(wn_dilation),
        sampling_rate=int(voice.sample_rate),
        noise_scale=voice.noise_scale,
        noise_scale_duration=voice.noise_w,
        speaking_rate=1.0 / voice.length_scale if voice.length_scale else 1.0,
    )
    cfg.resblock = resblock
    return cfg


#: Parameter names of jaywalnut310/vits (Piper's checkpoints and ONNX initializers) <-> transformers
#: ``VitsModel``, one table read in both directions (import: :func:`hf_name`, export:
#: :func:`piper_name`). Each row: (VITS prefix, VitsModel prefix, what the rest of the name needs);
#: a row that does not end with "." is a whole name. ``{i}``: the same layer index on both sides;
#: ``{qkv}`` / ``{kv}``: the projection letter; ``{dpf}``: a duration-predictor flow (VITS
#: interleaves ``Flip`` modules after the first: VITS ``2n - 1`` = VitsModel ``n``); ``{ff}``: a
#: flow (VITS ``2n`` = VitsModel ``n``). Rest ``"norm"``: LayerNorm ``gamma`` / ``beta`` <-> ``weight`` /
#: ``bias``; ``"dds"``: the DDSConv names inside the duration predictor (``DDS_NAMES``, and its norms).
PIPER_NAMES = [
    ("enc_p.emb.", "text_encoder.embed_tokens.", ""),
    ("enc_p.proj.", "text_encoder.project.", ""),
    ("enc_p.encoder.attn_layers.{i}.conv_{qkv}.", "text_encoder.encoder.layers.{i}.attention.{qkv}_proj.", ""),
    ("enc_p.encoder.attn_layers.{i}.conv_o.", "text_encoder.encoder.layers.{i}.attention.out_proj.", ""),
    ("enc_p.encoder.attn_layers.{i}.emb_rel_{kv}", "text_encoder.encoder.layers.{i}.attention.emb_rel_{kv}", ""),
    ("enc_p.encoder.norm_layers_1.{i}.", "text_encoder.encoder.layers.{i}.layer_norm.", "norm"),
    ("enc_p.encoder.norm_layers_2.{i}.", "text_encoder.encoder.layers.{i}.final_layer_norm.", "norm"),
    ("enc_p.encoder.ffn_layers.{i}.", "text_encoder.encoder.layers.{i}.feed_forward.", ""),
    ("dp.pre.", "duration_predictor.conv_pre.", ""),
    ("dp.proj.", "duration_predictor.conv_proj.", ""),
    ("dp.cond.", "duration_predictor.cond.", ""),
    ("dp.convs.", "duration_predictor.conv_dds.", "dds"),
    ("dp.flows.0.m", "duration_predictor.flows.0.translate", ""),
    ("dp.flows.0.logs", "duration_predictor.flows.0.log_scale", ""),
    ("dp.flows.{dpf}.pre.", "duration_predictor.flows.{dpf}.conv_pre.", ""),
    ("dp.flows.{dpf}.proj.", "duration_predictor.flows.{dpf}.conv_proj.", ""),
    ("dp.flows.{dpf}.convs.", "duration_predictor.flows.{dpf}.conv_dds.", "dds"),
    ("flow.flows.{ff}.pre.", "flow.flows.{ff}.conv_pre.", ""),
    ("flow.flows.{ff}.post.", "flow.flows.{ff}.conv_post.", ""),
    ("flow.flows.{ff}.enc.", "flow.flows.{ff}.wavenet.", ""),
    ("dec.conv_pre.", "decoder.conv_pre.", ""),
    ("dec.conv_post.", "decoder.conv_post.", ""),
    ("dec.cond.", "decoder.cond.", ""),
    ("dec.ups.", "decoder.upsampler.", ""),
    ("dec.resblocks.", "decoder.resblocks.", ""),
    ("emb_g.", "embed_speaker.", ""),
]
#: DDSConv names (VITS, VitsModel) inside ``dp.convs`` / ``dp.flows.N.convs``; its ``norms_1`` /
#: ``norms_2`` LayerNorms follow the "norm" rule.
DDS_NAMES = [("convs_sep.", "convs_dilated."), ("convs_1x1.", "convs_pointwise.")]
_GROUPS = {"i": r"\d+", "dpf": r"\d+", "ff": r"\d+", "qkv": "[qkv]", "kv": "[kv]"}
#: VITS index -> VitsModel index, and back (``{dpf}``, ``{ff}``).
_TO_HF = {"dpf": lambda v: (v + 1) // 2, "ff": lambda v: v // 2}
_TO_VITS = {"dpf": lambda h: 2 * h - 1, "ff": lambda h: 2 * h}
_NORM = {"gamma": "weight", "beta": "bias"}


def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{(\w+)\}", template)  # literal, group name, literal, ...
    rx = "".join(re.escape(p) if k % 2 == 0 else f"(?P<{p}>{_GROUPS[p]})" for k, p in enumerate(parts))
    return re.compile("^" + rx + ("" if template.endswith(".") else "$"))


_PATTERNS = [(_pattern(v), _pattern(h)) for v, h, _ in PIPER_NAMES]


def _rest(rest: str, kind: str, to_hf: bool) -> str:
    """The part after a row's prefix, in the other naming (see ``PIPER_NAMES``)."""
    if kind == "dds":
        for vits, hf in DDS_NAMES:
            src, dst = (vits, hf) if to_hf else (hf, vits)
            if rest.startswith(src):
                return dst + rest[len(src):]
        if not re.match(r"norms_[12]\.\d+\.", rest):
            return rest
        kind = "norm"
    if kind == "norm":
        head, _, last = rest.rpartition(".")
        table = _NORM if to_hf else {v: k for k, v in _NORM.items()}
        return (head + "." if head else "") + table.get(last, last)
    return rest


def _translate(name: str, to_hf: bool) -> str | None:
    for (vits_rx, hf_rx), (vits, hf, kind) in zip(_PATTERNS, PIPER_NAMES):
        m = (vits_rx if to_hf else hf_rx).match(name)
        if not m:
            continue
        convert = _TO_HF if to_hf else _TO_VITS
        values = {k: str(convert[k](int(v))) if k in convert else v for k, v in m.groupdict().items()}
        return (hf if to_hf else vits).format(**values) + _rest(name[m.end():], kind, to_hf)
    return None


def hf_name(name: str) -> str | None:
    """VITS / Piper parameter name -> transformers ``VitsModel`` name (``dp.flows.3.pre.bias`` ->
    ``duration_predictor.flows.2.conv_pre.bias``); None for names ``PIPER_NAMES`` has no row for."""
    return _translate(name, to_hf=True)


def piper_name(name: str) -> str | None:
    """``VitsModel`` parameter name -> VITS / Piper name (inverse of :func:`hf_name`); None for names Piper's
    graph does not hold (posterior encoder)."""
    return _translate(name, to_hf=False)


def load_piper_model(onnx_path: str | Path):
    """``(model, voice_config)``: a ``VitsModel`` (FP32, CPU, eval, weight norm folded; ``config.resblock`` "1" or
    "2") from a Piper voice. Raises ``ModelNotFoundError`` / ``PiperVoiceError``."""
    import torch

    voice = read_piper_config(onnx_path)
    params, attrs = read_onnx_weights(voice.onnx_path)
    vocab = params["enc_p.emb.weight"].shape[0]
    max_id = max(i for ids in voice.phoneme_id_map.values() for i in ids)
    n_spk = params["emb_g.weight"].shape[0] if "emb_g.weight" in params else 1
    mismatch = []
    if voice.num_symbols_declared and voice.num_symbols != vocab:
        mismatch.append(f"config has num_symbols {voice.num_symbols}, model has {vocab}")
    if max_id >= vocab:
        mismatch.append(f"config uses phoneme id {max_id}, model has {vocab} symbols")
    if voice.num_speakers != n_spk:
        mismatch.append(f"config has {voice.num_speakers} speakers, model has {n_spk}")
    if mismatch:
        raise PiperVoiceError(f"{voice.config_path}: does not match {voice.onnx_path.name} ({'; '.join(mismatch)})")
    state = {}
    for name, value in params.items():
        hf = hf_name(name)
        if hf is None:
            continue
        tensor = torch.from_numpy(np.array(value, dtype=np.float32))  # writable copy
        if re.search(r"attention\.(q|k|v|out)_proj\.weight$", hf):
            tensor = tensor.squeeze(-1)  # Conv1d(k=1) -> Linear
        state[hf] = tensor
    try:
        model = vits_with_weights(_vits_config(params, attrs, voice), state, strict=True)
    except (KeyError, IndexError) as exc:
        raise PiperVoiceError(f"{voice.onnx_path}: not a Piper VITS voice (missing {exc})") from exc
    except ValueError as exc:
        raise PiperVoiceError(f"{voice.onnx_path}: not a Piper VITS voice ({exc})") from exc
    model.eval()
    return model, voice


def vits_with_weights(config, state: dict, strict: bool = False):
    """A ``VitsModel(config)`` for inference (weight norm folded, the decoder ``config.resblock`` asks for) holding
    ``state``. Raises ``ValueError`` naming weights missing, of the wrong shape or (``strict``) unexpected. Built
    without random initialisation (``state`` overwrites it; a third of a Piper voice's load time): only the
    training-only parts ``state`` may lack (``INFERENCE_UNUSED``) are initialised, as ``VitsModel`` does."""
    from transformers import VitsModel
    from transformers.initialization import no_init_weights

    from speechstudio.tts.decoder import install_decoder

    with no_init_weights():
        model = VitsModel(config)
    fold_weight_norm(model)
    for name, module in model.named_modules():
        if f"{name}.".startswith(INFERENCE_UNUSED):
            if hasattr(module, "reset_parameters"):
                module.reset_parameters()
            model._init_weights(module)
    install_decoder(model)
    own = model.state_dict()
    unexpected = [k for k in state if k not in own] if strict else []
    bad = [k for k in state if k in own and own[k].shape != state[k].shape]
    missing = [k for k in own if k not in state and not k.startswith(INFERENCE_UNUSED)]
    if unexpected or bad or missing:
        raise ValueError(f"weights missing {missing[:3]}, of the wrong shape {bad[:3]} or unexpected {unexpected[:3]}")
    model.load_state_dict({k: v for k, v in state.items() if k in own}, strict=False)
    return model


def fold_weight_norm(model) -> None:
    """Fold every weight-norm parametrization of ``model`` into a plain ``weight``, in place (faster
    inference; matches Piper's exports)."""
    from torch.nn.utils import parametrize

    for module in model.modules():
        if parametrize.is_parametrized(module, "weight"):
            parametrize.remove_parametrizations(module, "weight", leave_parametrized=True)
        elif hasattr(module, "weight_g") and hasattr(module, "weight_v"):
            import torch

            torch.nn.utils.remove_weight_norm(module)
