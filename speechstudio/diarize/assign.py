"""Put speaker labels on a transcript (:func:`label_segments`): each word gets the speaker of the timeline around
it (``overlap`` set where another talks at once; no word is ever dropped), each segment is split where the speaker
changes, at a word boundary. The rules: ``docs/diarization.md``, How it works (label)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from speechstudio.asr.types import Segment, Word
from speechstudio.transcript.display import align, join_tokens


#: A run of at most this many words and this short between two runs is re-labelled to its
#: neighbour (a speaker change for one short word is usually a frame or two of the timeline).
SHORT_RUN_WORDS = 1
SHORT_RUN_S = 0.5
#: A word outside every turn takes the nearest turn this close (s), else no speaker.
NEAREST_S = 3.0


@dataclass(frozen=True)
class Turn:
    """One stretch of one speaker: ``start_s`` / ``end_s`` seconds, ``speaker`` label."""

    start_s: float
    end_s: float
    speaker: str


class _Timeline:
    """Who speaks at any time, from the turns: the speaker whose turns cover most of the span (two at
    once: the one whose turn covers it longer); none covering it -> the nearest turn within ``NEAREST_S``."""

    def __init__(self, turns: list[Turn]) -> None:
        self.spans = np.asarray([(t.start_s, t.end_s) for t in turns], float).reshape(-1, 2)
        self.names = [t.speaker for t in turns]

    def at(self, t0: float, t1: float | None = None) -> str | None:
        t1 = t0 if t1 is None else t1
        if not self.names:
            return None
        cover = np.minimum(self.spans[:, 1], t1) - np.maximum(self.spans[:, 0], t0)
        inside = (self.spans[:, 0] <= t1) & (self.spans[:, 1] >= t0)
        if inside.any():
            votes: dict[str, float] = {}
            for i in np.nonzero(inside)[0]:
                votes[self.names[i]] = votes.get(self.names[i], 0.0) + max(float(cover[i]), 0.0) + 1e-6 * (self.spans[i, 1] - self.spans[i, 0])
            return max(votes, key=votes.get)
        gap = np.maximum(self.spans[:, 0] - t1, t0 - self.spans[:, 1])
        i = int(np.argmin(gap))
        return self.names[i] if gap[i] <= NEAREST_S else None

    def overlap(self, t0: float, t1: float) -> bool:
        """Two or more speakers talk at the middle of ``t0``..``t1``."""
        mid = (t0 + t1) / 2
        inside = (self.spans[:, 0] <= mid) & (self.spans[:, 1] >= mid)
        return len({self.names[i] for i in np.nonzero(inside)[0]}) > 1


def _texts(seg: Segment, runs: list[list[Word]]) -> list[str]:
    """The text of each run of ``seg``'s words: the stretch of the segment text they cover (so CJK
    stays unspaced and c'est whole), else their tokens joined by script rules."""

    words = [w for run in runs for w in run]
    spans = align(seg.text, [w.text for w in words])
    if spans is None:
        return [join_tokens([w.text for w in run]) for run in runs]
    out, k = [], 0
    for run in runs:
        a, b = spans[k][0], spans[k + len(run) - 1][1]
        out.append(seg.text[a:b].strip())
        k += len(run)
    return out


def _smooth(labels: list[str | None], words: tuple[Word, ...]) -> list[str | None]:
    out = list(labels)
    # words without a label take their neighbour's
    for i in range(len(out)):
        if out[i] is None:
            out[i] = next((out[j] for j in range(i - 1, -1, -1) if out[j] is not None), None) or \
                     next((out[j] for j in range(i + 1, len(out)) if out[j] is not None), None)
    # one-word runs between two runs of one speaker: a change a frame or two off
    i = 0
    while i < len(out):
        j = i
        while j + 1 < len(out) and out[j + 1] == out[i]:
            j += 1
        n, dur = j - i + 1, words[j].end_s - words[i].start_s
        if 0 < i and j + 1 < len(out) and out[i - 1] == out[j + 1] and n <= SHORT_RUN_WORDS and dur <= SHORT_RUN_S:
            for k in range(i, j + 1):
                out[k] = out[i - 1]
        i = j + 1
    return out


def label_segments(segments: list[Segment], turns: list[Turn]) -> list[Segment]:
    """``segments`` with ``speaker`` set on every segment and word from the speaker timeline ``turns``,
    split at speaker changes. Segments without words take the speaker who talks most in their span.
    Words and text are never dropped."""
    line = _Timeline(turns)
    out: list[Segment] = []
    for seg in segments:
        words = tuple(seg.words)
        if not words:
            out.append(dataclasses.replace(seg, speaker=line.at(seg.start_s, seg.end_s)))
            continue
        who = _smooth([line.at(w.start_s, w.end_s) for w in words], words)
        runs: list[tuple[str | None, list[Word]]] = []
        for w, s in zip(words, who):
            w = dataclasses.replace(w, speaker=s, overlap=line.overlap(w.start_s, w.end_s))
            if runs and runs[-1][0] == s:
                runs[-1][1].append(w)
            else:
                runs.append((s, [w]))
        if len(runs) == 1:
            out.append(dataclasses.replace(seg, words=tuple(runs[0][1]), speaker=runs[0][0]))
            continue
        texts = _texts(seg, [ws for _, ws in runs])
        for i, ((s, ws), text) in enumerate(zip(runs, texts)):
            start = seg.start_s if i == 0 else ws[0].start_s
            end = seg.end_s if i == len(runs) - 1 else ws[-1].end_s
            out.append(dataclasses.replace(seg, start_s=start, end_s=end, text=text, words=tuple(ws), speaker=s))
    return out


def talk_time(turns: list[Turn]) -> dict[str, float]:
    """Seconds of speech per speaker, from the timeline."""
    out: dict[str, float] = {}
    for t in turns:
        out[t.speaker] = round(out.get(t.speaker, 0.0) + (t.end_s - t.start_s), 3)
    return out
