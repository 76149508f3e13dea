"""Vocabulary-constrained CTC prefix beam search (Hannun et al. 2014, Alg. 1) over a character trie of
allowed words (Baevski et al. 2020 sec. 4.3, no LM); ``oov_penalty`` nats per unknown word (inf: strict).
``feed`` returns the words all hypotheses agree on; times as :mod:`.ctc`."""
from __future__ import annotations

import heapq
import math
from operator import itemgetter
from typing import Iterable, Sequence

import numpy as np

from speechstudio.asr.types import Word

#: The word list a model folder may hold: one word per line, UTF-8 (written by ``finetune asr``).
VOCABULARY_FILE = "vocabulary.txt"

#: Nats added per word not in the list (e^8 ~ 3000): swaps two or three unsure characters, never sure ones.
DEFAULT_OOV_PENALTY = 8.0
#: Per-frame log-probability below which a token is not tried (natural log; Hannun et al. prune at 0.001).
DEFAULT_TOKEN_PRUNE = -8.0
BEAM = 16
#: At most this many tokens tried per frame (torchaudio's ``beam_size_token``).
BEAM_TOKENS = 8
#: Hypotheses more than this many nats below the best are dropped (flashlight's ``beamthreshold``;
#: 1.5 x the OOV penalty, as there is no LM), so the beam agrees on a finished word soon after it ends.
BEAM_THRESHOLD = 12.0

_NEG_INF = -math.inf


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """Log-softmax over the last axis: ``np.ndarray[float32]`` shape (n_frames, vocab) from CTC
    logits of that shape (natural log, computed stably)."""
    x = np.asarray(logits, np.float32)
    m = x.max(axis=-1, keepdims=True)
    z = x - m
    return (z - np.log(np.exp(z).sum(axis=-1, keepdims=True))).astype(np.float32)


def read_vocabulary(path) -> list[str]:
    """The words of a ``vocabulary.txt`` (one per line, UTF-8; blank lines skipped; a line with
    spaces gives several words). Raises ``OSError`` / ``UnicodeDecodeError``."""
    with open(path, encoding="utf-8") as fh:
        return [w for line in fh for w in line.split()]


def _lae(a: float, b: float) -> float:
    """log(exp(a) + exp(b))."""
    if a < b:
        a, b = b, a
    if b == _NEG_INF:
        return a
    return a + math.log1p(math.exp(b - a))


class _Node:
    __slots__ = ("next", "word")

    def __init__(self) -> None:
        self.next: dict[int, _Node] = {}
        self.word = False


class Lexicon:
    """A read-only character trie of ``words`` spelled in a CTC vocabulary, matched case-insensitively (as written,
    lower, upper, capitalised); ``size``: words that could be spelled; ``unspellable``: the others."""

    def __init__(self, words: Iterable[str], id_to_token: Sequence[str], word_delimiter: str = "|",
                 skip_ids: Iterable[int] = (), blank_id: int | None = None) -> None:
        exact: dict[str, int] = {}
        folded: dict[str, int] = {}
        bad = set(skip_ids) | ({blank_id} if blank_id is not None else set())
        for i, t in enumerate(id_to_token):
            if i in bad or not t or len(t) != 1 or t == word_delimiter or t.isspace():
                continue
            exact.setdefault(t, i)
            folded.setdefault(t.casefold(), i)
        self.root = _Node()
        self.size = 0
        self.unspellable: list[str] = []
        seen: set[str] = set()
        for raw in words:
            for w in str(raw).split():
                key = w.casefold()
                if key in seen:
                    continue
                seen.add(key)
                spelled = False
                for variant in dict.fromkeys((w, w.lower(), w.upper(), w.capitalize())):
                    ids = [exact.get(ch, folded.get(ch.casefold())) for ch in variant]
                    if None in ids:
                        continue
                    node = self.root
                    for i in ids:
                        node = node.next.setdefault(i, _Node())
                    node.word = spelled = True
                if spelled:
                    self.size += 1
                else:
                    self.unspellable.append(w)

    def __deepcopy__(self, memo) -> "Lexicon":
        return self  # immutable once built


