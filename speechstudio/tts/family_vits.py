"""The ``vits`` voice family: transformers ``VitsModel`` checkpoints (MMS-TTS, kakao-enterprise/vits-*)
and Piper voices (``NAME.onnx`` + ``NAME.onnx.json``, run by onnxruntime on the CPU or imported into
``VitsModel`` by ``piper_import``); checkpoints ``from_pretrained`` would leave half random (weight norm folded,
HiFi-GAN resblock "2") read straight from ``model.safetensors``. Synthesis: :class:`speechstudio.tts.vits.VitsVoice`."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

from speechstudio.errors import ModelNotFoundError
from speechstudio.runtime import tune_heap_for_speed
from speechstudio.tts.family import VITS_CONTROLS, TtsCapabilities, TtsFamily, VoiceSource, to_device
from speechstudio.tts.piper_import import fold_weight_norm, load_piper_model, read_piper_config, vits_with_weights
from speechstudio.tts.piper_onnx import OnnxPiperRunner
from speechstudio.tts.vits import VitsVoice


def _is_piper(source: VoiceSource) -> bool:
    p = source.path
    return p is not None and (p.suffix == ".onnx" or (p.is_dir() and source.config is None
                                                       and any(n.endswith(".onnx") for n in source.names)))


class VitsFamily(TtsFamily):
    def detect(self, source: VoiceSource) -> bool:
        return _is_piper(source) or source.model_type == "vits"

    def describe(self, ref) -> str:
        return ref.kind  # "piper" or "transformers": the two file formats of the family

    def load(self, source: VoiceSource, *, device: str, precision: str, name: str | None, optimize: bool = True,
             runtime: str = "auto"):
        if _is_piper(source):
            return _load_piper(source.path, device, precision, name, optimize, runtime)
        return _load_transformers(source, device, precision, name, optimize)


def _load_piper(src: Path, device: str, precision: str, name: str | None, optimize: bool, runtime: str):
    """A Piper voice: ``src`` is the ``.onnx`` file or a folder holding one (the first by name)."""
    onnx_path = src if src.suffix == ".onnx" else sorted(src.glob("*.onnx"))[0]
    if runtime == "auto":
        runtime = "onnx" if device == "cpu" and optimize else "torch"

    def build():
        return _finish(load_piper_model(onnx_path)[0], device, precision, optimize)

    piper = read_piper_config(onnx_path)
    return VitsVoice(
        runtime=runtime, runner=OnnxPiperRunner(piper.onnx_path) if runtime == "onnx" else None,
        model_loader=build if runtime == "onnx" else None,
        model=None if runtime == "onnx" else build(),
        **_clone_fields(onnx_path.parent, piper.config_path),
        name=name or onnx_path.stem, kind="piper", sample_rate=piper.sample_rate,
        num_speakers=piper.num_speakers, speakers=dict(piper.speaker_id_map),
        language=(piper.language or piper.espeak_voice).lower().replace("_", "-"), piper=piper,
        device=device, dtype=precision,
        defaults={"noise_scale": piper.noise_scale, "noise_w": piper.noise_w, "length_scale": piper.length_scale},
    )


def _load_transformers(source: VoiceSource, device: str, precision: str, name: str | None, optimize: bool):
    """A transformers ``VitsModel`` checkpoint (folder or Hugging Face id in the HF cache)."""
    from transformers import AutoConfig, VitsModel, VitsTokenizer

    spec, src = source.spec, source.path
    try:
        config = AutoConfig.from_pretrained(spec, local_files_only=True)
        if src is not None and src.is_dir() and needs_plain_load(src, config):
            model = load_folded_checkpoint(src, config)
        else:
            model = VitsModel.from_pretrained(spec, local_files_only=True)
        tokenizer = VitsTokenizer.from_pretrained(spec, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ModelNotFoundError(f"{spec}: VITS checkpoint incomplete ({str(exc).splitlines()[0][:120]})") from exc
    fold_weight_norm(model)
    _finish(model, device, precision, optimize)
    lang = getattr(tokenizer, "language", None) or "en"
    speakers = dict(getattr(config, "speaker_id_map", None) or {})
    return VitsVoice(
        **(_clone_fields(src) if src is not None and src.is_dir() else {}),
        name=name or spec, kind="transformers", model=model, sample_rate=int(config.sampling_rate),
        num_speakers=int(config.num_speakers), speakers=speakers,
        language={"eng": "en"}.get(lang, lang), tokenizer=tokenizer, device=device, dtype=precision,
        defaults={"noise_scale": float(config.noise_scale), "noise_w": float(config.noise_scale_duration),
                  "length_scale": 1.0 / float(config.speaking_rate)},
    )


def _finish(model, device: str, precision: str, optimize: bool = True):
    to_device(model, device, precision)
    if optimize and device == "cpu":
        from speechstudio.tts.decoder import ChannelsLastDecoder

        if not isinstance(model.decoder, ChannelsLastDecoder):
            model.decoder = ChannelsLastDecoder(model.decoder)  # ~1.5x faster HiFi-GAN on CPU, same output
        tune_heap_for_speed()
    return model


def _clone_fields(folder: Path, piper_config: Path | None = None) -> dict:
    """``clone_of`` (the base voice) and ``pitch_semitones`` (``finetune.pitch_match``; 0 unless a number
    within +-12) of a clone in ``folder``, from ``voice.json`` or the ``.onnx.json`` ``"speechstudio"`` block;
    ``{}`` unless marked ``synthetic``."""
    for path, block in ((folder / "voice.json", None), (piper_config, "speechstudio")):
        if path is None or not Path(path).is_file():
            continue
        try:
            meta = json.loads(Path(path).read_text(encoding="utf-8"))
            if block:
                meta = meta.get(block) or {}
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(meta, dict) and meta.get("synthetic"):
            try:
                pitch = float(meta.get("pitch_semitones", 0.0))
            except (TypeError, ValueError):
                pitch = 0.0
            return {"clone_of": str(meta.get("base") or meta.get("base_voice") or "unknown"),
                    "pitch_semitones": pitch if math.isfinite(pitch) and abs(pitch) <= 12.0 else 0.0}
    return {}


def needs_plain_load(folder: Path, config) -> bool:
    """True for a checkpoint ``from_pretrained`` would load wrongly: weight norm folded into plain ``weight``
    tensors (fine-tuning runs) or a Piper-layout decoder (``config.resblock == "2"``)."""
    if str(getattr(config, "resblock", "1")) == "2":
        return True
    path = folder / "model.safetensors"
    if not path.is_file():
        return False
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as fh:
        keys = list(fh.keys())
    plain = any(k.startswith("flow.flows.0.wavenet.in_layers.0.") and k.endswith(".weight") for k in keys)
    normed = any(".parametrizations.weight." in k or k.endswith("weight_g") for k in keys)
    return plain and not normed


def load_folded_checkpoint(folder: Path, config):
    """``VitsModel`` from ``folder/model.safetensors`` with plain weights (weight-norm pairs still there
    folded, ``g * v / ||v||``). Raises ``OSError`` (no file) or ``ValueError`` (missing / misshapen weights)."""
    import torch
    from safetensors.torch import load_file

    path = folder / "model.safetensors"
    if not path.is_file():
        raise OSError(f"no model.safetensors in {folder}")
    state = load_file(str(path))
    for key in [k for k in state if re.search(r"(weight_g|parametrizations\.weight\.original0)$", k)]:
        base = key[: -len("weight_g")] if key.endswith("weight_g") else key[: -len("parametrizations.weight.original0")]
        v = state.pop(base + ("weight_v" if key.endswith("weight_g") else "parametrizations.weight.original1"))
        g = state.pop(key)
        norm = torch.linalg.vector_norm(v, dim=tuple(range(1, v.dim())), keepdim=True)
        state[base + "weight"] = g * v / norm
    return vits_with_weights(config, state)


FAMILY = VitsFamily("vits", "VITS", TtsCapabilities(trainable=True, controls=VITS_CONTROLS))

