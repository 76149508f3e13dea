"""Pure edit operations on segments (seconds, rounded to ms): :func:`retext` keeps the span;
:func:`replace_run` edits in place or pools the run's words and deals them to the new lines (split,
merge); :func:`retime_segment` maps a segment and its words affinely."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from speechstudio.errors import UsageError
from speechstudio.transcript.model import Segment
from speechstudio.transcript.words import Word, interpolate, ms, retime, scale, tokens


def aligned_words(seg: Segment):
    """``seg``'s words, one per token of its text (re-timed by :func:`words.retime` when the
    stored words do not match the tokens, e.g. a transcript from another tool)."""
    toks = [t for _, _, t in tokens(seg.text)]
    if [w.text.strip() for w in seg.words] == toks:
        return seg.words
    return retime(seg.words, seg.text, seg.start_s, seg.end_s)


def retext(seg: Segment, text: str) -> Segment:
    """``seg`` with ``text`` (span unchanged, words re-timed); ``seg`` itself when the text is the same."""
    if text == seg.text:
        return seg
    return dataclasses.replace(seg, text=text, words=retime(seg.words, text, seg.start_s, seg.end_s))


def retime_segment(seg: Segment, start_s: float, end_s: float, number: int = 0) -> Segment:
    """``seg`` moved to ``start_s..end_s`` with its words mapped along. Raises ``UsageError`` (negative
    start, end not after start; names segment ``number``)."""
    start_s, end_s = ms(start_s), ms(end_s)
    if start_s < 0:
        raise UsageError(f"segment {number}: start {start_s:.3f} s is before the start of the audio")
    if end_s <= start_s:
        raise UsageError(f"segment {number}: end {end_s:.3f} s must be after start {start_s:.3f} s")
    words = scale(aligned_words(seg), seg.start_s, seg.end_s, start_s, end_s, seg.text)
    return dataclasses.replace(seg, start_s=start_s, end_s=end_s, words=words)


def _mean(values: Sequence[float | None], weights: Sequence[float]) -> float | None:
    if any(v is None for v in values):
        return None
    total = sum(weights)
    if total <= 0:
        return float(values[0])  # type: ignore[arg-type]
    return sum(v * w for v, w in zip(values, weights)) / total  # type: ignore[operator]


def replace_run(run: Sequence[Segment], lines: Sequence[str]) -> tuple[Segment, ...]:
    """The segments replacing ``run`` when its text becomes ``lines`` (module docstring); a merge takes the
    first ``extra`` and duration-weighted ``avg_logprob`` / ``no_speech_prob``."""
    run, lines = list(run), list(lines)
    if not run:
        raise ValueError("replace_run needs at least one segment")
    if len(lines) == len(run):
        return tuple(retext(s, t) for s, t in zip(run, lines))
    start, end = run[0].start_s, max(s.end_s for s in run)
    pooled = [w for s in run for w in aligned_words(s)]
    words = retime(pooled, " ".join(lines), start, end)
    out: list[Segment] = []
    at = 0
    prev_end = start
    for k, line in enumerate(lines):
        n = len(tokens(line))
        mine = words[at:at + n]
        at += n
        s_start = start if k == 0 else (mine[0].start_s if mine else prev_end)
        s_end = end if k == len(lines) - 1 else (mine[-1].end_s if mine else s_start)
        s_start = min(s_start, s_end) if k else s_start
        meta = run[min(k, len(run) - 1)]
        seg = dataclasses.replace(meta, start_s=ms(s_start), end_s=ms(max(s_start, s_end)), text=line,
                                  words=tuple(mine))
        if len(lines) < len(run):
            durs = [max(0.0, s.end_s - s.start_s) for s in run]
            seg = dataclasses.replace(seg, avg_logprob=_mean([s.avg_logprob for s in run], durs),
                                      no_speech_prob=_mean([s.no_speech_prob for s in run], durs))
        out.append(seg)
        prev_end = seg.end_s
    return tuple(out)


def new_segment(text: str, start_s: float, end_s: float) -> Segment:
    """A segment typed into an empty transcript: ``text`` spread over ``start_s..end_s``."""
    toks = [t for _, _, t in tokens(text)]
    words = tuple(Word(a, b, t, 1.0) for t, (a, b) in zip(toks, interpolate(toks, start_s, end_s)))
    return Segment(ms(start_s), ms(end_s), text, words)
