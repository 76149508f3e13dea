"""Text front end for synthesis: sentence splitting (pysbd; long sentences cut to ``max_chars``) and English
normalisation (numbers, dates, codes, symbols; ``sayable``). Raises ``EmptyTextError`` / ``LeftOutTextError``."""
from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from typing import Iterable, Iterator

from speechstudio.errors import SpeechStudioError
from speechstudio.tts.frontend import abbreviations, codes
from speechstudio.tts.frontend.abbreviations import expand_abbreviations
from speechstudio.tts.frontend.codes import read_codes
from speechstudio.tts.frontend.markup import drop_emphasis, has_markup, html_to_text
from speechstudio.tts.frontend.numbers import join_digit_groups, read_month_dates, spell_numbers, superscript_powers
from speechstudio.tts.frontend.sayable import NAMED_SYMBOLS, Sayable, english_sayable, remove_invisible

_CONTROL_RE = re.compile(r" *[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]+ *")  # C0 / C1 controls but tab and line ends
_VULGAR_RE = re.compile("[\u00bc-\u00be\u2150-\u215e\u2189]")  # "½", "⅓", "⅞", ... (NFKC: digits, U+2044, digits)

#: Longest chunk handed to the model in one go (characters). VITS attention is O(n^2) in the
#: number of phonemes; ~400 characters is about 25 s of speech.
MAX_SENTENCE_CHARS = 400


class EmptyTextError(SpeechStudioError):
    """The text is empty or has nothing a voice could say (only symbols / whitespace)."""


class LeftOutTextError(EmptyTextError):
    """Everything in a sentence was left out by the front end (another script, emoji): nothing to say."""


def has_speakable(text: str) -> bool:
    """True when ``text`` contains at least one letter or digit (any script)."""
    return any(unicodedata.category(ch)[0] in ("L", "N") for ch in text)


# ----------------------------------------------------------------------------- splitting
@functools.cache
def _segmenter(language: str):
    import pysbd  # light, pure Python

    return pysbd.Segmenter(language=language if language in pysbd.languages.LANGUAGE_CODES else "en", clean=False)


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


def check_speakable(text: str) -> None:
    """Raise a one-line ``EmptyTextError`` when ``text`` is empty or has nothing a voice can say."""
    if not text.strip():
        raise EmptyTextError("text is empty: nothing to synthesize")
    if not has_speakable(text):
        raise EmptyTextError(f"text has nothing a voice can say (only symbols): {text.strip()[:40]!r}")


def iter_paragraph_sentences(
    text: str | Iterable[str], language: str = "en", max_chars: int = MAX_SENTENCE_CHARS
) -> Iterator[str]:
    """Lazily split ``text`` (a string or an iterable of lines) into speakable sentences, one paragraph at a time."""
    return (sentence for sentence, _ in _iter_breaks(text, language, max_chars))


#: Pause after a paragraph (a blank line, an HTML block or list item), as a multiple of the
#: sentence pause: 3 x 0.25 s = 0.75 s, the SSML ``<p>`` pause (``ssml.PARAGRAPH_PAUSE_S``).
PARAGRAPH_PAUSE_FACTOR = 3.0
#: Pause after a line that ends a phrase without punctuation (a list item, a line of verse or an
#: address): 1.6 x 0.25 s = 0.4 s; after a heading: 4 x 0.25 s = 1.0 s (rhasspy/piper#349).
LINE_PAUSE_FACTOR = 1.6
HEADING_PAUSE_FACTOR = 4.0
_PAUSE_FACTOR = {"sentence": 1.0, "line": LINE_PAUSE_FACTOR, "paragraph": PARAGRAPH_PAUSE_FACTOR,
                 "heading": HEADING_PAUSE_FACTOR}


def iter_sentence_pauses(text: str | Iterable[str], language: str = "en",
                         sentence_pause_s: float = 0.25) -> Iterator[tuple[str, float]]:
    """``(sentence, pause after it in s)`` for plain text, lazily: sentences end at pysbd boundaries,
    paragraphs, HTML blocks, an inner ellipsis (piper1-gpl#291) and unpunctuated line ends; the pause is
    ``sentence_pause_s`` times the line / paragraph / heading factor."""
    for sentence, kind in _iter_breaks(text, language, MAX_SENTENCE_CHARS):
        yield sentence, _PAUSE_FACTOR[kind] * sentence_pause_s


_ELLIPSIS_SPLIT_RE = re.compile(r"(?:\.\s?\.\s?\.|…)(?=\s+\S)")


