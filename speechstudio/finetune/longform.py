"""Cut a long recording into sentence clips by Whisper word times (``asr.whisper.WhisperRecognizer``).

A clip closes at the first sentence end (". ! ? …") once ``min_s`` long; a sentence past ``max_s`` is cut
at its longest pause (commas preferred); a pause of ``break_s`` always closes a clip. Each cut sits at
the quietest 20 ms between the two words (Whisper's word edges are often off by tens of ms); a clip spans
its words plus ``margin_s`` (never past a neighbouring cut). Defaults: 2-15 s, LJSpeech's 1-10 s widened
for conversational speech."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from speechstudio.asr.types import Word

_SENTENCE_END = (".", "!", "?", "…", "。", "！", "？")
_CLOSERS = "\"'”’)]»"


@dataclass(frozen=True)
class Piece:
    """A clip to cut: ``start_s`` / ``end_s`` in seconds of the recording; ``text``: the recognised
    words joined by spaces."""

    start_s: float
    end_s: float
    text: str


def _quiet_point(audio16k: np.ndarray | None, a_s: float, b_s: float) -> float:
    """Centre (seconds) of the quietest 20 ms window in [a_s, b_s] of the 16 kHz audio; the
    midpoint when there is no audio or the span is shorter than a window."""
    mid = 0.5 * (a_s + b_s)
    if audio16k is None:
        return mid
    win = 320
    a, b = max(0, int(a_s * 16000)), min(audio16k.shape[0], int(b_s * 16000))
    if b - a < 2 * win:
        return mid
    seg = audio16k[a:b].astype(np.float64) ** 2
    energy = np.convolve(seg, np.ones(win), mode="valid")[::80]          # 5 ms hop
    return (a + int(np.argmin(energy)) * 80 + win // 2) / 16000


def plan_pieces(words: Sequence[Word], audio16k: np.ndarray | None = None, *, min_s: float = 2.0,
                max_s: float = 15.0, break_s: float = 1.5, margin_s: float = 0.3) -> list[Piece]:
    """Group ``words`` (in time order) into :class:`Piece` s (see the module docstring).

    ``audio16k``: the recording, ``np.ndarray[float32]`` shape (n,), 16 kHz, used to put each cut
    at the quietest point between words (optional)."""
    words = [w for w in words if w.text.strip()]
    n = len(words)
    groups: list[tuple[int, int]] = []
    s = 0
    while s < n:
        t0 = words[s].start_s
        end = None
        options: list[tuple[float, int]] = []
        for i in range(s, n):
            dur = words[i].end_s - t0
            if dur > max_s and i > s:
                break
            gap = words[i + 1].start_s - words[i].end_s if i + 1 < n else float("inf")
            ends_sentence = words[i].text.rstrip(_CLOSERS).endswith(_SENTENCE_END)
            if i + 1 == n or gap >= break_s or (dur >= min_s and ends_sentence):
                end = i
                break
            if dur >= min_s:
                options.append((gap + (0.2 if words[i].text.endswith((",", ";", ":")) else 0.0), i))
        if end is None:   # ran past max_s inside one sentence: cut at its longest pause
            end = max(options)[1] if options else max(s, i - 1)
        groups.append((s, end))
        s = end + 1
    # a short tail joins the clip before it when the two fit together
    if len(groups) > 1:
        (ps, pe), (ls, le) = groups[-2], groups[-1]
        if words[le].end_s - words[ls].start_s < min_s and words[le].end_s - words[ps].start_s <= max_s \
                and words[ls].start_s - words[pe].end_s < break_s:
            groups[-2:] = [(ps, le)]
    cuts = [_quiet_point(audio16k, words[e].end_s - 0.05, words[e + 1].start_s + 0.05)
            if words[e + 1].start_s - words[e].end_s < 4 * margin_s
            else 0.5 * (words[e].end_s + words[e + 1].start_s) for _, e in groups[:-1]]
    pieces = []
    for k, (s, e) in enumerate(groups):
        lo = cuts[k - 1] if k > 0 else 0.0
        hi = cuts[k] if k < len(cuts) else float("inf")
        start = max(lo, words[s].start_s - margin_s, 0.0)
        stop = min(hi, words[e].end_s + margin_s)
        if audio16k is not None:
            stop = min(stop, audio16k.shape[0] / 16000)
        pieces.append(Piece(round(start, 3), round(stop, 3), " ".join(w.text.strip() for w in words[s:e + 1])))
    return pieces


def recognise_words(recognizer, audio16k: np.ndarray, language: str | None = "en",
                     progress: Callable[[float], None] | None = None) -> list[Word]:
    """All words of ``audio16k`` (``np.ndarray[float32]`` shape (n,), 16 kHz) from a
    ``WhisperRecognizer`` with word timestamps (times in seconds of the recording). ``progress(s)``
    is called after each decoded segment with the seconds of audio done."""
    words: list[Word] = []
    for seg in recognizer.transcribe_audio(np.asarray(audio16k, np.float32), language):
        words += seg.words
        if progress is not None:
            progress(seg.end_s)
    return words


def split_recording(recognizer, audio16k: np.ndarray, language: str | None = "en", *, min_s: float = 2.0,
                    max_s: float = 15.0, progress: Callable[[float], None] | None = None) -> list[Piece]:
    """Recognise and cut one recording: ``plan_pieces(recognise_words(...))``."""
    return plan_pieces(recognise_words(recognizer, audio16k, language, progress), audio16k, min_s=min_s, max_s=max_s)
