"""Adapt recognition wizard, step 1: the base model and the new model's name.

The list holds the installed models the CTC engine runs (``speechstudio models list``: imported
models, Hugging Face cache, packages); "Folder…" adds any model folder, also a pretrained encoder
without a CTC head (e.g. facebook/wav2vec2-base). Choosing one asks the I/O engine to check it
with the trainer's own test (``finetune.ctc.model.resolve_base``) and describe it (family,
vocabulary, parameters, rate, :func:`~speechstudio.engine.adapt_jobs.describe_ctc_base`); a model
that is not a CTC model (Whisper, BERT ...) shows the library's message and blocks Next. An
earlier run (also one started with ``speechstudio finetune asr``) can be opened and resumed.
"""
from __future__ import annotations

import re

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QVBoxLayout, QWidget)

from speechstudio.engine.jobs import CallJob
from speechstudio.gui.common import settings

DEFAULT_NAME = "my-asr"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")  # a model store name that is also a folder name
_ERROR_STYLE = "QLabel { color: #dc2626; font-weight: bold; }"


def _bases_and_runs():
    """Engine side: ``(installed CTC model names, CTC runs)``."""
    from speechstudio.engine.adapt_jobs import ctc_model_names, list_adapt_runs

    return ctc_model_names(), list_adapt_runs()


def _describe(spec: str):
    from speechstudio.engine.adapt_jobs import describe_ctc_base

    return describe_ctc_base(spec)


def _shown_error(message: str) -> str:
    """The library's message without the CLI's option name (``--base X: ...`` -> ``X: ...``)."""
    return str(message).removeprefix("--base ")


