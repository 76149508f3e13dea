"""An editable transcript backed by our JSON file: every operation an undoable ``history.Change``;
:meth:`save` writes back atomically with every key kept and the last ``history.MAX_SAVED`` changes.
Raises :class:`TranscriptFileError` (history out of step, file changed on disk)."""
from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from pathlib import Path

from speechstudio.asr.types import TranscriptInfo
from speechstudio.atomic import atomic_write_text
from speechstudio.errors import UsageError
from speechstudio.transcript import edits, history, search
from speechstudio.transcript.history import Change, Splice
from speechstudio.transcript.model import (Segment, TranscriptFileError, as_segment, segment_from_dict,
                                           segment_to_dict, speaker_count_text, json_text, transcript_dict)
from speechstudio.transcript.timefmt import format_time
from speechstudio.transcript.words import tokens


def _names(segments: Sequence[Segment]):
    """The speaker names of ``segments`` and their words, in order, repeats included."""
    return (who for s in segments for who in [s.speaker] + [w.speaker for w in s.words] if who)


def _stamp(path: Path | None) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of ``path``, ``None`` when absent."""
    try:
        st = path.stat() if path is not None else None
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size) if st is not None else None


class TranscriptDocument:
    """Segments (s) + the rest of the JSON + the edit history: ``path`` (None until saved), ``segments``,
    ``info``, ``dirty``, ``version`` (grows with every change, undo, redo)."""

    def __init__(self, segments: Sequence, meta: dict, path: str | os.PathLike | None = None,
                 done: Sequence[Change] = (), undone: Sequence[Change] = ()) -> None:
        self.path = Path(path) if path is not None else None
        self.meta = dict(meta)
        self._segments: tuple[Segment, ...] = tuple(as_segment(s) for s in segments)
        self._done: list[Change] = list(done)
        self._undone: list[Change] = list(undone)
        self._typing: Change | None = None  # the last change, while typing may extend it
        self.dirty = False
        self.version = 0
        self._stamp = _stamp(self.path)

    # ------------------------------------------------------------------ files
    @classmethod
    def load(cls, path: str | os.PathLike) -> TranscriptDocument:
        """Read a JSON transcript. Raises :class:`TranscriptFileError` (file and reason)."""
        p = Path(path)
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
        except OSError as e:
            raise TranscriptFileError(f"{p}: cannot read ({e.strerror or e})") from None
        except (UnicodeDecodeError, ValueError) as e:
            raise TranscriptFileError(f"{p}: not a JSON transcript ({e})") from None
        if not isinstance(d, dict) or not isinstance(d.get("segments"), list):
            raise TranscriptFileError(f"{p}: not a JSON transcript (no \"segments\" list)")
        try:
            segs = [segment_from_dict(s, f"segment {k + 1}") for k, s in enumerate(d["segments"])]
            done, undone = history.history_from_dict(d["edit_history"], "history") if "edit_history" in d else ([], [])
        except ValueError as e:
            raise TranscriptFileError(f"{p}: {e}") from None
        meta = {k: v for k, v in d.items() if k != "edit_history"}
        return cls(segs, meta, p, done, undone)

    @classmethod
    def from_segments(cls, segments: Sequence, info: TranscriptInfo,
                      path: str | os.PathLike | None = None) -> TranscriptDocument:
        """A document for segments that have no JSON yet (``path``: where :meth:`save` writes)."""
        return cls(segments, transcript_dict(list(segments), info), path)

    def to_dict(self) -> dict:
        """The JSON document: the loaded keys in their order, ``text`` / ``segments`` updated, ``edit_history`` last."""
        d = dict(self.meta)
        d["text"] = transcript_dict(self._segments, self.info)["text"]
        d["segments"] = [segment_to_dict(s) for s in self._segments]
        if "speakers" in d or any(s.speaker for s in self._segments):
            d.update(self._speaker_tables(d))
        d["edit_history"] = history.history_to_dict(self._done, self._undone)
        return d

    def changed_on_disk(self) -> bool:
        """Whether :attr:`path` was written by something else since it was loaded / saved here
        (e.g. the file was transcribed again)."""
        return self.path is not None and _stamp(self.path) != self._stamp

    def save(self, path: str | os.PathLike | None = None) -> Path:
        """Write the JSON atomically to ``path`` (default :attr:`path`). Raises ``UsageError`` (no path),
        ``TranscriptFileError`` (changed on disk; nothing written), ``OSError`` (old content kept)."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise UsageError("this transcript has no file yet: choose where to save it")
        if target == self.path and self.changed_on_disk():
            raise TranscriptFileError(f"{target}: changed on disk since it was opened (transcribed again?); "
                                      "open it again to edit the new version")
        atomic_write_text(target, json_text(self.to_dict()))
        self.path = target
        self.dirty = False
        self._stamp = _stamp(target)
        return target

    # ------------------------------------------------------------------ reading
    @property
    def segments(self) -> tuple[Segment, ...]:
        return self._segments

    @property
    def info(self) -> TranscriptInfo:
        d = self.meta
        return TranscriptInfo(float(d.get("audio_duration_s") or 0.0), d.get("language"), str(d.get("model_id") or ""),
                              str(d.get("engine") or ""), str(d.get("device") or "cpu"),
                              str(d.get("precision") or "fp32"), d.get("language_probability"),
                              str(d.get("task") or "transcribe"), d.get("language_detected_by"))

    def texts(self) -> list[str]:
        return [s.text for s in self._segments]

    def words(self, i: int):
        """Segment ``i``'s words, one per token of its text."""
        return edits.aligned_words(self._segments[i])

    def word_spans(self, i: int) -> list[tuple[int, int, object]]:
        """``(start_char, end_char, word)`` for each word of segment ``i``."""
        return [(a, b, w) for (a, b, _), w in zip(tokens(self._segments[i].text), self.words(i))]

    def time_at(self, i: int, char: int) -> float:
        """Player time (s) for a cursor at ``char`` in segment ``i``: start of the word at or after it,
        the segment's end after its last word, proportional in a segment without words."""
        seg = self._segments[i]
        spans = self.word_spans(i)
        for a, b, w in spans:
            if char <= b:
                return w.start_s
        if spans:
            return spans[-1][2].end_s
        n = max(1, len(seg.text))
        return seg.start_s + (seg.end_s - seg.start_s) * min(char, n) / n

    def word_at(self, t: float) -> tuple[int, int, int] | None:
        """``(segment, start_char, end_char)`` of the word being said at ``t`` seconds, or ``None`` between words."""
        for i, seg in enumerate(self._segments):
            if seg.start_s <= t <= seg.end_s:
                for a, b, w in self.word_spans(i):
                    if w.start_s <= t < w.end_s:
                        return i, a, b
        return None

    # ------------------------------------------------------------------ history
    @property
    def can_undo(self) -> bool:
        return bool(self._done)

    @property
    def can_redo(self) -> bool:
        return bool(self._undone)

    def undo_label(self) -> str:
        return self._done[-1].label if self._done else ""

    def redo_label(self) -> str:
        return self._undone[-1].label if self._undone else ""

    def _set(self, segs: tuple[Segment, ...]) -> None:
        self._segments = segs
        self.dirty = True
        self.version += 1

    def _commit(self, label: str, splices: Sequence[Splice]) -> Change | None:
        splices = [s for s in splices if not history.same(s.before, s.after)]
        if not splices:
            return None
        change = Change(label, tuple(splices))
        new = history.apply(self._segments, change)
        assert new is not None
        self._done.append(change)
        self._undone.clear()
        self._typing = None
        self._set(new)
        return change

    def _step(self, src: list[Change], dst: list[Change], inverse: bool) -> Change | None:
        self._typing = None
        if not src:
            return None
        change = src[-1]
        new = history.apply(self._segments, change.inverse() if inverse else change)
        if new is None:
            src.clear()
            raise TranscriptFileError(f"{self.path or 'transcript'}: cannot {'undo' if inverse else 'redo'} "
                                      f"{change.label!r}: the segments are not what the history says "
                                      "(changed outside the editor); the history was dropped")
        dst.append(src.pop())
        self._set(new)
        return change

    def undo(self) -> Change | None:
        """Undo the last change (``None`` when there is none). Raises TranscriptFileError when the
        segments no longer match the history (the file was changed by something else)."""
        return self._step(self._done, self._undone, inverse=True)

    def redo(self) -> Change | None:
        return self._step(self._undone, self._done, inverse=False)

    # ------------------------------------------------------------------ edits
    def _index(self, i: int) -> Segment:
        if not 0 <= i < len(self._segments):
            raise UsageError(f"no segment {i + 1} (the transcript has {len(self._segments)})")
        return self._segments[i]

    def set_times(self, i: int, start_s: float, end_s: float) -> Change | None:
        """Move segment ``i`` to ``start_s..end_s`` (seconds; words follow). Raises UsageError, also for an end
        past the audio or times that pass a neighbour (a typed 1:30 for 0:10.3 spread the words over 80 s,
        among the next segment's, in the saved subtitles)."""
        seg = self._index(i)
        new = edits.retime_segment(seg, start_s, end_s, i + 1)
        duration = float(self.meta.get("audio_duration_s") or 0.0)
        if duration and new.end_s > duration + 0.0005:
            raise UsageError(f"segment {i + 1}: end {format_time(new.end_s)} is after the end of the audio "
                             f"({format_time(duration)})")
        if i > 0 and new.start_s < self._segments[i - 1].start_s:
            raise UsageError(f"segment {i + 1}: start {format_time(new.start_s)} is before segment {i}'s start "
                             f"({format_time(self._segments[i - 1].start_s)}); merge them to join them")
        if i + 1 < len(self._segments) and new.end_s > self._segments[i + 1].end_s:
            raise UsageError(f"segment {i + 1}: end {format_time(new.end_s)} is after segment {i + 2}'s end "
                             f"({format_time(self._segments[i + 1].end_s)}); merge them to join them")
        return self._commit(f"times of segment {i + 1}", [Splice(i, (seg,), (new,))])

    def split(self, i: int, char: int) -> Change | None:
        """Split segment ``i`` at character ``char`` of its text. Raises UsageError when one side would be empty."""
        seg = self._index(i)
        left, right = seg.text[:char].rstrip(), seg.text[char:].lstrip()      # the space at the cut dropped
        if not left.strip() or not right.strip():
            raise UsageError(f"segment {i + 1}: put the cursor between words to split it")
        return self._commit(f"split segment {i + 1}", [Splice(i, (seg,), edits.replace_run([seg], [left, right]))])

    def merge(self, i: int) -> Change | None:
        """Merge segment ``i`` with the next one. Raises UsageError for the last segment."""
        a = self._index(i)
        if i + 1 >= len(self._segments):
            raise UsageError(f"segment {i + 1} is the last one: nothing to merge it with")
        b = self._segments[i + 1]
        line = " ".join(t for t in (a.text.strip(), b.text.strip()) if t)
        return self._commit(f"merge segments {i + 1}–{i + 2}", [Splice(i, (a, b), edits.replace_run([a, b], [line]))])

    def replace_lines(self, i: int, j: int, lines: Sequence[str], label: str = "edit") -> Change | None:
        """Segments ``i:j`` (at least one) become one segment per line (see
        :func:`.edits.replace_run`); ``lines`` empty deletes them."""
        run = self._segments[i:j]
        if not run:
            raise UsageError("no segments to replace")
        after = edits.replace_run(run, lines) if lines else ()
        return self._commit(label, [Splice(i, tuple(run), tuple(after))])

    def type_lines(self, lines: Sequence[str]) -> Change | None:
        """The editor's text changed to ``lines`` (one per segment): replace the differing run. Calls
        that stay inside the previous run extend its undo step, re-timed from the text before the first."""
        old, new = self.texts(), list(lines)
        if old == new:
            return None
        if not old:
            self._typing = self._commit("typing", [Splice(0, (), self._fresh(new))])
            return self._typing
        p = len(os.path.commonprefix((old, new)))
        q = len(os.path.commonprefix((old[p:][::-1], new[p:][::-1])))
        a, b, nb = p, len(old) - q, len(new) - q
        if a == b:  # lines only inserted: the segment before (or after) them takes them in
            if a > 0:
                a -= 1
            else:
                b, nb = b + 1, nb + 1
        last = self._typing
        if (last is not None and self._done and self._done[-1] is last and len(last.splices) == 1
                and last.splices[0].index <= a and b <= last.splices[0].index + len(last.splices[0].after)):
            sp = last.splices[0]
            region = new[sp.index:sp.index + len(sp.after) + len(new) - len(old)]
            self._done.pop()
            restored = history.apply(self._segments, last.inverse())
            assert restored is not None  # it was the last change: the segments are its "after"
            self._segments = restored
            after = (edits.replace_run(sp.before, region) if region and sp.before
                     else self._fresh(region) if region else ())
            change = self._commit("typing", [Splice(sp.index, sp.before, tuple(after))])
            if change is None:  # typed back to what it was
                self._set(self._segments)
        else:
            change = self.replace_lines(a, b, new[a:nb], "typing")
        self._typing = change
        return change

    def _fresh(self, lines: Sequence[str]) -> tuple[Segment, ...]:
        """Segments for lines typed into an empty transcript: their words share the whole audio
        (``audio_duration_s``) in proportion to their lengths, dealt to the lines."""
        dur = max(0.0, float(self.meta.get("audio_duration_s") or 0.0))
        return edits.replace_run([edits.new_segment(" ".join(lines), 0.0, dur)], lines)

    # ------------------------------------------------------------------ speakers
    def speakers(self) -> list[str]:
        """Speaker names in order of first appearance (segments and words)."""
        return list(dict.fromkeys(_names(self._segments)))

    def _new_speaker_name(self) -> str:
        """"Speaker N" one past the highest N this transcript ever had (its segments, its edits so far,
        the file's speaker table): a new speaker never takes the name of one merged away."""
        history = [seg for c in self._done for sp in c.splices for seg in sp.before + sp.after]
        used = [*_names([*self._segments, *history]),
                *(e.get("name") for e in self.meta.get("speakers") or [] if isinstance(e, dict))]
        numbers = [int(m[8:]) for m in used if isinstance(m, str) and m.startswith("Speaker ") and m[8:].isdigit()]
        return f"Speaker {max(numbers, default=0) + 1}"

    def rename_speaker(self, old: str, new: str) -> Change | None:
        """Every segment and word of ``old`` becomes ``new`` (an existing name: the two merge), one
        undo step. Raises UsageError for an empty new name or an unknown old one."""
        new = (new or "").strip()
        if not new:
            raise UsageError("a speaker needs a name")
        if old not in self.speakers():
            raise UsageError(f"no speaker named {old!r} in this transcript")
        merging = new in self.speakers() and new != old
        splices = []
        for i, s in enumerate(self._segments):
            if s.speaker == old or any(w.speaker == old for w in s.words):
                words = tuple(dataclasses.replace(w, speaker=new) if w.speaker == old else w for w in s.words)
                splices.append(Splice(i, (s,), (dataclasses.replace(s, speaker=new if s.speaker == old else s.speaker,
                                                                    words=words),)))
        return self._commit(f"{'merge' if merging else 'rename'} {old} {'into' if merging else 'to'} {new}", splices)

    def split_speaker(self, old: str, moved: Sequence[int], new: str | None = None) -> Change | None:
        """Segments ``moved`` (indexes of segments said by ``old``) and their words become ``new``
        (default: :meth:`_new_speaker_name`), one undo step: the split of one speaker who was two
        people (:func:`speechstudio.diarize.split.split_by_voice` finds ``moved``). Raises
        UsageError when ``old`` says none of ``moved`` or all of its segments."""
        own = [i for i, s in enumerate(self._segments) if s.speaker == old]
        moved = sorted(set(moved) & set(own))
        if not moved or len(moved) == len(own):
            raise UsageError(f"{old}: choose some, not all, of their segments to give to another speaker")
        new = new or self._new_speaker_name()
        splices = [Splice(i, (s,), (dataclasses.replace(s, speaker=new, words=tuple(
            dataclasses.replace(w, speaker=new) if w.speaker in (old, None) else w for w in s.words)),))
            for i, s in ((i, self._segments[i]) for i in moved)]
        return self._commit(f"split {old}: {len(moved)} segments to {new}", splices)

    def set_speaker(self, i: int, name: str, start: int | None = None, end: int | None = None) -> Change | None:
        """Segment ``i`` (or only its characters ``start:end``, widened to whole words: the segment
        is split around them) is said by ``name``. Raises UsageError for an empty name or range."""
        name = (name or "").strip()
        if not name:
            raise UsageError("a speaker needs a name")
        seg = self._index(i)
        text = seg.text
        if start is None or end is None or (text[:min(start, end)].strip() == "" and text[max(start, end):].strip() == ""):
            words = tuple(dataclasses.replace(w, speaker=name) for w in seg.words)
            return self._commit(f"speaker of segment {i + 1}",
                                [Splice(i, (seg,), (dataclasses.replace(seg, speaker=name, words=words),))])
        a, b = sorted((max(0, start), min(len(text), end)))
        while a < b and text[a].isspace():          # a selection that starts or ends on a space: not the next word
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        while a > 0 and not text[a - 1].isspace():
            a -= 1
        while b < len(text) and not text[b].isspace():
            b += 1
        parts = [text[:a].strip(), text[a:b].strip(), text[b:].strip()]
        if not parts[1]:
            raise UsageError(f"segment {i + 1}: select the words to give to {name}")
        lines = [p for p in parts if p]
        pieces = list(edits.replace_run([seg], lines))
        mid = lines.index(parts[1])
        who = [seg.speaker] * len(pieces)
        who[mid] = name
        pieces = [dataclasses.replace(p, speaker=w, words=tuple(dataclasses.replace(x, speaker=w) for x in p.words))
                  for p, w in zip(pieces, who)]
        return self._commit(f"speaker of words in segment {i + 1}", [Splice(i, (seg,), tuple(pieces))])

    def speaker_count(self) -> str:
        """How many speakers and how sure (``"2 speakers"``, ``"2 or 3 speakers: check"``); ``""``
        without speaker labels. A count the user changed by merging or naming is sure."""
        if not any(s.speaker for s in self._segments):
            return ""
        d = dict(self.meta)
        d.update(self._speaker_tables(d))
        count = d["speaker_count"]
        return count.get("text") or speaker_count_text(count["found"], count.get("could_be"))

    def _speaker_tables(self, d: dict) -> dict:
        """``speaker_count`` / ``speakers`` / ``speaker_turns`` for the current segments; an unsure
        count becomes sure once the user changes it."""
        old = {e.get("name"): e for e in d.get("speakers") or [] if isinstance(e, dict)}
        talk: dict[str, float] = {}
        for s in self._segments:
            if s.speaker:
                talk[s.speaker] = talk.get(s.speaker, 0.0) + max(0.0, s.end_s - s.start_s)
        table = []
        for name in self.speakers():
            e = dict(old.get(name) or {"name": name, "known": False, "similarity": None, "sureness": None})
            e["talk_time_s"] = round(talk.get(name, 0.0), 3)
            table.append(e)
        out = {"speakers": table}
        count = d.get("speaker_count")
        if not isinstance(count, dict) or count.get("found") != len(table):    # the user merged or split
            out["speaker_count"] = {"found": len(table), "sure": True, "could_be": None,
                                    "text": speaker_count_text(len(table), None)}
        turns = d.get("speaker_turns") or []
        if any(isinstance(t, dict) and t.get("speaker") not in talk for t in turns) or not turns:
            out["speaker_turns"] = [{"start_s": s.start_s, "end_s": s.end_s, "speaker": s.speaker}
                                    for s in self._segments if s.speaker]
        return out

    def find(self, query: str, segment: int = 0, char: int = 0, *, case_sensitive: bool = False,
             whole_word: bool = False, backwards: bool = False) -> search.Match | None:
        """The next match of ``query`` from ``(segment, char)``, wrapping (see :mod:`.search`)."""
        return search.find_next(self.texts(), search.pattern(query, case_sensitive, whole_word), segment, char,
                                backwards)

    def find_all(self, query: str, *, case_sensitive: bool = False, whole_word: bool = False) -> list[search.Match]:
        return search.find_all(self.texts(), search.pattern(query, case_sensitive, whole_word))

    def replace(self, match: search.Match, replacement: str) -> Change | None:
        """Replace one match's characters by ``replacement`` (one undo step)."""
        seg = self._index(match.segment)
        text = seg.text[:match.start] + replacement + seg.text[match.end:]
        return self._commit(f"replace in segment {match.segment + 1}",
                            [Splice(match.segment, (seg,), (edits.retext(seg, text),))])

    def replace_all(self, query: str, replacement: str, *, case_sensitive: bool = False,
                    whole_word: bool = False) -> int:
        """Replace every match (one undo step); returns how many were replaced."""
        pat = search.pattern(query, case_sensitive, whole_word)
        splices, n = [], 0
        for i, seg in enumerate(self._segments):
            text, k = pat.subn(lambda _m: replacement, seg.text)
            if k:
                n += k
                splices.append(Splice(i, (seg,), (edits.retext(seg, text),)))
        self._commit(f"replace all {query!r}", splices)
        return n
