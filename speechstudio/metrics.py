"""Word error rate (jiwer) after normalising both sides: lower case, digits spelled out (num2words), a
few English abbreviations expanded, punctuation removed."""
from __future__ import annotations

import re
import unicodedata

import jiwer
from num2words import num2words

_ABBREV = {"mr": "mister", "mrs": "missus", "dr": "doctor", "st": "saint", "etc": "etcetera"}


def spell_numbers(text: str, language: str = "en") -> str:
    """Digits spelled out in ``language`` (num2words; "1,000" is one number); one it cannot spell stays."""
    def spell(m: re.Match) -> str:
        try:
            return " " + num2words(int(m.group(0)), lang=language) + " "
        except (NotImplementedError, OverflowError):
            return m.group(0)

    return re.sub(r"\d+", spell, re.sub(r"(\d),(\d)", r"\1\2", text))


def normalize_text(text: str, language: str = "en") -> str:
    """Lower-case, spell out numbers, expand abbreviations, drop punctuation, squeeze spaces."""
    text = spell_numbers(unicodedata.normalize("NFKC", text).lower(), language)
    text = re.sub(r"[^\w\s']|_", " ", text).replace("-", " ")
    words = [_ABBREV.get(w.strip("'"), w.strip("'")) for w in text.split()]
    return " ".join(w for w in words if w)


def wer(references: list[str], hypotheses: list[str], language: str = "en") -> float:
    """Corpus WER over pairs of texts after :func:`normalize_text`."""
    refs = [normalize_text(r, language) for r in references]
    hyps = [normalize_text(h, language) for h in hypotheses]
    return float(jiwer.wer(refs, hyps))
