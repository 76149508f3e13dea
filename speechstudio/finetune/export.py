"""Export a fine-tuned transformers ``VitsModel`` as a Piper voice: ``NAME.onnx`` + ``NAME.onnx.json``.

Interface of rhasspy/piper ``export_onnx.py``: ``input`` int64 [1, T], ``input_lengths`` int64 [1],
``scales`` float32 [3], ``sid`` int64 [1] (multi-speaker); ``output`` float32 [1, 1, 1, n] in [-1, 1];
opset 15, TorchScript exporter, jaywalnut310/vits weight names. A Piper base's ``.onnx.json`` is copied;
a ``VitsTokenizer`` base maps to ``"phoneme_type": "text"`` only when Piper's ids equal the tokenizer's,
else ``ExportError``."""
from __future__ import annotations

import copy
import io
import json
import math
import os
import unicodedata
import warnings
from pathlib import Path

from speechstudio.atomic import atomic_path, atomic_write_json
from speechstudio.errors import SpeechStudioError
from speechstudio.tts.piper_import import piper_name

#: ONNX opset of Piper's export (piper_train/export_onnx.py ``OPSET_VERSION = 15``).
OPSET_VERSION = 15


class ExportError(SpeechStudioError):
    """A model / base voice pair that cannot become a Piper voice; the message says why."""


# ----------------------------------------------------------------------------- front end
def text_phoneme_id_map(tokenizer) -> dict[str, list[int]]:
    """Piper ``phoneme_id_map`` (``"phoneme_type": "text"``) giving an MMS ``VitsTokenizer``'s ids.
    Raises ``ExportError`` when Piper could not give the same ids."""
    if tokenizer is None:
        raise ExportError("the base voice has no tokenizer to map onto Piper's phoneme ids")
    if getattr(tokenizer, "phonemize", False):
        raise ExportError("the base voice's tokenizer phonemizes with the phonemizer package (vits-ljs/vctk style), "
                          "which Piper's espeak front end does not reproduce; use the clone in SpeechStudio")
    if getattr(tokenizer, "is_uroman", False):
        raise ExportError("the base voice romanises its text with uroman, which Piper's runtime cannot do; "
                          "use the clone in SpeechStudio")
    if not getattr(tokenizer, "normalize", True):
        raise ExportError("the base voice's tokenizer does not normalise text (unknown characters become <unk>, "
                          "Piper skips them); use the clone in SpeechStudio")
    vocab = dict(tokenizer.get_vocab())
    special = {str(t) for t in (getattr(tokenizer, "pad_token", None), getattr(tokenizer, "unk_token", None)) if t}
    blank = [0] if getattr(tokenizer, "add_blank", True) else []
    id_map: dict[str, list[int]] = {"_": blank, "^": [], "$": []}
    for token, idx in sorted(vocab.items(), key=lambda kv: kv[1]):
        if token in special or token in id_map:
            continue
        if len(token) != 1:
            raise ExportError(f"the base voice's vocabulary has a multi-character token {token!r}; "
                              "Piper's text voices map single characters")
        if unicodedata.normalize("NFD", token) != token:
            n = len(unicodedata.normalize("NFD", token))
            raise ExportError(f"the base voice's vocabulary has {token!r}, which Piper splits into {n} "
                              "codepoints (NFD); use the clone in SpeechStudio")
        id_map[token] = [int(idx)]
    for token, ids in list(id_map.items()):
        upper = token.upper()
        if token not in ("_", "^", "$") and len(upper) == 1 and upper != token and upper not in id_map \
                and upper.lower() == token and unicodedata.normalize("NFD", upper) == upper:
            id_map[upper] = list(ids)  # VitsTokenizer lower-cases; piper1-gpl does not
    if len(id_map) <= 3:
        raise ExportError("the base voice's vocabulary has no characters")
    return id_map


