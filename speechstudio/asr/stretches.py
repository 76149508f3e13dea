"""Each stretch of a recording in its own language: bilingual interviews, meetings, films.

The router (:mod:`speechstudio.asr.routing`) decodes a file in the language of its first 30 s;
:func:`per_stretch` re-decodes the stretches in another language, found from suspect segments (mean word
probability < ``SUSPECT_WORD_P``), lost speech (gaps >= ``GAP_S`` with >= ``GAP_SPEECH_S`` of VAD
speech) and, with ``every_s``, periodic checks. A stretch detected as another language with probability
>= ``MIN_P`` is decoded in it; every segment comes out with ``language`` set. The thresholds'
measurements and the rules in full: ``docs/transcribe.md``."""
from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Iterable, Iterator

import numpy as np

from speechstudio.asr.types import Segment

SUSPECT_WORD_P = 0.65
GAP_S = 2.5
GAP_SPEECH_S = 1.0
MIN_P = 0.8
MIN_STRETCH_S = 1.0
PAD_S = 0.2
#: a stretch the detector is unsure of (two languages in it) is halved up to this many times,
#: down to halves of MIN_HALF_S seconds
SPLITS = 2
MIN_HALF_S = 4.0


class AudioTee:
    """Pass a 16 kHz float32 block stream through while keeping its audio for :meth:`slice`, until
    :meth:`release_before` drops it (about one 20 min decoding piece is kept)."""

    def __init__(self, blocks: Iterable[np.ndarray], sample_rate: int = 16000, start_s: float = 0.0) -> None:
        self._it = iter(blocks)
        self.rate = sample_rate
        self.start_s = start_s                            # the first sample's time on the file's clock
        self._kept: list[tuple[int, np.ndarray]] = []   # (first sample, block)
        self.n_read = 0
        self.done = False

    def __iter__(self) -> Iterator[np.ndarray]:
        for block in self._it:
            block = np.asarray(block, np.float32).reshape(-1)
            self._kept.append((self.n_read, block))
            self.n_read += block.shape[0]
            yield block
        self.done = True

    @property
    def read_s(self) -> float:
        """The file time (seconds) up to which audio was read."""
        return self.start_s + self.n_read / self.rate

    def slice(self, t0: float, t1: float) -> np.ndarray:
        """The kept audio from ``t0`` to ``t1`` seconds on the file's clock (clipped to what is
        kept): ``np.ndarray[float32]`` shape (n,), 16 kHz."""
        t0, t1 = t0 - self.start_s, t1 - self.start_s
        a, b = int(max(0.0, t0) * self.rate), int(max(0.0, t1) * self.rate)
        parts = [blk[max(0, a - s):max(0, b - s)] for s, blk in self._kept if s < b and s + blk.shape[0] > a]
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)

    def release_before(self, t: float) -> None:
        """Forget blocks that end before ``t`` seconds (file clock)."""
        cut = int((t - self.start_s) * self.rate)
        self._kept = [(s, blk) for s, blk in self._kept if s + blk.shape[0] > cut]


def _word_p(seg: Segment) -> float | None:
    probs = [w.probability for w in seg.words]
    return float(np.mean(probs)) if probs else None


def _mean_p(segments: list[Segment]) -> float:
    probs = [w.probability for s in segments for w in s.words]
    return float(np.mean(probs)) if probs else 0.0


def suspect(seg: Segment) -> bool:
    """True when the segment's words are unsure enough to check its language."""
    p = _word_p(seg)
    return p is not None and p < SUSPECT_WORD_P


@functools.cache
def _vad():
    """One Silero VAD session for the process (a session takes ~0.1 s to open; calls are serialised)."""
    from speechstudio.audio.vad import SileroVad

    return SileroVad(threads=1)


def _pause_after(audio: AudioTee, t: float, within_s: float = 3.0, pause_s: float = 0.25) -> float:
    """The start of the first pause of at least ``pause_s`` after ``t`` (Silero VAD frames), within
    ``within_s``; ``t`` when there is none (or the audio is not read that far)."""
    from speechstudio.audio.vad import FRAME

    clip = audio.slice(t, t + within_s)
    if clip.size < FRAME:
        return t
    speech = _vad().probs(clip) >= 0.35
    need = max(1, int(round(pause_s * audio.rate / FRAME)))
    quiet = 0
    for i, v in enumerate(speech):
        quiet = 0 if v else quiet + 1
        if quiet >= need:
            return t + (i + 1 - need) * FRAME / audio.rate
    return t


