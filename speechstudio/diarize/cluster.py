"""Group window embeddings into speakers.

1. Average-linkage agglomerative clustering of the windows on cosine distance (scikit-learn;
   the usual clustering of speaker embeddings in diarization: Sell et al. 2018, "Diarization is
   hard", DIHARD; pyannote.audio's pipeline clusters the same way), cut at ``LINK_DISTANCE`` for
   ``auto`` and ranges, or at the asked number of clusters for ``--speakers N``.
2. Clusters whose mean embeddings are more similar than ``MERGE_SIMILARITY`` are one voice.
3. A cluster with under ``MIN_TALK_S`` of windows folds into its nearest neighbour: it is made of
   windows that straddle two voices (overlaps, quick turn changes), a cough or crosstalk.
4. A cluster that sounds like two others at once (its mean embedding within ``MIXTURE_SIMILARITY``
   of the normalised sum of two larger clusters' means) is windows that straddle those two voices:
   each of its windows joins the nearer of the two. In bench/bench_diarization.py such clusters
   scored 0.86-0.88, real third and fourth speakers at most 0.69.

Figures from ``bench/bench_diarization.py`` (conversations of real recordings): GE2E centroids of
different speakers 0.48-0.71 apart, one speaker's windows cut at 0.4 stay together. Spectral
clustering with the eigen-gap (Wang et al. 2018) was tried first: it missed speakers who talk
little (10 s in 2 min), which average linkage with a distance cut keeps.

Memory: over ``MAX_POINTS`` windows (about 40 min of speech at the 0.75 s hop), the windows are
first summarised by k-means into ``MAX_POINTS`` centroids (``MiniBatchKMeans``), so the distance
matrix stays at most ``MAX_POINTS``² floats (72 MB) whatever the file's length.
"""
from __future__ import annotations

import numpy as np

from speechstudio.diarize.speakers import SpeakerCount

__all__ = ["cluster_windows", "LINK_DISTANCE", "MERGE_SIMILARITY", "MAX_POINTS", "MIN_TALK_S", "MIXTURE_SIMILARITY"]

LINK_DISTANCE = 0.4
MERGE_SIMILARITY = 0.80
MAX_POINTS = 3000
MIN_TALK_S = 2.5
MIXTURE_SIMILARITY = 0.83


def _agglomerative(x: np.ndarray, n_clusters: int | None) -> np.ndarray:
    from sklearn.cluster import AgglomerativeClustering

    if n_clusters is not None:
        model = AgglomerativeClustering(n_clusters=n_clusters, metric="cosine", linkage="average")
    else:
        model = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average",
                                        distance_threshold=LINK_DISTANCE)
    return np.asarray(model.fit_predict(x), int)


def _centroids(x: np.ndarray, labels: np.ndarray) -> dict[int, np.ndarray]:
    out = {}
    for k in np.unique(labels):
        m = x[labels == k].mean(axis=0)
        out[int(k)] = m / max(float(np.linalg.norm(m)), 1e-9)
    return out


def _merge_similar(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Merge the most similar pair of clusters while it is above ``MERGE_SIMILARITY``."""
    labels = labels.copy()
    while True:
        cents = _centroids(x, labels)
        keys = sorted(cents)
        if len(keys) <= 1:
            return labels
        best, pair = -1.0, None
        for i, a in enumerate(keys):
            for b in keys[i + 1:]:
                s = float(cents[a] @ cents[b])
                if s > best:
                    best, pair = s, (a, b)
        if best < MERGE_SIMILARITY:
            return labels
        labels[labels == pair[1]] = pair[0]


def _fold_small(x: np.ndarray, labels: np.ndarray, seconds_per_window: float, floor: int) -> np.ndarray:
    labels = labels.copy()
    while True:
        keys, counts = np.unique(labels, return_counts=True)
        if len(keys) <= max(1, floor):
            return labels
        small = counts * seconds_per_window < MIN_TALK_S
        if not small.any():
            return labels
        k = int(keys[small][np.argmin(counts[small])])
        cents = _centroids(x, labels)
        nearest = max((o for o in cents if o != k), key=lambda o: float(cents[o] @ cents[k]))
        labels[labels == k] = nearest


def _fold_mixtures(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    labels = labels.copy()
    while True:
        keys, counts = np.unique(labels, return_counts=True)
        if len(keys) < 3:
            return labels
        cents = _centroids(x, labels)
        size = dict(zip(keys.tolist(), counts.tolist()))
        found = None
        for m in sorted(keys.tolist(), key=lambda k: size[k]):
            bigger = [k for k in keys.tolist() if k != m and size[k] > size[m]]
            best = (-1.0, None)
            for i, a in enumerate(bigger):
                for b in bigger[i + 1:]:
                    mix = cents[a] + cents[b]
                    sim = float(cents[m] @ (mix / max(float(np.linalg.norm(mix)), 1e-9)))
                    if sim > best[0]:
                        best = (sim, (a, b))
            if best[0] >= MIXTURE_SIMILARITY:
                found = (m, best[1])
                break
        if found is None:
            return labels
        m, (a, b) = found
        idx = np.nonzero(labels == m)[0]
        labels[idx] = np.where(x[idx] @ cents[a] >= x[idx] @ cents[b], a, b)


def _fit(x: np.ndarray, count: SpeakerCount, n: int) -> np.ndarray:
    if count.exact:
        return _agglomerative(x, min(count.min_speakers, n))
    labels = _agglomerative(x, None)
    k = len(np.unique(labels))
    if k > count.max_speakers:
        return _agglomerative(x, count.max_speakers)
    if k < count.min_speakers:
        return _agglomerative(x, min(count.min_speakers, n))
    return labels


def cluster_windows(embeddings: np.ndarray, count: SpeakerCount, hop_s: float = 0.75) -> np.ndarray:
    """Speaker index per window (int (n,), 0..k-1 in order of first appearance) for unit-norm
    ``embeddings`` float32 (n, 256) taken every ``hop_s`` seconds. ``count.min_speakers`` <= k <=
    ``count.max_speakers`` unless fewer distinct voices are there: then fewer (the caller says so)."""
    x = np.asarray(embeddings, np.float32)
    n = x.shape[0]
    if n == 0:
        return np.zeros(0, int)
    if n < 4 or count.max_speakers <= 1:
        return np.zeros(n, int)
    if n > MAX_POINTS:
        from sklearn.cluster import MiniBatchKMeans

        km = MiniBatchKMeans(n_clusters=MAX_POINTS, random_state=0, n_init=1, batch_size=4096).fit(x)
        cent = km.cluster_centers_ / np.maximum(np.linalg.norm(km.cluster_centers_, axis=1, keepdims=True), 1e-9)
        labels = _fit(cent.astype(np.float32), count, MAX_POINTS)[km.labels_]
    else:
        labels = _fit(x, count, n)
    labels = _merge_similar(x, labels)
    labels = _fold_small(x, labels, hop_s, 1)
    labels = _fold_mixtures(x, labels)
    order: dict[int, int] = {}
    for k in labels:
        order.setdefault(int(k), len(order))
    return np.asarray([order[int(k)] for k in labels], int)
