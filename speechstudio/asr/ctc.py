"""Greedy CTC decoding across window boundaries (Graves et al. 2006) with word times from frame offsets
(as ``Wav2Vec2CTCTokenizer``); results equal one long pass."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

import numpy as np

from speechstudio.asr.types import Segment, Word


@dataclass
class _Char:
    text: str
    start: int  # global frame
    end: int    # global frame, exclusive
    p_sum: float = 0.0  # softmax probability of this character summed over its frames
    n: int = 0          # frames summed


@dataclass
class GreedyCTCDecoder:
    """Streaming greedy CTC decoder: ``id_to_token`` (vocabulary by id), ``blank_id``,
    ``word_delimiter`` (``"|"``), ``skip_ids`` (other special tokens to drop)."""

    id_to_token: Sequence[str]
    blank_id: int
    word_delimiter: str = "|"
    skip_ids: frozenset[int] = frozenset()
    seconds_per_frame: float = 0.02
    _prev: int = -1
    _word: list[_Char] = field(default_factory=list)

    def feed(self, ids: np.ndarray, first_frame: int, probs: np.ndarray | None = None) -> list[Word]:
        """Decode arg-max ids int (n_frames,) starting at global frame ``first_frame``; return the words completed
        (followed by a delimiter). ``probs`` (n_frames,): arg-max softmax probabilities; a word's ``probability`` is
        the mean of its characters' mean (as openai/whisper's mean token probability), else 1.0."""
        done: list[Word] = []
        prev = self._prev
        p = None if probs is None else np.asarray(probs, np.float64).tolist()
        for i, tok in enumerate(np.asarray(ids).tolist()):
            frame = first_frame + i
            if tok == prev:
                if (self._word and tok != self.blank_id and tok not in self.skip_ids
                        and self.id_to_token[tok] != self.word_delimiter):
                    self._word[-1].end = frame + 1
                    if p is not None:
                        self._word[-1].p_sum += p[i]
                        self._word[-1].n += 1
                continue
            prev = tok
            if tok == self.blank_id or tok in self.skip_ids:
                continue
            text = self.id_to_token[tok]
            if text == self.word_delimiter:
                done += self._flush()
            else:
                self._word.append(_Char(text, frame, frame + 1, p[i] if p is not None else 0.0, int(p is not None)))
        self._prev = prev
        return done

    def _flush(self) -> list[Word]:
        if not self._word:
            return []
        chars, self._word = self._word, []
        spf = self.seconds_per_frame
        scored = [c.p_sum / c.n for c in chars if c.n]
        probability = round(float(np.mean(scored)), 4) if scored else 1.0
        return [Word(round(chars[0].start * spf, 3), round(chars[-1].end * spf, 3),
                     "".join(c.text for c in chars), probability)]

    def finish(self) -> list[Word]:
        """End of stream: return the last word, if any."""
        words = self._flush()
        self._prev = -1
        return words


def group_segments(words: Iterable[Word], max_gap_s: float = 0.6, max_len_s: float = 12.0,
                   max_words: int = 30) -> Iterator[Segment]:
    """Group words into subtitle-sized segments, split after a ``max_gap_s`` pause or beyond
    ``max_len_s`` seconds / ``max_words`` words (CTC gives no punctuation)."""
    cur: list[Word] = []
    for w in words:
        if cur and (w.start_s - cur[-1].end_s >= max_gap_s or w.end_s - cur[0].start_s > max_len_s
                    or len(cur) >= max_words):
            yield _segment(cur)
            cur = []
        cur.append(w)
    if cur:
        yield _segment(cur)


def _segment(words: list[Word]) -> Segment:
    """A segment of ``words``; ``avg_logprob`` is the mean of ``log(word.probability)``."""
    logp = float(np.mean([np.log(max(w.probability, 1e-12)) for w in words]))
    return Segment(words[0].start_s, words[-1].end_s, " ".join(w.text for w in words), tuple(words),
                   avg_logprob=round(logp, 4))
