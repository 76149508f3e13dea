"""Catalog of known-good ASR models (HF ids): family, approximate download size in MB (from the HF file listings;
shown, never checked), languages (ISO 639-1 or ``("multi",)``) and faster-whisper's short aliases (``base.en``)."""
from __future__ import annotations

import re
from dataclasses import dataclass

_HF_ID = re.compile(r"^[\w.-]+/[\w.-]+$", re.ASCII)


@dataclass(frozen=True)
class CatalogEntry:
    """One known-good model: HF ``model_id``, ``engine`` (family), ``size_mb`` (approximate),
    ``languages``, ``description``, ``aliases``."""

    model_id: str
    engine: str
    size_mb: int
    languages: tuple[str, ...]
    description: str
    aliases: tuple[str, ...] = ()


def _xlsr(lang_name: str, code: str, size_mb: int = 1270) -> CatalogEntry:
    return CatalogEntry(f"jonatasgrosman/wav2vec2-large-xlsr-53-{lang_name}", "wav2vec2", size_mb, (code,),
                        f"XLSR-53 large fine-tuned on Common Voice {code} (CTC, 16 kHz)")


def _fw(size: str, size_mb: int) -> CatalogEntry:
    english = size.endswith(".en")
    return CatalogEntry(f"Systran/faster-whisper-{size}", "whisper", size_mb, ("en",) if english else ("multi",),
                        f"Whisper {size.removesuffix('.en')}, CTranslate2 float16"
                        + (" (English-only)" if english else " (multilingual)"), aliases=(size,))


CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry("facebook/wav2vec2-base-960h", "wav2vec2", 380, ("en",),
                 "Wav2Vec2 base fine-tuned on LibriSpeech 960 h (CTC, 16 kHz); the default for English "
                 "once downloaded (until then whisper-tiny.en)",
                 aliases=("wav2vec2-base-960h",)),
    CatalogEntry("facebook/wav2vec2-large-960h-lv60-self", "wav2vec2", 1260, ("en",),
                 "Wav2Vec2 large, LibriLight 60k h + self-training, LibriSpeech 960 h (CTC, 16 kHz)",
                 aliases=("wav2vec2-large-960h-lv60-self",)),
    *(_xlsr(lang, code) for lang, code in (("english", "en"), ("german", "de"), ("spanish", "es"), ("french", "fr"),
                                            ("italian", "it"), ("portuguese", "pt"), ("dutch", "nl"), ("polish", "pl"),
                                            ("russian", "ru"))),
    _xlsr("japanese", "ja", 1280),
    _xlsr("chinese-zh-cn", "zh", 1290),
    _xlsr("arabic", "ar"),
    # each size multilingual, then English-only (same download size)
    *(_fw(s, mb) for size, mb in (("tiny", 75), ("base", 145), ("small", 485), ("medium", 1530))
      for s in (size, f"{size}.en")),
    _fw("large-v3", 3090),
)

DEFAULT_MODEL_ID = "facebook/wav2vec2-base-960h"


def find_entry(name: str) -> CatalogEntry | None:
    """Return the catalog entry whose id or alias equals ``name`` (case-insensitive), else ``None``."""
    key = name.strip().lower()
    return next((e for e in CATALOG if e.model_id.lower() == key or key in (a.lower() for a in e.aliases)), None)


def canonical_id(name: str) -> str:
    """Map a catalog alias (``"base.en"``) to its Hugging Face id; other names are returned unchanged."""
    entry = find_entry(name)
    return entry.model_id if entry else name


def looks_like_hf_id(spec: str) -> bool:
    """True when ``spec`` has the shape of a Hugging Face id (``owner/name``, ASCII word chars, ``.-``)."""
    return bool(_HF_ID.match(spec)) and ".." not in spec
