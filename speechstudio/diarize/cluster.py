"""Who the local speakers of the chunks are across the recording (:func:`cluster_chunks`: average-linkage
clustering of their voice prints, Sell et al. 2018; Hungarian assignment, pyannote 3.1; chunks without prints by
pyannote.audio 2.0's stitching) and the speaker timeline (:func:`timeline`: pyannote.audio's ``reconstruct`` /
``to_diarization``). The rules, the numbers and the variants that lost: ``docs/diarization.md`` (How it works;
the benchmark, ``bench/bench_diarization.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from speechstudio.diarize.assign import Turn
from speechstudio.diarize.segmentation import FRAME_DURATION_S, FRAME_STEP_S
from speechstudio.diarize.speakers import SpeakerCount


THRESHOLD = 0.40     #: cosine distance at which the tree is cut (pyannote 3.1 cuts WeSpeaker's at 0.70)
MIN_SOLO_S = 1.0     #: solo speech (s) of a local speaker for its voice print to shape the clusters
MIN_MEMBERS = 1      #: voice prints a cluster needs to be a voice of its own (pyannote 3.1: 12, on longer files)
MAX_TREE = 2000      #: voice prints in the tree at most (evenly picked; the rest are only assigned)
APART_SHARE = 0.2    #: share of printed chunks with m local speakers (each alone >= MIN_SOLO_S) that makes m voices
APART_CHUNKS = 3     #: ... and at least this many such chunks


@dataclass(frozen=True)
class Clustering:
    """``assigned`` int (c, 3): the cluster of each chunk's local speaker, -1 for none;
    ``centroids`` float32 (k, 192) unit norm; ``other_count``: the count the evidence also allows,
    ``None`` when sure; ``heard``: the voices heard when more speakers were asked for, else ``None``."""

    assigned: np.ndarray
    centroids: np.ndarray
    other_count: int | None = None
    heard: int | None = None

    @property
    def count(self) -> int:
        return int(len(self.centroids))


def unit(x: np.ndarray) -> np.ndarray:
    """``x`` scaled to unit norm along its last axis."""
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-9)


def ahc(x: np.ndarray, *, threshold: float | None = None, clusters: int | None = None) -> np.ndarray:
    """Cluster index (0..k-1) of each row of ``x`` float (n, d): an average-linkage tree on cosine
    distance cut at ``threshold`` or into ``clusters``."""
    from scipy.cluster.hierarchy import fcluster, linkage

    if len(x) < 2:
        return np.zeros(len(x), int)
    tree = linkage(np.asarray(x, np.float64), "average", metric="cosine")
    if threshold is not None:
        return fcluster(tree, threshold, "distance") - 1
    return fcluster(tree, clusters, "maxclust") - 1


def _voices(x: np.ndarray, labels: np.ndarray, min_members: int) -> list[np.ndarray]:
    """Unit mean of each cluster with at least ``min_members`` members (the biggest when none has)."""
    ids, sizes = np.unique(labels, return_counts=True)
    keep = ids[sizes >= min(min_members, sizes.max())]
    return [unit(x[labels == i].mean(axis=0)) for i in keep]


def cluster_chunks(embeddings: np.ndarray, solo_s: np.ndarray, count: SpeakerCount,
                   activity: np.ndarray | None = None, starts: np.ndarray | None = None) -> Clustering:
    """Cluster the local speakers: ``embeddings`` float32 (c, 3, d) unit norm (NaN: none), ``solo_s``
    float (c, 3) seconds each talks alone. The count stays within ``count``. With ``activity`` bool
    (c, 589, 3) and ``starts`` (c,) s, chunks without prints follow their nearest neighbour with prints."""
    c = embeddings.shape[0]
    have = ~np.isnan(embeddings[..., 0])
    tree = have & (solo_s >= MIN_SOLO_S)
    if tree.sum() < 2:
        tree = have
    x = embeddings[tree].astype(np.float64)
    if len(x) > MAX_TREE:
        x = x[np.linspace(0, len(x) - 1, MAX_TREE).round().astype(int)]
    assigned = np.full((c, embeddings.shape[1]), -1, int)
    if not len(x):
        return Clustering(assigned, np.zeros((0, embeddings.shape[-1]), np.float32))
    voices = _voices(x, ahc(x, threshold=THRESHOLD), MIN_MEMBERS) if count.max_speakers > 1 else [unit(x.mean(axis=0))]
    found = len(voices)
    apart = heard_apart(have & (solo_s >= MIN_SOLO_S))
    want = max(1, min(max(found, apart, count.min_speakers), count.max_speakers, len(x)))
    # a local speaker too briefly alone to shape the clusters, yet farther than the cut from every
    # one of them, may be one more voice
    left = embeddings[have & ~tree]
    unheard = bool(len(left)) and bool(((left @ np.stack(voices).T).max(axis=1) < 1 - THRESHOLD).any())
    other = found + 1 if want == found and unheard and found < count.max_speakers else None
    if apart > found and want > found:      # the segmentation hears more people than the prints tell apart
        other = found
    if want != found:
        voices = _voices(x, ahc(x, clusters=want), 1)
    cents = np.stack(voices).astype(np.float32)
    for i in np.nonzero(have.any(axis=1))[0]:
        js = np.nonzero(have[i])[0]
        sim = embeddings[i, js] @ cents.T
        if len(cents) >= len(js):
            from scipy.optimize import linear_sum_assignment

            rows, cols = linear_sum_assignment(-sim)
            assigned[i, js[rows]] = cols
        else:
            assigned[i, js] = sim.argmax(axis=1)
    for k in range(len(cents)):             # an asked-for voice nothing went to takes its nearest local speaker
        if not (assigned == k).any():
            sim = np.where(have, np.nan_to_num(embeddings @ cents[k]), -np.inf)
            shared = np.isin(assigned, [m for m in range(len(cents)) if (assigned == m).sum() > 1])
            i, j = np.unravel_index(int(np.argmax(np.where(shared, sim, -np.inf))), sim.shape)
            assigned[i, j] = k
    if activity is not None:
        _follow(assigned, have.any(axis=1), activity, starts)
    heard = max(found, apart)
    return Clustering(assigned, cents, other, heard if want > heard and not unheard else None)


def heard_apart(solo: np.ndarray) -> int:
    """How many people the segmentation itself tells apart: the largest m whose chunks with m local
    speakers each talking alone (``solo`` bool (c, 3): printed and alone for ``MIN_SOLO_S``) are at
    least ``APART_SHARE`` of the printed chunks and ``APART_CHUNKS`` in number; 1 when none is (it separates
    callers on one telephone band, whose prints sit closer than the cut: docs/diarization.md)."""
    per_chunk = solo.sum(axis=1)[solo.any(axis=1)]
    for m in range(solo.shape[1], 1, -1):
        hits = int((per_chunk >= m).sum())
        if hits >= APART_CHUNKS and hits >= APART_SHARE * len(per_chunk):
            return m
    return 1


def _follow(assigned: np.ndarray, printed: np.ndarray, activity: np.ndarray, starts: np.ndarray) -> None:
    """Give the local speakers of chunks without prints (``printed`` false) the clusters of the nearest
    printed chunk's local speakers they share the most active frames with (in place)."""
    from scipy.optimize import linear_sum_assignment

    ref = np.nonzero(printed)[0]
    if not len(ref):
        return
    f = activity.shape[1]
    for j in np.nonzero(~printed)[0]:
        i = int(ref[np.argmin(np.abs(ref - j) + (ref > j) * 0.5)])       # the nearest, the earlier on a tie
        off = int(round((starts[j] - starts[i]) / FRAME_STEP_S))
        if abs(off) >= f:
            continue
        a, b = (activity[j, :f - off], activity[i, off:]) if off >= 0 else (activity[j, -off:], activity[i, :f + off])
        agree = (a[:, :, None] & b[:, None, :]).sum(axis=0)              # (3 of chunk j, 3 of chunk i)
        for k, m in zip(*linear_sum_assignment(-agree)):
            if agree[k, m] > 0:
                assigned[j, k] = assigned[i, m]


