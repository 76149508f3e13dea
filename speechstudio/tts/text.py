"""Text front end for synthesis: sentence splitting and English normalisation.

* ``split_sentences`` uses pysbd (Pragmatic Sentence Boundary Disambiguation, MIT), which keeps
  abbreviations ("Dr.", "e.g.", "U.S.") and decimal numbers ("3.50") inside one sentence.
  Very long sentences (no punctuation for hundreds of characters) are cut further at commas /
  spaces so that one chunk never exceeds ``max_chars`` (memory and latency stay bounded).
* ``normalize_english`` spells out numbers, currency, percentages, ordinals, times and common
  symbols with num2words (LGPL-2.1), so that character-based voices (MMS-TTS) which have no digits
  in their vocabulary still say them. espeak-ng based voices (Piper, vits-ljs) would say most of
  these on their own, but normalising first makes all voices read a text the same way.

Errors: ``EmptyTextError`` when a text is empty or contains nothing speakable (only symbols).
"""
from __future__ import annotations

import re
import unicodedata
from typing import Iterable, Iterator

from speechstudio.errors import SpeechStudioError
from speechstudio.tts.numbers import join_digit_groups, spell_numbers

__all__ = [
    "EmptyTextError",
    "split_sentences",
    "normalize_english",
    "has_speakable",
    "iter_paragraph_sentences",
]

#: Longest chunk handed to the model in one go (characters). VITS attention is O(n^2) in the
#: number of phonemes; ~400 characters is about 25 s of speech.
MAX_SENTENCE_CHARS = 400


class EmptyTextError(SpeechStudioError):
    """The text is empty or has nothing a voice could say (only symbols / whitespace)."""


def has_speakable(text: str) -> bool:
    """True when ``text`` contains at least one letter or digit (any script)."""
    return any(unicodedata.category(ch)[0] in ("L", "N") for ch in text)


# ----------------------------------------------------------------------------- splitting
_segmenters: dict[str, object] = {}


def _segmenter(language: str):
    import pysbd  # light, pure Python

    lang = language if language in pysbd.languages.LANGUAGE_CODES else "en"
    seg = _segmenters.get(lang)
    if seg is None:
        seg = pysbd.Segmenter(language=lang, clean=False)
        _segmenters[lang] = seg
    return seg


def _cut_long(sentence: str, max_chars: int) -> Iterator[str]:
    """Cut a sentence longer than ``max_chars`` at the last comma/semicolon, else last space."""
    while len(sentence) > max_chars:
        window = sentence[:max_chars]
        cut = max(window.rfind(", "), window.rfind("; "), window.rfind(": "))
        if cut < max_chars // 3:
            cut = window.rfind(" ")
        if cut <= 0:
            cut = max_chars - 1
        yield sentence[: cut + 1].strip()
        sentence = sentence[cut + 1 :].lstrip()
    if sentence.strip():
        yield sentence.strip()


def split_sentences(text: str, language: str = "en", max_chars: int = MAX_SENTENCE_CHARS) -> list[str]:
    """Split ``text`` into sentences, keeping abbreviations and numbers intact.

    Paragraph breaks (blank lines) always end a sentence. Sentences without anything speakable
    (e.g. a lone "---") are dropped. Raises ``EmptyTextError`` if nothing speakable remains.
    """
    out = list(iter_paragraph_sentences(text, language, max_chars))
    if not out:
        if not text or not text.strip():
            raise EmptyTextError("text is empty: nothing to synthesize")
        raise EmptyTextError(f"text has nothing a voice can say (only symbols): {text.strip()[:40]!r}")
    return out


def iter_paragraph_sentences(
    text: str | Iterable[str], language: str = "en", max_chars: int = MAX_SENTENCE_CHARS
) -> Iterator[str]:
    """Lazily split ``text`` (a string, or an iterable of lines such as an open file) into sentences.

    Works paragraph by paragraph, so a 1 MB chapter is never segmented in one piece; memory stays
    bounded by the longest paragraph. Yields only sentences with something speakable.
    """
    lines = text.splitlines() if isinstance(text, str) else text
    para: list[str] = []

    def flush() -> Iterator[str]:
        joined = " ".join(s.strip() for s in para if s.strip())
        para.clear()
        if not joined:
            return
        # pysbd is slow on huge inputs: pre-cut paragraphs at line level before segmenting.
        for piece in _cut_long(joined, 20 * max_chars) if len(joined) > 20 * max_chars else [joined]:
            for sent in _segmenter(language).segment(piece):
                for chunk in _cut_long(sent.strip(), max_chars):
                    if has_speakable(chunk):
                        yield chunk

    for line in lines:
        if not line.strip():
            yield from flush()
        else:
            para.append(line)
    yield from flush()


