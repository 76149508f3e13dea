"""espeak-ng phonemes and Piper phoneme ids.

Phonemes come from espeak-ng through ``piper_phonemize``, rhasspy's own binding, which bundles
espeak-ng and its data, so no system package is needed (PyPI ``piper-phonemize-fix`` 1.2.2 has wheels
for Python 3.10-3.13 with the same module and API; the original ``piper-phonemize`` 1.1.0 stops at
3.11). espeak-ng is GPL-3.0-or-later.

Which espeak-ng data: Piper's released voices were trained with piper-phonemize 1.1.0 (rhasspy/piper
``piper_train``), built on rhasspy/espeak-ng, i.e. upstream espeak-ng data of 2023-05-20 (the fork
only adds an API for clause terminators). ``piper-phonemize-fix`` builds the same fork commit
(0f65aa30), so our phonemes are the training phonemes. piper-tts >= 1.3 (OHF-Voice/piper1-gpl)
bundles upstream espeak-ng of 2025-03-22 instead, whose en-us differs for a few words ("four"
fˈɔːɹ, "the" before a vowel ðɪʲ); ``tests/test_tts_piper_text_parity.py`` pins the difference.

Piper's id convention (rhasspy/piper-phonemize ``src/phoneme_ids.cpp``, the one used at training
time): ``BOS "^"``, ``PAD "_"``, then every phoneme followed by ``PAD``, then ``EOS "$"``.
"""
from __future__ import annotations

import copy
import threading
from collections import Counter
from collections.abc import Mapping, Sequence

from speechstudio.errors import SpeechStudioError

__all__ = [
    "BOS",
    "EOS",
    "MAX_PHONEMES",
    "PAD",
    "PhonemizerUnavailableError",
    "codepoint_phonemes",
    "espeak_phonemes",
    "phonemes_to_ids",
    "plain_tokenizer",
    "split_ids",
]

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


#: Most phonemes one model call gets. The decoder's activations grow with the audio length (~25 MB
#: per second of audio in onnxruntime); 120 phonemes is 7-10 s of speech (~20 words), so a
#: sentence without punctuation never needs more than ~250 MB (bench/bench_tts_cold.py: a
#: 1,200-word line peaked at 3.1 GB in one piece with PyTorch, 11 GB in Piper's CLI).
MAX_PHONEMES = 120


def split_ids(ids: Sequence[int], id_map: Mapping[str, Sequence[int]], max_phonemes: int = MAX_PHONEMES) -> list[list[int]]:
    """Cut a Piper id sequence (``phonemes_to_ids`` layout) into pieces of at most ``max_phonemes``.

    Each piece is itself a complete sequence (BOS, PAD, ..., EOS). Cuts fall on a word boundary
    (the space phoneme), preferably right after a clause mark (``, ; :``), in the last two thirds
    of the window; a single word longer than the budget is cut inside. The spaces cut at are
    dropped; every other id is kept, in order. Returns ``[list(ids)]`` when it fits.
    """
    bos, pad, eos = list(id_map[BOS]), list(id_map[PAD]), list(id_map[EOS])
    space = list(id_map.get(" ", []))
    clause = {tuple(id_map[c]) for c in ",;:" if c in id_map}
    head, tail = len(bos) + len(pad), len(eos)
    inner = list(ids[head:len(ids) - tail])
    step = 1 + len(pad)  # a phoneme id and its PAD (single-id phonemes, as in every Piper voice)
    if len(inner) <= max_phonemes * step or len(space) != 1:
        return [list(ids)]
    pieces: list[list[int]] = []
    while len(inner) > max_phonemes * step:
        window = inner[: max_phonemes * step]
        spaces = [j for j in range(0, len(window), step) if window[j] == space[0] and j >= len(window) // 3]
        after_clause = [j for j in spaces if j >= step and (window[j - step],) in clause]
        cut = (after_clause or spaces or [len(window)])[-1]
        pieces.append(bos + pad + inner[:cut] + eos)
        inner = inner[cut + step:] if cut < len(window) else inner[cut:]
    if inner:
        pieces.append(bos + pad + inner + eos)
    return pieces


_PLAIN_LOCK = threading.Lock()  # the one-time copy shared by sentence workers


def plain_tokenizer(tok):
    """A shallow copy of the transformers tokenizer ``tok`` with ``phonemize=False`` (same
    vocabulary), made once per tokenizer: it takes espeak-ng phonemes as they are."""
    plain = getattr(tok, "_speechstudio_plain", None)
    if plain is None:
        with _PLAIN_LOCK:
            plain = getattr(tok, "_speechstudio_plain", None)
            if plain is None:
                plain = copy.copy(tok)
                plain.phonemize = False
                tok._speechstudio_plain = plain
    return plain
