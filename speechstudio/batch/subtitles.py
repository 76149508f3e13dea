"""Subtitle cues from transcript segments, rendered as SRT, WebVTT or ASS by pysubs2: the one home of the cue
rules every writer uses (:func:`layout_cues`; docs/transcribe.md, Subtitles). Defaults: Netflix Timed Text Style
Guide (English: 42 x 2, 7 s, 5/6 s, 20 cps, 2 frames between cues at 24 fps). Karaoke: WebVTT inline cue
timestamps (W3C WebVTT 4.2.2) and ASS ``{\\kNN}`` (centiseconds); SRT has none."""
from __future__ import annotations

import dataclasses
import itertools
import logging
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pysubs2
from pysubs2.formats.webvtt import WebVTTFormat

from speechstudio.asr.types import Segment, Word
from speechstudio.transcript.display import align, cell_width, clusters, needs_space, unspaced

log = logging.getLogger(__name__)

SUBTITLE_FORMATS = ("srt", "vtt", "ass")
NO_SPEECH = "[no speech]"            # the one cue of the subtitles of a recording without speech
# pysubs2 turns the SSA escapes \N \n \h into line breaks / spaces even in plain text: keep a
# literal backslash visible by putting an invisible WORD JOINER after it.
_SSA_ESCAPE = re.compile(r"\\(?=[nNh])")
_SENTENCE_END = (".", "?", "!", "…", "。", "？", "！")
_CLAUSE_END = (",", ";", ":", "–", "—", "、", "，", "；", "：")
_TITLES = {"mr.", "mrs.", "ms.", "dr.", "st.", "prof.", "mt.", "jr.", "sr."}
MIN_LINE_WIDTH = 10        # narrower lines cut common words into pieces ("my" / "fel" at width 3): refused
_CONJUNCTIONS = {"and", "but", "or", "nor", "so", "because", "which", "that", "who", "when", "where", "if", "while",
                 "although", "though", "than", "as", "until", "unless", "whether", "since", "before", "after"}
_PREPOSITIONS = {"of", "in", "on", "at", "to", "for", "from", "by", "with", "into", "onto", "upon", "about", "over",
                 "under", "through", "between", "without", "within", "during", "against", "towards", "toward"}
# words a line or cue should not end on (Netflix Timed Text Style Guide, English, "Line Treatment": never
# separate an article, a possessive or a preposition from what follows it, an auxiliary from its verb, a
# subject pronoun from its verb; BBC Subtitle Guidelines, "Line breaks": break at the highest syntactic node)
_AUXILIARIES = {"is", "are", "was", "were", "am", "has", "have", "had", "do", "does", "did", "will", "would", "shall",
                "should", "can", "could", "may", "might", "must"}
_FUNCTION_WORDS = _CONJUNCTIONS | _PREPOSITIONS | _AUXILIARIES | {
    "a", "an", "the", "my", "your", "his", "her", "its", "our", "their", "whose", "this", "these", "those",
    "what", "how", "why", "whom", "be", "been", "being", "very"}
_CLAUSE_PAUSE_S = 0.3        # a comma and a pause this long end a cue that has a third of its room
_SUBJECTS = {"i", "you", "he", "she", "we", "they"}


@dataclass(frozen=True)
class SubtitleOptions:
    """How transcripts are cut into cues: ``max_line_width`` (display cells), ``max_line_count``,
    ``max_cue_s`` / ``min_cue_s`` (seconds), ``max_cps`` (characters per second; a cue lengthens for it
    only within ``linger_s``), 0 = no limit; ``pause_s``: a longer pause ends a cue; ``linger_s``: a cue
    stays this long after its last word (<= 0.5 s); ``min_gap_s`` between cues; ``highlight_words``
    (VTT / ASS karaoke). Defaults: Netflix Timed Text Style Guide (English)."""

    max_line_width: int = 42
    max_line_count: int = 2
    max_cue_s: float = 7.0
    min_cue_s: float = 5 / 6
    highlight_words: bool = False
    max_cps: float = 20.0
    pause_s: float = 1.0
    linger_s: float = 0.5
    min_gap_s: float = 2 / 24


