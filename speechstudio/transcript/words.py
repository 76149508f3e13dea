"""Word timing through text edits (:func:`retime`): unchanged and in-place-edited words keep their times; replaced
and inserted words share the span by character counts (at least ``MIN_WORD_S`` each). Seconds, rounded to ms."""
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


def retime(old_words: Sequence[AsrWord], new_text: str, start_s: float, end_s: float) -> tuple[Word, ...]:
    """The words of ``new_text``, one per token in order, timed from ``old_words`` within the segment's
    ``start_s..end_s`` (seconds, ms-rounded); an unchanged word is returned as the same object."""
    new = [t for _, _, t in tokens(new_text)]
    old = [w if isinstance(w, Word) else Word(w.start_s, w.end_s, w.text, getattr(w, "probability", 1.0),
                                              getattr(w, "speaker", None)) for w in old_words]
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
            result[k] = (dataclasses.replace(base, start_s=s, end_s=e) if base is not None and anchored[k]
                         else Word(s, e, new[k], 1.0))
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


#: Silences shorter than this (seconds) inside speech are not pauses a word could sit in (stop
#: closures, breaths): Silero's spans closer than this are one region.
BRIDGE_S = 0.3
#: The first word of a speech region starting up to this late (seconds) after the region's onset starts
#: at the onset (Whisper tiny's DTW put first words after a pause 0.1-0.3 s late on our constructed files).
ONSET_S = 1.0
#: A word whose decoder span lies less than this share inside speech is timed from the audio instead.
INSIDE_SHARE = 0.5
#: Seconds Whisper's word times (faster-whisper's cross-attention DTW) lag the speech: tiny.en on 104 word starts
#: labelled by eye (bench/word_times; docs/transcribe.md, "Word starts against hand labels"). Other sizes not measured.
WHISPER_LAG_S = 0.08


