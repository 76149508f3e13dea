"""The trained generator of a run: what it was fine-tuned from (``BaseInfo``) and how to load it.
Checkpoints hold the generator's float32 ``state_dict`` (weight norm folded), its ``VitsConfig`` JSON
and the ``BaseInfo`` fields."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from speechstudio.finetune.base_format import base_format
from speechstudio.finetune.run import RunError, RunFolder
from speechstudio.tts.piper_import import fold_weight_norm


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
    piper_config = base_format(voice).piper_config(voice)
    return BaseInfo(str(source), voice.kind, voice.name, int(voice.sample_rate), voice.language, speaker, piper_config)


def shipped_base(state: dict) -> dict:
    """The ``step_0`` generator ``state`` of a run trained at another rate (``voice_rate``) as the base
    voice ships: its own sample rate and speaking rate (``checkpoint`` ``"base"``)."""
    cfg = json.loads(state["model_config"])
    base_rate = int(state["base"]["sample_rate"])
    k = float(cfg["sampling_rate"]) / base_rate
    cfg.update(sampling_rate=base_rate, speaking_rate=float(cfg["speaking_rate"]) * k)
    return dict(state, model_config=json.dumps(cfg), checkpoint="base")


def load_checkpoint_state(run_dir: str | os.PathLike, which: str = "best") -> dict:
    """The stored dict of checkpoint ``which``: ``"best"``, ``"latest"``, ``"step_N"`` (a judged
    step: only the tensors that changed since ``step_0``) or ``"base"`` (:func:`shipped_base` of ``step_0``). Raises
    ``RunError`` when missing or unreadable."""
    if which == "base":
        return shipped_base(load_checkpoint_state(run_dir, "step_0"))
    try:
        state = RunFolder(run_dir).load_checkpoint(which)
    except ValueError:
        raise RunError(f"checkpoint {which!r}: use best, latest or step_N (N a judged step)") from None
    if state.get("delta_of"):  # only what changed since step_0 is stored
        state["generator"] = {**load_checkpoint_state(run_dir, state["delta_of"])["generator"], **state["generator"]}
    return state


def load_trained_generator(run_dir: str | os.PathLike, which: str = "best", state: dict | None = None):
    """``(VitsModel, BaseInfo)`` of checkpoint ``which`` (``"best"`` | ``"latest"`` | ``"step_N"``), or of
    a generator ``state`` in that format: float32, CPU, eval mode, weight norm folded, with the posterior
    encoder and the base's noise / length defaults. Raises ``RunError`` when missing or unreadable."""
    from transformers import VitsConfig, VitsModel

    from speechstudio.tts.decoder import install_decoder

    state = load_checkpoint_state(run_dir, which) if state is None else state
    try:
        model = VitsModel(VitsConfig.from_dict(json.loads(state["model_config"])))
        install_decoder(model)
        fold_weight_norm(model)
        model.load_state_dict(state["generator"])
        base = dict(state["base"])
    except (KeyError, RuntimeError, ValueError, TypeError) as exc:
        where = Path(run_dir) / "checkpoints" / f"{which}.pt"
        raise RunError(f"{where}: not a VITS generator checkpoint ({str(exc)[:160]})") from exc
    return model.eval(), BaseInfo(**{**base, "step": int(state.get("step", 0)),
                                     "val_mel_loss": float(state.get("val_mel_loss", float("nan")))})
