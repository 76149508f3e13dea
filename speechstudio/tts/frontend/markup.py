"""HTML left in text to be read aloud: ``html_to_text`` turns block elements and ``<br>`` into paragraph
breaks, drops inline tags, scripts, styles and comments, and decodes complete character references;
only HTML element names count as tags ("press <Enter>" stays)."""
from __future__ import annotations

import html
import re

#: Elements that start and end a paragraph (HTML Living Standard, "flow content" that is not
#: "phrasing content", plus ``br``, table rows and cells).
BLOCK_ELEMENTS = frozenset(
    "address article aside blockquote body br caption dd details dialog div dl dt fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 header hgroup hr html li main nav ol p pre section summary table tbody td "
    "tfoot th thead title tr ul".split())
#: Elements inside a sentence ("phrasing content").
INLINE_ELEMENTS = frozenset(
    "a abbr b bdi bdo cite code data del dfn em font i ins kbd label mark q s samp small span strong sub sup "
    "time u var wbr big tt strike center img".split())
_NAMES = "|".join(sorted(BLOCK_ELEMENTS | INLINE_ELEMENTS, key=len, reverse=True))
_TAG_RE = re.compile(r"</?(" + _NAMES + r")(?:\s[^<>]*)?/?>", re.IGNORECASE)
_DROP_RE = re.compile(r"<(script|style)\b[^<>]*>.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_ENTITY_RE = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_HEADING_RE = re.compile(r"h[1-6]|title|caption|summary|dt|th", re.IGNORECASE)


def has_markup(text: str) -> bool:
    """True when ``text`` holds an HTML tag, comment or character reference that ``html_to_text`` changes."""
    return bool(("<" in text and (_TAG_RE.search(text) or "<!--" in text)) or ("&" in text and _ENTITY_RE.search(text)))


def html_to_text(text: str, strip: bool = True) -> str:
    """``text`` with HTML reduced to what a listener needs: paragraph breaks as ``"\\n\\n"``, a heading
    without punctuation gets a full stop; ``strip`` drops the breaks at both ends."""
    if not has_markup(text):
        return text
    text = _DROP_RE.sub("", text)

    def tag(m: re.Match) -> str:
        name = m.group(1).lower()
        if name in INLINE_ELEMENTS:
            return ""
        closing = m.group(0).startswith("</")
        if closing and _HEADING_RE.fullmatch(name):
            return "\ue014\n\n"  # end of a heading: a full stop if it has none
        return "\n\n"

    text = _TAG_RE.sub(tag, text)
    text = re.sub(r"([.!?:;,])?[ \t]*\ue014", lambda m: m.group(1) or ".", text)
    text = _ENTITY_RE.sub(lambda m: html.unescape(m.group(0)), text)  # complete references; unknown names stay
    # Blank lines the tags left: at most one in a row, none at the ends; spaces before a break go.
    text = re.sub(r"[ \t]*\n(?:[ \t]*\n)+[ \t]*", "\n\n", text)
    return text.strip("\n") if strip else text


_STRONG_RE = re.compile(r"(?<!\\)(\*\*|__)(.+?)\1")
_EMPHASIS_RE = re.compile(r"(?<![\w*\\])([*_])(?!\s)(.+?)(?<![\s\\])\1(?![\w*])")


def drop_emphasis(text: str) -> str:
    """Markdown emphasis around words dropped: ``**bold**``, ``__bold__``, ``*it*``, ``_it_`` -> the words (a
    ``*`` or ``_`` inside a word, ``snake_case``, stays)."""
    return _EMPHASIS_RE.sub(r"\2", _STRONG_RE.sub(r"\2", text))
