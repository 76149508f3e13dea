"""Cloned voices in the voice store: save a fine-tuned ``VitsModel`` under a name, with its license.

A clone is a store voice (``<data dir>/voices/NAME/voice.json``) with ``"synthetic": true``, ``"base"``,
``"license"``, ``"cloned_from_run"`` and ``"training"``. A Piper base gives a Piper voice (``NAME.onnx``
+ ``.onnx.json``, ``"kind": "piper"``); a transformers base gives a ``VitsModel`` folder
(``model.safetensors`` with weight-norm parametrizations, ``config.json``, the base's tokenizer;
``"kind": "transformers"``). A clone inherits its base's license: MMS-TTS is CC BY-NC 4.0 (model cards);
Piper voices state theirs in ``MODEL_CARD``."""
from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

from speechstudio.errors import SpeechStudioError, UsageError

__all__ = ["base_license", "save_clone", "export_voice", "pitch_note", "MMS_LICENSE", "UNKNOWN_LICENSE"]

#: facebook/mms-tts-* model cards: "license: cc-by-nc-4.0".
MMS_LICENSE = "CC BY-NC 4.0 (MMS-TTS model card): non-commercial use only"
UNKNOWN_LICENSE = "same as the base voice (unknown)"
_CARD_LICENSE = re.compile(r"^\W*License:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


def base_license(voice_ref) -> str:
    """The one-line license a clone of ``voice_ref`` inherits: a store voice's ``"license"``, MMS-TTS ->
    ``MMS_LICENSE``, a Piper ``MODEL_CARD`` ``License:`` line, else ``UNKNOWN_LICENSE``."""
    loc = Path(str(voice_ref.location or ""))
    folder = loc.parent if loc.suffix in (".onnx", ".ckpt") else loc
    meta_path = folder / "voice.json"
    if voice_ref.origin == "store" and meta_path.is_file():
        try:
            lic = json.loads(meta_path.read_text(encoding="utf-8")).get("license")
        except (OSError, ValueError, AttributeError):
            lic = None
        if lic:
            return str(lic)
    keys = " ".join(str(x) for x in (voice_ref.hf_id, voice_ref.name, voice_ref.location) if x).lower()
    if "mms-tts" in keys:
        return MMS_LICENSE
    card = folder / "MODEL_CARD"
    if voice_ref.kind in ("piper", "piper-ckpt") and card.is_file():  # piper-ckpt: finetune.vits.piper_ckpt
        text = card.read_text(encoding="utf-8", errors="replace")
        m = _CARD_LICENSE.search(text)
        if m:
            base = re.search(r"fine-?tuned from (.+?)\.?\s*$", text, re.IGNORECASE | re.MULTILINE)
            extra = f"; the voice was fine-tuned from {base.group(1).strip()}" if base else ""
            return f"{m.group(1)} (dataset license in the voice's MODEL_CARD{extra})"
    return UNKNOWN_LICENSE


def _base_ref(base_ref_or_name, base_voice):
    from speechstudio.tts.voices import VoiceRef, resolve_voice

    if isinstance(base_ref_or_name, VoiceRef):
        return base_ref_or_name
    try:
        return resolve_voice(str(base_ref_or_name), allow_download=False)
    except SpeechStudioError:
        return VoiceRef(str(base_ref_or_name), base_voice.kind, "", "unknown")


def _weight_norm_state(model) -> dict:
    """``model``'s weights in a fresh ``VitsModel(model.config)``'s key layout: weight-normed weights
    split exactly into ``original0`` (g = ||w||, dims but 0) and ``original1`` (v = w)."""
    import torch
    from transformers import VitsModel

    from speechstudio.tts.decoder import ChannelsLastDecoder

    with torch.device("meta"):
        fresh = VitsModel(model.config)
    state = {}
    for key, value in model.state_dict().items():
        if key.startswith("decoder.") and isinstance(model.decoder, ChannelsLastDecoder):
            continue
        state[key] = value.detach().to(device="cpu", dtype=torch.float32)
    if isinstance(model.decoder, ChannelsLastDecoder):
        state.update({f"decoder.{k}": v.detach().to(device="cpu", dtype=torch.float32)
                      for k, v in model.decoder.eager.state_dict().items()})
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


def _write_store_folder(name: str, overwrite: bool, fill) -> Path:
    """Create ``voices_dir()/name`` atomically: ``fill(tmp_folder)`` writes it (``atomic.atomic_folder``)."""
    from speechstudio.atomic import atomic_folder
    from speechstudio.tts.voices import voices_dir

    with atomic_folder(voices_dir() / name, overwrite=overwrite) as tmp:
        fill(tmp)
    return voices_dir() / name


def save_clone(model, base_voice, base_ref_or_name, name: str, *, run_dir: str | os.PathLike | None = None,
               license_note: str | None = None, training_summary: dict | None = None, overwrite: bool = False,
               pitch_semitones: float = 0.0):
    """Save fine-tuned ``model`` as store voice ``name``; returns its ``VoiceRef`` (origin ``"store"``).

    ``base_ref_or_name``: the base (for ``"base"`` and the license, default ``base_license``);
    ``training_summary``: JSON-able facts; ``run_dir``: stored as ``"cloned_from_run"``;
    ``pitch_semitones``: the shift applied at synthesis (also in the ``.onnx.json``, which Piper
    ignores). Written atomically; a Piper clone is loaded back to check it. Raises ``UsageError`` (bad
    or taken name without ``overwrite``, a package voice's or the base's name), ``ExportError``."""
    import speechstudio
    from speechstudio.tts.voices import _check_name, package_voices, voices_dir

    name = _check_name(name)
    base_ref = _base_ref(base_ref_or_name, base_voice)
    if name == base_ref.name:
        raise UsageError(f"a clone cannot take its base voice's name {name!r}")
    if (voices_dir() / name).exists() and not overwrite:
        raise UsageError(f"a voice named {name!r} already exists in {voices_dir()} (choose another name or overwrite)")
    if any(v.name == name for v in package_voices()):
        raise UsageError(f"{name!r} is the name of an installed package voice (choose another name)")
    lic = license_note or base_license(base_ref)
    run = str(Path(run_dir).resolve()) if run_dir is not None else None
    meta = {
        "kind": base_voice.kind, "source": f"cloned from {base_ref.name} (fine-tuned with SpeechStudio)",
        "synthetic": True, "base": base_ref.name, "base_kind": base_ref.kind, "license": lic,
        "cloned_from_run": run, "training": dict(training_summary or {}),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "speechstudio_version": speechstudio.__version__,
        "sample_rate": int(model.config.sampling_rate), "language": base_voice.language,
        "num_speakers": int(model.config.num_speakers), "pitch_semitones": round(float(pitch_semitones), 2),
    }
    dest = voices_dir() / name

    def fill_piper(tmp: Path) -> None:
        from speechstudio.finetune.export import export_piper_onnx
        from speechstudio.tts.piper_import import load_piper_model

        onnx_path, _ = export_piper_onnx(model, base_voice, tmp / f"{name}.onnx", dataset_name=name,
                                         extra_meta={"base": base_ref.name, "license": lic, "cloned_from_run": run,
                                                     "pitch_semitones": meta["pitch_semitones"]})
        load_piper_model(onnx_path)  # the same check as voices import: it must load back
        (tmp / "voice.json").write_text(json.dumps({**meta, "file": f"{name}.onnx"}, indent=2), encoding="utf-8")

    def fill_transformers(tmp: Path) -> None:
        if base_voice.tokenizer is None:
            raise UsageError(f"base voice {base_ref.name} has no tokenizer to save with the clone")
        model.save_pretrained(str(tmp), state_dict=_weight_norm_state(model))
        base_voice.tokenizer.save_pretrained(str(tmp))
        (tmp / "voice.json").write_text(json.dumps({**meta, "path": str(dest)}, indent=2), encoding="utf-8")

    if base_voice.kind == "piper":
        _write_store_folder(name, overwrite, fill_piper)
        location = str(dest / f"{name}.onnx")
    elif base_voice.kind == "transformers":
        _write_store_folder(name, overwrite, fill_transformers)
        location = str(dest)
    else:
        raise UsageError(f"unknown base voice kind {base_voice.kind!r}")
    from speechstudio.tts.voices import VoiceRef

    return VoiceRef(name, base_voice.kind, location, "store", meta["source"], clone_of=base_ref.name)


def export_voice(spec: str, out_dir: str | os.PathLike) -> tuple[Path, Path]:
    """Export voice ``spec`` as Piper files ``out_dir/NAME.onnx(.json)``: a Piper voice is copied, a
    transformers voice exported with ``export_piper_onnx``. Returns ``(onnx_path, json_path)``. Raises
    ``ModelNotFoundError``, ``ExportError``."""
    from speechstudio.atomic import atomic_write_json
    from speechstudio.finetune.export import export_piper_onnx
    from speechstudio.tts.vits import load_voice
    from speechstudio.tts.voices import resolve_voice

    ref = resolve_voice(spec, allow_download=False)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_out = out_dir / f"{ref.name.replace('/', '_')}.onnx"
    json_out = onnx_out.with_name(onnx_out.name + ".json")
    if ref.kind == "piper":
        from speechstudio.tts.piper_import import read_piper_config

        cfg = read_piper_config(ref.location)
        from speechstudio.atomic import atomic_path

        with atomic_path(onnx_out) as tmp:
            shutil.copyfile(ref.location, tmp)
        atomic_write_json(json_out, json.loads(Path(cfg.config_path).read_text(encoding="utf-8")))
        return onnx_out, json_out
    voice = load_voice(ref.location, device="cpu", precision="fp32", name=ref.name, optimize=False)
    extra = {"license": base_license(ref)}
    if voice.clone_of:
        extra["base"] = voice.clone_of
    if voice.pitch_semitones:
        extra["pitch_semitones"] = voice.pitch_semitones
    return export_piper_onnx(voice.model, voice, onnx_out, dataset_name=ref.name, extra_meta=extra)



def pitch_note(ref) -> str | None:
    """The pitch-matching line of a saved clone ``ref`` (``VoiceRef`` of a store voice):
    ``finetune.pitch_match.PitchMatch.describe`` of what its ``voice.json`` recorded, or None."""
    from speechstudio.finetune.pitch_match import PitchMatch

    loc = Path(str(ref.location or ""))
    folder = loc.parent if loc.suffix == ".onnx" else loc
    try:
        meta = json.loads((folder / "voice.json").read_text(encoding="utf-8"))
        facts = meta["training"]["pitch"]
        return PitchMatch(facts.get("recordings_hz"), facts.get("voice_hz"), float(meta.get("pitch_semitones", 0.0)),
                          bool(facts.get("shifted", True))).describe()
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