class LexiconCTCDecoder:
    """Streaming CTC prefix beam search held to a word list (``words`` or a :class:`Lexicon`): ``seconds_per_frame``
    (0.02 for Wav2Vec2), ``oov_penalty`` nats, ``token_prune``; :data:`BEAM` hypotheses within :data:`BEAM_THRESHOLD`
    of the best. ``GreedyCTCDecoder``'s interface, but :meth:`feed` takes log-probabilities."""

    def __init__(self, id_to_token: Sequence[str], blank_id: int, word_delimiter: str = "|",
                 skip_ids: Iterable[int] = frozenset(), seconds_per_frame: float = 0.02,
                 words: Iterable[str] | Lexicon = (), oov_penalty: float = DEFAULT_OOV_PENALTY,
                 token_prune: float = DEFAULT_TOKEN_PRUNE) -> None:
        if not oov_penalty >= 0:
            raise ValueError(f"oov_penalty {oov_penalty}: expected >= 0 (nats) or math.inf")
        self.id_to_token = list(id_to_token)
        self.blank_id = int(blank_id)
        self.word_delimiter = word_delimiter
        self.skip_ids = frozenset(int(i) for i in skip_ids) - {self.blank_id}
        self.seconds_per_frame = float(seconds_per_frame)
        self.lexicon = words if isinstance(words, Lexicon) else Lexicon(words, self.id_to_token, word_delimiter,
                                                                        self.skip_ids, self.blank_id)
        self.oov_penalty = float(oov_penalty)
        self.token_prune = float(token_prune)
        self._strict = math.isinf(self.oov_penalty)
        self._delim = next((i for i, t in enumerate(self.id_to_token) if t == word_delimiter), None)
        self._never = np.array(sorted(self.skip_ids | {self.blank_id}), np.int64)
        self._beams = self._start()

    # A hypothesis: key (completed word texts, token ids of the current word) ->
    # [log p_b, log p_nb, penalty (<= 0), trie node of the current word (None: left the trie,
    #  already penalised), completed Words, per-char records (start, end, p_sum, n, peaked)].
    def _start(self) -> dict:
        return {((), ()): [0.0, _NEG_INF, 0.0, self.lexicon.root, (), ()]}

    def __deepcopy__(self, memo) -> "LexiconCTCDecoder":
        new = object.__new__(LexiconCTCDecoder)
        new.__dict__.update(self.__dict__)
        new._beams = {k: list(v) for k, v in self._beams.items()}
        return new

    # ------------------------------------------------------------------ public API
    def feed(self, log_probs: np.ndarray, first_frame: int) -> list[Word]:
        """Decode CTC log-softmax ``log_probs`` (float32 ``(n_frames, vocab)``, first frame = global
        ``first_frame``); returns the words that became final. Raises ``ValueError`` for a wrong shape."""
        lp = np.asarray(log_probs, np.float64)
        if lp.ndim != 2 or lp.shape[1] != len(self.id_to_token):
            raise ValueError(f"log_probs shape {lp.shape}: expected (n_frames, {len(self.id_to_token)})")
        n = lp.shape[0]
        if n == 0:
            return []
        if self.skip_ids:
            blank = np.logaddexp.reduce(lp[:, self._never], axis=1)
        else:
            blank = lp[:, self.blank_id]
        mask = lp >= self.token_prune
        mask[:, self._never] = False
        k = BEAM_TOKENS
        if k < lp.shape[1] and int(mask.sum(axis=1).max()) > k:
            kth = np.partition(np.where(mask, lp, -np.inf), -k, axis=1)[:, -k]
            mask &= lp >= kth[:, None]
        frames, toks = np.nonzero(mask)
        bounds = np.searchsorted(frames, np.arange(n + 1)).tolist()
        toks = toks.tolist()
        argmax = lp.argmax(axis=1).tolist()
        rows = lp.tolist()
        blank = blank.tolist()
        done: list[Word] = []
        for i in range(n):
            self._step(rows[i], blank[i], toks[bounds[i]:bounds[i + 1]], argmax[i], first_frame + i)
            # while every hypothesis has the same first completed word: pop it off them all, keep the best one's record
            while len(firsts := {w[0] if w else None for w, _cur in self._beams}) == 1 and None not in firsts:
                best = max(self._beams.values(), key=lambda h: _lae(h[0], h[1]) + h[2])
                done.append(best[4][0])
                self._beams = {(k[0][1:], k[1]): [h[0], h[1], h[2], h[3], h[4][1:], h[5]]
                               for k, h in self._beams.items()}
        return done

    def finish(self) -> list[Word]:
        """End of stream: the words of the best hypothesis not yet returned (its last word counts
        as ended), then the decoder starts afresh."""
        best, best_s, keep = None, _NEG_INF, False
        for key, h in self._beams.items():
            s = _lae(h[0], h[1]) + h[2]
            if key[1] and h[3] is not None and not h[3].word:
                s -= self.oov_penalty
            if best is None or s > best_s:
                best, best_s, keep = (key, h), s, True
        if best is not None and best_s == _NEG_INF:  # strict: every hypothesis ends inside a non-word
            key, h = max(self._beams.items(), key=lambda kv: _lae(kv[1][0], kv[1][1]) + kv[1][2])
            best, keep = (key, h), False
        out: list[Word] = []
        if best is not None:
            key, h = best
            out = list(h[4])
            if key[1] and keep:
                out.append(self._word(key[1], h[5]))
        self._beams = self._start()
        return out

    # ------------------------------------------------------------------ internals
    def _word(self, cur: tuple, recs: tuple) -> Word:
        spf = self.seconds_per_frame
        probability = round(float(np.mean([r[2] / r[3] for r in recs])), 4)
        return Word(round(recs[0][0] * spf, 3), round(recs[-1][1] * spf, 3),
                    "".join(self.id_to_token[c] for c in cur), probability)

    def _step(self, row: list, lb: float, cand: list, am: int, t: int) -> None:
        prune, delim, oov, strict = self.token_prune, self._delim, self.oov_penalty, self._strict
        tokens, exp, log1p = self.id_to_token, math.exp, math.log1p
        hyps = []
        best = _NEG_INF
        for key, h in self._beams.items():
            b, nb = h[0], h[1]
            tot = (b + log1p(exp(nb - b)) if nb != _NEG_INF else b) if b >= nb else nb + log1p(exp(b - nb))
            hyps.append((key, h, tot))
            if tot + h[2] > best:
                best = tot + h[2]
        # The best hypothesis' blank continuation is a lower bound of the next best score: anything
        # further below it than the beam threshold (with room for a key's few merged paths) is
        # dropped at the end of the frame anyway, so it is not built.
        floor = best + lb - BEAM_THRESHOLD - 1.1
        grow_floor = floor - max([row[c] for c in cand], default=_NEG_INF)
        new: dict = {}
        # 1) the prefix stays: a blank, or the last label repeated (non-blank path continues)
        for key, h, tot in hyps:
            b, nb, pen, node, wrecs, crecs = h
            cur = key[1]
            nb2 = _NEG_INF
            if cur:
                c = cur[-1]
                lc = row[c]
                if nb != _NEG_INF and lc >= prune:
                    nb2 = nb + lc
                    if am == c:
                        s, e, ps, k, peaked = crecs[-1]
                        p = exp(lc)
                        rec = (s, t + 1, ps + p, k + 1, True) if peaked else (t, t + 1, p, 1, True)
                        crecs = crecs[:-1] + (rec,)
            elif delim is not None and row[delim] >= prune:
                nb2 = tot + row[delim]           # '|' after '|' or before the first word: no change
            if tot + lb + pen >= floor or nb2 + pen >= floor:
                new[key] = [tot + lb, nb2, pen, node, wrecs, crecs]
        # 2) the prefix grows by one label
        for key, h, tot in hyps:
            b, nb, pen, node, wrecs, crecs = h
            if tot + pen < grow_floor:
                continue                         # no extension of this one can reach the floor
            words, cur = key
            last = cur[-1] if cur else None
            for c in cand:
                lc = row[c]
                if c == delim:
                    if not cur:
                        continue
                    p2 = pen
                    if node is not None and not node.word:
                        if strict:
                            continue
                        p2 = pen - oov
                    score = tot + lc
                    if score + p2 < floor:
                        continue
                    nk = (words + ("".join([tokens[i] for i in cur]),), ())
                    ent = new.get(nk)
                    if ent is None:
                        new[nk] = [_NEG_INF, score, p2, self.lexicon.root, wrecs + (self._word(cur, crecs),), ()]
                    else:
                        ent[1] = _lae(ent[1], score)
                    continue
                src = b if c == last else tot
                if src == _NEG_INF:
                    continue
                p2, child = pen, None
                if node is not None:
                    child = node.next.get(c)
                    if child is None:
                        if strict:
                            continue
                        p2 = pen - oov
                score = src + lc
                if score + p2 < floor:
                    continue
                nk = (words, cur + (c,))
                ent = new.get(nk)
                if ent is None:
                    new[nk] = [_NEG_INF, score, p2, child, wrecs, crecs + ((t, t + 1, exp(lc), 1, am == c),)]
                else:
                    ent[1] = _lae(ent[1], score)
        scored = [(_lae(h[0], h[1]) + h[2], k) for k, h in new.items()]
        top = max(s for s, _ in scored) - BEAM_THRESHOLD
        if len(scored) > BEAM:
            scored = heapq.nlargest(BEAM, scored, key=itemgetter(0))
        self._beams = {k: new[k] for s, k in scored if s >= top}
