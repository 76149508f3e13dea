"""espeak-ng phonemes (``piper_phonemize``, PyPI ``piper-phonemize-fix`` 1.2.2; espeak-ng GPL-3.0) and
Piper phoneme ids (rhasspy/piper-phonemize ``phoneme_ids.cpp``: ``^``, phonemes each followed by ``_``,
``$``). docs/tts.md, Modules."""
from __future__ import annotations

import copy
import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence

from speechstudio.errors import SpeechStudioError

PAD, BOS, EOS = "_", "^", "$"


class PhonemizerUnavailableError(SpeechStudioError):
    """espeak-ng does not know the requested voice."""


def espeak_phonemes(text: str, voice: str = "en-us") -> list[str]:
    """espeak-ng phonemes of ``text`` for ``voice`` (``"en-us"``): IPA characters, clauses joined by a space.
    Raises ``PhonemizerUnavailableError``."""
    from piper_phonemize import phonemize_espeak

    try:
        return _joined(phonemize_espeak(re.sub(r"(?<!\.)\.\.(?!\.)", ".", text), voice))  # ".." left "dot" to the next
    except RuntimeError as exc:
        raise PhonemizerUnavailableError(f"espeak-ng cannot phonemize with voice {voice!r}: {exc}") from exc


def codepoint_phonemes(text: str) -> list[str]:
    """Piper voices with ``"phoneme_type": "text"``: the (case-folded, NFD) characters themselves."""
    from piper_phonemize import phonemize_codepoints

    return _joined(phonemize_codepoints(text))


def _joined(sentences) -> list[str]:
    """Phonemes of each sentence, one list, a space between sentences."""
    out: list[str] = []
    for sent in sentences:
        if out and out[-1] != " ":
            out.append(" ")
        out.extend(sent)
    return out


def phonemes_to_ids(
    phonemes: Sequence[str], id_map: Mapping[str, Sequence[int]], missing: Counter | None = None
) -> list[int]:
    """Map phonemes to ids with a Piper ``phoneme_id_map`` (BOS, PAD, p1, PAD, ..., EOS): ``2 * kept +
    3`` ints; unknown phonemes are skipped and counted in ``missing``."""
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


#: Most phonemes one model call gets: 7-10 s of speech, ~250 MB of decoder activations (~25 MB per
#: second in onnxruntime; bench/bench_tts_cold.py, docs/tts.md).
MAX_PHONEMES = 120


def split_ids(ids: Sequence[int], id_map: Mapping[str, Sequence[int]], max_phonemes: int = MAX_PHONEMES) -> list[list[int]]:
    """Cut a ``phonemes_to_ids`` sequence into complete sequences of at most ``max_phonemes``, at word
    boundaries (preferably after ``, ; :``, in the window's last two thirds; an over-long word inside).
    The spaces cut at are dropped; ``[list(ids)]`` when it fits."""
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
