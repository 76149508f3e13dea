"""LocalAgreement-n (Macháček et al. 2023; ``ufal/whisper_streaming`` ``HypothesisBuffer``): commit the
prefix n consecutive hypotheses agree on; words re-transcribing committed audio are dropped first."""
from __future__ import annotations

from collections import deque
from typing import Iterable, Sequence

from speechstudio.asr.types import Word

# Numbers from ufal/whisper_streaming HypothesisBuffer.insert.
START_TOLERANCE_S = 0.1     # keep words starting after last_committed_end - 0.1 s
NGRAM_WINDOW_S = 1.0        # look for repeated committed words when the hypothesis starts this close
MAX_NGRAM = 5               # longest repeated n-gram removed
ANCHOR_WORDS = 3            # committed words looked for in a new hypothesis (added here, see above)

SENTENCE_END = (".", "?", "!", "。", "？", "！", "…")


def ends_sentence(word: Word) -> bool:
    """True when ``word`` ends a sentence (its text ends with . ? ! or their CJK forms, after any
    closing quotes/brackets)."""
    return word.text.rstrip("\"'”’)]»").endswith(SENTENCE_END)


class LocalAgreement:
    """LocalAgreement-``n``: ``insert(hyp)`` returns the newly committed words, ``flush()`` the newest tail;
    ``n >= 1`` else ``ValueError``; ``start_s``: nothing expected before it."""

    def __init__(self, n: int = 2, *, start_s: float = 0.0) -> None:
        if int(n) < 1:
            raise ValueError(f"LocalAgreement needs n >= 1, got {n}")
        self.n = int(n)
        self.last_committed_end = float(start_s)
        self.committed: list[Word] = []          # everything committed, in order
        self.committed_in_buffer: list[Word] = []
        self._recent: deque[Word] = deque(maxlen=MAX_NGRAM)
        self._history: deque[list[Word]] = deque(maxlen=max(1, self.n - 1))  # previous uncommitted tails
        self._tail: list[Word] = []

    @property
    def tail(self) -> list[Word]:
        """The newest hypothesis' words that are not committed (still changing)."""
        return list(self._tail)

    def _anchor(self, words: list[Word]) -> int | None:
        """Index after the last committed words found in ``words`` near the last commit, or None."""
        recent = [w.text for w in self._recent]
        for k in range(min(ANCHOR_WORDS, len(recent)), 0, -1):
            best = None
            for j in range(len(words) - k + 1):
                if [w.text for w in words[j:j + k]] == recent[-k:]:
                    gap = abs(words[j + k - 1].end_s - self.last_committed_end)
                    if gap < NGRAM_WINDOW_S and (best is None or gap < best[0]):
                        best = (gap, j + k)
            if best is not None:
                return best[1]
        return None

    def _clean(self, words: Iterable[Word]) -> list[Word]:
        words = [w for w in words if w.text]
        cut = self._anchor(words)
        if cut is not None:
            return words[cut:]
        new = [w for w in words if w.start_s > self.last_committed_end - START_TOLERANCE_S]
        if new and self._recent and abs(new[0].start_s - self.last_committed_end) < NGRAM_WINDOW_S:
            recent = [w.text for w in self._recent]
            for i in range(1, min(len(recent), len(new), MAX_NGRAM) + 1):
                if recent[-i:] == [w.text for w in new[:i]]:
                    new = new[i:]
                    break
        return new

    def insert(self, words: Sequence[Word]) -> list[Word]:
        """Add one hypothesis (``Word`` list in time order); return the words it commits: the longest
        common text prefix with the ``n - 1`` previous ones, with this hypothesis' times."""
        new = self._clean(words)
        k = 0
        if self.n == 1:
            k = len(new)
        elif len(self._history) == self.n - 1:
            others = list(self._history)
            while k < len(new) and all(k < len(h) and h[k].text == new[k].text for h in others):
                k += 1
        commit = new[:k]
        self._history = deque((h[k:] for h in self._history), maxlen=self._history.maxlen)
        self._history.append(new[k:])
        self._tail = new[k:]
        self._commit(commit)
        return commit

    def _commit(self, words: list[Word]) -> None:
        if not words:
            return
        self.committed.extend(words)
        self.committed_in_buffer.extend(words)
        self._recent.extend(words)
        self.last_committed_end = max(self.last_committed_end, words[-1].end_s)

    def flush(self) -> list[Word]:
        """End of stream (or utterance): commit the newest hypothesis' tail and return it."""
        out = self._tail
        self._commit(out)
        self._tail = []
        self._history.clear()
        return out

    def force(self, upto_s: float) -> list[Word]:
        """Commit the tail's words that end at or before ``upto_s`` (seconds), without agreement:
        for a buffer that must be cut before any word there was agreed on. Returns them."""
        k = 0
        while k < len(self._tail) and self._tail[k].end_s <= upto_s:
            k += 1
        out = self._tail[:k]
        self._tail = self._tail[k:]
        self._history.clear()           # agreement starts again from the next hypothesis
        self._commit(out)
        return out

    def pop_committed(self, time_s: float) -> None:
        """Forget committed words ending at or before ``time_s``: the buffer was cut there."""
        while self.committed_in_buffer and self.committed_in_buffer[0].end_s <= time_s:
            self.committed_in_buffer.pop(0)

    def last_sentence_end(self) -> float | None:
        """End time (s) of the last committed word in the buffer that ends a sentence, or None."""
        return next((w.end_s for w in reversed(self.committed_in_buffer) if ends_sentence(w)), None)