def _regions(spans: Sequence[tuple[float, float]]) -> list[list[float]]:
    out: list[list[float]] = []
    for a, b in sorted(spans):
        if out and a - out[-1][1] < BRIDGE_S:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def to_speech(words: Sequence[AsrWord], spans: Sequence[tuple[float, float]], until: float = 0.0,
              lag_s: float = 0.0, after: float = 0.0) -> list[AsrWord]:
    """``words`` (one segment's) re-timed to speech ``spans`` (s, Silero VAD): first moved ``lag_s`` earlier (the
    decoder's lag, e.g. :data:`WHISPER_LAG_S`; ends too, so segments keep their gaps), then none in silence or before
    its speech; words mostly in silence move to unclaimed speech after the previous word and share it by length. A
    run of such words with no room beside the segment's kept words in their region (speech other segments' words
    hold) keeps its own times, in order. ``after``: where the previous segment's words end; this segment's start no
    earlier (speech before it is the previous segment's, and a region it cuts has no pause there). No spans: only
    moved."""
    if lag_s and words:
        words = [dataclasses.replace(w, start_s=ms(max(0.0, w.start_s - lag_s)), end_s=ms(max(0.0, w.end_s - lag_s)))
                 for w in words]
    regions = [[max(a, after), b] for a, b in _regions(spans) if b > after]
    paused = [r[0] > after or after == 0.0 for r in regions]     # a pause before the region's start
    if not regions or not words:
        return list(words)

    home = [_home_by_time(w, regions, last=k == len(words) - 1) for k, w in enumerate(words)]
    moved = [h is None for h in home]
    # words in silence: the first unclaimed region between their neighbours, else the nearest
    claimed = {h for h in home if h is not None}
    i = 0
    while i < len(words):
        if home[i] is not None:
            i += 1
            continue
        j = i
        while j < len(words) and home[j] is None:
            j += 1
        lo = home[i - 1] if i > 0 else -1
        hi = home[j] if j < len(words) else len(regions)
        free = [k for k in range(lo + 1, hi) if k not in claimed and regions[k][1] > words[i].start_s
                and (j < len(words) or regions[k][0] < until)]     # after the last word: within the segment
        if free:
            target = free[0]
        else:       # the neighbour region with more speech no word covers (before / after its words)
            spare = {}
            if 0 <= lo < len(regions):
                spare[lo] = regions[lo][1] - words[i - 1].end_s
            if 0 <= hi < len(regions):
                spare[hi] = words[j].start_s - regions[hi][0]
            if spare:
                target = max(spare, key=lambda k: (spare[k], k))
            else:
                mid = (words[i].start_s + words[j - 1].end_s) / 2
                target = min(range(len(regions)), key=lambda k: min(abs(regions[k][0] - mid), abs(regions[k][1] - mid)))
        for k in range(i, j):
            home[k] = target
        claimed.add(target)
        i = j
    out = list(words)
    silent = list(moved)                  # timed by the decoder in silence: placed here
    k = 0
    while k < len(words):                 # per region: moved words share the speech no word covers
        r = regions[home[k]]
        m = k
        while m < len(words) and home[m] == home[k]:
            m += 1
        p = k
        while p < m:
            if not moved[p]:
                p += 1
                continue
            q = p
            while q < m and moved[q]:
                q += 1
            lo_i, hi_i = p, q             # widen over kept neighbours in the region until there is room
            alone = p == k and q == m
            while True:
                left = words[lo_i - 1].end_s if lo_i > k else r[0] if alone or silent[k] else words[k].start_s
                right = words[hi_i].start_s if hi_i < m else r[1]
                if alone:                           # nothing kept here: as long as the words were
                    right = r[0] + sum(max(w.end_s - w.start_s, MIN_WORD_S) for w in words[p:q]) + 0.2
                left, right = max(r[0], min(left, r[1])), max(r[0], min(right, r[1]))
                if right - left >= 3 * MIN_WORD_S * (hi_i - lo_i) or (lo_i == k and hi_i == m):
                    break
                if hi_i < m:
                    hi_i += 1
                else:
                    lo_i -= 1
            if right - left < 3 * MIN_WORD_S * (hi_i - lo_i) and not alone:     # no room: their own times
                for x in range(p, q):
                    a = max(words[x].start_s, out[x - 1].end_s if x else 0.0)
                    out[x] = dataclasses.replace(words[x], start_s=ms(a), end_s=ms(max(words[x].end_s, a)))
                p = q
                continue
            for x, (a, b) in zip(range(lo_i, hi_i), interpolate([w.text for w in words[lo_i:hi_i]], left, right)):
                out[x] = dataclasses.replace(words[x], start_s=a, end_s=b)
                moved[x] = True
            p = hi_i
        for x in range(k, m):             # kept words: clamped into their region
            if not moved[x]:
                a = min(max(out[x].start_s, r[0]), r[1])
                if x == k and (k == 0 or home[k - 1] != home[k]) and paused[home[k]] and a - r[0] <= ONSET_S:
                    a = r[0]              # the first word after a pause starts with its speech
                out[x] = dataclasses.replace(out[x], start_s=ms(a), end_s=ms(min(max(out[x].end_s, a), r[1])))
        k = m
    return out


def _home_by_time(w, regions, last: bool = False) -> int | None:
    """The region holding at least ``INSIDE_SHARE`` of ``w`` by its own times, or its end (a word
    timed to start early); a segment's ``last`` word, the region its start is in (the decoder stretches
    a last word's end over the pause to the next segment)."""
    dur = w.end_s - w.start_s
    if last:
        for k, r in enumerate(regions):
            if r[0] <= w.start_s < r[1]:
                return k
    for k, r in enumerate(regions):
        if r[0] < w.end_s <= r[1] or max(0.0, min(w.end_s, r[1]) - max(w.start_s, r[0])) >= INSIDE_SHARE * dur > 0:
            return k
    return None