def _segment(paragraph: str, language: str) -> list[str]:
    """pysbd sentences of one paragraph, with URLs, paths and non-final abbreviations protected."""
    masked = abbreviations.protect(codes.protect(paragraph)) if language == "en" else paragraph
    out = []
    for sent in _segmenter(language).segment(masked):
        sent = codes.unprotect(abbreviations.unprotect(sent)).strip()
        # an ellipsis inside a sentence is a pause: cut after it
        pos = 0
        for m in _ELLIPSIS_SPLIT_RE.finditer(sent):
            out.append(sent[pos:m.end()].strip())
            pos = m.end()
        out.append(sent[pos:].strip())
    return [s for s in out if s]


_MARKER_RE = re.compile(r"^\s*(?:[-*+\u2022\u2023\u25e6\u25aa\u2013]\s+|#{1,6}\s+)")
_NUMBERED_RE = re.compile(r"^\s*(?:\d{1,3}|[a-zA-Z])[.)]\s+")
_HEADING_RE = re.compile(r"(?i:chapter|part|book|volume|act|scene|section|prologue|epilogue|preface|introduction"
                         r"|appendix|contents|afterword|foreword)\b(?:\s+(?:[\dIVXLC]+|[A-Za-z]+))?[.:]?(?:\s|$)")
_ENDS_PHRASE = ".!?:;,\u2026"
# A line ending in one of these goes on to the next ("Mr. Smith went to / Washington today.").
_GOES_ON = frozenset("a an the to of and or nor but in on at for with by from as that than into onto his her my "
                     "your their our its this these those is are was were be".split())
#: A line longer than this that ends without punctuation is taken as hard-wrapped prose, unless it is
#: a list item (Project Gutenberg wraps at 70-72 characters).
WRAPPED_LINE_CHARS = 60


def looks_like_heading(line: str) -> bool:
    """A short line without final punctuation that reads as a heading: Markdown ``#``, "Chapter 3",
    "Part II", "PROLOGUE", all capitals, or two or more words all capitalised ("The Long Road Home")."""
    s = line.strip()
    if s.startswith("#"):
        return True
    if not s or len(s) > WRAPPED_LINE_CHARS or s[-1] in _ENDS_PHRASE:
        return False
    if _HEADING_RE.match(s) and len(s.split()) <= 6:
        return True
    letters = [ch for ch in s if ch.isalpha()]
    if len(letters) >= 3 and all(ch.isupper() for ch in letters):
        return True
    words = [w for w in re.findall(r"[A-Za-z][\w'’-]*", s)]
    small = {"a", "an", "the", "of", "and", "or", "in", "on", "to", "at", "for", "with", "from", "by"}
    return len(words) >= 2 and all(w[0].isupper() or w in small for w in words) and words[0][0].isupper()


def _is_item(line: str) -> bool:
    return bool(_MARKER_RE.match(line) or _NUMBERED_RE.match(line))


def _line_kind(line: str, following: str | None) -> str | None:
    """How a line within a paragraph ends: ``"heading"``, ``"line"`` (a phrase ends: a list item,
    verse, an address), or None (a hard-wrapped sentence goes on to ``following``)."""
    s = line.strip()
    if looks_like_heading(s) and (following is None or not _is_item(following)):
        return "heading"
    if following is None:
        return None
    if _is_item(s) or _is_item(following):
        return "line"
    if (s[-1] in _ENDS_PHRASE or following.lstrip()[:1].islower() or len(s) > WRAPPED_LINE_CHARS
            or s.rsplit(None, 1)[-1].lower() in _GOES_ON):
        return None
    return "line"


def _iter_breaks(text: str | Iterable[str], language: str, max_chars: int) -> Iterator[tuple[str, str]]:
    """``(sentence, kind)``, kind ``"sentence"``, ``"line"``, ``"paragraph"`` or ``"heading"``: the
    break after each speakable sentence."""
    lines = text.splitlines() if isinstance(text, str) else text
    # control characters (a NUL from a binary paste) say nothing, and a NUL ends the phonemizer's C string there
    lines = (_CONTROL_RE.sub(" ", line) for line in lines)
    # HTML block elements become blank lines (paragraph breaks), inline tags go
    lines = (piece for line in lines for piece in (html_to_text(line, strip=False).split("\n") if has_markup(line)
                                                   else [line]))
    para: list[str] = []

    def flush(kind: str, inside: bool = False) -> Iterator[tuple[str, str]]:
        joined = " ".join(s.strip() for s in para if s.strip())
        para.clear()
        if not joined:
            return
        if inside and joined[-1] not in _ENDS_PHRASE:
            joined += "."  # a phrase of its own: the voice ends it as a sentence
        last = None
        # pysbd is slow on huge inputs: pre-cut paragraphs at line level before segmenting.
        for piece in _cut_long(joined, 20 * max_chars) if len(joined) > 20 * max_chars else [joined]:
            for sent in _segment(piece, language):
                for chunk in _cut_long(sent, max_chars):
                    if has_speakable(chunk):
                        if last is not None:
                            yield last, "sentence"
                        last = chunk
        if last is not None:
            yield last, kind

    previous: str | None = None
    for line in itertools.chain(lines, [""]):  # a blank line ends the last paragraph
        if not line.strip():
            if previous is not None:
                para.append(_MARKER_RE.sub("", previous))
                yield from flush("heading" if _line_kind(previous, None) == "heading" else "paragraph")
                previous = None
            yield from flush("paragraph")
            continue
        if previous is not None:
            kind = _line_kind(previous, line)
            para.append(_MARKER_RE.sub("", previous))
            if kind is not None:
                yield from flush(kind, inside=True)
        previous = line