@dataclass
class Cue:
    """One subtitle: ``start_ms`` / ``end_ms`` (integers, ms), ``lines``: each line's words
    (``Word`` with times in seconds and stripped text)."""

    start_ms: int
    end_ms: int
    lines: list[list[Word]]
    speaker: str | None = None

    @property
    def text(self) -> str:
        return "\n".join(line_text(line) for line in self.lines)


@dataclass(frozen=True)
class _Piece(Word):
    """A piece of a word too wide for a line: a line may break before it."""


def line_text(words: Sequence[Word]) -> str:
    """The text of a line of layout words (each word's ``text`` carries the separator before it,
    as the segment text spells it: a space, or none inside CJK / Thai text and elisions)."""
    return "".join(w.text for w in words).strip()


def _breakable(prev: Word, w: Word) -> bool:
    """Whether a line may end between ``prev`` and ``w``: at a space or inside a script without spaces
    (never before a combining mark or closing punctuation, never inside c'est / don't)."""
    if isinstance(w, _Piece) or not w.text or w.text[0].isspace():
        return True
    left, right = prev.text.rstrip(), w.text
    return bool(left) and (unspaced(left[-1]) or unspaced(right[0])) and not needs_space(left, right) \
        and cell_width(right[0]) > 0 and right[0] not in "、。，！？；：…」』）】〉》"


def _break_cost(prev: Word, w: Word) -> float:
    """How bad a line or cue break between ``prev`` and ``w`` is: 0 after a sentence, 1 after a clause, 2 before
    a conjunction or preposition, 3 elsewhere, 7 after a function word (an article, possessive, preposition,
    conjunction, "which", an auxiliary) or between a subject pronoun and its auxiliary, 20 inside a name, a
    number with its word or a hyphenated compound; a pause between the two words takes up to 1.5 off;
    ``inf`` where :func:`_breakable` forbids it. Rules: Netflix and BBC guides (see :data:`_AUXILIARIES`)."""
    if not _breakable(prev, w):
        return float("inf")
    left, right = prev.text.strip(), w.text.strip()
    if isinstance(w, _Piece):
        return 3.0
    if left.lower() in _TITLES or left.endswith("-") or right.startswith("-") \
            or left[-1:].isdigit() or right[:1].isdigit() \
            or (left[:1].isupper() and right[:1].isupper() and left[-1:].isalpha() and len(right) > 1):
        return 20.0
    head, tail = left.lower().strip("\"'“”‘’("), right.lower().strip("\"'“”‘’(),.;:!?")
    if left.endswith(_SENTENCE_END):
        cost = 0.0
    elif left.endswith(_CLAUSE_END):
        cost = 1.0
    elif head in _FUNCTION_WORDS or (head in _SUBJECTS and tail in _AUXILIARIES):
        cost = 7.0
    elif tail in _CONJUNCTIONS or tail in _PREPOSITIONS:
        cost = 2.0
    else:
        cost = 3.0
    pause = w.start_s - prev.end_s
    return max(0.0, cost - min(1.5, 5.0 * max(0.0, pause - 0.1)))


def _words_of(seg: Segment) -> list[Word]:
    """The segment's words with times, each ``text`` being the stretch of the segment text it covers
    (with the separator before it); spread over the segment when the words do not spell the text."""
    text = " ".join(seg.text.split())
    if not text:
        return []
    words = [w for w in seg.words if w.text.strip()]
    spans = align(text, [" ".join(w.text.split()) for w in words]) if words else None
    if spans:
        out, prev = [], 0
        for k, (w, (_a, b)) in enumerate(zip(words, spans)):
            end = len(text) if k == len(words) - 1 else b
            out.append(Word(w.start_s, w.end_s, text[prev:end], w.probability))
            prev = end
        return out
    pieces: list[str] = []      # cut at spaces and between unspaced-script characters, the space before each kept
    for part in text.split(" "):
        if not part:
            continue
        units = clusters(part) if any(unspaced(c) for c in part) else [part]
        for j, u in enumerate(units):
            pieces.append((" " if pieces and j == 0 else "") + u)
    sizes = [max(1, cell_width(p.strip())) + 1 for p in pieces]
    total = sum(sizes)
    span = max(seg.end_s - seg.start_s, 0.0)
    out, done = [], 0
    for k, piece in enumerate(pieces):
        start = seg.start_s + span * done / total
        done += sizes[k]
        out.append(Word(start, seg.start_s + span if k == len(pieces) - 1 else seg.start_s + span * (done - 1) / total, piece))
    return out


