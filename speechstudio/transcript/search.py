"""Find in a transcript: matches of a literal query in segment texts (case and whole-word options)."""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from speechstudio.errors import UsageError


@dataclasses.dataclass(frozen=True)
class Match:
    """``segment`` (0-based index) and the match's characters ``start:end`` in its text."""

    segment: int
    start: int
    end: int


def pattern(query: str, case_sensitive: bool = False, whole_word: bool = False) -> re.Pattern:
    """The regular expression for the literal ``query``. Raises UsageError for an empty query."""
    if not query:
        raise UsageError("nothing to find: the search text is empty")
    body = re.escape(query)
    if whole_word:
        body = rf"(?<!\w){body}(?!\w)"
    return re.compile(body, 0 if case_sensitive else re.IGNORECASE)


def find_all(texts: Sequence[str], pat: re.Pattern) -> list[Match]:
    """Every non-overlapping match, in reading order."""
    return [Match(i, m.start(), m.end()) for i, t in enumerate(texts) for m in pat.finditer(t)]


def find_next(texts: Sequence[str], pat: re.Pattern, segment: int, char: int,
              backwards: bool = False) -> Match | None:
    """The first match starting at or after ``(segment, char)`` (backwards: the last one ending
    at or before it), wrapping around the end; ``None`` when there is none."""
    matches = find_all(texts, pat)
    if not matches:
        return None
    if backwards:
        before = [m for m in matches if (m.segment, m.end) <= (segment, char)]
        return before[-1] if before else matches[-1]
    after = [m for m in matches if (m.segment, m.start) >= (segment, char)]
    return after[0] if after else matches[0]