# ----------------------------------------------------------------------------- normalisation
_ELLIPSIS_RE = re.compile(r"\s*(?:\.\s?\.\s?\.)\.*")
_ANGLE_WORD_RE = re.compile(r"(?<!\w)<([A-Za-z][\w+ -]{0,30})>(?!\w)")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


# "#": a sharp after a note or language letter ("C#", "F#"), a hashtag before a word ("#MeToo", "#Covid19"),
# "number" only before a number or a code ("#5", "# 3", "#A12") or in "# of", else "hash" ("press #"). A "#"
# inside a word or an address ("page#top") is left to ``read_codes``.
_SHARP_RE = re.compile(r"(?<![\w#])([A-G])#(?![\w#])")
_HASHTAG_RE = re.compile(r"(?<![\w#&/])#(?![A-Z]+\d+\b)([A-Za-z]\w*)")
_HASH_RE = re.compile(r"(?<![\w/])#(?!\s*[-−+]?\.?\d|\s+of\b|[A-Z]+\d)")


def read_hashes(text: str) -> str:
    """Every "#" of ``text`` read by what follows (see ``_SHARP_RE``); before a number it stays for
    ``spell_numbers`` ("Room #5") and the named symbols ("number"). Before ``read_codes``."""
    if "#" not in text:
        return text
    text = _SHARP_RE.sub(lambda m: ("A-" if m.group(1) == "A" else m.group(1)) + " sharp", text)
    text = _HASHTAG_RE.sub(r"hashtag \1", text)
    return _HASH_RE.sub(" hash ", text)


def english_front_end(text: str, locale: str = "en-us") -> Sayable:
    """What an English voice is given for one sentence and what was left out (markup, NFKC, codes, dates,
    numbers, abbreviations, symbols, other scripts): for synthesis and the dataset check alike."""
    text = _CONTROL_RE.sub(" ", remove_invisible(text))
    if has_markup(text):  # blank lines HTML blocks leave inside one sentence: a full stop unless punctuated
        text = re.sub(r"([.!?:;,])?\s*\n\s*\n\s*", lambda m: (m.group(1) or ".") + " ", html_to_text(text))
    # NFKC turns thin spaces into spaces, and "m²" into "m2": superscript exponents are "^" powers before it, and
    # fractions "/" fractions ("½" -> "1/2", "2¾" -> "2 3/4", not NFKC's "23⁄4")
    text = _VULGAR_RE.sub(lambda m: (" " if m.string[max(0, m.start() - 1):m.start()].isdigit() else "")
                          + unicodedata.normalize("NFKC", m.group()), text)
    text = unicodedata.normalize("NFKC", superscript_powers(join_digit_groups(text))).replace("\u2044", "/")
    # "..." inside a sentence -> ", " (the voice pauses at a comma); at its end -> "."
    text = _ELLIPSIS_RE.sub(lambda m: ", " if m.string[m.end():].strip() else ".", text.translate(_QUOTES))
    text = read_codes(read_hashes(drop_emphasis(text) if "*" in text or "_" in text else text))
    text = read_month_dates(expand_abbreviations(text, before_numbers=True))
    text = spell_numbers(text, locale)  # numbers first: "20 ms." is milliseconds, not "miz"
    text = expand_abbreviations(text)
    text = _ANGLE_WORD_RE.sub(r"\1", text)  # "press <Enter>": a key name, not "less than"
    for sym, word in NAMED_SYMBOLS.items():
        text = text.replace(sym, word)
    said = english_sayable(text)
    return Sayable(re.sub(r"[ \t]+", " ", said.text).strip(), said.transliterated, said.skipped_scripts,
                   said.skipped_symbols)


def normalize_english(text: str, locale: str = "en-us") -> str:
    """English ``text`` with numbers, currency, times, abbreviations, codes and symbols spelled out (``"$3.50"``
    -> "three dollars and fifty cents"); ``locale`` orders ambiguous numeric dates."""
    return english_front_end(text, locale).text
