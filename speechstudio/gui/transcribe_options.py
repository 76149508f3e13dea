"""The Transcribe page's language row: language (auto + the model's languages), task and a custom
vocabulary kept per model."""
from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QLabel, QWidget

from speechstudio.asr import family
from speechstudio.asr.languages import LANGUAGES, language_name
from speechstudio.gui.common import DEFAULT_MODEL, bare, combo, flow, is_default_model, line_edit, refill, settings
from speechstudio.gui.wording import sureness
from speechstudio.hub.catalog import find_entry
from speechstudio.hub.inventory import list_models
from speechstudio.hub.packages import find_package_model

AUTO_LABEL = "auto (detect)"


def _known(model: str | None):
    """The package model or catalog entry named ``model``; ``None`` for "(default)" or an unknown name."""
    return None if is_default_model(model) else find_package_model(model) or find_entry(model)


def model_languages(model: str | None) -> tuple[str, ...] | None:
    """Languages the store knows for ``model`` (a name or id): ``("en",)`` for English-only models,
    ``None`` (all of Whisper's) for the default routing, multilingual or unknown models."""
    langs = tuple(getattr(_known(model), "languages", ()) or ())
    return None if not langs or langs == ("multi",) else langs


def model_capabilities(model: str | None):
    """The :class:`~speechstudio.asr.family.AsrCapabilities` of ``model``'s family when the store knows
    it (package, catalog, imported or cached model), else ``None`` (the default routing, a folder)."""
    if is_default_model(model):
        return None
    engine = getattr(_known(model), "engine", None) or next(
        (m.engine for m in list_models(include_catalog=False) if m.name == model), None)
    return family.capabilities(engine) if engine else None


def vocabulary_key(model: str) -> str:
    """Settings key of a model's vocabulary (``/`` and ``\\`` would nest INI groups: replaced)."""
    return "transcribe/vocabulary/" + (model or DEFAULT_MODEL).replace("/", "|").replace("\\", "|")


VOCABULARY_TIP = ("Kept per model. Whisper is primed with these words (faster-whisper hotwords); "
                  "CTC models take no vocabulary.")


class LanguageOptions(QWidget):
    """Language, task and vocabulary controls; :meth:`set_model` follows the model picker."""

    changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.language_box = combo("Language", tip="auto: detect each file's language on its first speech; English "
                                  "goes to the English model, other languages to multilingual Whisper")
        self.task_box = combo("Task", [("transcribe", "transcribe"), ("translate to English", "translate")],
                              "translate: speech in any language to English text (multilingual Whisper)")
        self.vocabulary = line_edit("Vocabulary", "names and jargon to prefer, e.g. Kubernetes, Dr. Nguyen (Whisper)",
                                    tip=VOCABULARY_TIP)
        self.track_box = combo("Audio track", [("default", "")] + [(n, n) for n in "1234"],
                               "Videos with several audio tracks (languages, commentary): the track to transcribe. "
                               "default: the one the file marks as default, else the loudest.")
        self.setLayout(bare(flow([QLabel("Language"), self.language_box], [QLabel("Task"), self.task_box],
                                 ([QLabel("Vocabulary"), (self.vocabulary, 1)], 1),
                                 [QLabel("Audio track"), self.track_box])))
        self._model = DEFAULT_MODEL
        self._fill_languages(None)
        self.vocabulary.textEdited.connect(self._vocabulary_edited)
        self.language_box.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.task_box.currentIndexChanged.connect(lambda _i: self.changed.emit())

    def _fill_languages(self, only: tuple[str, ...] | None) -> None:
        current = self.language()
        codes = only if only is not None else tuple(sorted(LANGUAGES, key=lambda c: LANGUAGES[c]))
        with QSignalBlocker(self.language_box):
            refill(self.language_box, [(AUTO_LABEL, None), *((f"{language_name(c)} ({c})", c) for c in codes)])
            self.set_language(current)

    def language(self) -> str | None:
        """The chosen language code, ``None`` for auto."""
        return self.language_box.currentData()

    def set_language(self, code: str | None) -> None:
        i = self.language_box.findData(code) if code else 0
        self.language_box.setCurrentIndex(max(0, i))

    def task(self) -> str:
        return self.task_box.currentData() or "transcribe"

    def set_task(self, task: str) -> None:
        self.task_box.setCurrentIndex(max(0, self.task_box.findData(task)))

    def audio_track(self) -> str | None:
        """The audio track number chosen, ``None`` for the file's default."""
        return self.track_box.currentData() or None

    def hotwords(self) -> str | None:
        """The vocabulary, ``None`` when empty or when the model's family takes none."""
        return (self.vocabulary.text().strip() or None) if self.vocabulary.isEnabled() else None

    def set_model(self, model: str) -> None:
        """The model picker changed: offer its languages and show its vocabulary."""
        self._model = (model or "").strip() or DEFAULT_MODEL
        self._fill_languages(model_languages(self._model))
        self.vocabulary.setText(str(settings().value(vocabulary_key(self._model), "") or ""))
        caps = model_capabilities(self._model)
        takes_prompt = caps is None or caps.prompt
        self.vocabulary.setEnabled(takes_prompt)
        self.vocabulary.setToolTip(VOCABULARY_TIP if takes_prompt else
                                   f"{self._model} takes no vocabulary (a CTC model has one fixed alphabet); "
                                   "choose a Whisper model to prefer names and jargon.")

    def _vocabulary_edited(self, text: str) -> None:
        settings().setValue(vocabulary_key(self._model), text.strip())
        self.changed.emit()

    def restore(self) -> None:
        s = settings()
        self.set_language(str(s.value("transcribe/language", "") or "") or None)
        self.set_task(str(s.value("transcribe/task", "transcribe")))

    def save(self) -> None:
        s = settings()
        s.setValue("transcribe/language", self.language() or "")
        s.setValue("transcribe/task", self.task())
        s.setValue(vocabulary_key(self._model), self.vocabulary.text().strip())


def status_with_language(text: str, info) -> str:
    """``"done · German"``, ``"done · German (probably)"``: the status with the file's language and,
    when detection was not sure (probability < 0.9), how sure it was in words
    (:func:`~speechstudio.gui.wording.sureness`; the number is in :func:`language_tip`)."""
    text = f"{text} · {language_name(info.language)}"
    how = sureness(info.language_probability)
    if how and how != "sure":
        text += f" ({how})"
    return text + (" → English" if info.task == "translate" else "")


def language_tip(info) -> str:
    """Tooltip lines: which model wrote the text, and how the language was found (a file in several: the one
    with the most speech, each stretch detected on its own: no probability)."""
    how = (f"detected by {info.detector} with probability {info.language_probability:.2f}"
           if info.language_probability is not None else
           f"the most spoken; detected stretch by stretch by {info.detector}" if info.detector else "given")
    return f"language {info.language} ({how}); transcribed by {info.model_id}" + (f"\n{info.note}" if info.note else "")
