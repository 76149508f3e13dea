"""The trained generator of a run: what it was fine-tuned from (``BaseInfo``) and how to load it.
Checkpoints hold the generator's float32 ``state_dict`` (weight norm folded), its ``VitsConfig`` JSON
and the ``BaseInfo`` fields."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["BaseInfo", "base_info_for", "load_trained_generator"]


@dataclass(frozen=True)
class BaseInfo:
    """The base voice of a run and where training got to: ``source`` (as given), ``kind`` (``"piper"`` |
    ``"transformers"``), ``name``, ``sample_rate`` (Hz), ``language``, ``speaker`` (or None),
    ``piper_config`` (the base's ``.onnx.json``), ``step``, ``val_mel_loss`` (NaN if unmeasured)."""

    source: str
    kind: str
    name: str
    sample_rate: int
    language: str = "en"
    speaker: int | None = None
    piper_config: dict | None = field(default=None, compare=False)
    step: int = 0
    val_mel_loss: float = float("nan")

    def to_dict(self) -> dict:
        return asdict(self)


def base_info_for(voice, source: str, speaker: int | None) -> BaseInfo:
    """``BaseInfo`` of a loaded ``VitsVoice`` (reads the Piper ``.onnx.json`` if there is one)."""
    piper_config = None
    if voice.kind == "piper" and voice.piper is not None:
        piper_config = json.loads(Path(voice.piper.config_path).read_text(encoding="utf-8"))
    return BaseInfo(str(source), voice.kind, voice.name, int(voice.sample_rate), voice.language, speaker, piper_config)


def load_trained_generator(run_dir: str | os.PathLike, which: str = "best"):
    """``(VitsModel, BaseInfo)`` of checkpoint ``which`` (``"best"`` | ``"latest"``): float32, CPU, eval
    mode, weight norm folded, with the posterior encoder and the base's noise / length defaults. Raises
    ``RunError`` when missing or unreadable."""
    from transformers import VitsConfig, VitsModel

    from speechstudio.finetune.run import RunError, RunFolder
    from speechstudio.tts.decoder import install_decoder
    from speechstudio.tts.piper_import import fold_weight_norm

    folder = RunFolder(run_dir)
    state = folder.load_checkpoint(which)
    try:
        config = VitsConfig.from_dict(json.loads(state["model_config"]))
        model = VitsModel(config)
        install_decoder(model)
        fold_weight_norm(model)
        model.load_state_dict(state["generator"])
        base = dict(state["base"])
    except (KeyError, RuntimeError, ValueError, TypeError) as exc:
        raise RunError(f"{folder.checkpoint_path(which)}: not a VITS generator checkpoint ({str(exc)[:160]})") from exc
    model.eval()
    base["step"] = int(state.get("step", 0))
    base["val_mel_loss"] = float(state.get("val_mel_loss", float("nan")))
    return model, BaseInfo(**base)
