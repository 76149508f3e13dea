"""Put speaker labels on a transcript: each word gets the speaker of the windows around it, each
segment is split where the speaker changes (at a word boundary), and the speaker timeline (turns)
is kept for the JSON and for scoring.

Overlapping speech: a mono recording is one stream of words for the recogniser, so each word gets
its most likely speaker and no word is ever dropped; with ``--channels split`` each channel is its
own stream and overlapping turns are two segments at once.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from speechstudio.asr.types import Segment, Word
from speechstudio.transcript.display import align, join_tokens


#: A run of at most this many words and this short between two runs is re-labelled to its
#: neighbour (a speaker change for one short word is usually a window straddling a change).
SHORT_RUN_WORDS = 1
SHORT_RUN_S = 0.5
#: Pauses shorter than this inside one speaker's speech belong to their turn (references of real
#: conversations count them as speech: bench/bench_diarization.py, docs/diarization.md).
JOIN_S = 1.0


@dataclass(frozen=True)
class Turn:
    """One stretch of one speaker: ``start_s`` / ``end_s`` seconds, ``speaker`` label."""

    start_s: float
    end_s: float
    speaker: str


def _mode_filter(labels: np.ndarray) -> np.ndarray:
    if labels.size < 3:
        return labels
    out = labels.copy()
    for i in range(1, labels.size - 1):
        if labels[i - 1] == labels[i + 1] != labels[i]:
            out[i] = labels[i - 1]
    return out


class _Timeline:
    """Label lookup at any time from window labels: windows covering ``t`` vote with a weight that
    falls off from the window's centre; none covering it -> the nearest window within 3 s."""

    def __init__(self, times: np.ndarray, labels: np.ndarray, names: list[str]) -> None:
        self.times = np.asarray(times, float).reshape(-1, 2)
        self.centres = self.times.mean(axis=1) if self.times.size else np.zeros(0)
        self.labels = _mode_filter(np.asarray(labels, int))
        self.names = names

    def at(self, t0: float, t1: float | None = None) -> str | None:
        t1 = t0 if t1 is None else t1
        mid = (t0 + t1) / 2
        if not self.centres.size:
            return None
        cover = (self.times[:, 0] <= t1) & (self.times[:, 1] >= t0)
        if cover.any():
            half = (self.times[cover, 1] - self.times[cover, 0]) / 2
            w = np.maximum(1e-3, 1.0 - np.abs(self.centres[cover] - mid) / np.maximum(half, 1e-3))
            votes: dict[int, float] = {}
            for k, wi in zip(self.labels[cover], w):
                votes[int(k)] = votes.get(int(k), 0.0) + float(wi)
            return self.names[max(votes, key=votes.get)]
        i = int(np.argmin(np.abs(self.centres - mid)))
        if abs(self.centres[i] - mid) <= 3.0:
            return self.names[int(self.labels[i])]
        return None


def turns_from_windows(times: np.ndarray, labels: np.ndarray, names: list[str], speech: np.ndarray) -> list[Turn]:
    """The speaker timeline: VAD speech spans ``speech`` (m, 2) seconds cut where the window labels
    change (at 0.1 s resolution); pieces of one speaker less than ``JOIN_S`` apart are one turn."""
    line = _Timeline(times, labels, names)
    turns: list[Turn] = []
    for s0, s1 in np.asarray(speech, float).reshape(-1, 2):
        t = float(s0)
        while t < s1 - 1e-6:
            e = min(float(s1), t + 0.1)
            who = line.at(t, e)
            if who is not None:
                if turns and turns[-1].speaker == who and t - turns[-1].end_s < JOIN_S:
                    turns[-1] = Turn(turns[-1].start_s, round(e, 3), who)
                else:
                    turns.append(Turn(round(t, 3), round(e, 3), who))
            t = e
    return turns


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
    # one-word runs between two runs of one speaker: a window straddling a change
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


def label_segments(segments: list[Segment], times: np.ndarray, labels: np.ndarray, names: list[str]) -> list[Segment]:
    """``segments`` with ``speaker`` set on every segment and word, split at speaker changes.

    ``times`` (n, 2) / ``labels`` (n,): the embedded windows and their speaker index; ``names``:
    the display name of each index. Segments without words take the speaker who talks most in their span. Words and
    text are never dropped."""
    line = _Timeline(times, labels, names)
    out: list[Segment] = []
    for seg in segments:
        words = tuple(seg.words)
        if not words:
            out.append(dataclasses.replace(seg, speaker=line.at(seg.start_s, seg.end_s)))
            continue
        who = _smooth([line.at(w.start_s, w.end_s) for w in words], words)
        runs: list[tuple[str | None, list[Word]]] = []
        for w, s in zip(words, who):
            w = dataclasses.replace(w, speaker=s)
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
