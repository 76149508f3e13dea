"""Turn a recogniser's stable words into the text to put where the cursor is: spoken punctuation and
commands, sentence casing for CTC output, and the edits (Backspaces, then text) that update the target.

A :class:`Composer` is fed every ``StreamUpdate`` and returns one :class:`Edit` per change of
:attr:`Composer.text`; the grey tail never reaches the target. Rules:

* Commands (:mod:`.commands`) match whole words, case- and punctuation-insensitively, longest first;
words that could begin one are held back (:attr:`Composer.held`) until the next update or the utterance
end. * Words join with the separator (``""`` for scripts without spaces); punctuation (``, . ; : ? ! )
%``) and line breaks attach without a space, and replace a mark the word already ends with. *
``casing="sentence"`` (CTC): lower-case, "I", capitals after ``. ? !`` or a line break; ``"keep"``
(Whisper): as given, capitals only after a spoken sentence end or line break. * "scratch that" removes
the last phrase (the utterance so far, else the previous one); "stop dictating" sets
:attr:`Composer.stop_requested` and drops later words."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from speechstudio.dictation.commands import Command, key

ATTACHING = ",.;:?!)%"
SENTENCE_END = ".?!"


@dataclass(frozen=True)
class Edit:
    """Bring the target up to date: press Backspace ``delete`` times, then insert ``insert``."""

    delete: int
    insert: str


def diff_edit(old: str, new: str) -> Edit | None:
    """The :class:`Edit` turning ``old`` into ``new`` at the end of the text (common prefix kept);
    ``None`` when they are equal."""
    n = 0
    limit = min(len(old), len(new))
    while n < limit and old[n] == new[n]:
        n += 1
    if n == len(old) == len(new):
        return None
    return Edit(len(old) - n, new[n:])


def apply_edit(text: str, edit: Edit) -> str:
    """What the target holds after ``edit``: ``text`` minus ``edit.delete`` trailing characters,
    plus ``edit.insert``."""
    return (text[:len(text) - edit.delete] if edit.delete else text) + edit.insert


class Composer:
    """``commands``: the language's :class:`Command` list (empty: none); ``casing``: ``"sentence"`` |
    ``"keep"``; ``separator``: a string or a function returning it (Whisper knows the script only after
    detection)."""

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
        """Take a :class:`~speechstudio.asr.streaming.StreamUpdate` (its ``words`` and ``kind``)."""
        return self.feed_words([w.text for w in update.words], final=update.kind == "final")

    def feed_words(self, words: Sequence[str], final: bool = False) -> Edit | None:
        """Take newly stable words; ``final``: the utterance ended after them. Returns the edit
        for the target, or ``None`` when the composed text did not change."""
        before = self.text
        if not self.stop_requested:
            self.pending.extend(w for w in (s.strip() for s in words) if w)
            self._process(final)
        if final:
            self.pending.clear()
            self._end_phrase()
        return diff_edit(before, self.text)

    def flush(self) -> Edit | None:
        """End of the session: held words are inserted as words."""
        return self.feed_words([], final=True)

    # ------------------------------------------------------------------ internals
    def _process(self, final: bool) -> None:
        p = self.pending
        while p and not self.stop_requested:
            cmd, n = self._match(p)
            if cmd is not None:
                del p[:n]
                self._command(cmd)
                continue
            if not final and len(p) < self._max_words and " ".join(key(w) for w in p) in self._prefixes:
                return  # may still become a command: wait for the next update
            self._word(p.pop(0))
        if self.stop_requested:
            p.clear()

    def _match(self, p: list[str]) -> tuple[Command | None, int]:
        for n in range(min(self._max_words, len(p)), 0, -1):
            cmd = self._by_key.get(" ".join(key(w) for w in p[:n]))
            if cmd is not None:
                return cmd, n
        return None, 0

    def _sep(self) -> str:
        t = self.text
        if not t or t[-1].isspace() or t[-1] in "(\"'":
            return ""
        return self.separator

    def _at_sentence_start(self) -> bool:
        t = self.text.rstrip(" ")
        return not t or t[-1] in SENTENCE_END or t.endswith("\n")

    def _cased(self, word: str) -> str:
        if self.casing == "sentence":
            w = word.lower()
            if w == "i" or w.startswith("i'"):
                w = "I" + w[1:]
            if self._at_sentence_start():
                w = _capitalise(w)
            return w
        if self._cap_next:
            return _capitalise(word)
        return word

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

    def _command(self, cmd: Command) -> None:
        if cmd.action == "stop":
            self.stop_requested = True
            return
        if cmd.action == "scratch":
            self._scratch()
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

    def _scratch(self) -> None:
        if self._current is not None and self._current < len(self.text):
            start = self._current
        elif self._phrases:
            start = self._phrases.pop()
        else:
            start = 0
        self.text = self.text[:start]
        self._current = None
        self._cap_next = False


def _capitalise(word: str) -> str:
    for i, ch in enumerate(word):
        if ch.isalpha():
            return word[:i] + ch.upper() + word[i + 1:]
    return word


__all__ = ["Composer", "Edit", "apply_edit", "diff_edit"]
