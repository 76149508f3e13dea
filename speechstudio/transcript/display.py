"""Word tokens as text people read, in any script: a stretch of words shown as the segment text it covers
(:func:`align`), else joined by rule (:func:`join_tokens`); widths in display cells (UAX #11, :func:`cell_width`)."""
from __future__ import annotations

import unicodedata
from collections.abc import Sequence

APOSTROPHES = "'’ʼ"
_CLOSING = ".,!?;:%)]}»”’、。，！？；：…」』）】〉》〕｝・"
_OPENING = "([{«“‘¿¡「『（【〈《〔｛"
# Unicode blocks (first, last) of scripts written without spaces between words
_UNSPACED = (
    (0x0E00, 0x0EFF),   # Thai, Lao
    (0x0F00, 0x0FFF),   # Tibetan
    (0x1000, 0x109F),   # Myanmar
    (0x1780, 0x17FF),   # Khmer
    (0x2E80, 0x2FDF),   # CJK radicals
    (0x3000, 0x303F),   # CJK symbols and punctuation
    (0x3040, 0x30FF),   # Hiragana, Katakana
    (0x3100, 0x312F),   # Bopomofo
    (0x31F0, 0x31FF),   # Katakana extensions
    (0x3400, 0x4DBF),   # CJK extension A
    (0x4E00, 0x9FFF),   # CJK unified ideographs
    (0xF900, 0xFAFF),   # CJK compatibility ideographs
    (0xFF00, 0xFFEF),   # half- and full-width forms
    (0x20000, 0x2FA1F),  # CJK extensions B-F, compatibility supplement
)


def unspaced(ch: str) -> bool:
    """True for a character of a script written without spaces between words."""
    o = ord(ch)
    return any(a <= o <= b for a, b in _UNSPACED)


def _mark(ch: str) -> bool:
    return unicodedata.category(ch) in ("Mn", "Mc", "Me")


def needs_space(left: str, right: str) -> bool:
    """Whether a space goes between token ``left`` and token ``right`` (see the module docstring)."""
    if not left or not right:
        return False
    a, b = left[-1], right[0]
    if _mark(b) or b in _CLOSING or a in _OPENING:
        return False
    if b in APOSTROPHES or (a in APOSTROPHES and len(left) > 1 and left[-2].isalpha()):
        return False          # don 't -> don't, c' est -> c'est (a quote mark alone keeps its space)
    return not (unspaced(a) or unspaced(b))


def join_tokens(tokens: Sequence[str]) -> str:
    """``tokens`` (stripped) as one line of text."""
    out = ""
    for t in tokens:
        t = t.strip()
        if not t:
            continue
        out += (" " if out and needs_space(out, t) else "") + t
    return out


def cell_width(text: str) -> int:
    """Display cells of ``text``: 2 for East Asian wide / full-width characters, 0 for combining
    marks and zero-width characters, 1 otherwise."""
    n = 0
    for ch in text:
        if _mark(ch) or unicodedata.category(ch) == "Cf":
            continue
        n += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return n


def clusters(text: str) -> list[str]:
    """``text`` without spaces cut into user-perceived characters (a base character and the
    combining marks after it): the units a line of Thai or Japanese may break between."""
    out: list[str] = []
    for ch in text:
        if out and (_mark(ch) or ch in _CLOSING):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def align(text: str, tokens: Sequence[str]) -> list[tuple[int, int]] | None:
    """Character spans of ``tokens`` (in order) in ``text``, allowing only spaces, punctuation
    and marks between them; ``None`` when they do not spell it."""
    spans, pos = [], 0
    for tok in tokens:
        tok = tok.strip()
        if not tok:
            return None
        i = text.find(tok, pos)
        if i < 0 or any(c.isalnum() for c in text[pos:i]):
            return None
        spans.append((i, i + len(tok)))
        pos = i + len(tok)
    return None if any(c.isalnum() for c in text[pos:]) else spans
