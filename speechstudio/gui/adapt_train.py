"""Adapt recognition wizard, step 3: fine-tune the CTC base on the dataset (``CTCConfig``'s options),
with live curves, speed, time left and Resume from the run folder's last checkpoint."""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from PySide6.QtWidgets import QCheckBox, QFormLayout, QLabel, QVBoxLayout

from speechstudio.finetune.ctc.events import CTCConfig
from speechstudio.gui.clone_train import LossCurves
from speechstudio.gui.common import (ERROR_COLOR, OK_COLOR, WARNING_COLOR, buddy_label, combo, device_picker,
                                     hrow, named, note_label, spin, tint)
from speechstudio.gui.details import Details
from speechstudio.gui.sanity_words import judge
from speechstudio.gui.wizard_common import TrainingStep
from speechstudio.gui.wording import plain_error
from speechstudio.worker.adapt_jobs import AdaptTrainJob, run_dir_for
from speechstudio.worker.worker import Status
from speechstudio.progress import clock

LEARNING_RATES = ("1e-4", "3e-4", "5e-5", "1e-3")  # 1e-4: CTCConfig's default (its docstring gives the sources)
#: ``history`` keys and their colours.
LOSS_KEY, WER_KEY, CER_KEY = "loss", "wer", "cer"
COLORS = {LOSS_KEY: "#3b82f6", WER_KEY: "#f97316", CER_KEY: "#22c55e"}


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
    """Signals: ``changed()`` when training starts or ends (Next may change). ``extra_config``:
    more ``CTCConfig`` fields for the next Start (tests: a short sanity pass)."""

    UNTRAINED = "train first (until the first evaluation)"

    def __init__(self, wizard) -> None:
        super().__init__(wizard)
        self.sanity = None   # the trainer's SanityEvent
        self.verdict = None  # sanity_words.Verdict of the quick check
        self.base_eval = None
        self.last_eval = None
        #: the trainer's lines (``InfoEvent``) and the job's status lines of the current run
        self.messages: list[str] = []
        self._defaults = CTCConfig()
        d = self._defaults
        lay = QVBoxLayout(self)
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
                            "Peak learning rate of AdamW (warm-up over 10 % of the steps, then linear decay)")
        self.lr_box.setEditable(True)
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
        form.addRow(buddy_label("&Alphabet", self.vocab_box), hrow(self.vocab_box, self.drop_check))
        self.freeze_check = named(QCheckBox("Freeze the feature encoder (as in wav2vec 2.0)"), "Freeze the feature encoder")
        self.freeze_check.setChecked(d.freeze_feature_encoder)
        self.ckpt_check = named(QCheckBox("Gradient checkpointing (less GPU memory, slower)"), "Gradient checkpointing")
        expert.addRow("", hrow(self.freeze_check, self.ckpt_check))
        form.addRow("", self.details)
        self.plan = note_label("Training plan")
        form.addRow("Plan", self.plan)
        lay.addLayout(form)
        for w in (self.epochs_spin, self.steps_spin, self.batch_spin, self.accum_spin):
            w.valueChanged.connect(lambda _v: self.refresh_plan())
        self.steps_spin.valueChanged.connect(lambda _v: self._update())  # more steps after a finished run: Resume
        self.sanity_label = note_label("Sanity check")
        self._add_controls(lay, "Start fine-tuning from the base model", "Stop after this step and keep a checkpoint",
                           self.sanity_label)
        self.figures = note_label("Word error rates")
        lay.addWidget(self.figures)
        self.curves = CTCCurves()
        lay.addWidget(self.curves, 1)
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
            self._defaults, epochs=self.epochs_spin.value(), max_steps=self.steps_spin.value() or None, lr=lr,
            batch_size=self.batch_spin.value(), grad_accum=self.accum_spin.value(),
            precision=self.precision_box.currentText(), device=self.device_box.currentText(),
            freeze_feature_encoder=self.freeze_check.isChecked(),
            gradient_checkpointing=self.ckpt_check.isChecked(), eval_every=self.eval_spin.value() or None,
            vocab=self.vocab_box.currentData(), uncovered="drop" if self.drop_check.isChecked() else "error",
            **self.extra_config)

    def set_options(self, train: dict) -> None:
        """Show the options of a run's ``config.json`` ``"train"`` (a ``CTCConfig`` as a dict)."""
        spins = (("epochs", self.epochs_spin), ("max_steps", self.steps_spin), ("batch_size", self.batch_spin),
                 ("grad_accum", self.accum_spin), ("eval_every", self.eval_spin))
        for key, box in spins:
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
        from speechstudio.finetune.ctc.data import steps_per_epoch

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
        return run_dir_for(self.wiz.model_name())

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
            eta = clock(ev.eta_s)
            self.speed.setText(f"step {ev.step} of {ev.total}, {eta} left")
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

