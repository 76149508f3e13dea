"""Group window embeddings into speakers, with a count measured in each recording.

An average-linkage tree of the windows (cosine; Sell et al. 2018, DIHARD) is cut at
``LINK_DISTANCE`` into groups; groups under ``MIN_TALK_S`` are no voice of their own. Two groups are
two people when ``min(within_a, within_b) - between >= SEPARATION`` (mean cosine of window pairs that
do not overlap in time, both measured in this recording); the closest pair merges first. A decision
within ``SURE_MARGIN`` makes the count unsure. ``--speakers N`` is law (merge, or cut the tree at N);
each window joins the nearest group mean. Numbers and the variants that lost: ``docs/diarization.md``
(``bench/bench_diarization.py``, real shared-channel conversations).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from speechstudio.diarize.speakers import SpeakerCount


LINK_DISTANCE = 0.35   #: cosine distance of the over-split (1 s windows)
MIN_TALK_S = 2.0       #: a group shorter than this is not a voice of its own
SEPARATION = 0.04      #: own-group minus other-group mean similarity that makes two people
SURE_MARGIN = 0.015    #: a decision this close to SEPARATION is reported as unsure
MAX_POINTS = 3000      #: windows clustered at once (more: k-means summary first)
MAX_PAIRS = 2000       #: windows whose pairwise similarities measure the gaps


@dataclass(frozen=True)
class Clustering:
    """``labels`` int (n,) speaker index per window, 0..k-1 in order of first appearance;
    ``other_count``: the count the evidence also allows (``"2 or 3 speakers: check"``), ``None``
    when sure; ``one_voice``: more speakers were asked for than the voices heard (one voice, surely)."""

    labels: np.ndarray
    other_count: int | None = None
    one_voice: bool = False

    @property
    def count(self) -> int:
        return int(self.labels.max()) + 1 if self.labels.size else 0


def unit(x: np.ndarray) -> np.ndarray:
    """``x`` scaled to unit norm along its last axis."""
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-9)


def _tree(x: np.ndarray):
    """Average-linkage tree of ``x`` (cosine), and how to map its leaves back to the windows."""
    from scipy.cluster.hierarchy import linkage

    if len(x) <= MAX_POINTS:
        return linkage(x, "average", metric="cosine"), np.arange(len(x))
    from sklearn.cluster import MiniBatchKMeans

    km = MiniBatchKMeans(n_clusters=MAX_POINTS, random_state=0, n_init=1, batch_size=4096).fit(x)
    return linkage(unit(km.cluster_centers_), "average", metric="cosine"), km.labels_


def _cut(tree, leaves: np.ndarray, *, distance: float | None = None, clusters: int | None = None) -> np.ndarray:
    from scipy.cluster.hierarchy import fcluster

    if distance is not None:
        return fcluster(tree, distance, "distance")[leaves] - 1
    return fcluster(tree, clusters, "maxclust")[leaves] - 1


class _Gaps:
    """Mean similarity of non-overlapping window pairs within and between groups, on at most
    ``MAX_PAIRS`` windows (seeded sample)."""

    def __init__(self, x: np.ndarray, times: np.ndarray) -> None:
        pick = np.arange(len(x))
        if len(x) > MAX_PAIRS:
            pick = np.sort(np.random.default_rng(0).choice(len(x), MAX_PAIRS, replace=False))
        t = times[pick]
        self.pick = pick
        self.valid = ~((t[:, None, 0] < t[None, :, 1]) & (t[None, :, 0] < t[:, None, 1]))
        self.sim = (x[pick] @ x[pick].T) * self.valid

    def table(self, groups: list[np.ndarray]) -> np.ndarray:
        """(g, g) gaps ``min(within_i, within_j) - between_ij``; +inf on the diagonal."""
        member = np.zeros((len(self.pick), len(groups)))
        where = {w: i for i, w in enumerate(self.pick)}
        for j, g in enumerate(groups):
            rows = [where[w] for w in g if w in where]
            member[rows, j] = 1.0
        sums = member.T @ self.sim @ member
        counts = member.T @ self.valid.astype(float) @ member
        mean = np.where(counts > 0, sums / np.maximum(counts, 1), 1.0)
        within = np.diag(mean)
        gap = np.minimum(within[:, None], within[None, :]) - mean
        np.fill_diagonal(gap, np.inf)
        return gap


def _merge(groups: list[np.ndarray], gaps: _Gaps, *, until: int | None = None) -> tuple[list[np.ndarray], list[float], float]:
    """Merge the closest pair while it is not separated (or while more than ``until`` groups).
    Returns the groups, the gaps merged, and the smallest gap left (inf with one group)."""
    merged: list[float] = []
    while len(groups) > 1:
        table = gaps.table(groups)
        i, j = np.unravel_index(int(np.argmin(table)), table.shape)
        smallest = float(table[i, j])
        if (until is None and smallest >= SEPARATION) or (until is not None and len(groups) <= until):
            return groups, merged, smallest
        merged.append(smallest)
        groups = [g for k, g in enumerate(groups) if k not in (i, j)] + [np.concatenate([groups[i], groups[j]])]
    return groups, merged, float("inf")


def _assign(x: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    cents = unit(np.stack([x[g].mean(axis=0) for g in groups]))
    return np.argmax(x @ cents.T, axis=1)


def _in_order(labels: np.ndarray) -> np.ndarray:
    order: dict[int, int] = {}
    for k in labels:
        order.setdefault(int(k), len(order))
    return np.asarray([order[int(k)] for k in labels], int)


def cluster_windows(embeddings: np.ndarray, times: np.ndarray, count: SpeakerCount,
                    hop_s: float) -> Clustering:
    """Speakers of the windows: unit-norm ``embeddings`` float32 (n, 256) of windows at ``times``
    float (n, 2) seconds, one every ``hop_s`` seconds. The count stays within ``count`` unless the
    recording is surely one voice."""
    x = np.asarray(embeddings, np.float64)
    times = np.asarray(times, np.float64).reshape(-1, 2)
    n = len(x)
    min_windows = max(2, int(round(MIN_TALK_S / hop_s)))
    if n == 0:
        return Clustering(np.zeros(0, int))
    if count.max_speakers <= 1 or n < 2:
        return Clustering(np.zeros(n, int))
    if n < 2 * min_windows:                 # too little speech to measure: the asked count, if any
        want = min(count.min_speakers, n)
        return Clustering(_in_order(_cut(*_tree(x), clusters=want)) if want > 1 else np.zeros(n, int))
    tree, leaves = _tree(x)
    over = _cut(tree, leaves, distance=LINK_DISTANCE)
    groups = [np.nonzero(over == k)[0] for k in np.unique(over)]
    groups = [g for g in groups if len(g) >= min_windows] or [np.arange(n)]
    gaps = _Gaps(x, times)
    voices, merged, left = _merge(list(groups), gaps)
    found = len(voices)
    other = None
    if merged and merged[-1] > SEPARATION - SURE_MARGIN:
        other = found + 1
    elif found > 1 and left < SEPARATION + SURE_MARGIN:
        other = found - 1
    want = min(max(found, count.min_speakers), count.max_speakers, n)
    one_voice = found == 1 and other is None and want > 1
    if want < found:
        voices, _, _ = _merge(voices, gaps, until=want)
    elif want > found:
        split = _cut(tree, leaves, clusters=want)
        voices = [np.nonzero(split == k)[0] for k in np.unique(split)]
    if want != found:
        other = None     # the count was asked for
    labels = _assign(x, voices) if len(voices) > 1 else np.zeros(n, int)
    if len(np.unique(labels)) < len(voices):          # a group no window is nearest to keeps its own
        labels = np.zeros(n, int)
        for k, g in enumerate(voices):
            labels[g] = k
    return Clustering(_in_order(labels), other, one_voice)
