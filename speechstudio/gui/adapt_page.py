"""Adapt recognition page: a four-step wizard (base, dataset, train, evaluate & use) that fine-tunes
a CTC recogniser on the user's speech; run folders are the CLI's (``finetune asr --out NAME``)."""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QAbstractScrollArea, QCheckBox, QFormLayout, QHeaderView, QLabel,
                               QLineEdit, QSizePolicy, QTableWidgetItem, QWidget)

from speechstudio.finetune.ctc.data import steps_per_epoch
from speechstudio.finetune.ctc.events import CTCConfig
from speechstudio.finetune.run import RunFolder
from speechstudio.gui.clone_dataset import DatasetStep
from speechstudio.gui.clone_train import LossCurves
from speechstudio.gui.common import (ERROR_COLOR, OK_COLOR, WARNING_COLOR, add_row, asker, buddy_label, button, combo,
                                     device_picker, hrow, named, note_label, refill, settings, spin, table, tint, vbox)
from speechstudio.gui.details import Details
from speechstudio.gui.sanity_words import judge
from speechstudio.gui.wizard_common import BaseStepFrame, TrainingStep, WizardPage, open_with, show
from speechstudio.gui.wording import plain_error
from speechstudio.progress import roughly
from speechstudio.worker.adapt_jobs import (AdaptTrainJob, CompareJob, RegisterJob, ctc_model_names, describe_ctc_base,
                                            list_adapt_runs, run_dir_for)
from speechstudio.worker.jobs import CallJob
from speechstudio.worker.worker import Status

STEPS = ("Base model", "Dataset", "Train", "Evaluate & use")
DEFAULT_NAME = "my-asr"
#: Usable minutes under which the dataset step warns (the wizard asks for 10–20 minutes of speech).
MIN_MINUTES = 10.0
EXAMPLE_COLS = ("Reference", "Base model", "Adapted model")
LEARNING_RATES = ("1e-4", "3e-4", "5e-5", "1e-3")  # 1e-4: CTCConfig's default (its docstring gives the sources)
#: ``history`` keys and their colours.
LOSS_KEY, WER_KEY, CER_KEY = "loss", "wer", "cer"
COLORS = {LOSS_KEY: "#3b82f6", WER_KEY: "#f97316", CER_KEY: "#22c55e"}


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

    LIST_DESCRIPTION = "list CTC models"

    def __init__(self, wizard) -> None:
        super().__init__(wizard)
        self.error = ""
        self._describe_job: int | None = None
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
        vbox(self, form, note_label("What this wizard does", "The new model learns your voice, names and words from "
                                    "recordings with their texts (next step). 10–20 minutes of speech is a good "
                                    "start; it then appears in the Transcribe and Dictate model lists."),
             12, self._runs_row("Continue this run: its base, dataset and settings are loaded, training can "
                                "resume"), None)

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
            show(self.about, plain_summary(result), tip=result.summary())  # tip: the field's words (CTC head)
        elif status == "failed":
            self.wiz.base_info, self.error = None, str(result)
            show(self.about, plain_refusal(spec, result), True, self.error)  # tip: the library's message
            self.wiz.status_message.emit("this base model cannot be fine-tuned: see step 1")
        self.changed.emit()

    def _fill(self, names: list[str], runs: list) -> None:
        cur = self.model_box.currentData() or str(settings().value("adapt/base", ""))
        folders = [self.model_box.itemData(i) for i in range(self.model_box.count())
                   if self.model_box.itemData(i) not in names]
        refill(self.model_box, [(spec, spec) for spec in [*names, *folders]], cur)
        self._show_runs(runs)
        if not self.model_box.count():
            show(self.about, "No model that can learn your voice is installed: choose a model folder (Folder…), or "
                 "download or import a Wav2Vec2 model on the Models page (e.g. wav2vec2-base-960h).",
                 tip="Base models are CTC recognisers (Wav2Vec2, HuBERT, WavLM ...), e.g. facebook/wav2vec2-base-960h")
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
            show(self.about, f"checking {spec} …", tip="")
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