def _cut_long(words: list[Word], width: int) -> list[Word]:
    """Words wider than ``width`` cells split by characters into pieces that fit, their time shared by
    length (each cut logged): the line limit holds even for a 50-character word."""
    if width <= 0:
        return words
    out: list[Word] = []
    for w in words:
        token = w.text.lstrip()
        if cell_width(token) <= width:
            out.append(w)
            continue
        chunks, cur = [], ""
        for c in clusters(token):
            if cur and cell_width(cur + c) > width:
                chunks.append(cur)
                cur = ""
            cur += c
        chunks.append(cur)
        log.info("a word of %d characters is wider than a subtitle line (%d): split into %d pieces (%s...)",
                 len(token), width, len(chunks), token[:20])
        span, total, done = max(0.0, w.end_s - w.start_s), sum(len(c) for c in chunks), 0
        for k, c in enumerate(chunks):
            a = w.start_s + span * done / total
            done += len(c)
            cls = Word if k == 0 else _Piece
            out.append(cls(a, w.start_s + span * done / total, (w.text[: len(w.text) - len(token)] if k == 0 else "") + c,
                           w.probability))
    return out


def _pieces(words: Sequence[Word]) -> list[Word]:
    """``words`` as display pieces: unchanged when they carry their separators (from
    :func:`_words_of`), else plain tokens given the separator :func:`needs_space` puts before them."""
    if any(w.text[:1].isspace() for w in words[1:]):
        return list(words)
    out: list[Word] = []
    for w in words:
        glue = isinstance(w, _Piece) or not out or not needs_space(out[-1].text.strip(), w.text.strip())
        out.append(dataclasses.replace(w, text=("" if glue else " ") + w.text.strip()))
    return out


def wrap_words(words: Sequence[Word], width: int, indent: int = 0) -> list[list[Word]]:
    """Greedy line filling to ``width`` display cells (0: one line; CJK counts two), the first line
    ``indent`` cells shorter, broken where :func:`_breakable` allows; returns the lines (the fewest
    there can be)."""
    pieces = _pieces(words)
    runs: list[list[int]] = []          # pieces no line may break between (a compound, c'est)
    for i in range(len(pieces)):
        if runs and not _breakable(pieces[i - 1], pieces[i]):
            runs[-1].append(i)
        else:
            runs.append([i])
    lines: list[list[int]] = []
    for run in runs:
        room = width - (indent if len(lines) == 1 else 0)
        if lines and (width <= 0 or cell_width(line_text([pieces[j] for j in lines[-1] + run])) <= room):
            lines[-1].extend(run)
        else:
            lines.append(list(run))
    return [[words[i] for i in line] for line in lines]


