"""Word timing through text edits: which words keep their times and how the others get theirs.

A segment's text has one :class:`Word` per token (``\\S+``). :func:`retime` keeps the times of unchanged
words (``difflib.SequenceMatcher``) and of words edited in place (probability 1.0); a run of k old words
replaced by m != k, and inserted words, share the available span in proportion to their character
counts, widened over a neighbour when under ``MIN_WORD_S`` per word. Seconds, rounded to ms (as the JSON
stores them)."""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from speechstudio.asr.types import Word as AsrWord

TOKEN = re.compile(r"\S+")

#: Shortest span (seconds) a re-timed word gets before its neighbour's span is shared with it
#: (50 ms: about one short phoneme; a word shorter than that cannot be heard or highlighted).
MIN_WORD_S = 0.05


@dataclasses.dataclass(frozen=True)
class Word(AsrWord):
    """:class:`speechstudio.asr.types.Word` plus ``extra``: the word's JSON keys this program does
    not know (kept as they are through load / save)."""

    extra: dict = dataclasses.field(default_factory=dict)


def ms(seconds: float) -> float:
    """``seconds`` rounded to milliseconds (the JSON transcript's precision)."""
    return round(float(seconds), 3)


def tokens(text: str) -> list[tuple[int, int, str]]:
    """``(start_char, end_char, token)`` for every run of non-space characters in ``text``."""
    return [(m.start(), m.end(), m.group()) for m in TOKEN.finditer(text)]


def interpolate(texts: Sequence[str], start_s: float, end_s: float) -> list[tuple[float, float]]:
    """Share ``start_s..end_s`` among ``texts`` by length (>= 1 each): contiguous ``(start_s, end_s)``
    pairs rounded to ms; empty for no texts."""
    weights = [max(1, len(t)) for t in texts]
    total = sum(weights)
    span = max(0.0, end_s - start_s)
    out, acc = [], 0
    for w in weights:
        a = start_s + span * acc / total
        acc += w
        b = start_s + span * acc / total
        out.append((ms(a), ms(b)))
    return out


def _as_word(w) -> Word:
    if isinstance(w, Word):
        return w
    return Word(w.start_s, w.end_s, w.text, getattr(w, "probability", 1.0), getattr(w, "speaker", None))


def retime(old_words: Sequence[AsrWord], new_text: str, start_s: float, end_s: float) -> tuple[Word, ...]:
    """The words of ``new_text``, one per token in order, timed from ``old_words`` within the segment's
    ``start_s..end_s`` (seconds, ms-rounded); an unchanged word is returned as the same object."""
    new = [t for _, _, t in tokens(new_text)]
    old = [_as_word(w) for w in old_words]
    result: list[Word | None] = [None] * len(new)
    sm = SequenceMatcher(None, [w.text.strip() for w in old], new, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            for k in range(j2 - j1):
                w = old[i1 + k]
                result[j1 + k] = w if w.text == new[j1 + k] else dataclasses.replace(w, text=new[j1 + k])
        elif tag == "replace" and i2 - i1 == j2 - j1:
            for k in range(j2 - j1):
                result[j1 + k] = dataclasses.replace(old[i1 + k], text=new[j1 + k], probability=1.0)
        elif tag == "replace" and old[i2 - 1].end_s - old[i1].start_s >= MIN_WORD_S * (j2 - j1):
            spans = interpolate(new[j1:j2], old[i1].start_s, old[i2 - 1].end_s)
            for k, (a, b) in enumerate(spans):
                result[j1 + k] = Word(a, b, new[j1 + k], 1.0)
    anchored = [w is not None for w in result]
    j = 0
    while j < len(new):
        if anchored[j]:
            j += 1
            continue
        a = j
        while j < len(new) and not anchored[j]:
            j += 1
        b = j
        while True:  # widen the run over kept neighbours until its span is long enough
            left = result[a - 1].end_s if a > 0 else start_s
            right = result[b].start_s if b < len(new) else end_s
            if right - left >= MIN_WORD_S * (b - a) or (a == 0 and b == len(new)):
                break
            if a > 0:
                a -= 1
            else:
                b += 1
        if a == 0 and b == len(new):
            left, right = start_s, end_s
        for k, (s, e) in zip(range(a, b), interpolate(new[a:b], left, max(left, right))):
            base = result[k]
            if base is not None and anchored[k]:
                result[k] = dataclasses.replace(base, start_s=s, end_s=e)
            else:
                result[k] = Word(s, e, new[k], 1.0)
            anchored[k] = True
        j = max(j, b)
    return tuple(result)  # type: ignore[arg-type]


def scale(words: Sequence[Word], old_start: float, old_end: float, new_start: float,
          new_end: float, text: str) -> tuple[Word, ...]:
    """Words moved with their segment: ``old_start..old_end`` mapped affinely onto
    ``new_start..new_end`` (seconds), re-interpolated from ``text`` when the old span is empty."""
    if old_end - old_start <= 0:
        spans = interpolate([w.text for w in words], new_start, new_end)
        return tuple(dataclasses.replace(w, start_s=s, end_s=e) for w, (s, e) in zip(words, spans))
    k = (new_end - new_start) / (old_end - old_start)

    def f(t: float) -> float:
        return ms(min(new_end, max(new_start, new_start + (t - old_start) * k)))

    return tuple(dataclasses.replace(w, start_s=f(w.start_s), end_s=f(w.end_s)) for w in words)