class CTCCurves(LossCurves):
    """Left: CTC loss by step; right: WER and CER by step (step 0: the base model)."""

    MIN_HEIGHT = 150

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.base_wer: float | None = None
        self._base_line = None

    def set_base(self, wer: float, cer: float) -> None:
        """The base model's figures: the first WER / CER points (step 0) and a dashed line."""
        self.base_wer = float(wer)
        for key, value in ((WER_KEY, wer), (CER_KEY, cer)):
            steps, vals = self.history.setdefault(key, ([], []))
            if steps and steps[0] == 0:
                vals[0] = float(value)
            else:
                steps.insert(0, 0)
                vals.insert(0, float(value))
        self._dirty = True

    def clear(self) -> None:
        super().clear()
        self.base_wer = None
        if self._base_line is not None:
            self._base_line.setVisible(False)

    def _make_plots(self, pg) -> None:
        self._plot = named(pg.PlotWidget(title="how training is going (lower is better)"), "Training loss curve")
        # plain words on the chart; WER / CER in the tooltip
        self._val_plot = named(pg.PlotWidget(title=f"<span style='color:{COLORS[WER_KEY]}'>words</span> / "
                                                   f"<span style='color:{COLORS[CER_KEY]}'>letters</span> wrong on "
                                                   "held-back clips (step 0: base model)"),
                               "Word and character error rate curves", "Word error rate (WER, orange) and character "
                               "error rate (CER, green) on the clips held back from training, in percent; lower is better")
        self._val_plot.getAxis("left").setScale(100)  # ticks in percent, as the figures above it (history: 0..1)
        self._base_line = pg.InfiniteLine(angle=0, movable=False,
                                          pen=pg.mkPen("#f97316", width=1, style=pg.QtCore.Qt.PenStyle.DashLine),
                                          label="base model", labelOpts={"position": 0.5, "color": "#f97316"})
        self._base_line.setVisible(False)
        self._val_plot.addItem(self._base_line)
        self._lay.addWidget(self._plot, 1)
        self._lay.addWidget(self._val_plot, 1)

    def _make_curve(self, pg, key: str):
        rate = key != LOSS_KEY
        plot = self._val_plot if rate else self._plot
        return plot.plot([], [], pen=pg.mkPen(COLORS.get(key, "#6b7280"), width=2 if rate else 1.5),
                         name=key.upper() if rate else None, symbol="o" if rate else None, symbolSize=6)

    def _drawn(self) -> None:
        if self.base_wer is not None:
            self._base_line.setValue(self.base_wer)
            self._base_line.setVisible(True)