def piper_voice_config(model, base_voice, *, dataset_name: str | None = None, extra_meta: dict | None = None) -> dict:
    """The ``.onnx.json`` for ``model`` fine-tuned from ``base_voice`` (the base's config plus a
    ``"speechstudio"`` block, or a text config). Raises ``ExportError`` (rate, vocabulary or speakers)."""
    import speechstudio

    cfg = model.config
    vocab = int(cfg.vocab_size)
    rate = int(cfg.sampling_rate)
    if base_voice.piper is not None:  # a Piper voice or checkpoint: its own .onnx.json
        raw = json.loads(Path(base_voice.piper.config_path).read_text(encoding="utf-8"))
        if rate != int(base_voice.sample_rate):
            # a clone trained at another rate to speak at its speaker's pitch (finetune.vits.voice_rate):
            # its samples play at the model's rate, and its durations were scaled to keep the base's tempo
            factor = rate / int(base_voice.sample_rate)
            if not 0.5 <= factor <= 2.0:
                raise ExportError(f"model sample rate {rate} Hz is too far from the base voice's "
                                  f"{base_voice.sample_rate} Hz")
            raw.setdefault("audio", {})["sample_rate"] = rate
            inference = raw.setdefault("inference", {})
            inference["length_scale"] = round(float(inference.get("length_scale", 1.0)) * factor, 6)
        max_id = max((i for ids in raw["phoneme_id_map"].values() for i in ids), default=0)
        if max_id >= vocab:
            raise ExportError(f"model has {vocab} symbols but the base voice uses phoneme id {max_id}")
    else:
        try:
            id_map = text_phoneme_id_map(base_voice.tokenizer)
        except ExportError as exc:
            raise ExportError(f"{base_voice.name}: cannot export as a Piper voice: {exc}") from exc
        lang = (base_voice.language or "en").lower()
        raw = {
            "audio": {"sample_rate": rate},
            "espeak": {"voice": lang},  # required by piper1-gpl's PiperConfig; unused for "text" voices
            "language": {"code": lang},
            "phoneme_type": "text",
            "phoneme_map": {},
            "phoneme_id_map": id_map,
            "inference": {"noise_scale": float(cfg.noise_scale), "length_scale": 1.0 / float(cfg.speaking_rate),
                          "noise_w": float(cfg.noise_scale_duration)},
            "speaker_id_map": dict(getattr(cfg, "speaker_id_map", None) or {}),
            "hop_length": math.prod(int(u) for u in cfg.upsample_rates),
        }
    if int(cfg.num_speakers) != int(base_voice.num_speakers):
        raise ExportError(f"model has {cfg.num_speakers} speakers, the base voice {base_voice.num_speakers}")
    raw.update(num_symbols=vocab, num_speakers=int(cfg.num_speakers),
               dataset=dataset_name or raw.get("dataset") or base_voice.name)
    block = {"synthetic": True, "base_voice": base_voice.name,
             "exported_by": f"SpeechStudio {speechstudio.__version__}"}
    if base_voice.piper is not None and rate != int(base_voice.sample_rate):
        block["voice_rate"] = {"base_rate": int(base_voice.sample_rate), "model_rate": rate}
    block.update(extra_meta or {})
    raw["speechstudio"] = block
    return raw


