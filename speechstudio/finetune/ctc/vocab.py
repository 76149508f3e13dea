"""CTC targets: transcript normalisation, character vocabularies, coverage, processor files.

Characters with ``|`` between words, as in wav2vec2-base-960h and transformers'
``run_speech_recognition_ctc.py``; ``<pad>`` is id 0 and the CTC blank, ``<unk>`` 1, ``|`` 2, then the
data's characters in code-point order."""
from __future__ import annotations

import json
import os
import re
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Mapping

from speechstudio.errors import UsageError
from speechstudio.metrics import normalize_text, spell_numbers

PAD, UNK, DELIMITER = "<pad>", "<unk>", "|"
CASINGS = ("auto", "lower", "upper", "keep")
_APOSTROPHES = str.maketrans({c: "'" for c in "\u2019\u2018\u02bc\u0060\u00b4\u2032"})


def normalize_transcript(text: str, casing: str = "lower", language: str = "en") -> str:
    """The CTC target for a transcript: single spaces, no punctuation, apostrophes inside words only
    (NFKC, ``’`` -> ``'``).

    ``casing``: ``"lower"`` / ``"upper"`` (after ``metrics.normalize_text``: numbers and abbreviations
    spelled out) or ``"keep"`` (no case change, no abbreviation expansion)."""
    text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    if casing in ("lower", "upper"):
        out = normalize_text(text, language)
        return out.upper() if casing == "upper" else out
    if casing != "keep":
        raise UsageError(f"casing {casing!r}: expected one of {', '.join(CASINGS)}")
    text = spell_numbers(text, language)
    text = re.sub(r"[^\w\s']|_", " ", text)
    return " ".join(w for w in (w.strip("'") for w in text.split()) if w)


def build_vocab(targets: Iterable[str]) -> dict[str, int]:
    """A character vocabulary for normalised targets: ``{"<pad>": 0, "<unk>": 1, "|": 2, chars...}``
    (characters sorted by code point; the space becomes ``|``)."""
    chars = sorted({c for t in targets for c in t if not c.isspace()} - {DELIMITER})
    return {PAD: 0, UNK: 1, DELIMITER: 2, **{c: i for i, c in enumerate(chars, 3)}}


def vocab_casing(vocab: Iterable[str]) -> str:
    """Casing policy a vocabulary implies: ``"upper"`` when its single-letter tokens are all upper
    case (facebook/wav2vec2-base-960h), ``"lower"`` when all lower, else ``"keep"``."""
    letters = [t for t in vocab if len(t) == 1 and t.isalpha() and t.lower() != t.upper()]
    if letters and all(t.isupper() for t in letters):
        return "upper"
    return "lower" if letters and all(t.islower() for t in letters) else "keep"


def find_uncovered(targets: Mapping[str, str], vocab: Mapping[str, int],
                   delimiter: str = DELIMITER) -> dict[str, tuple[str, ...]]:
    """Characters of ``targets`` (clip id -> normalised text) missing from ``vocab``, each with the
    ids of the clips that use it (sorted). A space needs the word delimiter token."""
    return {c: ids for c, ids in _clips_by_char(targets).items() if (delimiter if c == " " else c) not in vocab}


def rare_characters(targets: Mapping[str, str], max_clips: int = 1) -> dict[str, tuple[str, ...]]:
    """Characters used by at most ``max_clips`` clips (often a typo or a foreign word), with them."""
    return {c: ids for c, ids in _clips_by_char(targets).items() if c != " " and len(ids) <= max_clips}


def _clips_by_char(targets: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    seen: dict[str, set[str]] = defaultdict(set)
    for clip_id, text in targets.items():
        for c in set(text):
            seen[c].add(clip_id)
    return {c: tuple(sorted(ids)) for c, ids in sorted(seen.items())}


def describe_chars(chars: Mapping[str, tuple[str, ...]], limit: int = 8) -> str:
    """``"'é' (U+00E9) in 0003, 0017; ..."`` for messages."""
    parts = [f"{c!r} (U+{ord(c):04X}) in " + ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
             for c, ids in list(chars.items())[:limit]]
    more = f"; and {len(chars) - limit} more characters" if len(chars) > limit else ""
    return "; ".join(parts) + more


def encode(target: str, vocab: Mapping[str, int], delimiter: str = DELIMITER) -> list[int]:
    """Label ids for a normalised target (space -> delimiter; unknown characters -> ``<unk>``)."""
    unk = vocab.get(UNK, vocab.get("[UNK]", 0))
    return [vocab.get(delimiter if c == " " else c, unk) for c in target]


def make_tokenizer(vocab: Mapping[str, int], folder: str | os.PathLike):
    """A ``Wav2Vec2CTCTokenizer`` over ``vocab`` (written to ``folder/vocab.json``), with no
    ``<s>``/``</s>`` tokens and no lower-casing (targets are normalised before encoding)."""
    from transformers import Wav2Vec2CTCTokenizer

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "vocab.json"
    path.write_text(json.dumps(dict(vocab), ensure_ascii=False), encoding="utf-8")
    return Wav2Vec2CTCTokenizer(str(path), unk_token=UNK, pad_token=PAD, word_delimiter_token=DELIMITER,
                                bos_token=None, eos_token=None, do_lower_case=False)


def default_feature_extractor(model_config, sampling_rate: int = 16000):
    """A ``Wav2Vec2FeatureExtractor`` for a base that ships none: 16 kHz, per-clip normalised, attention
    mask only for layer-norm feature encoders (transformers' Wav2Vec2 docs)."""
    from transformers import Wav2Vec2FeatureExtractor

    layer_norm = getattr(model_config, "feat_extract_norm", "group") == "layer"
    return Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=sampling_rate, padding_value=0.0,
                                    do_normalize=True, return_attention_mask=layer_norm)


def load_processor(folder: str | os.PathLike):
    """``(feature_extractor, tokenizer)`` of a processor or model folder (``checkpoint.save_model_files``)."""
    from transformers import AutoFeatureExtractor, Wav2Vec2CTCTokenizer

    return AutoFeatureExtractor.from_pretrained(folder), Wav2Vec2CTCTokenizer.from_pretrained(folder)
