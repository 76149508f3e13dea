"""Load the VITS checkpoints ``VitsModel.from_pretrained`` would leave half random: weight norm folded
(``piper_import.fold_weight_norm``) or HiFi-GAN resblock type "2" (``decoder.VitsHifiGanV2``), read
straight from ``model.safetensors``."""
from __future__ import annotations

import re
from pathlib import Path

from speechstudio.tts.piper_import import INFERENCE_UNUSED, fold_weight_norm


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
    from transformers import VitsModel

    from speechstudio.tts.decoder import install_decoder

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
    model = VitsModel(config)
    fold_weight_norm(model)
    install_decoder(model)
    own = model.state_dict()
    missing = [k for k in own if k not in state and not k.startswith(INFERENCE_UNUSED)]
    bad = [k for k in state if k in own and own[k].shape != state[k].shape]
    if missing or bad:
        raise ValueError(f"weights missing {missing[:3]} or of the wrong shape {bad[:3]}")
    model.load_state_dict({k: v for k, v in state.items() if k in own}, strict=False)
    return model
