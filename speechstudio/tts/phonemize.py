"""espeak-ng phonemes and Piper phoneme ids.

Phonemes come from espeak-ng through ``piper_phonemize``, rhasspy's own binding, which bundles
espeak-ng and its data, so no system package is needed (PyPI ``piper-phonemize-fix`` 1.2.2 has wheels
for Python 3.10-3.13 with the same module and API; the original ``piper-phonemize`` 1.1.0 stops at
3.11). espeak-ng is GPL-3.0-or-later.

Piper's id convention (rhasspy/piper-phonemize ``src/phoneme_ids.cpp``, the one used at training
time): ``BOS "^"``, ``PAD "_"``, then every phoneme followed by ``PAD``, then ``EOS "$"``.
"""
from __future__ import annotations

from collections import Counter
from typing import Mapping, Sequence

from speechstudio.errors import SpeechStudioError

__all__ = ["PhonemizerUnavailableError", "espeak_phonemes", "codepoint_phonemes", "phonemes_to_ids", "PAD", "BOS", "EOS"]

PAD, BOS, EOS = "_", "^", "$"


class PhonemizerUnavailableError(SpeechStudioError):
    """espeak-ng (piper-phonemize) is not installed or does not know the requested voice."""


def espeak_phonemes(text: str, voice: str = "en-us") -> list[str]:
    """Phonemize ``text`` with espeak-ng voice ``voice`` (e.g. ``"en-us"``).

    Returns one flat list of phoneme characters (IPA, with stress marks and punctuation). espeak
    may split the text into several clauses/sentences; they are joined with a space so a
    sentence we chose to keep together (e.g. "Dr. Smith") stays one utterance.
    Raises ``PhonemizerUnavailableError`` if piper-phonemize is missing or the voice is unknown.
    """
    try:
        from piper_phonemize import phonemize_espeak
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise PhonemizerUnavailableError(
            "espeak-ng phonemizer not available: pip install piper-phonemize-fix"
        ) from exc
    try:
        sentences = phonemize_espeak(text, voice)
    except RuntimeError as exc:
        raise PhonemizerUnavailableError(f"espeak-ng cannot phonemize with voice {voice!r}: {exc}") from exc
    out: list[str] = []
    for sent in sentences:
        if out and out[-1] != " ":
            out.append(" ")
        out.extend(sent)
    return out


def codepoint_phonemes(text: str) -> list[str]:
    """Piper voices with ``"phoneme_type": "text"``: the (case-folded, NFD) characters themselves."""
    try:
        from piper_phonemize import phonemize_codepoints
    except ImportError as exc:  # pragma: no cover
        raise PhonemizerUnavailableError("piper-phonemize not available: pip install piper-phonemize-fix") from exc
    out: list[str] = []
    for sent in phonemize_codepoints(text):
        if out and out[-1] != " ":
            out.append(" ")
        out.extend(sent)
    return out


def phonemes_to_ids(
    phonemes: Sequence[str], id_map: Mapping[str, Sequence[int]], missing: Counter | None = None
) -> list[int]:
    """Map phonemes to ids with a Piper ``phoneme_id_map`` (BOS, PAD, p1, PAD, p2, PAD, ..., EOS).

    Phonemes missing from ``id_map`` are skipped and counted in ``missing`` (so callers can
    report them). Returns a list of ints, length ``2 * kept + 3``.
    """
    ids: list[int] = list(id_map[BOS]) + list(id_map[PAD])
    for ph in phonemes:
        mapped = id_map.get(ph)
        if mapped is None:
            if missing is not None:
                missing[ph] += 1
            continue
        ids.extend(mapped)
        ids.extend(id_map[PAD])
    ids.extend(id_map[EOS])
    return ids