class TrainStep(TrainingStep):
    """Step 3: fine-tune the CTC base on the dataset (``CTCConfig``'s options), with live curves, speed, time
    left and Resume from the run folder's last checkpoint. Signals: ``changed()`` when training starts or ends
    (Next may change). ``extra_config``: more ``CTCConfig`` fields for the next Start (tests: a short sanity pass)."""

    UNTRAINED = "train first (until the first evaluation)"

    def __init__(self, wizard) -> None:
        super().__init__(wizard)
        self.sanity = None   # the trainer's SanityEvent
        self.verdict = None  # sanity_words.Verdict of the quick check
        self.base_eval = None
        self.last_eval = None
        #: the trainer's lines (``InfoEvent``) and the job's status lines of the current run
        self.messages: list[str] = []
        d = self._defaults = CTCConfig()
        form = QFormLayout()
        self.epochs_spin = spin("Passes over your recordings", 1, 10_000, d.epochs,
                                 tip="Epochs: how many times training goes through all your recordings")
        form.addRow(buddy_label("&Passes over your recordings", self.epochs_spin), hrow(self.epochs_spin))
        # the trainer's own settings, one click away; the field's words stay there
        self.details = Details("Details", key="adapt_train", form=True)
        expert = self.details.body_layout
        self.steps_spin = spin("Maximum steps", 0, 10_000_000, 0, "by epochs",
                                "Optimizer steps; when set it overrides the epochs")
        expert.addRow("Max steps", hrow(self.steps_spin))
        self.lr_box = combo("Learning rate", LEARNING_RATES,
                            "Peak learning rate of AdamW (warm-up over 10 % of the steps, then linear decay)",
                            editable=True)
        self.batch_spin = spin("Batch size", 1, 512, d.batch_size)
        self.accum_spin = spin("Gradient accumulation", 1, 256, d.grad_accum,
                                tip="Micro-batches per optimizer step (a larger effective batch in the same memory)")
        expert.addRow(buddy_label("&Learning rate", self.lr_box),
                      hrow(self.lr_box, QLabel("batch size"), self.batch_spin, QLabel("gradient accumulation"),
                           self.accum_spin))
        self.device_box = device_picker("Training device")
        self.precision_box = combo("Precision", ["auto", "fp32", "fp16", "bf16"],
                                   "auto: BF16 (or FP16) on a GPU, FP32 on the CPU")
        self.eval_spin = spin("Evaluate every", 0, 100_000, 0, "each epoch", "Optimizer steps between WER / CER "
                               "evaluations")
        expert.addRow(buddy_label("&Device", self.device_box),
                      hrow(self.device_box, QLabel("precision"), self.precision_box, QLabel("evaluate every"),
                           self.eval_spin, QLabel("steps")))
        self.vocab_box = combo("Alphabet", [("the base model's (when it has one)", "auto"), ("new, from my texts", "data")],
                               "Keeping the base's alphabet keeps what it learnt; a new one (a new CTC head) is needed "
                               "when your texts use characters it lacks (accents, digits kept as digits...)")
        self.drop_check = named(QCheckBox("Leave out clips with characters outside it"),
                                "Leave out clips with characters outside the alphabet",
                                "Otherwise training stops before it starts and lists those characters and clips")
        form.addRow(buddy_label("Alpha&bet", self.vocab_box), hrow(self.vocab_box, self.drop_check))
        self.freeze_check = named(QCheckBox("Freeze the feature encoder (as in wav2vec 2.0)"), "Freeze the feature encoder")
        self.freeze_check.setChecked(d.freeze_feature_encoder)
        self.ckpt_check = named(QCheckBox("Gradient checkpointing (less GPU memory, slower)"), "Gradient checkpointing")
        expert.addRow("", hrow(self.freeze_check, self.ckpt_check))
        form.addRow("", self.details)
        self.plan = note_label("Training plan")
        form.addRow("Plan", self.plan)
        #: the ``CTCConfig`` fields the spin boxes set (0, the "by epochs" / "each epoch" of two of them: None)
        self._spins = {"epochs": self.epochs_spin, "max_steps": self.steps_spin, "batch_size": self.batch_spin,
                       "grad_accum": self.accum_spin, "eval_every": self.eval_spin}
        for w in (self.epochs_spin, self.steps_spin, self.batch_spin, self.accum_spin):
            w.valueChanged.connect(lambda _v: self.refresh_plan())
        self.steps_spin.valueChanged.connect(lambda _v: self._update())  # more steps after a finished run: Resume
        self.sanity_label = note_label("Sanity check")
        controls = self._controls("Start fine-tuning from the base model", "Stop after this step and keep a checkpoint",
                                  self.sanity_label)
        self.figures = note_label("Word error rates")
        self.curves = CTCCurves()
        vbox(self, form, *controls, self.figures, (self.curves, 1))
        self.option_widgets = (self.epochs_spin, self.steps_spin, self.lr_box, self.batch_spin, self.accum_spin,
                               self.device_box, self.precision_box, self.eval_spin, self.vocab_box, self.drop_check,
                               self.freeze_check, self.ckpt_check)
        self._update()

    def config(self):
        """The ``CTCConfig`` of the options shown (plus ``extra_config``). Raises ``ValueError``
        for a learning rate that is not a positive number."""
        lr = float(self.lr_box.currentText().strip())
        if not (lr > 0 and math.isfinite(lr)):
            raise ValueError(f"learning rate must be a positive number, got {self.lr_box.currentText()!r}")
        return dataclasses.replace(
            self._defaults, lr=lr, precision=self.precision_box.currentText(), device=self.device_box.currentText(),
            freeze_feature_encoder=self.freeze_check.isChecked(), gradient_checkpointing=self.ckpt_check.isChecked(),
            vocab=self.vocab_box.currentData(), uncovered="drop" if self.drop_check.isChecked() else "error",
            **{key: box.value() or None for key, box in self._spins.items()}, **self.extra_config)

    def set_options(self, train: dict) -> None:
        """Show the options of a run's ``config.json`` ``"train"`` (a ``CTCConfig`` as a dict)."""
        for key, box in self._spins.items():
            box.setValue(int(train.get(key) or 0) or box.minimum())
        if train.get("lr"):
            self.lr_box.setCurrentText(f"{float(train['lr']):g}")
        for key, box in (("precision", self.precision_box), ("device", self.device_box)):
            box.setCurrentText(str(train.get(key)))  # a text not listed selects nothing (the box is not editable)
        self.vocab_box.setCurrentIndex(max(0, self.vocab_box.findData(train.get("vocab", "auto"))))
        self.drop_check.setChecked(train.get("uncovered") == "drop")
        self.freeze_check.setChecked(bool(train.get("freeze_feature_encoder", True)))
        self.ckpt_check.setChecked(bool(train.get("gradient_checkpointing", False)))

    def refresh_plan(self) -> None:
        """Say how the dataset splits and how many steps a Start makes (the trainer's arithmetic:
        ``Manifest.split``, ``ctc.data.steps_per_epoch``)."""
        m = self.wiz.manifest()
        if m is None:
            self.plan.setText("check a dataset first")
            return
        train, val = m.split(self._defaults.val_count, seed=self._defaults.seed)
        bs, accum = self.batch_spin.value(), self.accum_spin.value()
        spe = steps_per_epoch(len(train), bs, accum)
        total = self.steps_spin.value() or self.epochs_spin.value() * spe
        text = (f"{len(train)} recordings to learn from, {len(val)} held back to check progress; {total} training "
                f"steps ({spe} per pass over your recordings)")
        self.plan.setToolTip(f"{spe} step{'s' if spe != 1 else ''} per epoch of {bs} clip{'s' if bs != 1 else ''}"
                             + (f" x {accum}" if accum > 1 else "") + f"; WER / CER on the {len(val)} held out")
        if len(train) < bs:
            text += f" — fewer training clips than one batch: lower the batch size to {max(1, len(train))}"
        self.plan.setText(text)

    def run_dir(self) -> Path:
        return run_dir_for(self.wiz.voice_name())

    def _make_job(self, resume: bool):
        """An :class:`~speechstudio.worker.adapt_jobs.AdaptTrainJob` and the folder an earlier
        run was moved to (None when none was), or None when it cannot start (said)."""
        if not resume and (self.wiz.dataset_dir is None or not self.wiz.base_spec):
            self._say("choose a base model and check a dataset first", error=True)
            return None
        try:
            config = self.config()
        except ValueError as e:
            self._say(str(e), error=True)
            return None
        moved = None
        if not resume and self.resumable():
            if _inside(self.wiz.dataset_dir, self.run_dir()):
                self._say("this run's dataset is inside its run folder: Resume it, or choose another model name "
                          "for a new run", error=True)
                return None
            moved = self._archive_run()
        return AdaptTrainJob(self.run_dir(), self.wiz.dataset_dir, self.wiz.base_spec, config, resume=resume), moved

    def _reset_view(self, keep: bool) -> None:
        if not keep:
            self.curves.clear()
            self.sanity = self.base_eval = self.last_eval = None
            self.sanity_label.setText("")
            self.figures.setText("")
            self.figures.setToolTip("")
        self.state.setToolTip("")
        self.messages = []

    def _on_event(self, kind: str, ev) -> None:
        if isinstance(ev, Status) or kind == "InfoEvent":
            text = str(ev) if isinstance(ev, Status) else ev.message
            self.messages.append(text)
            if self.job is None or not (self.job.paused or self.job.stopping):  # keep "paused" / "stopping" shown
                self._say(text)
        elif kind == "SanityEvent":
            self.sanity, self.verdict = ev, judge(ev)  # green only when the sample reads right
            color = {"ok": OK_COLOR, "warning": WARNING_COLOR}.get(self.verdict.level, ERROR_COLOR)
            tint(self.sanity_label, color, bold=self.verdict.level != "ok")
            self.sanity_label.setText(self.verdict.headline)
            self.sanity_label.setToolTip(self.verdict.details)
        elif kind == "StepEvent":
            self._show_step(ev.step, ev.total)
            self.curves.add(LOSS_KEY, ev.step, ev.loss)
            self.speed.setText(f"step {ev.step} of {ev.total}, {roughly(ev.eta_s)} left")
            self.speed.setToolTip(f"loss {ev.loss:.3f}, {ev.steps_per_s:.2f} steps/s, learning rate {ev.lr:.2e}")
            self._say_training()
        elif kind == "EvalEvent":
            self._on_eval(ev)

    def _on_eval(self, ev) -> None:
        if ev.base:
            self.base_eval = ev
            self.curves.set_base(ev.wer, ev.cer)
        else:
            self.last_eval = ev
            self.curves.add(WER_KEY, ev.step, ev.wer)
            self.curves.add(CER_KEY, ev.step, ev.cer)
        lines, tips = [], [ERROR_RATES_TIP]
        if self.base_eval is not None:
            b = self.base_eval
            lines.append(f"Base model: {rates_in_words(b.wer, b.cer)} {clips_in_words(b.n_clips, b.split)}"
                         + (f" — {NOTES.get(b.note_kind, 'see the details (hover)')}" if b.note else ""))
            tips.append(f"base model: WER {b.wer:.3f}, CER {b.cer:.3f} on {b.n_clips} {b.split} clips"
                        + (f" ({b.note})" if b.note else ""))
        if self.last_eval is not None:
            e = self.last_eval
            lines.append(f"Step {e.step}: {rates_in_words(e.wer, e.cer)}" + (" — best so far" if e.best else "")
                         + (f" — {NOTES.get(e.note_kind, 'see the details (hover)')}" if e.note else ""))
            tips.append(f"step {e.step}: WER {e.wer:.3f}, CER {e.cer:.3f}" + (f" ({e.note})" if e.note else ""))
        if ev.examples:
            ref, hyp = ev.examples[0]
            lines.append(f"e.g. “{ref}” → “{hyp}”")
        self.figures.setText("\n".join(lines))
        self.figures.setToolTip("\n".join(tips))

    def _show_failure(self, result) -> None:
        self._say(f"training failed: {plain_error(result)}", error=True)
        self.wiz.status_message.emit("training failed: see the Train step")

    def _show_done(self, ev, status: str) -> None:
        words = {"finished": "finished", "early_stop": "stopped early (no longer getting better)",
                 "stopped": "stopped"}.get(ev.reason, ev.reason)
        best = f"best {percent(ev.best_wer)} words wrong" if ev.best_wer is not None else "no check of the results yet"
        base = f" (base model {percent(ev.base_wer)})" if ev.base_wer is not None else ""
        more = "; Resume continues it" if ev.reason == "stopped" else ""
        self._say(f"{words} at step {ev.step}: {best}{base}{more}")
        self.state.setToolTip(f"best WER {ev.best_wer:.3f}" if ev.best_wer is not None else "")
        self.wiz.status_message.emit(f"training {words} at step {ev.step}")

    def has_model(self) -> bool:
        """True when the run holds an evaluated (best) checkpoint to compare and register."""
        return (self.run_dir() / "checkpoints" / "best.pt").is_file()

    def entered(self) -> None:
        self.refresh_plan()
        super().entered()