# ----------------------------------------------------------------------------- the graph
def _linear_as_conv(linear):
    """A ``Linear`` on ``(B, T, C)`` as a 1x1 ``Conv1d`` (VITS's attention layout), same maths."""
    import torch
    from torch import nn

    class LinearAsConv1d(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(linear.weight.detach().clone().unsqueeze(-1))  # (out, in, 1)
            self.bias = nn.Parameter(linear.bias.detach().clone()) if linear.bias is not None else None

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return nn.functional.conv1d(x.transpose(1, 2), self.weight, self.bias).transpose(1, 2)

    return LinearAsConv1d()


def _generator_module(model):
    """``torch.nn.Module`` with Piper's ``forward(input, input_lengths, scales, sid=None)``."""
    import torch
    from torch import nn

    from speechstudio.tts.decoder import ChannelsLastDecoder

    class PiperGenerator(nn.Module):
        def __init__(self, vits):
            super().__init__()
            self.config = vits.config
            self.text_encoder = copy.deepcopy(vits.text_encoder)
            for layer in self.text_encoder.encoder.layers:
                att = layer.attention
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    setattr(att, proj, _linear_as_conv(getattr(att, proj)))
            self.duration_predictor = vits.duration_predictor
            self.flow = vits.flow
            decoder = vits.decoder
            self.decoder = decoder.eager if isinstance(decoder, ChannelsLastDecoder) else decoder
            self.embed_speaker = vits.embed_speaker if int(vits.config.num_speakers) > 1 else None
            if vits.config.use_stochastic_duration_prediction:
                # exp(-log_scale) of the duration predictor's ElementwiseAffine as a constant, as in
                # Piper's files (piper_import reads log_scale back from it).
                affine = vits.duration_predictor.flows[0]
                self.dp_affine_scale = nn.Parameter(torch.exp(-affine.log_scale.detach()).clone())

        def forward(self, input, input_lengths, scales, sid=None):  # noqa: A002 - Piper's input name
            cfg = self.config
            noise_scale, length_scale, noise_w = scales[0], scales[1], scales[2]
            dtype = self.text_encoder.embed_tokens.weight.dtype
            positions = torch.arange(input.shape[1], device=input.device)
            token_mask = (positions.unsqueeze(0) < input_lengths.unsqueeze(1)).to(dtype)  # (B, T)
            padding_mask = token_mask.unsqueeze(-1)
            g = None if self.embed_speaker is None else self.embed_speaker(sid).unsqueeze(-1)
            encoded = self.text_encoder(input_ids=input, padding_mask=padding_mask, attention_mask=None)
            hidden = encoded.last_hidden_state.transpose(1, 2)
            mask = padding_mask.transpose(1, 2)  # (B, 1, T)
            log_duration = (_sdp_reverse(self.duration_predictor, hidden, mask, g, noise_w, self.dp_affine_scale)
                            if cfg.use_stochastic_duration_prediction else self.duration_predictor(hidden, mask, g))
            duration = torch.ceil(torch.exp(log_duration) * mask * length_scale)
            lengths = torch.clamp_min(torch.sum(duration, [1, 2]), 1).long()
            frames = torch.arange(lengths.max(), dtype=lengths.dtype, device=lengths.device)
            frame_mask = (frames.unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(1).to(dtype)  # (B, 1, F)
            # Monotonic alignment path from the durations (transformers VitsModel.forward).
            attn_mask = torch.unsqueeze(mask, 2) * torch.unsqueeze(frame_mask, -1)  # (B, 1, F, T)
            cum = torch.cumsum(duration, -1).transpose(1, 2)  # (B, T, 1)
            valid = (frames.to(dtype).view(1, 1, -1) < cum).to(dtype)  # (B, T, F)
            path = valid - nn.functional.pad(valid, [0, 0, 1, 0, 0, 0])[:, :-1]
            attn = path.unsqueeze(1).transpose(2, 3) * attn_mask  # (B, 1, F, T)
            means = torch.matmul(attn.squeeze(1), encoded.prior_means).transpose(1, 2)
            log_var = torch.matmul(attn.squeeze(1), encoded.prior_log_variances).transpose(1, 2)
            latents = means + torch.randn_like(means) * torch.exp(log_var) * noise_scale
            latents = self.flow(latents, frame_mask, g, reverse=True)
            waveform = self.decoder(latents * frame_mask, g)  # (B, 1, samples)
            return waveform.unsqueeze(1)

    return PiperGenerator(model)


def _sdp_reverse(dp, hidden, mask, g, noise_w, affine_scale):
    """Stochastic duration predictor reverse pass with ``randn_like`` noise (ONNX ``RandomNormalLike``);
    log durations ``(B, 1, T)``."""
    import torch

    h = dp.conv_pre(hidden)
    if g is not None:
        h = h + dp.cond(g)
    h = dp.conv_dds(h, mask)
    h = dp.conv_proj(h) * mask
    flows = list(reversed(dp.flows))[:-2]  # VITS skips the "useless vflow" (flows[1]) when inferring; flows[0] below
    latents = torch.randn_like(torch.cat([mask, mask], 1)) * noise_w
    for flow in flows:
        latents = torch.flip(latents, [1])
        latents, _ = flow(latents, mask, global_conditioning=h, reverse=True)
    latents = torch.flip(latents, [1])
    latents = (latents - dp.flows[0].translate) * affine_scale * mask
    return latents[:, :1]


def _rename_to_vits(onnx_model) -> None:
    """Give every named initializer its VITS / Piper name (``tts.piper_import.piper_name``) and drop
    initializers from the graph inputs (in place)."""
    graph = onnx_model.graph
    renames = {i.name: new for i in graph.initializer if (new := piper_name(i.name)) is not None and new != i.name}
    for init in graph.initializer:
        init.name = renames.get(init.name, init.name)
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name in renames:
                node.input[i] = renames[name]
    names = {init.name for init in graph.initializer} | set(renames)
    inputs = [i for i in graph.input if i.name not in names]  # weights are constants, not inputs
    del graph.input[:]
    graph.input.extend(inputs)


def export_piper_onnx(model, base_voice, out_onnx: str | os.PathLike, *, dataset_name: str | None = None,
                      extra_meta: dict | None = None) -> tuple[Path, Path]:
    """Write ``model`` (an FP32 CPU copy) as ``out_onnx`` + ``NAME.onnx.json`` atomically; returns both
    paths. Raises ``ExportError`` (``piper_voice_config``)."""
    import onnx
    import torch

    out_onnx = Path(out_onnx)
    if out_onnx.suffix != ".onnx":
        raise ExportError(f"{out_onnx}: a Piper voice file must end in .onnx")
    config = piper_voice_config(model, base_voice, dataset_name=dataset_name, extra_meta=extra_meta)
    src = copy.deepcopy(model).to(device="cpu", dtype=torch.float32).eval()
    generator = _generator_module(src).eval()
    n_symbols = int(model.config.vocab_size)
    multi = int(model.config.num_speakers) > 1
    # Piper traces 50 random ids at scales (0.667, 1.0, 0.8); any length > window_size + 1 gives the
    # same graph, and a short one at a small length_scale makes the trace's own forward pass cheap.
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1234)
        ids = torch.randint(low=1, high=n_symbols, size=(1, 16), dtype=torch.long)
    args = (ids, torch.tensor([ids.shape[1]], dtype=torch.long), torch.tensor([0.667, 0.25, 0.8]))
    names = ["input", "input_lengths", "scales"]
    if multi:
        args = args + (torch.tensor([0], dtype=torch.long),)
        names.append("sid")
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # TracerWarning / DeprecationWarning of the TorchScript exporter
        torch.onnx.export(
            generator, args, buffer, dynamo=False, opset_version=OPSET_VERSION,
            input_names=names, output_names=["output"],
            # True skips the exporter's merging of equal initializers (zero biases of a fresh model
            # would share one name and piper_import would attribute them to the wrong layer);
            # _rename_to_vits takes them out of the graph inputs again.
            keep_initializers_as_inputs=True,
            dynamic_axes={"input": {0: "batch_size", 1: "phonemes"}, "input_lengths": {0: "batch_size"},
                          "output": {0: "batch_size", 3: "time"}},
        )
    proto = onnx.load_from_string(buffer.getvalue())
    _rename_to_vits(proto)
    onnx.helper.set_model_props(proto, {"speechstudio": json.dumps(config["speechstudio"], ensure_ascii=False)})
    proto.producer_name = "speechstudio"
    json_path = out_onnx.with_name(out_onnx.name + ".json")
    with atomic_path(out_onnx) as tmp:
        onnx.save(proto, str(tmp))
    atomic_write_json(json_path, config)
    return out_onnx, json_path
