"""The recording script of the voice-cloning wizard: ``consent_sentence(name)``, then ``load_prompts()``:
``prompts_en.txt`` (package data), 150 English sentences written for SpeechStudio to cover every General
American phoneme espeak-ng produces (source and licence in the file's header)."""
from __future__ import annotations

from importlib import resources

from speechstudio.errors import UsageError

#: The first prompt of every recording session; it is kept with the dataset (``consent.txt``).
CONSENT_TEMPLATE = "I, {name}, record my own voice to make a synthetic voice."

_FILES = {"en": "prompts_en.txt"}


def load_prompts(language: str = "en") -> list[str]:
    """The bundled prompts for ``language`` (only ``"en"`` today), in recording order.

    Lines starting with ``#`` and blank lines of the file are skipped. Raises ``UsageError`` for a
    language without a bundled script."""
    name = _FILES.get(language.split("-")[0].lower())
    if name is None:
        raise UsageError(f"no bundled recording script for language {language!r} (have: {', '.join(_FILES)})")
    text = resources.files("speechstudio.finetune").joinpath(name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def consent_sentence(name: str) -> str:
    """``"I, NAME, record my own voice to make a synthetic voice."`` for the speaker's ``name``
    (whitespace collapsed). Raises ``UsageError`` for an empty name."""
    name = " ".join(str(name).split())
    if not name:
        raise UsageError("the consent sentence needs the speaker's name")
    return CONSENT_TEMPLATE.format(name=name)


def script(name: str, language: str = "en") -> list[str]:
    """The whole session: ``[consent_sentence(name), *load_prompts(language)]``; prompt index 0 is
    the consent take (see ``recording.save_take``)."""
    return [consent_sentence(name), *load_prompts(language)]