def _inside(path, folder: Path) -> bool:
    try:
        return path is not None and Path(path).resolve().is_relative_to(folder.resolve())
    except OSError:
        return False


#: the figures' field names, one hover away (the same words as the Evaluate step's table headers)
ERROR_RATES_TIP = ("Words wrong: the word error rate (WER), words left out, added or changed per word of the "
                   "clips' texts; letters wrong: the character error rate (CER), the same counted in letters. "
                   "Lower is better.")


def percent(x: float | None) -> str:
    """``0.42`` -> ``"42.0 %"``; ``None`` -> ``"—"``."""
    return "—" if x is None else f"{100 * x:.1f} %"


def rates_in_words(wer: float, cer: float) -> str:
    """``(0.42, 0.183)`` -> ``"words wrong 42.0 %, letters wrong 18.3 %"`` (WER / CER as fractions)."""
    return f"words wrong {percent(wer)}, letters wrong {percent(cer)}"


def clips_in_words(n: int, split: str) -> str:
    """Which clips the figures are on: ``"(on 1 held-back clip)"``; ``split`` ``"train"`` (no clip
    held out) -> ``"(on 4 training clips: none held back)"``."""
    s = "" if n == 1 else "s"
    return f"(on {n} held-back clip{s})" if split != "train" else f"(on {n} training clip{s}: none held back)"


