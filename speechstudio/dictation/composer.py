"""A recogniser's stable words to the text at the cursor: spoken commands, sentence casing for CTC, and
one :class:`Edit` (Backspaces, then text) per change. Inserting commands count only at a phrase end
(gurjar1/OmniDictate#14); measured: ``python bench/dictation_commands.py``."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from speechstudio.dictation.commands import Command, key

ATTACHING = ",.;:?!)%"
SENTENCE_END = ".?!"
#: A pause this long after a command word ends a phrase (s): the word is meant as the command.
PHRASE_PAUSE_S = 0.3
#: Words after which a command word is a noun ("the period", "a comma", "the trial period").
NOUN_BEFORE = frozenset(
    "the a an these those my your his her its our their every each any no another per which what whose of "
    "grace probation probationary billing cooling menstrual reporting transition inverted serial oxford".split())
#: Words after which a command word is a noun or subject: it continues the phrase ("period lasts").
CONTINUES = frozenset(
    "of is was are were has had have will would can could should may might must does did do lasts lasted last "
    "ends ended starts started begins began runs ran covers covered means meant goes went key keys mark marks "
    "sign signs symbol symbols splice splices rule rules drama dramas piece pieces costume costumes furniture "
    "during between when where which who whose since until character characters button".split())
_NOT_VERBS = frozenset("thanks yes this thus always perhaps sometimes unless besides towards afterwards yours ours "
                       "hers its his is was has does goes news series species lens bus gas plus minus".split())


@dataclass(frozen=True)
class Edit:
    """Bring the target up to date: press Backspace ``delete`` times, then insert ``insert``."""

    delete: int
    insert: str


def diff_edit(old: str, new: str) -> Edit | None:
    """The :class:`Edit` turning ``old`` into ``new`` at the end of the text (common prefix kept);
    ``None`` when they are equal."""
    n = len(os.path.commonprefix((old, new)))
    return None if n == len(old) == len(new) else Edit(len(old) - n, new[n:])


def apply_edit(text: str, edit: Edit) -> str:
    """What the target holds after ``edit``: ``text`` minus ``edit.delete`` trailing characters,
    plus ``edit.insert``."""
    return (text[:len(text) - edit.delete] if edit.delete else text) + edit.insert


class Composer:
    """``commands``: the language's :class:`Command` list (empty: none); ``casing``: ``"sentence"`` | ``"keep"``;
    ``separator``: a string or a function returning it (Whisper knows the script only after detection)."""

    def __init__(self, commands: Iterable[Command] = (), *, casing: str = "keep",
                 separator: str | Callable[[], str] = " ") -> None:
        if casing not in ("sentence", "keep"):
            raise ValueError(f"casing must be 'sentence' or 'keep', got {casing!r}")
        self.commands = tuple(commands)
        self.casing, self._separator = casing, separator
        self._by_key = {c.say: c for c in self.commands}
        self._max_words = max((len(c.words) for c in self.commands), default=1)
        self._prefixes = {" ".join(c.words[:i]) for c in self.commands for i in range(1, len(c.words))}
        self.text = ""
        self.pending: list[str] = []       # words held back: they may begin a command
        self._times: list[tuple[float | None, float | None]] = []  # (start_s, end_s) of each pending word
        self._tail_pause: float | None = None  # silence after the last pending word, when known
        self.heard: list[str] = []         # every word as recognised, commands included (for the log)
        self._last_key = ""                # the last word put into the text ("" after a command)
        self._phrases: list[int] = []      # start offsets of finished phrases
        self._current: int | None = None   # start offset of the phrase being dictated
        self._cap_next = False             # keep-casing: capitalise after a spoken sentence end
        self.stop_requested = False

    @property
    def separator(self) -> str:
        return self._separator() if callable(self._separator) else self._separator

    @property
    def held(self) -> str:
        """The held-back words, joined (show them with the grey tail)."""
        return self.separator.join(self.pending)

    # ------------------------------------------------------------------ feeding
    def feed(self, update) -> Edit | None:
        """Take a :class:`~speechstudio.asr.streaming.StreamUpdate` (its ``words`` with their times,
        ``kind``; with no tail text, ``audio_s`` after the last word is a pause)."""
        words = [w for w in update.words if w.text.strip()]
        times = [(w.start_s, w.end_s) for w in words]
        tail = None
        if words and not update.tail_text.strip():
            tail = max(0.0, update.audio_s - words[-1].end_s)
        return self.feed_words([w.text for w in words], final=update.kind == "final", times=times, tail_pause_s=tail)

    def feed_words(self, words: Sequence[str], final: bool = False, times: Sequence[tuple[float, float]] | None = None,
                   tail_pause_s: float | None = None) -> Edit | None:
        """Take newly stable words; ``final``: the utterance ended after them; ``times``: each word's
        ``(start_s, end_s)`` when known; ``tail_pause_s``: silence heard after the last one. Returns the
        edit for the target, or ``None`` when the composed text did not change."""
        before = self.text
        if not self.stop_requested:
            for i, w in enumerate(words):
                if w.strip():
                    self.pending.append(w.strip())
                    self._times.append(tuple(times[i]) if times is not None else (None, None))
                    self.heard.append(w.strip())
            self._tail_pause = tail_pause_s
            self._process(final)
        if final:
            self.pending.clear()
            self._times.clear()
            self._end_phrase()
        return diff_edit(before, self.text)

    def flush(self) -> Edit | None:
        """End of the session: held words are inserted as words."""
        return self.feed_words([], final=True)

    # ------------------------------------------------------------------ internals
    def _process(self, final: bool) -> None:
        p = self.pending
        while p and not self.stop_requested:
            cmd, n = next(((c, n) for n in range(min(self._max_words, len(p)), 0, -1)      # the longest command
                           if (c := self._by_key.get(" ".join(key(w) for w in p[:n]))) is not None), (None, 0))
            if cmd is not None and cmd.insert is not None:
                if n == len(p) and not final and not self._paused_after(n - 1):
                    return  # meant or not is decided by the next word, a pause or the end
                if not self._meant(p, n, final):
                    for _ in range(n):
                        self._pop_word()
                    continue
            if cmd is not None:
                del p[:n]
                del self._times[:n]
                self._command(cmd)
                continue
            if not final and len(p) < self._max_words and " ".join(key(w) for w in p) in self._prefixes:
                return  # may still become a command: wait for the next update
            self._pop_word()
        if self.stop_requested:
            p.clear()
            self._times.clear()

    def _pop_word(self) -> None:
        self._times.pop(0)
        self._word(self.pending.pop(0))

    def _paused_after(self, i: int) -> bool:
        """True when a pause of ``PHRASE_PAUSE_S`` or more is known to follow pending word ``i``."""
        if i + 1 < len(self._times):
            end, start = self._times[i][1], self._times[i + 1][0]
            return end is not None and start is not None and start - end >= PHRASE_PAUSE_S
        return self._tail_pause is not None and self._tail_pause >= PHRASE_PAUSE_S

    def _meant(self, p: list[str], n: int, final: bool) -> bool:
        """Whether the command in ``p[:n]`` ends a phrase (module docstring) or is said as words."""
        if self._last_key in NOUN_BEFORE:
            return False
        if p[n - 1][-1:] in ATTACHING or self._paused_after(n - 1):
            return True  # the recogniser heard a sentence end ("period."), or the speaker paused
        if n == len(p):
            return True  # the end of the utterance
        nxt = p[n]
        k = key(nxt)
        if k in CONTINUES:
            return False
        if nxt[:1].isupper() and not nxt.isupper() and k != "i":
            return True  # a capital the recogniser wrote: a new sentence
        return not (len(k) >= 4 and k.endswith("s") and not k.endswith("ss") and k not in _NOT_VERBS
                    and "'" not in k and self._by_key[" ".join(key(w) for w in p[:n])].insert.strip() in SENTENCE_END)

    def _sep(self) -> str:
        t = self.text
        return "" if not t or t[-1].isspace() or t[-1] in "(\"'" else self.separator

    def _cased(self, word: str) -> str:
        if self.casing == "sentence":
            w = word.lower()
            if w == "i" or w.startswith("i'"):
                w = "I" + w[1:]
            t = self.text.rstrip(" ")
            if not t or t[-1] in SENTENCE_END or t.endswith("\n"):      # at a sentence start
                w = _capitalise(w)
            return w
        return _capitalise(word) if self._cap_next else word

    def _start_phrase(self) -> None:
        if self._current is None:
            self._current = len(self.text)

    def _end_phrase(self) -> None:
        if self._current is not None and self._current < len(self.text):
            self._phrases.append(self._current)
        self._current = None

    def _word(self, word: str) -> None:
        self._start_phrase()
        self.text += self._sep() + self._cased(word)
        self._cap_next = False
        self._last_key = key(word)

    def _command(self, cmd: Command) -> None:
        self._last_key = ""
        if cmd.action == "stop":
            self.stop_requested = True
            return
        if cmd.action == "scratch":         # the phrase being dictated, else the last finished one
            current = self._current is not None and self._current < len(self.text)
            start = self._current if current else self._phrases.pop() if self._phrases else 0
            self.text = self.text[:start]
            self._current = None
            self._cap_next = False
            return
        s = cmd.insert or ""
        if s.startswith("\n"):
            self._end_phrase()
            self._current = len(self.text)
            self.text = self.text.rstrip(" ") + s
            self._end_phrase()
        elif all(ch in ATTACHING for ch in s):
            self._start_phrase()
            if s[0] in ",.;:?!" and self.text and self.text[-1] in ",.;:?!":
                self.text = self.text[:-1]  # the model's own mark: replaced, not doubled
            self.text += s
        else:
            self._start_phrase()
            self.text += self._sep() + s
        self._cap_next = s.rstrip(" ")[-1:] in SENTENCE_END or s.endswith("\n")


def _capitalise(word: str) -> str:
    for i, ch in enumerate(word):
        if ch.isalpha():
            return word[:i] + ch.upper() + word[i + 1:]
    return word
