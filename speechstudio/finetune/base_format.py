"""The formats a base voice comes in, one class each, so callers ask the format instead of its kind.

``PiperVoice``: a Piper ``.onnx`` + ``.onnx.json`` (what speaking needs: no posterior encoder, no
discriminator, VITS, Kim et al. 2021, sec. 2); ``PiperCheckpoint``: Piper's training ``.ckpt`` (the
whole VITS, ``vits.piper_ckpt``), saved as a Piper voice; ``VitsFolder``: a transformers ``VitsModel``
folder or HF id (no discriminator), saved as such a folder."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from speechstudio.atomic import atomic_path, atomic_write_json
from speechstudio.errors import ModelNotFoundError, UsageError
from speechstudio.finetune.export import export_piper_onnx
from speechstudio.finetune.run import TrainingError
from speechstudio.finetune.vits.piper_ckpt import (build_discriminator, is_checkpoint_path, load_piper_checkpoint,
                                                   read_checkpoint_config)
from speechstudio.tts import family as tts_family
from speechstudio.tts.family import load_voice
from speechstudio.tts.piper_import import load_piper_model, read_piper_config


def base_source(base) -> str:
    """The string a run records for ``base`` (a ``VoiceRef``, a path or an HF id): a path resolved."""
    source = getattr(base, "location", base)
    path = Path(os.fspath(source))
    return str(path.resolve()) if path.exists() else str(source)


def _weight_norm_state(model) -> dict:
    """``model``'s weights in a fresh ``VitsModel(model.config)``'s key layout: weight-normed weights
    split exactly into ``original0`` (g = ||w||, dims but 0) and ``original1`` (v = w)."""
    import torch
    from transformers import VitsModel

    from speechstudio.tts.decoder import ChannelsLastDecoder

    with torch.device("meta"):
        fresh = VitsModel(model.config)
    channels_last = isinstance(model.decoder, ChannelsLastDecoder)
    items = [(k, v) for k, v in model.state_dict().items() if not (channels_last and k.startswith("decoder."))]
    if channels_last:
        items += [(f"decoder.{k}", v) for k, v in model.decoder.eager.state_dict().items()]
    state = {k: v.detach().to(device="cpu", dtype=torch.float32) for k, v in items}
    out = {}
    for key in fresh.state_dict():
        m = re.match(r"(.*)\.parametrizations\.weight\.original([01])$", key)
        if key in state:
            out[key] = state[key]
        elif m and f"{m.group(1)}.weight" in state:
            w = state[f"{m.group(1)}.weight"]
            out[key] = (torch.linalg.vector_norm(w, dim=tuple(range(1, w.dim())), keepdim=True)
                        if m.group(2) == "0" else w.clone())
        elif not key.startswith(("posterior_encoder.", "duration_predictor.post_", "duration_predictor.flows.1.")):
            raise UsageError(f"the fine-tuned model lacks {key} (not a complete VitsModel)")
    return out


class BaseFormat:
    """``kind``: the ``VoiceRef`` kind; ``lacks``: training-only parts the trainer starts fresh;
    ``note``: one paragraph for the wizard / CLI."""

    kind = ""
    lacks: tuple[str, ...] = ()
    note = ""
    #: the clone is saved as a Piper voice (``.onnx``), else as a ``VitsModel`` folder
    saves_piper = False

    def load(self, location, name: str | None = None):
        """The voice at ``location`` as a ``VitsVoice`` on the CPU, fp32. Raises ``ModelNotFoundError``,
        ``PiperVoiceError``, ``TrainingError`` (not a VITS voice)."""
        voice = load_voice(location, device="cpu", precision="fp32", name=name, optimize=False)
        if type(voice.model).__name__ != "VitsModel":  # pragma: no cover - load_voice only builds VitsModel
            raise TrainingError(f"{location}: not a VITS voice ({type(voice.model).__name__}); only VITS voices "
                                "can be cloned")
        return voice

    def sample_rate(self, location) -> int:
        """The voice's sample rate (Hz) from its config file. Raises what reading it raises."""
        cfg = Path(location) / "config.json"
        return int(json.loads(cfg.read_text(encoding="utf-8")).get("sampling_rate", 0))

    def check(self, location) -> None:
        """Refuse a base that is not a trainable VITS voice (reads config files only). Raises
        ``ModelNotFoundError`` / ``PiperVoiceError`` naming the voice and the reason."""
        trainable = " / ".join(f.label for f in tts_family.families() if f.capabilities.trainable)
        try:
            family = tts_family.detect(tts_family.read_source(location))
            why = f"a {family.label} voice"
        except ModelNotFoundError as exc:
            family, why = None, str(exc).split(": ", 1)[-1].split(" (", 1)[0]
        if family is None or not family.capabilities.trainable:
            raise ModelNotFoundError(f"{location}: not a {trainable} voice ({why}): only {trainable} voices can be "
                                     "cloned")

    def has_posterior(self) -> bool:
        """Whether the base holds a trained posterior encoder (else a warm-up stage fits a fresh one)."""
        return "posterior encoder" not in self.lacks

    def training_parts(self, voice) -> tuple:
        """``(discriminator or None for a fresh one, lines for the training log)``."""
        return None, []

    def piper_config(self, voice) -> dict | None:
        """The base's ``.onnx.json`` as a dict, or None."""
        return None

    def write_clone(self, folder: Path, model, voice, dest: Path, meta: dict) -> str:
        """Write the clone ``model`` of ``voice`` into ``folder`` (to become store folder ``dest``) with
        ``voice.json`` (``meta`` plus where the weights are); returns the file to load ('' for the folder itself):
        a ``VitsModel`` folder with weight-norm parametrizations and the base's tokenizer. Raises
        ``UsageError`` (no tokenizer)."""
        if voice.tokenizer is None:
            raise UsageError(f"base voice {meta['base']} has no tokenizer to save with the clone")
        model.save_pretrained(str(folder), state_dict=_weight_norm_state(model))
        voice.tokenizer.save_pretrained(str(folder))
        (folder / "voice.json").write_text(json.dumps({**meta, "path": str(dest)}, indent=2), encoding="utf-8")
        return ""

    def export_files(self, ref, onnx_out: Path, license: str) -> tuple[Path, Path]:
        """Export voice ``ref`` as Piper files ``onnx_out`` and ``onnx_out.json`` (``export``) naming
        ``license``. Raises ``ExportError``, ``ModelNotFoundError``."""
        voice = self.load(ref.location, name=ref.name)
        extra = {"license": license, **{k: v for k, v in (("base", voice.clone_of),
                                                           ("pitch_semitones", voice.pitch_semitones)) if v}}
        return export_piper_onnx(voice.model, voice, onnx_out, dataset_name=ref.name, extra_meta=extra)