#: the trainer's diagnoses by ``EvalEvent.note_kind`` (``finetune.ctc.evaluate.diagnose``, the base's note) in plain
#: words; a note of another kind reads "see the details (hover)" (the raw note stays in the tooltip)
NOTES = {"blank_early": "it writes nothing yet: normal at the start of training, text should appear soon",
         "blank": "it still writes nothing: train longer, or check that the texts match the recordings",
         "stuck": "no word right for 3 checks in a row: check that the texts match the recordings",
         "new_head": "it starts with a new alphabet, so it writes nothing before training"}


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
        self.figures = table("Base and adapted error rates", ("Words wrong", "Letters wrong"), 2, numbers=True,
                             stretch_last=False)
        for col, tip in enumerate(("Word error rate (WER): words left out, added or changed, per word of the "
                                   "clips' texts", "Character error rate (CER): the same, counted in letters")):
            self.figures.horizontalHeaderItem(col).setToolTip(tip)
        self.figures.setVerticalHeaderLabels(("Base model", "Adapted model"))
        self.figures.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.figures.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.figures.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.figures.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.figures.setMaximumWidth(440)
        self.summary = note_label("Evaluation summary")
        self.examples = table("Example transcripts", EXAMPLE_COLS, numbers=True, stretch_last=False)
        for t in (self.figures, self.examples):  # figures to select and copy one by one, columns sharing the width
            t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
            t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.examples.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.name_edit = named(QLineEdit(), "Name of the new model")
        self.save_btn = button("&Add to my models", "Add to my models", "Register the adapted model in the model "
                               "store (Transcribe, Dictate, speechstudio transcribe --model NAME)", self.save)
        self.replace_check = named(QCheckBox("Replace a model of that name"), "Replace an existing model of that name")
        self.dictation_check = named(QCheckBox("Use for dictation"), "Use the new model for dictation", "Dictation uses "
                                     "this model when no model is chosen (unticked: adding the model changes no default)")
        name_row = hrow(buddy_label("Model na&me", self.name_edit), (self.name_edit, 1), self.save_btn,
                        self.replace_check, self.dictation_check, stretch=False)
        self.transcribe_btn = button("Open &Transcribe", "Use the model on the Transcribe page",
                                     "Go to the Transcribe page with the new model chosen",
                                     lambda: open_with(self.wiz.win, "Transcribe", "model_box", self.saved_name))
        self.dictate_btn = button("Open &Dictate", "Use the model on the Dictate page",
                                  "Go to the Dictate page with the new model chosen",
                                  lambda: open_with(self.wiz.win, "Dictate", "model_box", self.saved_name))
        self.info = note_label("Evaluation and save status")
        vbox(self, self.figures, self.summary, (self.examples, 1), name_row,
             hrow(self.transcribe_btn, self.dictate_btn), self.info)
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
            self.name_edit.setText(self.wiz.voice_name())
        self.comparison = None
        run = RunFolder(self.wiz.train.run_dir())
        if not run.config_path.is_file():  # nothing trained under this name: say so, not "not a run folder"
            self.info.setText(f"Nothing to compare yet: train “{self.wiz.voice_name()}” first (step 3, Train), "
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
    """Signals: ``status_message(str)`` (the window's status line), ``model_saved(name)``."""

    model_saved = Signal(str)
    STEPS = STEPS
    WRAP_WHY = True
    FIRST_CONTROLS = ("base_step.model_box", "dataset.tabs", "train.epochs_spin", "use.name_edit")
    DEFAULT_NAME = DEFAULT_NAME
    STEP_TYPES = (BaseModelStep, AdaptDatasetStep, TrainStep, UseStep)
    #: the chosen base model (store name or folder); ``base_info``: its adapt_jobs.CTCBaseInfo once described.
    #: ``base``, the dataset step's "base voice" (texts a voice cannot say), stays None here
    base_spec: str | None = None

    def __init__(self, win) -> None:
        super().__init__(win, "adapt")
        self.dataset.changed.connect(self.train.refresh_plan)
        self.use.model_saved.connect(self._model_saved)
        self.base_step.name_edit.setText(str(settings().value("adapt/name", DEFAULT_NAME)) or DEFAULT_NAME)
        self.go(0)

    def sample_rate(self) -> int:
        """The base model's input rate (Hz): the dataset's clips are made at it."""
        return self.base_info.sample_rate if self.base_info is not None else 16000

    def read_run(self, name: str):
        folder = run_dir_for(name)
        return RunFolder(folder).read_config(), RunFolder(folder).ctc_dataset()

    def _model_saved(self, name: str) -> None:
        """A new model is in the store: refresh the Models page, which refills the Transcribe and
        Dictate pickers."""
        self.refresh_models()
        self.model_saved.emit(name)

    def save_settings(self) -> None:
        s = settings()
        s.setValue("adapt/name", self.voice_name())
        if self.base_spec:
            s.setValue("adapt/base", self.base_spec)
