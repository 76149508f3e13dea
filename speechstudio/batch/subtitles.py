"""Subtitle cues from transcript segments, rendered as SRT, WebVTT or ASS by pysubs2.

:func:`layout_cues` packs each segment's words (its word times, or times spread by length) greedily into
cues of at most ``max_line_count`` lines of ``max_line_width`` characters and ``max_cue_s``, preferring
sentence ends; a split segment's cues meet. Lines are filled greedily as openai/whisper ``utils.py``
``SubtitlesWriter``, at the narrowest width that needs no extra line. Timing (whole ms): sorted, no
overlap, short cues lengthened up to the next, every cue >= 1 ms. Defaults: the Netflix Timed Text Style
Guide (English). Karaoke: WebVTT inline cue timestamps (W3C WebVTT 4.2.2) and ASS ``{\\kNN}``
(centiseconds); SRT has none."""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from speechstudio.asr.types import Segment, Word
from speechstudio.transcript.display import align, cell_width, clusters, needs_space, unspaced

__all__ = ["SUBTITLE_FORMATS", "Cue", "SubtitleOptions", "layout_cues", "render_subtitles", "wrap_words"]

SUBTITLE_FORMATS = ("srt", "vtt", "ass")
_WS = re.compile(r"\s+")
# pysubs2 turns the SSA escapes \N \n \h into line breaks / spaces even in plain text: keep a
# literal backslash visible by putting an invisible WORD JOINER after it.
_SSA_ESCAPE = re.compile(r"\\(?=[nNh])")
_SENTENCE_END = (".", "?", "!", "…", "。", "？", "！")


@dataclass(frozen=True)
class SubtitleOptions:
    """How transcripts are cut into cues: ``max_line_width`` (characters), ``max_line_count``,
    ``max_cue_s`` / ``min_cue_s`` (seconds), ``max_cps`` (characters per second), 0 = no limit;
    ``highlight_words`` (VTT / ASS karaoke). Defaults: Netflix Timed Text Style Guide (42 x 2, 7 s, 5/6
    s, 20 cps for adult programmes)."""

    max_line_width: int = 42
    max_line_count: int = 2
    max_cue_s: float = 7.0
    min_cue_s: float = 5 / 6
    highlight_words: bool = False
    max_cps: float = 20.0


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


def line_text(words: Sequence[Word]) -> str:
    """The text of a line of layout words (each word's ``text`` carries the separator before it,
    as the segment text spells it: a space, or none inside CJK / Thai text and elisions)."""
    return "".join(w.text for w in words).strip()


def _breakable(prev: Word, w: Word) -> bool:
    """Whether a line may end between ``prev`` and ``w``: at a space or inside a script without spaces
    (never before a combining mark or closing punctuation, never inside c'est / don't)."""
    if not w.text or w.text[0].isspace():
        return True
    left, right = prev.text.rstrip(), w.text
    return bool(left) and (unspaced(left[-1]) or unspaced(right[0])) and not needs_space(left, right) \
        and cell_width(right[0]) > 0 and right[0] not in "、。，！？；：…」』）】〉》"


