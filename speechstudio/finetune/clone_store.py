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
import time
from pathlib import Path

from speechstudio.atomic import atomic_folder
from speechstudio.errors import SpeechStudioError, UsageError
from speechstudio.finetune.base_format import base_format
from speechstudio.finetune.pitch_match import PitchMatch
from speechstudio.tts.voices import VoiceRef, _check_name, package_voices, read_voice_meta, resolve_voice, voices_dir

#: facebook/mms-tts-* model cards: "license: cc-by-nc-4.0".
MMS_LICENSE = "CC BY-NC 4.0 (MMS-TTS model card): non-commercial use only"
UNKNOWN_LICENSE = "same as the base voice (unknown)"
_CARD_LICENSE = re.compile(r"^\W*License:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


def base_license(voice_ref) -> str:
    """The one-line license a clone of ``voice_ref`` inherits: a store voice's ``"license"``, MMS-TTS ->
    ``MMS_LICENSE``, a Piper ``MODEL_CARD`` ``License:`` line, else ``UNKNOWN_LICENSE``."""
    loc = Path(str(voice_ref.location or ""))
    folder = loc.parent if loc.suffix in (".onnx", ".ckpt") else loc
    meta = read_voice_meta(folder / "voice.json") if voice_ref.origin == "store" else None
    if isinstance(meta, dict) and meta.get("license"):
        return str(meta["license"])
    keys = " ".join(str(x) for x in (voice_ref.hf_id, voice_ref.name, voice_ref.location) if x).lower()
    if "mms-tts" in keys:
        return MMS_LICENSE
    card = folder / "MODEL_CARD"
    if base_format(voice_ref).saves_piper and card.is_file():
        text = card.read_text(encoding="utf-8", errors="replace")
        m = _CARD_LICENSE.search(text)
        if m:
            base = re.search(r"fine-?tuned from (.+?)\.?\s*$", text, re.IGNORECASE | re.MULTILINE)
            extra = f"; the voice was fine-tuned from {base.group(1).strip()}" if base else ""
            return f"{m.group(1)} (dataset license in the voice's MODEL_CARD{extra})"
    return UNKNOWN_LICENSE


def check_clone_name(name: str, base_name: str, overwrite: bool = False) -> str:
    """``name`` checked as a new clone's store name (before any work is spent on it). Raises ``UsageError``: a
    bad name, the base voice's name, a store voice's without ``overwrite``, an installed package voice's."""
    name = _check_name(name)
    if name == base_name:
        raise UsageError(f"a clone cannot take its base voice's name {name!r}")
    if (voices_dir() / name).exists() and not overwrite:
        raise UsageError(f"a voice named {name!r} already exists in {voices_dir()} (choose another name or overwrite)")
    if any(v.name == name for v in package_voices()):
        raise UsageError(f"{name!r} is the name of an installed package voice (choose another name)")
    return name


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

    base_ref = base_ref_or_name
    if not isinstance(base_ref, VoiceRef):
        try:
            base_ref = resolve_voice(str(base_ref_or_name), allow_download=False)
        except SpeechStudioError:
            base_ref = VoiceRef(str(base_ref_or_name), base_voice.kind, "", "unknown")
    name = check_clone_name(name, base_ref.name, overwrite)
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
    with atomic_folder(dest, overwrite=overwrite) as tmp:
        file = base_format(base_voice).write_clone(tmp, model, base_voice, dest, meta)
    return VoiceRef(name, base_voice.kind, str(dest / file), "store", meta["source"], clone_of=base_ref.name)


def export_voice(spec: str, out_dir: str | os.PathLike) -> tuple[Path, Path]:
    """Export voice ``spec`` as Piper files ``out_dir/NAME.onnx(.json)``: a Piper voice is copied, a
    transformers voice exported with ``export_piper_onnx``. Returns ``(onnx_path, json_path)``. Raises
    ``ModelNotFoundError``, ``ExportError``."""
    ref = resolve_voice(spec, allow_download=False)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return base_format(ref).export_files(ref, out_dir / f"{ref.name.replace('/', '_')}.onnx", base_license(ref))


def pitch_note(ref) -> str | None:
    """The pitch-matching line of a saved clone ``ref`` (``VoiceRef`` of a store voice):
    ``finetune.pitch_match.PitchMatch.describe`` of what its ``voice.json`` recorded, or None."""
    loc = Path(str(ref.location or ""))
    folder = loc.parent if loc.suffix == ".onnx" else loc
    try:
        meta = json.loads((folder / "voice.json").read_text(encoding="utf-8"))
        facts = meta["training"]["pitch"]
        return PitchMatch(facts.get("recordings_hz"), facts.get("voice_hz"), float(meta.get("pitch_semitones", 0.0)),
                          bool(facts.get("shifted", True))).describe()
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