def _lines(words: Sequence[Word], width: int, indent: int = 0) -> list[list[Word]]:
    """The lines of one cue: one line when it fits; two lines broken at the cheapest natural point
    (:func:`_break_cost`) with lengths kept even; more lines of even length (the narrowest width that
    needs no more lines than ``width`` does)."""
    lines = wrap_words(words, width, indent)
    if width <= 0 or len(lines) < 2:
        return lines
    pieces = _pieces(words)
    if len(lines) == 2:
        best, best_k = float("inf"), None
        for k in range(1, len(pieces)):
            a, b = cell_width(line_text(pieces[:k])), cell_width(line_text(pieces[k:]))
            if a + indent > width or b > width:
                continue
            cost = _break_cost(pieces[k - 1], pieces[k]) + 6.0 * abs(a + indent - b) / width
            if cost < best:
                best, best_k = cost, k
        if best_k is not None:
            return [list(words[:best_k]), list(words[best_k:])]
        return lines
    total = cell_width(line_text(pieces)) + indent
    for narrower in range(-(-total // len(lines)), width):
        tried = wrap_words(words, narrower, indent)
        if len(tried) <= len(lines):
            return tried
    return lines


def _fits(words: Sequence[Word], opts: SubtitleOptions, indent: int = 0) -> bool:
    if opts.max_line_count <= 0 or opts.max_line_width <= 0:
        return True
    return len(wrap_words(words, opts.max_line_width, indent)) <= opts.max_line_count


def _too_long(words: Sequence[Word], opts: SubtitleOptions) -> bool:
    return opts.max_cue_s > 0 and max(w.end_s for w in words) - words[0].start_s > opts.max_cue_s


def _split(words: list[Word], opts: SubtitleOptions, indent: int = 0) -> list[list[Word]]:
    """A phrase cut into cues within the line and duration limits: when the next word does not fit,
    the cue ends at the cheapest natural break in it (the later the better); a cue that has reached a
    sentence end and half its room ends there, and one that has reached a clause end followed by a pause of
    ``_CLAUSE_PAUSE_S`` and a third of its room."""
    room = opts.max_line_width * opts.max_line_count if opts.max_line_width > 0 and opts.max_line_count > 0 else 0
    pieces = _pieces(words)
    groups: list[list[int]] = []
    cur: list[int] = []
    for i in range(len(pieces)):
        if cur:
            seq = cur + [i]
            over = _too_long([pieces[j] for j in seq], opts) or not _fits([pieces[j] for j in seq], opts, indent)
            end, size = pieces[cur[-1]].text.strip(), cell_width(line_text([pieces[j] for j in cur]))
            sentence = room > 0 and (
                (end.endswith(_SENTENCE_END) and end.lower() not in _TITLES and size >= room / 2)
                or (end.endswith(_CLAUSE_END) and pieces[i].start_s - pieces[cur[-1]].end_s >= _CLAUSE_PAUSE_S
                    and size >= room / 3))
            if sentence and _breakable(pieces[cur[-1]], pieces[i]):
                groups.append(cur)
                cur = []
            elif over:
                size = cell_width(line_text([pieces[j] for j in cur])) or 1
                best, best_k = float("inf"), None
                for k in range(1, len(seq)):
                    fill = cell_width(line_text([pieces[j] for j in cur[:k]])) / size
                    cost = _break_cost(pieces[seq[k - 1]], pieces[seq[k]]) + 8.0 * (1.0 - fill)
                    if cost <= best:
                        best, best_k = cost, k
                if best_k is not None:
                    groups.append(cur[:best_k])
                    cur = cur[best_k:]
        cur.append(i)
    if cur:
        groups.append(cur)
    if len(groups) > 1:         # no lone scrap at the end: words move to it while they fit, to a break as good
        prev, last = groups[-2], groups[-1]
        width = lambda g: cell_width(line_text([pieces[j] for j in g]))  # noqa: E731
        while (len(prev) > 1 and 2 * width(last) < width(prev)
               and _break_cost(pieces[prev[-2]], pieces[prev[-1]]) <= _break_cost(pieces[prev[-1]], pieces[last[0]])
               and _fits([pieces[j] for j in [prev[-1]] + last], opts, indent)
               and not _too_long([pieces[j] for j in [prev[-1]] + last], opts)):
            last.insert(0, prev.pop())
    return [[words[j] for j in g] for g in groups]


def _indent(speaker: str | None, prefix: bool) -> int:
    """Display cells the ``"Name: "`` prefix takes on a cue's first line (0 without one)."""
    return cell_width(f"{' '.join(speaker.split())}: ") if prefix and speaker else 0


def _join_scraps(groups: list[tuple[str | None, list[Word]]], opts: SubtitleOptions,
                 prefix: bool) -> list[tuple[str | None, list[Word]]]:
    """A cue too short to read (words + linger under ``min_cue_s``) joins the next (else the previous)
    cue of its speaker when no pause over ``pause_s`` parts them and the two fit one cue."""
    i = 0
    while i < len(groups):
        who, words = groups[i]
        # how long its cue can stay, as _timed cuts it: words plus linger, ending min_gap_s before the next cue
        # it must not overlap (its speaker's next, or anyone's after its words)
        last = max(w.end_s for w in words)
        nxt = min((g[0].start_s for w2, g in groups[i + 1:] if w2 == who or g[0].start_s >= last), default=math.inf)
        if min(last + opts.linger_s, nxt - opts.min_gap_s) - words[0].start_s >= opts.min_cue_s:
            i += 1
            continue
        merged = False
        for k in (i + 1, i - 1):
            if not 0 <= k < len(groups) or groups[k][0] != who:
                continue
            a, b = (words, groups[k][1]) if k > i else (groups[k][1], words)
            head = b[0].text.lstrip()       # the two cues' words as one, with the separator the scripts need
            both = a + [dataclasses.replace(b[0], text=(" " if needs_space(line_text(a), head) else "") + head)] + b[1:]
            if (b[0].start_s - max(w.end_s for w in a) <= opts.pause_s and not _too_long(both, opts)
                    and _fits(both, opts, _indent(who, prefix))):
                lo = min(i, k)
                groups[lo:lo + 2] = [(who, both)]
                merged = True
                break
        i = i if merged and k > i else i + 1
    return groups


def layout_cues(segments: Iterable[Segment], opts: SubtitleOptions = SubtitleOptions(),
                duration_s: float | None = None, prefix: bool = False) -> list[Cue]:
    """Cut ``segments`` (seconds) into cues by the module's rules, in time order, each >= 1 ms, none
    past ``duration_s``; cues of one speaker never overlap (two speakers at once keep two cues).
    ``prefix``: SRT's ``"Name: "``, written before a cue whose speaker is not the previous cue's, counts toward
    that cue's first line (and every cue of a speaker is cut leaving room for it)."""
    groups: list[tuple[str | None, list[Word]]] = []
    for seg in sorted(segments, key=lambda s: (s.start_s, s.end_s)):
        indent = _indent(seg.speaker, prefix)
        words = _cut_long(_words_of(seg), opts.max_line_width - indent if opts.max_line_count > 0 else 0)
        phrases: list[list[Word]] = []      # cut at every pause longer than pause_s (a cue never spans one)
        for w in words:
            if phrases and (opts.pause_s <= 0 or w.start_s - max(x.end_s for x in phrases[-1]) <= opts.pause_s):
                phrases[-1].append(w)
            else:
                phrases.append([w])
        for phrase in phrases:
            groups.extend((seg.speaker, g) for g in _split(phrase, opts, indent))
    groups.sort(key=lambda g: g[1][0].start_s)
    groups = _join_scraps(groups, opts, prefix)
    return _timed(groups, opts, duration_s, prefix)


def _ms(seconds: float) -> int:
    return max(0, int(round(seconds * 1000)))


def _timed(groups: list[tuple[str | None, list[Word]]], opts: SubtitleOptions, duration_s: float | None,
           prefix: bool) -> list[Cue]:
    """Cues from word groups in time order: from the first word's start to the last word's end plus
    the linger (up to ``min_cue_s`` / ``max_cps`` reading time, at most ``linger_s``), never past
    ``max_cue_s``, the audio's end, or ``min_gap_s`` before the next speech."""
    starts = [_ms(g[1][0].start_s) for g in groups]
    limit = _ms(duration_s) if duration_s else None
    gap, linger = _ms(opts.min_gap_s), _ms(opts.linger_s)
    cues: list[Cue] = []
    prev_end: dict = {}        # per speaker: two people talking at once keep two cues at once
    for i, (who, words) in enumerate(groups):
        start = max(starts[i], prev_end.get(who, 0))
        last = max(start, _ms(max(w.end_s for w in words)))
        text_cells = cell_width(line_text(_pieces(words)))
        need = max(_ms(opts.min_cue_s), _ms(text_cells / opts.max_cps) if opts.max_cps > 0 else 0)
        end = max(last, min(start + need, last + linger))
        if opts.max_cue_s > 0:
            end = min(end, start + _ms(opts.max_cue_s))
        later = [s for s in starts[i + 1:] if s >= last] + [s for (w2, _), s in zip(groups[i + 1:], starts[i + 1:])
                                                             if w2 == who]
        if later:
            nxt = min(later)
            end = min(end, nxt - gap if nxt - gap > start else nxt)
        if limit is not None:
            end = min(end, limit)
        end = max(end, start + 1)
        prev_end[who] = end
        named = prefix and (i == 0 or groups[i - 1][0] != who)      # as render_subtitles writes SRT
        cues.append(Cue(start, end, _lines(words, opts.max_line_width, _indent(who, named)), who))
    return _readable(cues, _ms(opts.min_cue_s), gap, limit)


def _readable(cues: list[Cue], min_ms: int, gap: int, limit: int | None) -> list[Cue]:
    """Every cue on screen at least ``min_ms`` (Netflix: 5/6 s) where the audio leaves room: a cue the next
    speech cuts short grows into the free time after it, then starts earlier into the free time before it
    (never closer than ``gap`` ms to another cue), then pushes the cues after it later, each keeping up to
    ``min_ms`` before the end of the audio (``limit`` ms); a cue of words past that end is left alone. Cues
    already overlapping it (two speakers at once) are left as they are."""
    for i, cue in enumerate(cues):
        if cue.end_ms - cue.start_ms >= min_ms or (limit is not None and cue.start_ms >= limit):
            continue
        after = [c for c in cues[i + 1:] if c.start_ms >= cue.end_ms]
        cap = limit if limit is not None else math.inf
        room = min([c.start_ms - gap for c in after] + [cap])
        cue.end_ms = max(cue.end_ms, min(cue.start_ms + min_ms, room))
        if cue.end_ms - cue.start_ms < min_ms:
            before = max([c.end_ms + gap for c in cues[:i] if c.end_ms <= cue.start_ms] + [0])
            cue.start_ms = min(cue.start_ms, max(before, cue.end_ms - min_ms))
        if cue.end_ms - cue.start_ms < min_ms:      # the cues it pushes keep up to min_ms each before the end
            keep = sum(gap + min(min_ms, c.end_ms - c.start_ms) for c in after
                       if c.start_ms < cue.start_ms + min_ms + gap)
            lo, hi = cue.end_ms, int(min(cue.start_ms + min_ms, max(cap - keep, cue.end_ms)))
            while lo < hi:                          # the furthest end whose pushes keep every cue in time
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if _push(after, mid, gap, move=False) else (lo, mid - 1)
            cue.end_ms = lo
            _push(after, lo, gap, move=True)
    return cues


def _push(after: list[Cue], edge: int, gap: int, move: bool) -> bool:
    """Whether the cues ``after`` a cue ending at ``edge`` ms can start ``gap`` ms after the one before them,
    each still appearing before its last word is said (pushed later, five short cues in a row drifted until
    they came after their words); with ``move``, push them."""
    for c in after:
        if c.start_ms < edge + gap:
            if edge + gap > max(c.start_ms, _ms(c.lines[-1][-1].start_s)):
                return False
            start, edge = edge + gap, max(c.end_ms, edge + gap + 1)
            if move:
                c.start_ms, c.end_ms = start, edge
    return True


def _escape(text: str, fmt: str) -> str:
    if fmt == "vtt":
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if fmt == "ass":              # braces open override blocks in ASS
        text = text.replace("{", "(").replace("}", ")")
    return _SSA_ESCAPE.sub("\\\\\u2060", text)


def _cue_text(cue: Cue, fmt: str, karaoke: bool) -> str:
    words = [w for line in cue.lines for w in line]
    if not karaoke or fmt == "srt":
        return "\\N".join(_escape(line_text(line), fmt) for line in cue.lines)
    # word start times, clamped into the cue and never decreasing
    starts = [min(t, cue.end_ms) for t in itertools.accumulate((_ms(w.start_s) for w in words), max,
                                                                initial=cue.start_ms)][1:]
    parts: list[str] = []
    i = 0
    for line in cue.lines:
        out = []
        for k, w in enumerate(line):
            piece = w.text.lstrip() if k == 0 else w.text
            token = piece.lstrip()
            sep = piece[: len(piece) - len(token)]
            text = _escape(token, fmt)
            if fmt == "vtt":
                if cue.start_ms < starts[i] < cue.end_ms and i > 0:
                    text = f"<{WebVTTFormat.ms_to_timestamp(starts[i])}>{text}"
            else:
                nxt = starts[i + 1] if i + 1 < len(words) else cue.end_ms
                lead = ""
                if i == 0 and starts[0] > cue.start_ms:          # silence before the first word
                    lead = f"{{\\k{round((starts[0] - cue.start_ms) / 10)}}}"
                text = f"{lead}{{\\k{round((nxt - starts[i]) / 10)}}}{text}"
            out.append(sep + text)
            i += 1
        parts.append("".join(out))
    return "\\N".join(parts)


def _speaker_label(speaker: str, fmt: str) -> str:
    """``speaker`` as every format can carry it: one line (a line break would end an SRT / VTT cue or an ASS
    event), escaped for ``fmt``; in ASS, where it fills the comma-separated Name and Style fields (ASS has
    no escape there), each comma becomes U+201A (looks like one) and braces parentheses, as in the text."""
    label = " ".join(speaker.split()) or "?"
    if fmt == "ass":
        label = label.replace(",", "\u201a")
    return _escape(label, fmt)


# one readable colour per speaker (white first), in the order speakers first talk
_COLOURS = tuple(pysubs2.Color(*rgb) for rgb in ((255, 255, 255), (255, 230, 90), (120, 210, 255), (150, 240, 150),
                                                 (255, 170, 200), (255, 180, 90), (200, 170, 255), (180, 180, 180)))


def render_subtitles(segments: Sequence[Segment], fmt: str, opts: SubtitleOptions = SubtitleOptions(),
                     duration_s: float | None = None) -> str:
    """The whole ``fmt`` file (``srt`` | ``vtt`` | ``ass``) for ``segments``, by pysubs2; VTT escapes ``& < >``,
    ASS breaks lines with ``\\N``; without a word, one :data:`NO_SPEECH` cue over ``duration_s`` (1 s when unknown)."""
    subs = pysubs2.SSAFile()
    speakers: list[str] = []
    before = None                   # the speaker of the cue before: SRT names a speaker where the speaker changes
    for cue in layout_cues(segments, opts, duration_s, prefix=fmt == "srt"):
        text = _cue_text(cue, fmt, opts.highlight_words)
        event = pysubs2.SSAEvent(start=cue.start_ms, end=cue.end_ms, text=text)
        if cue.speaker is not None:
            if cue.speaker not in speakers:
                speakers.append(cue.speaker)
            label = _speaker_label(cue.speaker, fmt)
            if fmt == "srt" and cue.speaker != before:
                event.text = f"{label}: {text}"
            elif fmt == "vtt":
                event.text = f"<v {label}>{text}"
            elif fmt == "ass":
                event.style = event.name = label
        before = cue.speaker
        subs.append(event)
    subs.events = subs.events or [pysubs2.SSAEvent(start=0, end=_ms(duration_s or 1.0) or 1, text=NO_SPEECH)]
    if fmt == "ass":
        for k, who in enumerate(speakers):
            style = subs.styles["Default"].copy()
            style.primarycolor = _COLOURS[k % len(_COLOURS)]
            subs.styles[_speaker_label(who, "ass")] = style
        return subs.to_string("ass")
    return subs.to_string(fmt, keep_ssa_tags=True)