def per_stretch(segments: Iterable[Segment], audio: AudioTee, language: str, *args, **kwargs) -> Iterator[Segment]:
    """:func:`_stretches` without the repeats at the seams of stretches decoded apart (a segment more
    than half before the end of what was yielded is dropped)."""
    said_until = -1.0
    for seg in _stretches(segments, audio, language, *args, **kwargs):
        if said_until - seg.start_s > 0.5 * max(seg.end_s - seg.start_s, 1e-3):
            continue
        said_until = max(said_until, seg.end_s)
        yield seg


def _stretches(segments: Iterable[Segment], audio: AudioTee, language: str,
                detect: Callable[[np.ndarray], object], decode_as: Callable[[str, np.ndarray, float], Iterable[Segment]],
                *, every_s: float | None = None, speech_s: Callable[[np.ndarray], float] | None = None,
                checks: list | None = None, known_until_s: float = 0.0, _depth: int = 0,
                _memo: dict | None = None) -> Iterator[Segment]:
    """Segments of one file with every stretch in its own language; yields ``Segment`` with ``language``
    set, in time order.

    ``segments``: decoded in ``language`` (seconds, file clock), read lazily from the recogniser that
    consumes ``audio`` (an :class:`AudioTee`). ``detect``: 16 kHz float32 -> ``LanguageGuess | None``.
    ``decode_as(language, audio, offset_s)`` -> segments on the file's clock (if it raises, the old
    segments stay). ``speech_s``: seconds of speech in an array (default Silero VAD). ``checks``
    collects ``(t0, t1, language or None)``. ``known_until_s``: the periodic check skips stretches
    ending before it."""
    if speech_s is None:
        from speechstudio.asr.language_id import speech_of

        def speech_s(a: np.ndarray) -> float:
            return speech_of(a, audio.rate).shape[0] / audio.rate

    memo = {} if _memo is None else _memo     # (t0, t1) -> guess: a stretch is detected once

    def detect_once(t0: float, t1: float, clip: np.ndarray):
        key = (round(t0, 2), round(t1, 2))
        if key not in memo:
            memo[key] = detect(clip) if clip.size else None
            if checks is not None:
                checks.append((round(t0, 3), round(t1, 3), getattr(memo[key], "language", None)))
        return memo[key]

    def mark(seg: Segment, lang: str) -> Segment:
        return seg if seg.language == lang else dataclasses.replace(seg, language=lang)

    def inside(t0: float, t1: float, old: list[Segment]) -> Iterator[Segment]:
        """A periodic stretch found in the file's language: its unsure segments and lost speech
        are still looked at one by one (a 30 s stretch can hold a short stretch of another)."""
        start = max(audio.start_s, t0 - PAD_S)
        inner = AudioTee([audio.slice(start, t1 + PAD_S)], audio.rate, start)
        for _ in inner:
            pass
        yield from _stretches(iter(old), inner, language, detect, decode_as, speech_s=speech_s, checks=checks,
                               _depth=_depth, _memo=memo)

    def resolve(t0: float, t1: float, old: list[Segment], halves: int = SPLITS,
                periodic: bool = False, after: float = float("-inf")) -> Iterator[Segment]:
        """``after``: where the stretch before ends (a halved stretch): its audio is not padded into
        this one, where a word of the other language would be decoded as this one's."""
        t0 = max(t0, after)
        if t1 - t0 >= MIN_STRETCH_S:
            lead = max(t0 - PAD_S, after)
            clip = audio.slice(lead, t1 + PAD_S)
            guess = detect_once(t0, t1, clip)
            other = getattr(guess, "language", None)
            sure = other is not None and guess.probability >= MIN_P
            if not sure and other not in (None, language) and (halves == 0 or t1 - t0 < 2 * MIN_HALF_S):
                # unsure and too short to halve: the detector's best guess, kept only when its words
                # are surer than the old ones (or there were none: lost speech)
                start = max(audio.start_s, lead)
                try:
                    new = [mark(s, other) for s in decode_as(other, clip, start)]
                except Exception:  # noqa: BLE001 - keep what the file's model wrote
                    new = []
                if new and (not old or _mean_p(new) > _mean_p(old)):
                    yield from new
                    return
            if sure and other == language and periodic:
                yield from inside(t0, t1, old)
                return
            if sure and other == language and (not old or any(suspect(s) for s in old)):
                # the file's language after all, but its words were lost or unsure: decode the
                # stretch alone (no context from before it); keep whichever words are surer
                try:
                    new = [mark(s, language) for s in decode_as(language, clip, max(audio.start_s, lead))]
                except Exception:  # noqa: BLE001 - keep what the file's model wrote
                    new = []
                if new and (not old or _mean_p(new) > _mean_p(old)):
                    yield from new
                    return
            if sure and other != language:
                start = max(audio.start_s, lead)
                end = _pause_after(audio, t1)
                if end > t1 + PAD_S:          # the stretch ends mid-sentence: decode to the pause
                    clip = audio.slice(lead, end)
                try:
                    new = [mark(s, other) for s in decode_as(other, clip, start)]
                    if _depth == 0:
                        inner = AudioTee([clip], audio.rate, start)
                        for _ in inner:          # all of it kept, already decoded
                            pass
                        new = list(_stretches(new, inner, other, detect, decode_as,
                                               speech_s=speech_s, checks=checks, _depth=1, _memo=memo))
                except Exception:  # noqa: BLE001 - keep what the file's model wrote
                    new = None
                if new is not None and (new or not old):
                    yield from new
                    return
            elif not sure and halves > 0 and t1 - t0 >= 2 * MIN_HALF_S:
                # two languages in one stretch: the detector hesitates; look at each half
                mid = (t0 + t1) / 2
                k = min(range(len(old) + 1), key=lambda i: abs((old[i].start_s if i < len(old) else t1) - mid)) \
                    if old else 0
                if old and 0 < k < len(old):
                    cut = old[k].start_s
                    left, right = old[:k], old[k:]
                elif not old:
                    cut, left, right = mid, [], []
                else:
                    cut = None
                if cut is not None:
                    yield from resolve(t0, left[-1].end_s if left else cut, left, halves - 1, periodic, after)
                    yield from resolve(cut, t1, right, halves - 1, periodic, left[-1].end_s if left else after)
                    return
        if periodic and old:
            yield from inside(t0, t1, old)
            return
        for s in old:
            yield mark(s, language)

    def gap(t0: float, t1: float) -> Iterator[Segment]:
        if t1 - t0 >= GAP_S and speech_s(audio.slice(t0, t1)) >= GAP_SPEECH_S:
            yield from resolve(t0, t1, [], after=t0)

    pending: list[Segment] = []      # consecutive suspect segments, or the current periodic stretch
    last_end = audio.start_s

    def flush() -> Iterator[Segment]:
        nonlocal pending
        if pending:
            run, pending = pending, []
            if every_s is not None and run[-1].end_s > known_until_s:
                yield from resolve(run[0].start_s, run[-1].end_s, run, periodic=True)
            elif every_s is not None:
                yield from inside(run[0].start_s, run[-1].end_s, run)
            elif any(suspect(s) for s in run):
                yield from resolve(run[0].start_s, run[-1].end_s, run)
            else:
                for s in run:
                    yield mark(s, language)

    for seg in segments:
        if pending and seg.start_s - last_end >= GAP_S:
            yield from flush()
        if not pending:
            yield from gap(last_end, seg.start_s)
        if every_s is not None:
            if pending and seg.end_s - pending[0].start_s > every_s:
                yield from flush()
            pending.append(seg)
        elif suspect(seg):
            pending.append(seg)
        else:
            yield from flush()
            yield mark(seg, language)
        last_end = max(last_end, seg.end_s)
        audio.release_before((pending[0].start_s if pending else last_end) - GAP_S - PAD_S)
    yield from flush()
    for _ in audio:            # the recogniser may stop before the end (trailing silence)
        pass
    yield from gap(last_end, audio.read_s)