class VitsFolder(BaseFormat):
    kind = "transformers"
    lacks = ("discriminator",)
    note = "The discriminator starts fresh; the rest of the voice is fine-tuned from the checkpoint."


class PiperVoice(BaseFormat):
    kind = "piper"
    lacks = ("posterior encoder", "discriminator")
    note = ("A Piper voice holds only what speaking needs: the posterior encoder and the discriminator start "
            "fresh. A warm-up stage first fits the posterior encoder to the voice, then the whole voice is "
            "fine-tuned.")
    saves_piper = True

    def _config(self, location):
        return read_piper_config(location)

    def sample_rate(self, location) -> int:
        return int(self._config(location).sample_rate)

    def check(self, location) -> None:
        self._config(location)

    def write_clone(self, folder: Path, model, voice, dest: Path, meta: dict) -> str:
        """A Piper voice ``NAME.onnx`` + ``.onnx.json``, loaded back as ``voices import`` would."""
        name = dest.name
        extra = {k: meta[k] for k in ("base", "license", "cloned_from_run", "pitch_semitones")}
        onnx_path, _ = export_piper_onnx(model, voice, folder / f"{name}.onnx", dataset_name=name, extra_meta=extra)
        load_piper_model(onnx_path)
        (folder / "voice.json").write_text(json.dumps({**meta, "file": f"{name}.onnx"}, indent=2), encoding="utf-8")
        return f"{name}.onnx"

    def export_files(self, ref, onnx_out: Path, license: str) -> tuple[Path, Path]:
        """A Piper voice is copied as it is."""
        cfg = self._config(ref.location)
        with atomic_path(onnx_out) as tmp:
            shutil.copyfile(ref.location, tmp)
        json_out = onnx_out.with_name(onnx_out.name + ".json")
        atomic_write_json(json_out, json.loads(Path(cfg.config_path).read_text(encoding="utf-8")))
        return onnx_out, json_out

    def piper_config(self, voice) -> dict | None:
        return None if voice.piper is None else json.loads(Path(voice.piper.config_path).read_text(encoding="utf-8"))


class PiperCheckpoint(PiperVoice):
    kind = "piper-ckpt"
    lacks = ()
    note = ("A Piper training checkpoint holds the whole voice as Piper trained it, posterior encoder and "
            "discriminator included: all of it is fine-tuned from the checkpoint, with no warm-up stage. The "
            "clone is saved as a Piper voice.")

    export_files = BaseFormat.export_files

    def load(self, location, name: str | None = None):
        return load_piper_checkpoint(location, name=name)

    def _config(self, location):
        return read_checkpoint_config(location)

    def training_parts(self, voice) -> tuple:
        ckpt = voice.piper_checkpoint
        disc = build_discriminator(ckpt)
        return disc, [f"base: {ckpt.describe()}: posterior encoder " + ("and discriminator " if disc is not None else "")
                      + "from the checkpoint, no warm-up"] + ckpt.notes


_FORMATS = {f.kind: f for f in (VitsFolder(), PiperVoice(), PiperCheckpoint())}


def base_format(base) -> BaseFormat:
    """The format of ``base``: a ``VoiceRef`` (by its kind), a loaded ``VitsVoice`` (a Piper checkpoint
    carries ``piper_checkpoint``) or a source string (a ``.ckpt`` path, else whatever ``load_voice``
    loads)."""
    if isinstance(base, (str, os.PathLike)):
        return _FORMATS["piper-ckpt" if is_checkpoint_path(base) else "transformers"]
    if getattr(base, "piper_checkpoint", None) is not None:
        return _FORMATS["piper-ckpt"]
    return _FORMATS.get(base.kind, _FORMATS["transformers"])
