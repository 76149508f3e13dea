"""Adapt recognition wizard, step 1: the base CTC model (installed, or a folder), checked with the
trainer's own test on the I/O worker, and the new model's name."""
from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QVBoxLayout

from speechstudio.gui.common import (ERROR_COLOR, asker, buddy_label, button, combo, hrow, note_label, refill, settings,
                                     tint)
from speechstudio.gui.wizard_common import BaseStepFrame
from speechstudio.gui.wording import plain_error
from speechstudio.worker.adapt_jobs import ctc_model_names, describe_ctc_base, list_adapt_runs
from speechstudio.worker.jobs import CallJob

DEFAULT_NAME = "my-asr"


#: what step 1 says of a model the trainer refuses, in plain words; the library's message stays on hover
REFUSED = ("cannot learn your voice here: choose a speech recogniser of the Wav2Vec2 kind (Wav2Vec2, HuBERT, WavLM, "
           "Data2Vec-Audio or Wav2Vec2-Conformer). Hover for the reason.")


def plain_refusal(spec: str, error) -> str:
    """Step 1's line for a refused base model (``error``: the job's ``ErrorLine``): ``"SPEC cannot learn your
    voice here: choose ..."`` for kind ``not_trainable``, else the error's sentence (e.g. "not downloaded yet")."""
    return f"{spec} {REFUSED}" if error.kind == "not_trainable" else plain_error(error)


def plain_summary(info) -> str:
    """Step 1's line about a base model in plain words; ``info``: a
    :class:`~speechstudio.worker.adapt_jobs.CTCBaseInfo` (its ``summary()`` goes in the tooltip)."""
    size = (f"{info.n_params / 1e6:.0f} million parameters" if info.n_params >= 1e6 else
            f"{info.n_params:,} parameters") if info.n_params else "size unknown"
    alphabet = (f"It keeps its alphabet of {info.vocab_size} characters ({info.casing} case)." if info.has_vocab else
                "It has no alphabet yet: one is built from your texts.")
    return f"{info.family} speech recogniser ({'about ' if not info.params_exact and info.n_params else ''}{size}). " \
           f"{alphabet}"


class BaseModelStep(BaseStepFrame):
    NOUN = "model"
    LIST_DESCRIPTION = "list CTC models"

    def __init__(self, wizard) -> None:
        super().__init__(wizard)
        self.error = ""
        self._describe_job: int | None = None
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.model_box = combo("Base model", tip="An installed CTC speech recogniser, or a model folder (Folder…)")
        self.model_box.setMinimumWidth(320)
        self.model_box.currentIndexChanged.connect(self._model_changed)
        self.folder_btn = button("Fol&der…", "Choose a model folder",
                                 "A transformers model folder: a CTC model (Wav2Vec2, HuBERT, Data2Vec-Audio, "
                                 "Wav2Vec2-Conformer, WavLM) or such an encoder without a CTC head",
                                 asker(self, "Base model folder", self.choose))
        form.addRow(buddy_label("&Base model", self.model_box), hrow((self.model_box, 1), self.folder_btn, stretch=False))
        self._add_about_and_name(form, DEFAULT_NAME)
        lay.addLayout(form)
        lay.addWidget(note_label("What this wizard does", "The new model learns your voice, names and words from "
                                 "recordings with their texts (next step). 10–20 minutes of speech is a good start; "
                                 "it then appears in the Transcribe and Dictate model lists."))
        self._add_runs_row(lay, "Continue this run: its base, dataset and settings are loaded, training can resume")

    @staticmethod
    def list_bases():
        """Worker side: ``(installed CTC model names, CTC runs)``."""
        return ctc_model_names(), list_adapt_runs()

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id != self._describe_job:
            super()._on_finished(job_id, status, result)
            return
        self._describe_job = None
        spec = self.model_box.currentData()
        if status == "done" and result.spec == spec:
            self.wiz.base_info, self.error = result, ""
            tint(self.about, None, bold=False)
            self.about.setText(plain_summary(result))
            self.about.setToolTip(result.summary())  # the field's words (CTC head, model type)
        elif status == "failed":
            self.wiz.base_info, self.error = None, str(result)
            tint(self.about, ERROR_COLOR, bold=True)
            self.about.setText(plain_refusal(spec, result))
            self.about.setToolTip(self.error)  # the library's message, for a bug report
            self.wiz.status_message.emit("this base model cannot be fine-tuned: see step 1")
        self.changed.emit()

    def _fill(self, names: list[str], runs: list) -> None:
        cur = self.model_box.currentData() or str(settings().value("adapt/base", ""))
        folders = [self.model_box.itemData(i) for i in range(self.model_box.count())
                   if self.model_box.itemData(i) not in names]
        refill(self.model_box, [(spec, spec) for spec in [*names, *folders]], cur)
        self._show_runs(runs)
        if not self.model_box.count():
            tint(self.about, None, bold=False)
            self.about.setText("No model that can learn your voice is installed: choose a model folder (Folder…), or "
                               "download or import a Wav2Vec2 model on the Models page (e.g. wav2vec2-base-960h).")
            self.about.setToolTip("Base models are CTC recognisers (Wav2Vec2, HuBERT, WavLM ...), e.g. "
                                  "facebook/wav2vec2-base-960h")
        self._model_changed(self.model_box.currentIndex())

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

    def choose_run_base(self, cfg: dict) -> str:
        """Choose the base of a run's ``config.json`` (its store name when listed, else its folder)."""
        base = str(cfg.get("base", ""))
        self.choose(base if self.model_box.findData(base) >= 0 else str(cfg.get("base_path") or base))
        return ""

    def _model_changed(self, index: int) -> None:
        spec = self.model_box.itemData(index) if index >= 0 else None
        self.wiz.base_spec, self.wiz.base_info, self.error = spec, None, ""
        if spec:
            tint(self.about, None, bold=False)
            self.about.setText(f"checking {spec} …")
            self.about.setToolTip("")
            self._describe_job = self.wiz.io.submit(CallJob(describe_ctc_base, spec, description=f"describe {spec}"))
        self.changed.emit()

    def ready(self) -> tuple[bool, str]:
        if self._list_job is not None:
            return False, "listing models…"
        if not self.wiz.base_spec:
            return False, "choose a base model"
        if self.error:
            return False, "this base model cannot be fine-tuned (the reason is shown under it)"
        if self._describe_job is not None or self.wiz.base_info is None:
            return False, "checking the base model…"
        return self.name_problem()