def _clean(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _text_pieces(text: str) -> list[str]:
    """``text`` cut into display pieces at spaces, and between the characters of unspaced scripts;
    each piece but the first carries the space before it."""
    pieces: list[str] = []
    for k, part in enumerate(text.split(" ")):
        if not part:
            continue
        units = clusters(part) if any(unspaced(c) for c in part) else [part]
        for j, u in enumerate(units):
            pieces.append((" " if pieces and j == 0 else "") + u)
    return pieces


def _words_of(seg: Segment) -> list[Word]:
    """The segment's words with times, each ``text`` being the stretch of the segment text it covers
    (with the separator before it); spread over the segment when the words do not spell the text."""
    text = _clean(seg.text)
    if not text:
        return []
    words = [w for w in seg.words if _clean(w.text)]
    spans = align(text, [_clean(w.text) for w in words]) if words else None
    if spans:
        out, prev = [], 0
        for k, (w, (_a, b)) in enumerate(zip(words, spans)):
            end = len(text) if k == len(words) - 1 else b
            out.append(Word(w.start_s, w.end_s, text[prev:end], w.probability))
            prev = end
        return out
    pieces = _text_pieces(text)
    sizes = [max(1, cell_width(p.strip())) + 1 for p in pieces]
    total = sum(sizes)
    span = max(seg.end_s - seg.start_s, 0.0)
    out, done = [], 0
    for piece, size in zip(pieces, sizes):
        start = seg.start_s + span * done / total
        done += size
        out.append(Word(start, seg.start_s + span * (done - 1) / total, piece))
    return out


def _pieces(words: Sequence[Word]) -> list[Word]:
    """``words`` as display pieces: unchanged when they carry their separators (from
    :func:`_words_of`), else plain tokens given the separator :func:`needs_space` puts before them."""
    if any(w.text[:1].isspace() for w in words[1:]):
        return list(words)
    out: list[Word] = []
    for w in words:
        sep = " " if out and needs_space(out[-1].text.strip(), w.text.strip()) else ""
        out.append(Word(w.start_s, w.end_s, sep + w.text.strip(), w.probability))
    return out


def wrap_words(words: Sequence[Word], width: int, indent: int = 0) -> list[list[Word]]:
    """Greedy line filling to ``width`` display cells (0: one line; CJK counts two), the first line
    ``indent`` cells shorter, broken where :func:`_breakable` allows; returns the lines."""
    pieces = _pieces(words)
    lines: list[list[int]] = []
    for i, w in enumerate(pieces):
        room = width - (indent if len(lines) == 1 else 0)
        if lines and (width <= 0 or cell_width(line_text([pieces[j] for j in lines[-1]] + [w])) <= room
                      or not _breakable(pieces[lines[-1][-1]], w)):
            lines[-1].append(i)
        else:
            lines.append([i])
    return [[words[i] for i in line] for line in lines]


def _balanced(words: Sequence[Word], width: int, indent: int = 0) -> list[list[Word]]:
    """As :func:`wrap_words`, with lines of even length: the narrowest width that needs no more
    lines than ``width`` does (no lone last word under a full line)."""
    lines = wrap_words(words, width, indent)
    if width <= 0 or len(lines) < 2:
        return lines
    total = cell_width(line_text(_pieces(words))) + indent
    for narrower in range(-(-total // len(lines)), width):
        tried = wrap_words(words, narrower, indent)
        if len(tried) <= len(lines):
            return tried
    return lines


def _fits(words: Sequence[Word], opts: SubtitleOptions, indent: int = 0) -> bool:
    if opts.max_line_count <= 0 or opts.max_line_width <= 0:
        return True
    return len(wrap_words(words, opts.max_line_width, indent)) <= opts.max_line_count


def _split(words: list[Word], opts: SubtitleOptions, indent: int = 0) -> list[list[Word]]:
    room = opts.max_line_width * opts.max_line_count if opts.max_line_width > 0 and opts.max_line_count > 0 else 0
    groups: list[list[Word]] = []
    current: list[Word] = []
    for w in words:
        if current:
            too_long = opts.max_cue_s > 0 and w.end_s - current[0].start_s > opts.max_cue_s
            chars = cell_width(line_text(current))
            sentence = room > 0 and current[-1].text.endswith(_SENTENCE_END) and chars >= room / 2
            if (too_long or sentence or not _fits(current + [w], opts, indent)) and _breakable(current[-1], w):
                groups.append(current)
                current = []
        current.append(w)
    if current:
        groups.append(current)
    return _no_orphan(groups, opts, indent)


def _no_orphan(groups: list[list[Word]], opts: SubtitleOptions, indent: int = 0) -> list[list[Word]]:
    """A segment's last cue is never a lone scrap: joined to the cue before when both fit one cue,
    else words move to it from the cue before until it holds at least a third of the two."""
    if len(groups) < 2:
        return groups
    prev, last = groups[-2], groups[-1]
    merged = prev + last
    if _fits(merged, opts, indent) and (opts.max_cue_s <= 0 or merged[-1].end_s - merged[0].start_s <= opts.max_cue_s):
        return groups[:-2] + [merged]
    prev, last = list(prev), list(last)
    while (len(prev) > 1 and 2 * cell_width(line_text(last)) < cell_width(line_text(prev))
           and _breakable(prev[-2], prev[-1])
           and (opts.max_cue_s <= 0 or last[-1].end_s - prev[-1].start_s <= opts.max_cue_s)):
        moved = [prev.pop()] + last
        if not _fits(moved, opts, indent):
            prev.append(moved[0])
            break
        last = moved
    return groups[:-2] + [prev, last]


def _indent(speaker: str | None, prefix: bool) -> int:
    """Display cells the ``"Name: "`` prefix takes on a cue's first line (0 without one)."""
    return cell_width(f"{speaker}: ") if prefix and speaker else 0


def layout_cues(segments: Iterable[Segment], opts: SubtitleOptions = SubtitleOptions(),
                duration_s: float | None = None, prefix: bool = False) -> list[Cue]:
    """Cut ``segments`` (seconds) into cues in time order, none overlapping, each >= 1 ms, none past
    ``duration_s``. ``prefix``: a ``"Name: "`` that counts toward the first line."""
    cues: list[Cue] = []
    for seg in sorted(segments, key=lambda s: (s.start_s, s.end_s)):
        words = _words_of(seg)
        if not words:
            continue
        indent = _indent(seg.speaker, prefix)
        groups = _split(words, opts, indent)
        for k, group in enumerate(groups):
            start = seg.start_s if k == 0 else group[0].start_s
            end = seg.end_s if k == len(groups) - 1 else groups[k + 1][0].start_s
            cues.append(Cue(_ms(start), _ms(end), _balanced(group, opts.max_line_width, indent), seg.speaker))
    return _fix_timing(cues, opts, duration_s, prefix)


def _ms(seconds: float) -> int:
    return max(0, int(round(seconds * 1000)))


def _needed_ms(cue: Cue, opts: SubtitleOptions) -> int:
    """How long ``cue`` should show: at least ``min_cue_s``, and its characters at ``max_cps``."""
    need = _ms(opts.min_cue_s)
    if opts.max_cps > 0:
        need = max(need, _ms(cell_width(cue.text.replace("\n", "")) / opts.max_cps))
    return max(1, need)


def _merge_short(cues: list[Cue], opts: SubtitleOptions, prefix: bool = False) -> list[Cue]:
    """A cue too short to read that cannot grow (the next cue starts right after it) joins the next
    (or else the previous) cue of its speaker, when the two fit one cue's lines and length."""
    i = 0
    while i < len(cues):
        cue = cues[i]
        shortest = max(1, _ms(opts.min_cue_s))       # reading speed only lengthens (into the gap)
        if cue.end_ms - cue.start_ms >= shortest:
            i += 1
            continue
        nxt = next((k for k in range(i + 1, len(cues)) if cues[k].speaker == cue.speaker), None)
        gap_room = (cues[nxt].start_ms if nxt is not None else 10 ** 12) - cue.start_ms
        if gap_room >= shortest:
            i += 1           # _fix_timing lengthens it into the gap
            continue
        merged = False
        for k in ([nxt] if nxt is not None else []) + [next((k for k in range(i - 1, -1, -1)
                                                          if cues[k].speaker == cue.speaker), None)]:
            if k is None:
                continue
            a, b = (cue, cues[k]) if k > i else (cues[k], cue)
            first = [w for line in a.lines for w in line]
            second = [w for line in b.lines for w in line]
            head = second[0].text.lstrip()          # two segments: the separator the scripts need
            sep = " " if needs_space(line_text(first), head) else ""
            words = first + [Word(second[0].start_s, second[0].end_s, sep + head, second[0].probability)] + second[1:]
            span = max(a.end_ms, b.end_ms) - min(a.start_ms, b.start_ms)
            if _fits(words, opts, _indent(cue.speaker, prefix)) and (opts.max_cue_s <= 0 or span <= _ms(opts.max_cue_s)):
                joined = Cue(min(a.start_ms, b.start_ms), max(a.end_ms, b.end_ms),
                             _balanced(words, opts.max_line_width, _indent(cue.speaker, prefix)), cue.speaker)
                lo, hi = sorted((i, k))
                cues[lo:hi + 1] = [joined] + cues[lo + 1:hi]
                merged = True
                break
        i = i if merged else i + 1
    return cues


def _fix_timing(cues: list[Cue], opts: SubtitleOptions, duration_s: float | None = None,
                prefix: bool = False) -> list[Cue]:
    cues.sort(key=lambda c: (c.start_ms, c.end_ms))
    cues = _merge_short(cues, opts, prefix)
    cues.sort(key=lambda c: (c.start_ms, c.end_ms))
    limit = _ms(duration_s) if duration_s else None
    prev_end: dict = {}         # per speaker: two people talking at once keep two cues at once
    for i, cue in enumerate(cues):
        cue.start_ms = max(cue.start_ms, prev_end.get(cue.speaker, 0))
        end = max(cue.end_ms, cue.start_ms + _needed_ms(cue, opts))
        if limit is not None and end > limit:                 # never past the audio
            end = max(cue.end_ms if cue.end_ms <= limit else limit, min(limit, end))
        nxt_cue = next((c for c in cues[i + 1:] if c.speaker == cue.speaker), None)
        if nxt_cue is not None:
            nxt = nxt_cue.start_ms
            if nxt > cue.start_ms and cue.end_ms <= nxt:      # lengthened: only into the gap
                end = min(end, nxt)
            elif nxt > cue.start_ms:                           # overlapping: cut at the next start
                end = nxt
        cue.end_ms = max(end, cue.start_ms + 1)
        prev_end[cue.speaker] = cue.end_ms
    return cues


def _vtt_time(ms: int) -> str:
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


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
    starts, last = [], cue.start_ms
    for w in words:
        t = min(max(_ms(w.start_s), last), cue.end_ms)
        starts.append(t)
        last = t
    parts: list[str] = []
    i = 0
    for n_line, line in enumerate(cue.lines):
        out = []
        for k, w in enumerate(line):
            piece = w.text.lstrip() if k == 0 else w.text
            token = piece.lstrip()
            sep = piece[: len(piece) - len(token)]
            text = _escape(token, fmt)
            if fmt == "vtt":
                if cue.start_ms < starts[i] < cue.end_ms and i > 0:
                    text = f"<{_vtt_time(starts[i])}>{text}"
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


def _style_name(speaker: str) -> str:
    """An ASS style name for a speaker (commas separate ASS fields: replaced)."""
    return speaker.replace(",", " ")


def _colours():
    import pysubs2

    # one readable colour per speaker (white first), in the order speakers first talk
    return tuple(pysubs2.Color(*rgb) for rgb in ((255, 255, 255), (255, 230, 90), (120, 210, 255), (150, 240, 150),
                                                  (255, 170, 200), (255, 180, 90), (200, 170, 255), (180, 180, 180)))


def render_subtitles(segments: Sequence[Segment], fmt: str, opts: SubtitleOptions = SubtitleOptions(),
                     duration_s: float | None = None) -> str:
    """The whole ``fmt`` file (``srt`` | ``vtt`` | ``ass``) for ``segments``, by pysubs2; VTT escapes
    ``& < >``, ASS breaks lines with ``\\N``."""
    import pysubs2

    subs = pysubs2.SSAFile()
    speakers: list[str] = []
    for cue in layout_cues(segments, opts, duration_s, prefix=fmt == "srt"):
        text = _cue_text(cue, fmt, opts.highlight_words)
        event = pysubs2.SSAEvent(start=cue.start_ms, end=cue.end_ms, text=text)
        if cue.speaker is not None:
            if cue.speaker not in speakers:
                speakers.append(cue.speaker)
            if fmt == "srt":
                event.text = f"{_escape(cue.speaker, fmt)}: {text}"
            elif fmt == "vtt":
                event.text = f"<v {_escape(cue.speaker, fmt)}>{text}"
            else:
                event.style, event.name = _style_name(cue.speaker), _escape(cue.speaker, fmt)
        subs.append(event)
    if fmt == "ass":
        for k, who in enumerate(speakers):
            style = subs.styles["Default"].copy()
            style.primarycolor = _colours()[k % len(_colours())]
            subs.styles[_style_name(who)] = style
        return subs.to_string("ass")
    return subs.to_string(fmt, keep_ssa_tags=True)