class BaseModelStep(QWidget):
    changed = Signal()

    def __init__(self, wizard) -> None:
        super().__init__()
        self.wiz = wizard
        self.runs: list = []
        self.error = ""
        self._list_job: int | None = None
        self._describe_job: int | None = None
        self._described: str | None = None
        lay = QVBoxLayout(self)
        form = QFormLayout()
        row = QHBoxLayout()
        self.model_box = QComboBox()
        self.model_box.setAccessibleName("Base model")
        self.model_box.setToolTip("An installed CTC speech recogniser, or a model folder (Folder…)")
        self.model_box.setMinimumWidth(320)
        self.model_box.currentIndexChanged.connect(self._model_changed)
        row.addWidget(self.model_box, 1)
        self.folder_btn = QPushButton("Fol&der…")
        self.folder_btn.setAccessibleName("Choose a model folder")
        self.folder_btn.setToolTip("A transformers model folder: a CTC model (Wav2Vec2, HuBERT, Data2Vec-Audio, "
                                   "Wav2Vec2-Conformer, WavLM) or such an encoder without a CTC head")
        self.folder_btn.clicked.connect(self._browse)
        row.addWidget(self.folder_btn)
        label = QLabel("&Base model")
        label.setBuddy(self.model_box)  # a layout as the field gets no buddy from addRow
        form.addRow(label, row)
        self.about = QLabel("listing models…")
        self.about.setAccessibleName("About the base model")
        self.about.setWordWrap(True)
        form.addRow("", self.about)
        self.name_edit = QLineEdit(DEFAULT_NAME)
        self.name_edit.setAccessibleName("Name of the new model")
        self.name_edit.setToolTip("letters, digits, . _ - (the run folder and the model get this name)")
        self.name_edit.textChanged.connect(lambda _t: self.changed.emit())
        form.addRow("New model na&me", self.name_edit)
        lay.addLayout(form)
        hint = QLabel("The new model learns your voice, names and words from recordings with their texts "
                      "(next step). 10–20 minutes of speech is a good start; it then appears in the Transcribe "
                      "and Dictate model lists.")
        hint.setWordWrap(True)
        hint.setAccessibleName("What this wizard does")
        lay.addWidget(hint)
        lay.addSpacing(12)
        row = QHBoxLayout()
        row.addWidget(QLabel("Or continue an earlier run:"))
        self.run_box = QComboBox()
        self.run_box.setAccessibleName("Earlier runs")
        row.addWidget(self.run_box, 1)
        self.open_btn = QPushButton("&Open run")
        self.open_btn.setAccessibleName("Open earlier run")
        self.open_btn.setToolTip("Continue this run: its base, dataset and settings are loaded, training can resume")
        self.open_btn.clicked.connect(lambda: self.wiz.open_run(self.run_box.currentText()))
        row.addWidget(self.open_btn)
        lay.addLayout(row)
        lay.addStretch(1)
        wizard.io.job_finished.connect(self._on_finished)

    # ------------------------------------------------------------------ listing
    def refresh(self) -> int:
        """List the installed CTC models and the earlier runs on the I/O engine."""
        self._list_job = self.wiz.io.submit(CallJob(_bases_and_runs, description="list CTC models"))
        return self._list_job

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id == self._list_job:
            self._list_job = None
            if status != "done":
                self.about.setText(f"models unavailable: {result}")
                return
            self._fill(*result)
        elif job_id == self._describe_job:
            self._describe_job = None
            spec = self.model_box.currentData()
            if status == "done" and result.spec == spec:
                self.wiz.base_info, self.error, self._described = result, "", spec
                self.about.setStyleSheet("")
                self.about.setText(result.summary())
            elif status == "failed":
                self.wiz.base_info, self.error, self._described = None, _shown_error(result), spec
                self.about.setStyleSheet(_ERROR_STYLE)
                self.about.setText(self.error)
                self.wiz.status_message.emit("this base model cannot be fine-tuned: see step 1")
            self.changed.emit()

    def _fill(self, names: list[str], runs: list) -> None:
        cur = self.model_box.currentData() or str(settings().value("adapt/base", ""))
        folders = [self.model_box.itemData(i) for i in range(self.model_box.count())
                   if self.model_box.itemData(i) not in names]
        self.model_box.blockSignals(True)
        self.model_box.clear()
        for spec in [*names, *folders]:
            self.model_box.addItem(spec, spec)
        idx = self.model_box.findData(cur)
        self.model_box.setCurrentIndex(idx if idx >= 0 else 0)
        self.model_box.blockSignals(False)
        self.runs = list(runs)
        self.run_box.clear()
        self.run_box.addItems([r.name for r in self.runs])
        self.run_box.setEnabled(bool(self.runs))
        self.open_btn.setEnabled(bool(self.runs))
        if not self.model_box.count():
            self.about.setStyleSheet("")
            self.about.setText("No CTC recogniser installed: choose a model folder (Folder…), or install or import "
                               "one on the Models page (e.g. facebook/wav2vec2-base-960h).")
        self._model_changed(self.model_box.currentIndex())

    # ------------------------------------------------------------------ choosing
    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Base model folder")
        if path:
            self.choose(path)

    def choose(self, spec: str) -> int | None:
        """Choose ``spec`` (a listed name or a folder, added to the list); returns the id of the
        describe job (its result, or the refusal, shows under the list)."""
        idx = self.model_box.findData(spec)
        if idx < 0:
            self.model_box.addItem(spec, spec)
            idx = self.model_box.count() - 1
        if idx == self.model_box.currentIndex():
            self._model_changed(idx)
        else:
            self.model_box.setCurrentIndex(idx)
        return self._describe_job

    def _model_changed(self, index: int) -> None:
        spec = self.model_box.itemData(index) if index >= 0 else None
        self.wiz.base_spec, self.wiz.base_info, self.error, self._described = spec, None, "", None
        if spec:
            self.about.setStyleSheet("")
            self.about.setText(f"checking {spec} …")
            self._describe_job = self.wiz.io.submit(CallJob(_describe, spec, description=f"describe {spec}"))
        self.changed.emit()

    # ------------------------------------------------------------------ wizard
    def name(self) -> str:
        return self.name_edit.text().strip()

    def ready(self) -> tuple[bool, str]:
        if self._list_job is not None:
            return False, "listing models…"
        if not self.wiz.base_spec:
            return False, "choose a base model"
        if self.error:
            return False, "this base model cannot be fine-tuned (the reason is shown under it)"
        if self._describe_job is not None or self.wiz.base_info is None:
            return False, "checking the base model…"
        if not _NAME_RE.match(self.name()):
            return False, "the new model needs a name: letters, digits, . _ - (up to 80)"
        return True, ""

    def entered(self) -> None:
        if self.isVisible() and self._list_job is None:
            self.refresh()
