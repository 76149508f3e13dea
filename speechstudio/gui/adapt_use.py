"""Adapt recognition wizard, step 4: WER / CER of the base and the adapted model on the held-out clips,
then "Add to my models" (the Transcribe and Dictate pickers are refilled)."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QAbstractScrollArea, QCheckBox, QHeaderView, QLineEdit, QSizePolicy,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from speechstudio.gui.adapt_train import percent
from speechstudio.gui.common import add_row, buddy_label, button, hrow, named, note_label, table
from speechstudio.gui.wizard_common import open_with
from speechstudio.gui.wording import plain_error
from speechstudio.worker.adapt_jobs import CompareJob, RegisterJob
from speechstudio.worker.worker import Status

EXAMPLE_COLS = ("Reference", "Base model", "Adapted model")


class UseStep(QWidget):
    """Signals: ``compared(comparison)``, ``model_saved(name)``."""

    compared = Signal(object)
    model_saved = Signal(str)

    def __init__(self, wizard) -> None:
        super().__init__()
        self.wiz = wizard
        self.comparison = None
        self.saved_name: str | None = None
        self._for_dictation = False
        self._compare_job = self._save_job = None
        lay = QVBoxLayout(self)
        self.figures = table("Base and adapted error rates", ("Words wrong", "Letters wrong"), 2, numbers=True,
                             stretch_last=False)
        self.figures.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        for col, tip in enumerate(("Word error rate (WER): words left out, added or changed, per word of the "
                                   "clips' texts", "Character error rate (CER): the same, counted in letters")):
            self.figures.horizontalHeaderItem(col).setToolTip(tip)
        self.figures.setVerticalHeaderLabels(("Base model", "Adapted model"))
        self.figures.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.figures.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.figures.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.figures.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.figures.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.figures.setMaximumWidth(440)
        lay.addWidget(self.figures)
        self.summary = note_label("Evaluation summary")
        lay.addWidget(self.summary)
        self.examples = table("Example transcripts", EXAMPLE_COLS, numbers=True, stretch_last=False)
        self.examples.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.examples.setWordWrap(True)
        self.examples.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.examples.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        lay.addWidget(self.examples, 1)
        self.name_edit = named(QLineEdit(), "Name of the new model")
        self.save_btn = button("&Add to my models", "Add to my models", "Register the adapted model in the model "
                               "store (Transcribe, Dictate, speechstudio transcribe --model NAME)", self.save)
        self.replace_check = named(QCheckBox("Replace a model of that name"), "Replace an existing model of that name")
        self.dictation_check = named(QCheckBox("Use for dictation"), "Use the new model for dictation", "Dictation uses "
                                     "this model when no model is chosen (unticked: adding the model changes no default)")
        lay.addLayout(hrow(buddy_label("Model na&me", self.name_edit), (self.name_edit, 1), self.save_btn,
                           self.replace_check, self.dictation_check, stretch=False))
        self.transcribe_btn = button("Open &Transcribe", "Use the model on the Transcribe page",
                                     "Go to the Transcribe page with the new model chosen",
                                     lambda: self.open_page("Transcribe"))
        self.dictate_btn = button("Open &Dictate", "Use the model on the Dictate page",
                                  "Go to the Dictate page with the new model chosen", lambda: self.open_page("Dictate"))
        lay.addLayout(hrow(self.transcribe_btn, self.dictate_btn))
        self.info = note_label("Evaluation and save status")
        lay.addWidget(self.info)
        wizard.trainer.job_progress.connect(self._on_progress)
        wizard.trainer.job_finished.connect(self._on_finished)
        self._update()

    def compare(self) -> int | None:
        """Evaluate base vs adapted on the held-out clips (on the adapt worker)."""
        if self._compare_job is not None:
            return self._compare_job
        device = self.wiz.train.device_box.currentText()
        self._compare_job = self.wiz.trainer.submit(CompareJob(self.wiz.train.run_dir(), device))
        self.info.setText("comparing the base and the adapted model on the held-out clips…")
        self._update()
        return self._compare_job

    def save(self) -> int | None:
        """Register the adapted model under the name in the name field."""
        name = self.name_edit.text().strip()
        if not name:
            self.info.setText("type a name for the model")
            return None
        if self.comparison is None:
            self.info.setText("wait for the comparison: it exports the best version")
            return None
        replace = name == self.saved_name or self.replace_check.isChecked()
        self._save_job = self.wiz.trainer.submit(RegisterJob(self.comparison.model_dir, name, replace,
                                                             use_for_dictation=self.dictation_check.isChecked()))
        self._for_dictation = self.dictation_check.isChecked()
        self.info.setText(f"adding {name} to the models…")
        self._update()
        return self._save_job

    def open_page(self, page: str) -> None:
        """Show the Transcribe or Dictate page with the saved model chosen."""
        open_with(self.wiz.win, page, "model_box", self.saved_name)

    def _on_progress(self, job_id: int, payload) -> None:
        if job_id in (self._compare_job, self._save_job) and isinstance(payload, Status):
            self.info.setText(str(payload))

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id == self._compare_job:
            self._compare_job = None
            if status == "done" and result is not None:
                self._show(result)
                self.compared.emit(result)
            else:
                self.info.setText(f"comparison failed: {plain_error(result)}")
        elif job_id == self._save_job:
            self._save_job = None
            if status == "done":
                self.saved_name = result.model_id
                dictation = ("Dictation now uses it when no model is chosen." if self._for_dictation else
                             "Your default models are unchanged.")
                self.info.setText(f"Saved as model “{result.model_id}”: it is now in the Transcribe and Dictate model "
                                  f"lists (and: speechstudio transcribe --model {result.model_id} FILE). {dictation}")
                self.wiz.status_message.emit(f"model {result.model_id} saved")
                self.model_saved.emit(result.model_id)
            else:
                self.info.setText(f"not saved: {plain_error(result)}")
        else:
            return
        self._update()

    def _show(self, c) -> None:
        self.comparison = c
        for r, (wer, cer) in enumerate(((c.base_wer, c.base_cer), (c.wer, c.cer))):
            for col, v in enumerate((wer, cer)):
                self.figures.setItem(r, col, QTableWidgetItem(percent(v)))
        self.figures.setVerticalHeaderLabels(("Base model", f"Adapted (step {c.step})"))
        if c.empty and c.empty == c.n_clips:
            verdict = ("The adapted model writes nothing at all on these clips: it does not recognise speech yet. "
                       "Train longer or add recordings before using it.")
        elif c.base_wer is None:
            verdict = "The base model could not transcribe on its own, so only the adapted model is scored."
        elif c.wer < c.base_wer:
            fewer = 100 * (c.base_wer - c.wer) / max(c.base_wer, 1e-9)
            verdict = f"The adapted model makes {fewer:.0f} % fewer word errors."
        else:
            verdict = "The adapted model is not better than the base on these clips: train longer or add recordings."
        self.summary.setText(f"On {c.n_clips} {c.split} clip{'s' if c.n_clips != 1 else ''} "
                             f"(words and letters heard wrong: lower is better). {verdict}")
        self.examples.setRowCount(0)
        for _cid, ref, base, adapted in c.rows:
            add_row(self.examples, (ref, base, adapted))
        self.info.setText("")

    def _update(self) -> None:
        busy = self._compare_job is not None or self._save_job is not None
        self.save_btn.setEnabled(not busy and self.comparison is not None)
        have = self.saved_name is not None and not busy
        self.transcribe_btn.setEnabled(have)
        self.dictate_btn.setEnabled(have and getattr(self.wiz.win, "dictate", None) is not None)

    def entered(self) -> None:
        if not self.name_edit.text().strip():
            self.name_edit.setText(self.wiz.model_name())
        self.comparison = None
        from speechstudio.finetune.run import RunFolder

        run = RunFolder(self.wiz.train.run_dir())
        if not run.config_path.is_file():  # nothing trained under this name: say so, not "not a run folder"
            self.info.setText(f"Nothing to compare yet: train “{self.wiz.model_name()}” first (step 3, Train), "
                              "then its results show here.")
            self._update()
            return
        self.compare()

    def ready(self) -> tuple[bool, str]:
        return False, "this is the last step"
