"""What the Models page shows, computed on the I/O worker (Qt-free, never downloads): models, voices,
which model "(default)" is, and whether the Hub answers."""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from speechstudio.errors import SpeechStudioError
from speechstudio.hub.catalog import DEFAULT_MODEL_ID
from speechstudio.hub.inventory import list_models
from speechstudio.hub.packages import find_package_model
from speechstudio.hub.resolve import default_asr_model

#: VITS voices `speechstudio voices download` can fetch (transformers VitsModel checkpoints on the
#: Hugging Face Hub: the MMS-TTS model cards (CC BY-NC 4.0) and kakao-enterprise's vits-ljs / vits-vctk), in the
#: order listed -> the names the voice download list shows (the Hub id stays the item's data and its tooltip)
VOICE_NAMES = {"facebook/mms-tts-eng": "English (MMS)", "facebook/mms-tts-deu": "German (MMS)",
               "facebook/mms-tts-fra": "French (MMS)", "facebook/mms-tts-spa": "Spanish (MMS)",
               "kakao-enterprise/vits-ljs": "English, woman (LJ Speech)",
               "kakao-enterprise/vits-vctk": "English, 109 speakers (VCTK)"}
NETWORK_TTL_S = 120.0
_network: tuple[float, bool, str] | None = None  # (checked at, reachable, reason)


@dataclass
class PageListing:
    """``models``: ``ModelEntry`` rows (deduplicated); ``aliases``: row name -> other names of the same model;
    ``voices``: ``VoiceRef`` list; ``voice_error``: why voices could not be listed (""); ``default_model`` /
    ``default_reason``: what "(default)" loads and why; ``online`` / ``offline_reason``: whether downloads can work;
    ``dictation_default`` / ``dictation_reason``: Dictate's "(default)" (``asr.live.default_dictation_model``)."""

    models: list = field(default_factory=list)
    aliases: dict[str, list[str]] = field(default_factory=dict)
    voices: list = field(default_factory=list)
    voice_error: str = ""
    default_model: str = ""
    default_reason: str = ""
    larger_model: str = ""  # the default model that "(default)" would load once downloaded ("" when it does)
    online: bool = False
    offline_reason: str = ""
    dictation_default: str = ""
    dictation_reason: str = ""
    other_languages: str = ""  # the multilingual Whisper the router uses for non-English ("" when none)


def network_state(max_age_s: float = NETWORK_TTL_S) -> tuple[bool, str]:
    """``(reachable, reason)`` of the Hugging Face Hub (:func:`~speechstudio.hub.download.hub_reachable`:
    no network access with ``HF_HUB_OFFLINE=1``), asked at most every ``max_age_s`` seconds."""
    global _network
    from speechstudio.hub.download import hub_reachable

    now = time.monotonic()
    if _network is None or now - _network[0] > max_age_s:
        ok, reason = hub_reachable(timeout_s=3.0)
        _network = (now, ok, reason)
    return _network[1], _network[2]


def dedupe(models: list) -> tuple[list, dict[str, list[str]]]:
    """Fold rows that are the same model under another name into one row: a catalog id served by an
    installed package model with its own row is dropped, its name kept in ``aliases[package name]``."""
    names = {m.name for m in models}
    aliases: dict[str, list[str]] = {}
    keep = []
    for m in models:
        pkg = find_package_model(m.name)
        if m.installed and pkg is not None and pkg.name != m.name and pkg.name in names:
            aliases.setdefault(pkg.name, []).append(m.name)
            continue
        keep.append(m)
    also = {name: f"also known as {', '.join(names)}" for name, names in aliases.items()}
    return [replace(m, description="; ".join(filter(None, (m.description, also[m.name])))) if m.name in also else m
            for m in keep], aliases


def default_model(online: bool) -> tuple[str, str]:
    """``(name, reason)`` of what "(default)" loads now (``online``: whether the Hub answers; the
    default model, facebook/wav2vec2-base-960h, is downloaded on first use only then)."""
    try:
        model, _reason = default_asr_model(allow_download=False, progress=False)
    except SpeechStudioError as exc:
        return "", str(exc)
    if model.model_id == DEFAULT_MODEL_ID:
        return model.model_id, "downloaded"
    if online:
        return DEFAULT_MODEL_ID, "downloaded on first use"
    return model.model_id, f"{DEFAULT_MODEL_ID} is not downloaded"


def list_for_page() -> PageListing:
    """Everything the Models page shows (runs on the I/O worker; see the module docstring)."""
    out = PageListing()
    out.models, out.aliases = dedupe(list_models(include_catalog=True))
    try:
        from speechstudio.tts.voices import list_voices

        out.voices = list_voices()
    except Exception as e:  # noqa: BLE001 - tts layer missing or broken: still show the models
        out.voice_error = f"voices unavailable: {e}"
    out.online, out.offline_reason = network_state()
    out.default_model, out.default_reason = default_model(out.online)
    if out.default_model and out.default_model != DEFAULT_MODEL_ID:
        out.larger_model = DEFAULT_MODEL_ID
    try:
        from speechstudio.hub.resolve import multilingual_whisper

        found = multilingual_whisper()
        out.other_languages = found.model_id if found is not None else ""
    except Exception:  # noqa: BLE001 - a damaged package: the router says so when it is used
        out.other_languages = ""
    try:
        from speechstudio.asr.live import default_dictation_model

        name, why = default_dictation_model(None)
        out.dictation_default, out.dictation_reason = name, why.split(": ", 1)[-1]
    except Exception as e:  # noqa: BLE001 - nothing installed: Dictate says so itself
        out.dictation_reason = str(e)
    return out
