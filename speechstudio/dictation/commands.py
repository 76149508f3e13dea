"""Spoken punctuation and commands: a per-language table (``<data dir>/dictation/commands.json``, else
:data:`DEFAULT_COMMANDS`: en, de, fr, es) mapping ``say`` to ``insert`` or ``action``; a bad file raises
:class:`CommandTableError` naming the entry."""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from speechstudio.atomic import atomic_write_json
from speechstudio.errors import SpeechStudioError
from speechstudio.hub.paths import data_dir

ACTIONS = ("scratch", "stop")


class CommandTableError(SpeechStudioError):
    """The commands file is not valid JSON or an entry is malformed."""


@dataclass(frozen=True)
class Command:
    """``say``: the spoken phrase (lower case, words separated by single spaces); exactly one of
    ``insert`` (text) or ``action`` (one of :data:`ACTIONS`)."""

    say: str
    insert: str | None = None
    action: str | None = None

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(self.say.split())


def key(text: str) -> str:
    """The matching key of a word or phrase: lower case, hyphens as spaces, other punctuation
    removed (apostrophes inside words kept), single spaces. ``"Full-stop."`` -> ``"full stop"``."""
    t = text.lower().replace("-", " ").replace("\u2019", "'")
    t = re.sub(r"[^\w\s']", " ", t)
    t = re.sub(r"(?<!\w)'|'(?!\w)", " ", t)
    return " ".join(t.split())


_c = Command
_EN = [_c("comma", ","), _c("period", "."), _c("full stop", "."), _c("question mark", "?"),
       _c("exclamation mark", "!"), _c("exclamation point", "!"), _c("colon", ":"), _c("semicolon", ";"),
       _c("new line", "\n"), _c("newline", "\n"), _c("new paragraph", "\n\n"),
       _c("scratch that", action="scratch"), _c("stop dictating", action="stop"), _c("stop dictation", action="stop")]
_DE = [_c("komma", ","), _c("punkt", "."), _c("fragezeichen", "?"), _c("ausrufezeichen", "!"),
       _c("doppelpunkt", ":"), _c("neue zeile", "\n"), _c("neuer absatz", "\n\n"),
       _c("das streichen", action="scratch"), _c("diktat beenden", action="stop")]
_FR = [_c("virgule", ","), _c("point", "."), _c("point d'interrogation", "?"), _c("point d'exclamation", "!"),
       _c("deux points", ":"), _c("à la ligne", "\n"), _c("nouvelle ligne", "\n"), _c("nouveau paragraphe", "\n\n"),
       _c("efface ça", action="scratch"), _c("arrête la dictée", action="stop")]
_ES = [_c("coma", ","), _c("punto", "."), _c("signo de interrogación", "?"), _c("signo de exclamación", "!"),
       _c("dos puntos", ":"), _c("nueva línea", "\n"), _c("punto y aparte", "\n\n"), _c("nuevo párrafo", "\n\n"),
       _c("borra eso", action="scratch"), _c("detener dictado", action="stop")]

DEFAULT_COMMANDS: dict[str, tuple[Command, ...]] = {"en": tuple(_EN), "de": tuple(_DE), "fr": tuple(_FR),
                                                    "es": tuple(_ES)}


def commands_path() -> Path:
    """``<data dir>/dictation/commands.json`` (:func:`speechstudio.hub.paths.data_dir`)."""
    return data_dir() / "dictation" / "commands.json"


class CommandTable:
    """Commands per language code (``"en"``, ``"de"``, ...). :meth:`for_language` gives one
    language's commands (``None`` or a language without a table: English)."""

    def __init__(self, languages: dict[str, tuple[Command, ...]] | None = None) -> None:
        self.languages = {k: tuple(v) for k, v in (languages if languages is not None else DEFAULT_COMMANDS).items()}

    def for_language(self, language: str | None) -> tuple[Command, ...]:
        lang = (language or "en").lower().split("-")[0].split("_")[0]
        return self.languages[lang] if lang in self.languages else self.languages.get("en", ())

    # ------------------------------------------------------------------ file
    @classmethod
    def load(cls, path: str | os.PathLike | None = None) -> "CommandTable":
        """Read the table from ``path`` (default :func:`commands_path`); the defaults when the
        file does not exist. Raises :class:`CommandTableError` ("file: reason")."""
        path = Path(path) if path is not None else commands_path()
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise CommandTableError(f"{path}: cannot read the dictation commands: {e}") from None
        return cls.from_json(data, str(path))

    @classmethod
    def from_json(cls, data, where: str = "commands") -> "CommandTable":
        if not isinstance(data, dict) or not isinstance(data.get("languages"), dict):
            raise CommandTableError(f"{where}: expected {{\"version\": 1, \"languages\": {{...}}}}")
        out: dict[str, tuple[Command, ...]] = {}
        for lang, entries in data["languages"].items():
            if not isinstance(entries, list):
                raise CommandTableError(f"{where}: languages.{lang}: expected a list of commands")
            out[str(lang).lower()] = tuple(parse_command(e, f"{where}: languages.{lang}[{i}]")
                                           for i, e in enumerate(entries))
        return cls(out)

    def to_json(self) -> dict:
        return {"version": 1, "languages": {
            lang: [{"say": c.say, "insert": c.insert} if c.action is None else {"say": c.say, "action": c.action}
                   for c in cmds] for lang, cmds in self.languages.items()}}

    def save(self, path: str | os.PathLike | None = None) -> Path:
        """Write the table atomically to ``path`` (default :func:`commands_path`; folders created)."""
        return atomic_write_json(Path(path) if path is not None else commands_path(), self.to_json())


def parse_command(entry, where: str) -> Command:
    """One ``{"say": ..., "insert": ...}`` / ``{"say": ..., "action": ...}`` entry; raises
    :class:`CommandTableError` naming ``where``."""
    if not isinstance(entry, dict) or not isinstance(entry.get("say"), str):
        raise CommandTableError(f"{where}: expected {{\"say\": \"...\", \"insert\": \"...\"}} or "
                                f"{{\"say\": \"...\", \"action\": \"scratch|stop\"}}")
    say = key(entry["say"])
    if not say:
        raise CommandTableError(f"{where}: \"say\" has no words")
    insert, action = entry.get("insert"), entry.get("action")
    if (insert is None) == (action is None):
        raise CommandTableError(f"{where} ({say!r}): give exactly one of \"insert\" or \"action\"")
    if action is not None and action not in ACTIONS:
        raise CommandTableError(f"{where} ({say!r}): unknown action {action!r} (expected one of {', '.join(ACTIONS)})")
    if insert is not None and (not isinstance(insert, str) or insert == ""):
        raise CommandTableError(f"{where} ({say!r}): \"insert\" must be a non-empty string")
    return Command(say, insert, action)