# ----------------------------------------------------------------------------- normalisation
_ABBREVIATIONS = {
    "mr": "mister", "mrs": "missus", "ms": "miz", "dr": "doctor", "prof": "professor",
    "jr": "junior", "sr": "senior", "vs": "versus", "etc": "et cetera",
    "e.g": "for example", "i.e": "that is", "approx": "approximately",
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
    "jul": "july", "aug": "august", "sep": "september", "sept": "september", "oct": "october",
    "nov": "november", "dec": "december", "mt": "mount", "ft": "feet", "lb": "pounds",
    "kg": "kilograms", "km": "kilometers", "cm": "centimeters", "mm": "millimeters",
}
_ABBR_RE = re.compile(
    r"\b(" + "|".join(re.escape(a) for a in sorted(_ABBREVIATIONS, key=len, reverse=True)) + r")\.(?=\s|$)",
    re.IGNORECASE,
)
# "No." only before a number ("No. 5" -> "number 5"; "The answer is no." stays); "kg" etc.
# without a dot after a number.
_NUMBER_ABBR_RE = re.compile(r"\b[Nn]o\.\s*(?=\d)")
# "St." before a capitalised name is "Saint" ("St. Louis"), otherwise "street" ("Main St.").
_SAINT_RE = re.compile(r"\bSt\.(?=\s+[A-Z])")
_STREET_RE = re.compile(r"\b[Ss]t\.(?=\s|$)")
_SYMBOLS = {
    "&": " and ", "%": " percent", "@": " at ", "+": " plus ", "=": " equals ", "#": " number ",
    "°": " degrees ", "×": " times ", "½": " one half ", "¼": " one quarter ", "¾": " three quarters ",
}


def foreign_script(text: str) -> tuple[str, str] | None:
    """``(script, sample)`` for the first run of letters outside the Latin script, else None.

    The script name is the first word of the letter's Unicode name ("CYRILLIC", "CJK", "ARABIC",
    ...), title-cased; ``sample`` is up to 20 characters of that run. Used to warn when an English
    voice is handed text it can only spell out.
    """
    for i, ch in enumerate(text):
        if ch.isalpha() and ord(ch) > 0x24F:  # beyond Latin Extended-B
            name = unicodedata.name(ch, "")
            if not name or name.startswith(("LATIN", "MODIFIER", "COMBINING")):
                continue
            j = i
            while j < len(text) and j - i < 20 and (text[j].isalpha() or text[j] == " "):
                j += 1
            script = name.split()[0]
            return (script if len(script) <= 3 else script.title()), text[i:j].strip()
    return None


def _final_dot(m: re.Match) -> str:
    """"." when an abbreviation's dot also ends the sentence ("... etc."), so the pause stays."""
    return "." if not m.string[m.end():].strip() else ""


def normalize_english(text: str, locale: str = "en-us") -> str:
    """Spell out numbers, currency, ordinals, times, abbreviations and symbols in English text.

    Examples: ``"$3.50"`` -> ``"three dollars and fifty cents"``, ``"2nd"`` -> ``"second"``,
    ``"10:30"`` -> ``"ten thirty"``, ``"50%"`` -> ``"fifty percent"``, ``"1999"`` -> ``"nineteen
    ninety nine"``, ``"Dr."`` -> ``"doctor"``. Text in other scripts passes through unchanged.
    Numbers are read by class (phone numbers, versions, dates, units, ...): ``numbers.spell_numbers``;
    ``locale`` ("en-us", "en-gb", ...) decides the order of ambiguous numeric dates there.
    """
    text = unicodedata.normalize("NFKC", join_digit_groups(text))  # NFKC turns thin spaces into spaces
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = _NUMBER_ABBR_RE.sub("number ", text)
    text = spell_numbers(text, locale)  # numbers first: "20 ms." is milliseconds, not "miz"
    text = _STREET_RE.sub(lambda m: "street" + _final_dot(m), _SAINT_RE.sub("Saint", text))
    text = _ABBR_RE.sub(lambda m: _ABBREVIATIONS[m.group(1).lower()] + _final_dot(m), text)
    for sym, word in _SYMBOLS.items():
        text = text.replace(sym, word)
    return re.sub(r"[ \t]+", " ", text).strip()
