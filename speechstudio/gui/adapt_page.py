"""Adapt recognition page: a four-step wizard (base, dataset, train, evaluate & use) that fine-tunes
a CTC recogniser on the user's speech; run folders are the CLI's (``finetune asr --out NAME``)."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QAbstractScrollArea, QCheckBox, QFormLayout, QHeaderView, QLineEdit,
                               QSizePolicy, QTableWidgetItem, QVBoxLayout, QWidget)

from speechstudio.finetune.run import RunFolder
from speechstudio.gui.adapt_train import TrainStep, percent
from speechstudio.gui.clone_dataset import DatasetStep
from speechstudio.gui.common import (ERROR_COLOR, add_row, asker, buddy_label, button, combo, hrow, named, note_label,
                                     refill, settings, table, tint)
from speechstudio.gui.wizard_common import BaseStepFrame, WizardPage, open_with
from speechstudio.gui.wording import plain_error
from speechstudio.worker.adapt_jobs import (CompareJob, RegisterJob, ctc_model_names, describe_ctc_base,
                                            list_adapt_runs, resume_dataset, run_dir_for)
from speechstudio.worker.jobs import CallJob
from speechstudio.worker.worker import Status

STEPS = ("Base model", "Dataset", "Train", "Evaluate & use")
DEFAULT_NAME = "my-asr"
#: Usable minutes under which the dataset step warns (the wizard asks for 10–20 minutes of speech).
MIN_MINUTES = 10.0
EXAMPLE_COLS = ("Reference", "Base model", "Adapted model")


def plain_refusal(spec: str, error) -> str:
    """Step 1's line for a refused base model (``error``: the job's ``ErrorLine``): ``"SPEC cannot learn your
    voice here: choose ..."`` for kind ``not_trainable``, else the error's sentence (e.g. "not downloaded yet");
    the library's message stays on hover."""
    if error.kind != "not_trainable":
        return plain_error(error)
    return (f"{spec} cannot learn your voice here: choose a speech recogniser of the Wav2Vec2 kind (Wav2Vec2, HuBERT, "
            "WavLM, Data2Vec-Audio or Wav2Vec2-Conformer). Hover for the reason.")


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
    """Step 1: the base CTC model (installed, or a folder), checked with the trainer's own test on the I/O
    worker, and the new model's name."""

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


class UseStep(QWidget):
    """Step 4: WER / CER of the base and the adapted model on the held-out clips, then "Add to my models"
    (the Transcribe and Dictate pickers are refilled). Signals: ``compared(comparison)``, ``model_saved(name)``."""

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
                                     lambda: open_with(self.wiz.win, "Transcribe", "model_box", self.saved_name))
        self.dictate_btn = button("Open &Dictate", "Use the model on the Dictate page",
                                  "Go to the Dictate page with the new model chosen",
                                  lambda: open_with(self.wiz.win, "Dictate", "model_box", self.saved_name))
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


class AdaptDatasetStep(DatasetStep):
    """The clone wizard's dataset step with recognition wording: no consent take, a warning
    under :data:`MIN_MINUTES` minutes, and the model's (not a voice's) sample rate."""

    SPEAKER_CHECK = False  # recognition data may hold many speakers
    BASE_RATE = "the base model takes"

    def __init__(self, wizard) -> None:
        super().__init__(wizard, consent=False)
        self.split_check.setToolTip("Clips longer than 20 s (the trainer's limit) are cut by Whisper's word times "
                                    "(their texts then come from the recogniser); otherwise they are left out")

    def short_dataset_warning(self, rep) -> str:
        if rep.usable_minutes >= MIN_MINUTES:
            return ""
        return (f"{rep.usable_minutes:.1f} minutes of usable speech: enough to try, but 10–20 minutes with your "
                "names and words teach the model much more. Record or import more if you can.")


class AdaptPage(WizardPage):
    """Signals: ``status_message(str)`` (the window's status line), ``model_saved(name)``,
    ``step_changed(index)``."""

    model_saved = Signal(str)
    STEPS = STEPS
    WRAP_WHY = True
    FIRST_CONTROLS = ("base_step.model_box", "dataset.tabs", "train.epochs_spin", "use.name_edit")
    DEFAULT_NAME = DEFAULT_NAME

    def __init__(self, win) -> None:
        super().__init__(win, "adapt")
        # self.base, the dataset step's "base voice" (texts a voice cannot say), stays None here
        self.base_spec: str | None = None   # the chosen base model (store name or folder)
        self.base_info = None               # its adapt_jobs.CTCBaseInfo once described
        self.base_step = BaseModelStep(self)
        self.dataset = AdaptDatasetStep(self)
        self.train = TrainStep(self)
        self.use = UseStep(self)
        self._lay_out()
        self.dataset.changed.connect(self.train.refresh_plan)
        self.use.model_saved.connect(self._model_saved)
        self.base_step.name_edit.setText(str(settings().value("adapt/name", DEFAULT_NAME)) or DEFAULT_NAME)
        self.go(0)

    model_name = WizardPage.voice_name  # the new model's name (the dataset step's "voice_name")

    def sample_rate(self) -> int:
        """The base model's input rate (Hz): the dataset's clips are made at it."""
        return self.base_info.sample_rate if self.base_info is not None else 16000

    def read_run(self, name: str):
        folder = run_dir_for(name)
        return RunFolder(folder).read_config(), resume_dataset(folder)

    def _model_saved(self, name: str) -> None:
        """A new model is in the store: refresh the Models page, which refills the Transcribe and
        Dictate pickers."""
        self.refresh_models()
        self.model_saved.emit(name)

    def save_settings(self) -> None:
        s = settings()
        s.setValue("adapt/name", self.model_name())
        if self.base_spec:
            s.setValue("adapt/base", self.base_spec)
