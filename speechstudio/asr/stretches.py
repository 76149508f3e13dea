"""Each stretch of a recording in its own language, decided before decoding and decoded once: speech
regions (Silero VAD, pauses of ``PAUSE_MS``) get Whisper's language (Radford et al. 2022 sec. 2.3) one by
one until two agree at ``MIN_P``, then per ``WINDOW_S`` window, rechecked under ``STEADY_P``; stretches
tile the file, cut mid-pause. Figures: docs/transcribe.md."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import numpy as np

from speechstudio.audio.vad import WHISPER_SPANS, default_spans


WINDOW_S = 30.0      #: a window of regions detected at once spans at most this (Whisper's window)
STEADY_P = 0.95      #: a window keeps the language of the two regions before it when this sure of it
SURE_P = 0.99        #: a first guess this sure counts as two agreeing regions, and decides alone when it heard
                     #: all of a piece's speech
MIN_P = 0.8          #: a region detected less surely keeps its language only when a neighbour agrees
MIN_DETECT_S = 2.0   #: speech shorter than this is not detected: it takes its neighbour's language
PAUSE_MS = 500       #: a pause this long separates speech regions (where a language may change)
PIECE_S = 600.0      #: audio planned at once (10 min: 38 MB of float32), cut at its quietest 100 ms


@dataclass(frozen=True)
class Stretch:
    """``start_s``..``end_s`` seconds of the file in ``language`` (ISO code; None: no speech to
    detect, the file's language); ``probability`` the detector's, 0 when inherited."""

    start_s: float
    end_s: float
    language: str | None
    probability: float = 0.0


def speech_regions(audio: np.ndarray, rate: int = 16000) -> list[tuple[float, float]]:
    """Speech ``(start_s, end_s)`` of float32 16 kHz ``audio`` (``audio.vad``, Whisper's options), split at
    pauses of ``PAUSE_MS`` and at ``WINDOW_S``."""
    opts = dict(WHISPER_SPANS, min_silence_ms=PAUSE_MS, pad_ms=PAUSE_MS // 4, max_speech_s=WINDOW_S)
    return [(a / rate, b / rate) for a, b in default_spans(audio, **opts)]


def plan(audio: np.ndarray, detect: Callable[[np.ndarray], object], *, offset_s: float = 0.0,
         rate: int = 16000, regions: list[tuple[float, float]] | None = None,
         fallback: str | None = None, first=None) -> list[Stretch]:
    """The stretches tiling ``audio`` (float32 (n,), ``rate`` Hz, from ``offset_s``): ``detect`` gives a
    language guess, ``regions`` its speech (s), ``fallback`` the language without speech, ``first`` the
    file's first guess (over the whole piece it decides alone at ``SURE_P``, or when only one region is
    long enough to detect)."""
    end_s = audio.shape[0] / rate
    sure_first = first is not None and float(first.probability) >= SURE_P
    heard_all = first is not None and float(getattr(first, "covered_s", 0.0) or 0.0) >= offset_s + end_s - 1e-3
    whole = [Stretch(round(offset_s, 3), round(offset_s + end_s, 3), getattr(first, "language", None),
                     float(getattr(first, "probability", 0.0)))]
    if heard_all and sure_first:
        return whole
    regions = speech_regions(audio, rate) if regions is None else regions
    if heard_all and sum(b - a >= MIN_DETECT_S for a, b in regions) < 2:    # no second language to detect
        return whole
    decided: list[tuple[float, float, str | None, float]] = []   # per region: (start, end, lang, p)
    recent = [(first.language, float(first.probability))] * 2 if sure_first else []   # for steadiness

    def detect_speech(group) -> tuple[str | None, float]:
        if sum(b - a for a, b in group) < MIN_DETECT_S:
            return None, 0.0
        guess = detect(np.concatenate([audio[int(a * rate):int(b * rate)] for a, b in group]))
        return getattr(guess, "language", None), float(getattr(guess, "probability", 0.0) or 0.0)

    i = 0
    while i < len(regions):
        last = recent[-2:]
        steady = len(last) == 2 and last[0][0] == last[1][0] is not None and min(last[0][1], last[1][1]) >= MIN_P
        j = i + 1
        while steady and j < len(regions) and regions[j][1] - regions[i][0] <= WINDOW_S:
            j += 1
        lang, p = detect_speech(regions[i:j]) if j > i + 1 else (None, 0.0)
        if j > i + 1 and lang == last[1][0] and p >= STEADY_P:
            decided += [(a, b, lang, p) for a, b in regions[i:j]]
            recent.append((lang, p))
        else:                       # one region at a time: where the language may change
            for a, b in regions[i:j]:
                decided.append((a, b, *detect_speech([(a, b)])))
                if decided[-1][2] is not None:
                    recent.append(decided[-1][2:])
        i = j
    # a guess its neighbours do not share stands at MIN_P (STEADY_P for an island); speech too short to detect (or
    # unsure alone) takes the language of the neighbour across the shorter pause (docs/transcribe.md)
    langs = [d[2] for d in decided]
    heard = [i for i, d in enumerate(decided) if d[2] is not None]
    for n, i in enumerate(heard):
        near = [decided[k][2] for k in heard[max(0, n - 1):n] + heard[n + 1:n + 2]]
        island = len(near) == 2 and near[0] == near[1]
        if decided[i][2] not in near and decided[i][3] < (STEADY_P if island else MIN_P):
            langs[i] = None
    known = list(langs)
    for i in range(len(langs)):
        if known[i] is None:       # the side of the shorter pause first, then the other
            before = next((known[j] for j in range(i - 1, -1, -1) if known[j]), None)
            after = next((known[j] for j in range(i + 1, len(known)) if known[j]), None)
            gap_before = decided[i][0] - decided[i - 1][1] if i > 0 else float("inf")
            gap_after = decided[i + 1][0] - decided[i][1] if i + 1 < len(decided) else float("inf")
            first, second = (after, before) if gap_after < gap_before else (before, after)
            langs[i] = first or second or fallback
    if not decided:
        return [Stretch(round(offset_s, 3), round(offset_s + end_s, 3), fallback)]
    out: list[Stretch] = []
    start = 0.0
    for i, (d, lang) in enumerate(zip(decided, langs)):
        stop = end_s if i == len(decided) - 1 else (d[1] + decided[i + 1][0]) / 2
        if out and out[-1].language == lang:
            prev = out.pop()
            out.append(Stretch(prev.start_s, round(offset_s + stop, 3), lang, max(prev.probability, d[3])))
        else:
            out.append(Stretch(round(offset_s + start, 3), round(offset_s + stop, 3), lang, d[3]))
        start = stop
    return out


def pieces(blocks: Iterable[np.ndarray], rate: int = 16000, piece_s: float = PIECE_S, search_s: float = 30.0
           ) -> Iterator[tuple[float, np.ndarray]]:
    """``(offset_s, audio)`` pieces of a 16 kHz float32 block stream, about ``piece_s`` long, each cut at the
    quietest 100 ms of the ``search_s`` after that length (so no word is cut); the last one is what remains."""
    piece, search = int(piece_s * rate), int(search_s * rate)
    buf: list[np.ndarray] = []
    n = offset = 0
    for block in blocks:
        buf.append(np.asarray(block, np.float32).reshape(-1))
        n += buf[-1].shape[0]
        if n >= piece + search:
            audio = np.concatenate(buf)
            cut = quietest_cut(audio, piece, rate, search_s)
            yield offset / rate, audio[:cut]
            offset += cut
            buf, n = [audio[cut:]], audio.shape[0] - cut
    if n or offset == 0:
        yield offset / rate, np.concatenate(buf) if buf else np.zeros(0, np.float32)


def quietest_cut(audio: np.ndarray, target: int, sample_rate: int, search_s: float = 30.0) -> int:
    """Sample index near ``target`` (within the following ``search_s`` seconds) at the centre of the
    quietest 100 ms frame: where to split long audio without cutting a word."""
    hop = sample_rate // 10
    seg = audio[target:target + int(search_s * sample_rate)]
    if seg.shape[0] < hop:
        return min(target, audio.shape[0])
    frames = seg[: (seg.shape[0] // hop) * hop].reshape(-1, hop)
    quiet = int(np.argmin((frames.astype(np.float64) ** 2).mean(axis=1)))
    return target + quiet * hop + hop // 2