def _offsets(starts: np.ndarray, duration_s: float) -> tuple[int, np.ndarray]:
    """Frames of the whole recording (every ``FRAME_STEP_S``) and each chunk's first frame."""
    return int(np.ceil(duration_s / FRAME_STEP_S)) + 1, np.rint(np.asarray(starts) / FRAME_STEP_S).astype(int)


def frame_counts(activity: np.ndarray, starts: np.ndarray, duration_s: float) -> np.ndarray:
    """int (frames,): speakers per output frame, the rounded mean of the local counts of the chunks that
    see it (``activity`` bool (c, 589, 3), ``starts`` (c,) s)."""
    (n_out, first), f = _offsets(starts, duration_s), activity.shape[1]
    count, covered = np.zeros(n_out), np.zeros(n_out)
    local = activity.sum(-1)
    for i, o in enumerate(first):
        m = max(0, min(f, n_out - o))
        count[o:o + m] += local[i, :m]
        covered[o:o + m] += 1
    return np.rint(count / np.maximum(covered, 1)).astype(int)


def timeline(activity: np.ndarray, starts: np.ndarray, duration_s: float, clustering: Clustering,
             names: list[str]) -> list[Turn]:
    """The speaker turns (two at once where two speak at once), ``names[k]`` for cluster k, in order of start."""
    k_all = max(1, clustering.count)
    (n_out, first), f = _offsets(starts, duration_s), activity.shape[1]
    summed = np.zeros((n_out, k_all))
    for i, o in enumerate(first):
        m = max(0, min(f, n_out - o))
        for j in np.nonzero(clustering.assigned[i] >= 0)[0]:
            summed[o:o + m, clustering.assigned[i, j]] += activity[i, :m, j]
    cnt = frame_counts(activity, starts, duration_s)
    ranks = np.empty_like(summed, dtype=int)
    np.put_along_axis(ranks, np.argsort(-summed, axis=1), np.arange(k_all)[None, :].repeat(n_out, 0), axis=1)
    binary = (ranks < cnt[:, None]) & (summed > 0)
    for k in np.argsort(summed[:, :clustering.count].sum(axis=0), kind="stable"):   # the quietest first
        if not binary[:, k].any() and summed[:, k].any():
            take = summed[:, k] >= summed[:, k].max() / 2
            alone_there = binary.any(axis=0) & ~(binary & ~take[:, None]).any(axis=0)   # would lose every frame
            take &= ~binary[:, alone_there].any(axis=1)
            binary[take] &= ranks[take] < np.maximum(cnt[take] - 1, 0)[:, None]
            binary[take, k] = True
    turns = []
    for k in range(clustering.count):
        edges = np.diff(np.concatenate([[0], binary[:, k].astype(int), [0]]))
        for a, e in zip(np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]):
            start = a * FRAME_STEP_S + (FRAME_DURATION_S - FRAME_STEP_S) / 2
            end = (e - 1) * FRAME_STEP_S + (FRAME_DURATION_S + FRAME_STEP_S) / 2
            turns.append(Turn(round(max(0.0, start), 3), round(min(duration_s, end), 3), names[k]))
    return sorted(turns, key=lambda t: (t.start_s, t.speaker))
