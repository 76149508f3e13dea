"""The registry of speech-recognition families (:data:`speechstudio.registry.RECOGNISERS`: ``wav2vec2``,
``whisper``): an ``AsrFamily`` detects, loads, states ``capabilities``, checks options and streams.
``engine`` fields hold the family's name, never a runtime. No torch until ``load``."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from speechstudio.errors import UsageError
from speechstudio.hub.catalog import find_entry
from speechstudio.hub.detect import ModelFolder
from speechstudio.registry import RECOGNISERS


@dataclass(frozen=True)
class AsrCapabilities:
    """What a family's models can do: ``languages`` (``("multi",)`` or ISO codes), ``translate``,
    ``prompt``, ``casing``, ``streaming`` (``"windows"`` | ``"agreement"`` | None), ``trainable``."""

    languages: tuple[str, ...] = ("multi",)
    translate: bool = False
    prompt: bool = False
    casing: bool = False
    streaming: str | None = None
    trainable: bool = False


@dataclass(frozen=True)
class OptionCheck:
    """Options as given, checked before any file is read: ``language`` (ISO or None), ``task`` (``transcribe`` |
    ``translate``), ``hotwords`` / ``initial_prompt``, ``chunk_s`` / ``stride_s`` (seconds or None)."""

    language: str | None = None
    task: str = "transcribe"
    hotwords: str | None = None
    initial_prompt: str | None = None
    chunk_s: float | None = None
    stride_s: float | None = None


@dataclass
class AsrFamily:
    """One family of recognisers: subclasses override ``detect``, ``load`` and, if it streams,
    ``open_stream``; ``check_options`` refuses what ``capabilities`` excludes."""

    name: str
    label: str
    capabilities: AsrCapabilities = field(default_factory=AsrCapabilities)

    def detect(self, folder: ModelFolder) -> bool:
        """True when ``folder`` is a model of this family. Raises ``ModelNotFoundError`` (naming the
        folder and the reason) when it claims to be one but cannot be run (a part is missing...)."""
        raise NotImplementedError

    def load(self, path: Path, model_id: str, *, device: str = "auto", precision: str = "auto",
             batch_size: int | None = None, chunk_s: float | None = None, stride_s: float | None = None,
             vocabulary: str = "auto", workers: int = 1):
        """The loaded recogniser (its ``engine`` is ``self.name``); ``workers``: inputs decoded at once where it
        can. Raises ``ModelNotFoundError`` / ``UsageError``."""
        raise NotImplementedError

    def describe(self, recognizer) -> tuple[str, str]:
        """``(kind, note)`` for the "using MODEL (kind, source); note" line: default ``(name, "")``."""
        return self.name, ""

    def english_only(self, recognizer) -> bool:
        """True when ``recognizer`` transcribes English only (default: the family is English-only, or
        the catalog says the model is)."""
        if tuple(self.capabilities.languages) == ("en",):
            return True
        entry = find_entry(recognizer.model_id)
        return entry is not None and tuple(entry.languages) == ("en",)

    def check_options(self, recognizer, options: OptionCheck) -> list[str]:
        """Refuse what this family's models cannot do, before any audio is read. Returns one-line notes
        for ignored options; raises ``UsageError`` naming the model and what to use instead."""
        caps, model = self.capabilities, recognizer.model_id
        if options.task not in ("transcribe", "translate"):
            raise UsageError(f"--task {options.task}: expected transcribe or translate")
        if options.task == "translate" and (not caps.translate or self.english_only(recognizer)):
            why = "is an English-only model and" if caps.translate else f"({self.label})"
            raise UsageError(f"--task translate: {model} {why} cannot translate; use a multilingual "
                             "Whisper model (e.g. --model whisper-base)")
        if (options.hotwords or options.initial_prompt) and not caps.prompt:
            raise UsageError(f"--hotwords / --initial-prompt: {model} ({self.label}) takes no prompt or custom "
                             "vocabulary; use a Whisper model for that")
        if options.language and options.language != "en" and self.english_only(recognizer):
            raise UsageError(f"--language {options.language}: {model} is an English-only model; use a "
                             "multilingual Whisper model (e.g. --model whisper-base)")
        return []

    def open_stream(self, recognizer, config=None, *, input_rate: int | None = None, language: str | None = None,
                    task: str = "transcribe", hotwords: str | None = None, beam_size: int | None = None,
                    backlog_s: Callable[[], float] | None = None):
        """A streaming recogniser over ``recognizer`` (see :func:`speechstudio.asr.live.open_recognizer`).
        Raises ``UsageError`` when the family cannot stream."""
        raise UsageError(f"{recognizer.model_id} ({self.label}) cannot stream, so it cannot dictate; "
                         "dictation takes a Wav2Vec2 CTC or a Whisper model")


#: The registry's calls (:class:`speechstudio.registry.Registry`): ``register(family, replace=False)``
#: adds one after the built-ins, ``families()`` in detection order, ``get(name)`` raises
#: ``ModelNotFoundError`` for an unknown name.
register, unregister, families, get = RECOGNISERS.register, RECOGNISERS.unregister, RECOGNISERS.all, RECOGNISERS.get


def of(recognizer) -> AsrFamily | None:
    """The family of a loaded recogniser, ``None`` for a wrapper such as the language router."""
    return RECOGNISERS.find(getattr(recognizer, "engine", None))


def capabilities(name: str) -> AsrCapabilities:
    """``get(name).capabilities``; an unknown name (an old queue entry) gets no capabilities."""
    family = RECOGNISERS.find(name)
    return family.capabilities if family is not None else AsrCapabilities(languages=())


def label(name: str) -> str:
    """The family's display name (``"Whisper"``, ``"Wav2Vec2-family CTC"``); ``name`` when unknown."""
    family = RECOGNISERS.find(name)
    return family.label if family is not None else name


def check_options(recognizer, options: OptionCheck) -> list[str]:
    """``check_options`` of ``recognizer``'s family: for a language router that guards a chosen
    English-only model, that model's; none for the default routing, which checks per input."""
    recognizer = getattr(recognizer, "chosen", None) or recognizer
    family = of(recognizer)
    return family.check_options(recognizer, options) if family is not None else []


