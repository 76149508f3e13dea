"""Clone voice wizard, step 3: fine-tune the base voice on the dataset (quick / standard / best presets
with an estimate) on the wizard's own worker; live tries, samples, curves and time left."""
from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QFormLayout, QFrame, QHBoxLayout, QHeaderView, QLabel,
                               QTableWidget, QTabWidget, QWidget)

from speechstudio.finetune.vits.presets import estimate
from speechstudio.gui.clone_trade import TradeView, load_run_trade
from speechstudio.gui.common import (WARNING_COLOR, add_row, bare, buddy_label, button, combo, device_picker, hrow,
                                     named, note_label, set_font, spin, tint, vbox)
from speechstudio.gui.details import Details
from speechstudio.gui.devices import allow
from speechstudio.gui.stage_clock import STAGE_NAMES, StageClock
from speechstudio.gui.wheel_guard import guard_wheel
from speechstudio.gui.wizard_common import TrainingStep, play_file, saved_step
from speechstudio.gui.wording import LOSS_NAMES, PRESET_LINES, plain_error
from speechstudio.worker.finetune_jobs import FineTuneJob, runs_dir, train_config
from speechstudio.worker.jobs import CallJob
from speechstudio.worker.worker import Status
from speechstudio.progress import roughly

PRESETS = ("quick", "standard", "best")
#: Colours of the loss curves, by loss name (``StepEvent.losses`` keys; others are grey).
CURVE_COLORS = {"mel": "#3b82f6", "kl": "#a855f7", "dur": "#22c55e", "gen": "#f97316", "disc": "#ef4444",
                "fm": "#eab308", "val_mel": "#f8fafc"}
#: Losses not drawn (``total_g``: the weighted sum, on another scale than its terms).
HIDDEN_LOSSES = ("total_g",)
#: The validation curve's key (drawn on its own plot).
VAL_KEY = "val_mel"


class LossCurves(QWidget):
    """Training losses (left plot, with a legend) and the validation mel loss (right plot); pyqtgraph is
    imported on the first draw (it is slow to import).
    Other curves (:class:`~speechstudio.gui.adapt_page.CTCCurves`) override :meth:`_make_plots`,
    :meth:`_make_curve` and :meth:`_drawn`."""

    #: each plot's minimum height (pixels)
    MIN_HEIGHT = 160

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.history: dict[str, tuple[list[int], list[float]]] = {}
        self.curves: dict = {}
        self._plot = self._val_plot = None
        self._dirty = False
        self._lay = bare(QHBoxLayout(self))
        self._timer = QTimer(self, interval=300, timeout=self.draw)

    def start(self) -> None:
        """Redraw periodically (while a run is going)."""
        self._timer.start()

    def stop(self) -> None:
        """Stop the periodic redraw after drawing what is pending."""
        self.draw()
        self._timer.stop()

    def clear(self) -> None:
        self.history.clear()
        for c in self.curves.values():
            c.setData([], [])

    def add(self, key: str, step: int, value: float) -> None:
        steps, vals = self.history.setdefault(key, ([], []))
        steps.append(int(step))
        vals.append(float(value))
        self._dirty = True

    def _ensure_plots(self) -> None:
        if self._plot is not None:
            return
        import pyqtgraph as pg

        self._make_plots(pg)
        for p in (self._plot, self._val_plot):
            p.setLabel("bottom", "step")
            p.setMenuEnabled(False)
            p.setMinimumHeight(self.MIN_HEIGHT)
            guard_wheel(p)  # the wheel scrolls the page; Ctrl + wheel zooms

    def _make_plots(self, pg) -> None:
        """Make ``_plot`` (left) and ``_val_plot`` (right) and add them to the layout."""
        self._plot = named(pg.PlotWidget(title="how training is going (lower is better)"), "Training loss curves")
        self._plot.addLegend(offset=(-10, 10))
        self._val_plot = named(pg.PlotWidget(title="match with recordings it did not learn from (lower is better)"),
                               "Validation loss curve")
        self._lay.addWidget(self._plot, 2)
        self._lay.addWidget(self._val_plot, 1)

    def _make_curve(self, pg, key: str):
        """The plot item of curve ``key`` (made on its first value)."""
        val = key == VAL_KEY
        pen = pg.mkPen(CURVE_COLORS.get(key, "#6b7280"), width=2 if val else 1.5)
        return (self._val_plot if val else self._plot).plot([], [], pen=pen, name=LOSS_NAMES.get(key, key),
                                                            symbol="o" if val else None, symbolSize=5)

    def draw(self) -> None:
        """Draw what changed since the last draw (the plots are made on the first one)."""
        if not self._dirty:
            return
        self._ensure_plots()
        import pyqtgraph as pg

        for key, (steps, vals) in self.history.items():
            curve = self.curves.get(key)
            if curve is None:
                curve = self.curves[key] = self._make_curve(pg, key)
            curve.setData(steps, vals)
        self._drawn()
        self._dirty = False

    def _drawn(self) -> None:
        """After a draw: what a subclass draws besides the curves."""


class SampleTable(QTableWidget):
    """Rows of (step, sample name, Play button); Enter on a row plays it too. Signal
    ``play(path)`` asks the owner to play a file."""

    play = Signal(object)

    def __init__(self, audio, parent=None) -> None:
        super().__init__(0, 3, parent)
        self.samples: list[tuple[int, Path]] = []
        self.audio = audio  # the window's AudioHub: Play follows the no-device policy (gui.devices)
        self.setAccessibleName("Checkpoint samples")
        self.setHorizontalHeaderLabels(("Step", "Sample", ""))
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.cellActivated.connect(lambda r, _c: self.play_row(r))

    def clear_samples(self) -> None:
        self.samples.clear()
        self.setRowCount(0)

    def add_sample(self, step: int, path: Path) -> None:
        """Add ``path`` (a WAV the trainer wrote at checkpoint ``step``)."""
        path = Path(path)
        self.samples.append((step, path))
        r = add_row(self, [str(step), path.stem.replace("_", " ")], ["", str(path)])
        btn = button("Play", f"Play sample {path.stem} of step {step}")
        allow(btn, self.audio, "speaker")
        btn.clicked.connect(lambda _=False, row=r: self.play_row(row))
        self.setCellWidget(r, 2, btn)
        self.scrollToBottom()

    def play_row(self, row: int) -> None:
        if 0 <= row < len(self.samples):
            self.play.emit(self.samples[row][1])


def _estimate(preset: str, device: str, steps: int | None, batch_size: int | None, n_clips: int, total_s: float,
              has_posterior: bool):
    """Worker side: ``(config, estimate)``: the ``TrainConfig`` a Start would use (``device``
    resolved: ``auto`` -> ``cuda`` when available) and ``presets.estimate`` of its run time and
    peak memory (``has_posterior``: False for Piper bases, which get a warm-up stage)."""
    config = train_config(preset, device, steps=steps, batch_size=batch_size)
    return config, estimate(config, config.device, n_clips, total_s, has_posterior=has_posterior)


class CurrentTab(QTabWidget):
    """Tabs that ask for the minimum height of the page shown, not of the tallest page (Qt's): the
    loss curves' height does not make the Train step scroll while the tries are shown."""

    def __init__(self) -> None:
        super().__init__()
        self.currentChanged.connect(lambda _i: self.updateGeometry())

    def minimumSizeHint(self):  # noqa: N802 - Qt API
        hint = super().minimumSizeHint()
        page = self.currentWidget()
        if page is not None:
            hint.setHeight(self.tabBar().sizeHint().height() + page.minimumSizeHint().height() + 4)
        return hint


class TrainStep(TrainingStep):
    """Signals: ``changed()`` when training starts or ends (Next may change). ``extra_config``:
    more ``TrainConfig`` fields for the next Start."""

    NOUN = "voice"

    def __init__(self, wizard) -> None:
        super().__init__(wizard)
        self._est_job: int | None = None
        self.best_step: int | None = None
        self.best_val: float | None = None
        self.clock = None  # a StageClock while a run goes
        self._tick = QTimer(self, interval=1000, timeout=self._show_clock)
        form = QFormLayout()
        self.preset_box = combo("Training preset", PRESETS, current="standard")
        self.preset_box.currentTextChanged.connect(self._preset_changed)
        self.preset_note = note_label("What the preset gives")  # time and quality, in words
        form.addRow(buddy_label("&Preset", self.preset_box), hrow(self.preset_box, (self.preset_note, 1), stretch=False))
        # 0 = the preset's value (shown as "preset"), which depends on the device
        self.steps_spin = spin("Training steps", 0, 1_000_000, 0, "preset", step=100)
        self.batch_spin = spin("Batch size", 0, 256, 0, "preset")
        self.device_box = device_picker("Training device")
        self.device_box.currentTextChanged.connect(lambda _t: self.refresh_estimate())
        row = hrow(self.steps_spin, QLabel("batch size"), self.batch_spin, QLabel("device"), self.device_box)
        # steps, batch size and device: one click away (the preset chooses them)
        self.details = Details("Details", key="clone_train", form=True)
        self.details.body_layout.addRow("Steps", row)
        form.addRow("", self.details)
        self.steps_spin.editingFinished.connect(self.refresh_estimate)
        self.steps_spin.valueChanged.connect(lambda _v: self._update())  # more steps after a finished run: Resume
        self.batch_spin.editingFinished.connect(self.refresh_estimate)
        self.prosody_check = named(QCheckBox("Also learn timing and intonation (30+ minutes of speech, long runs)"),
                                   "Train prosody", "Trains the flow and duration predictor too. Off: the clone keeps "
                                   "the base voice's timing and intonation and learns your timbre, which stays clear "
                                   "on small datasets.")
        form.addRow("", self.prosody_check)
        self.estimate = note_label("Training estimate")
        form.addRow("Estimate", self.estimate)
        form.setRowVisible(self.estimate, False)  # until there is one
        self.form = form
        controls = self._controls("Start fine-tuning from the base voice",
                                  "Stop and keep the voice learnt so far (Esc)")
        self.warning = note_label("Over-training warning")
        tint(self.warning, WARNING_COLOR, bold=True)  # palette, not a style sheet: follows the theme
        set_font(self.warning, 12)
        self.warning.setMargin(8)
        self.warning.setFrameShape(QFrame.Shape.Box)
        self.warning.setLineWidth(2)
        self.warning.setVisible(False)
        self.closeness = note_label("How close is your clone")
        self.closeness.setToolTip("At each check the voice speaks a few of your sentences and is compared with "
                                  "your recordings: speaker similarity (your own recordings score about 0.9), "
                                  "naturalness (1-5) and pitch. The best version is chosen by it.")
        self.closeness.setVisible(False)
        # how each judged try sounds (and the choice of the try to save), its samples, the losses
        self.trade_view = TradeView(self.wiz.audio)
        self.trade_view.play.connect(self._play)
        self.curves = LossCurves()
        self.views = named(CurrentTab(), "Training views")
        self.sample_table = SampleTable(self.wiz.audio)
        self.sample_table.play.connect(self._play)
        listen = QWidget()
        bare(vbox(listen, QLabel("What each try says (a fixed sentence and one of yours):"), (self.sample_table, 1)))
        self.views.addTab(self.trade_view, "How each try sounds")
        self.views.addTab(listen, "Listen")
        self.views.addTab(self.curves, "How training goes")
        vbox(self, form, *controls, self.warning, self.closeness, (self.views, 1))
        self.option_widgets = (self.preset_box, self.steps_spin, self.batch_spin, self.device_box, self.prosody_check)
        self._preset_changed(self.preset_box.currentText())
        self._update()

    def _preset_changed(self, name: str) -> None:
        self.preset_note.setText(PRESET_LINES.get(name, ""))
        self.steps_spin.setValue(0)
        self.batch_spin.setValue(0)
        self.refresh_estimate()

    def refresh_estimate(self) -> None:
        """Ask the train worker for the preset's time / memory estimate on the detected device."""
        m = self.wiz.manifest()
        if m is None or self.job_id is not None:
            return
        self.form.setRowVisible(self.estimate, True)
        self.estimate.setText("estimating…")
        self._est_job = self.worker.submit(CallJob(
            _estimate, self.preset_box.currentText(), self.device_box.currentText(),
            self.steps_spin.value() or None, self.batch_spin.value() or None, len(m.usable()), m.total_s,
            self.wiz.base_info is None or "posterior encoder" not in self.wiz.base_info.lacks,
            description="training estimate"))

    def _show_estimate(self, result) -> None:
        config, est = result
        where = "the graphics card" if str(config.device).startswith("cuda") else "this computer's processor"
        text = f"{roughly(est.seconds)} on {where} ({config.steps} steps)"
        if est.peak_memory_bytes:
            text += f", needs about {est.peak_memory_bytes / 2**30:.1f} GB of memory"
        self.estimate.setText(text + "; the time left is measured once training runs")
        self.estimate.setToolTip(f"{config.steps} steps of {config.batch_size} clips"
                                 + (f" x {config.grad_accum}" if config.grad_accum > 1 else "")
                                 + f" on {config.device}" + (f": {est.note}" if est.note else ""))

    def set_options(self, train: dict) -> None:
        """Show the options of a run's ``config.json`` ``"train"`` (a ``TrainConfig`` as a dict)."""
        self.steps_spin.setValue(int(train.get("steps", self.steps_spin.value())))
        self.batch_spin.setValue(int(train.get("batch_size", self.batch_spin.value())))
        self.device_box.setCurrentText(str(train.get("device")))  # an unlisted device selects nothing

    def run_dir(self) -> Path:
        return runs_dir() / self.wiz.voice_name()

    def _overrides(self) -> dict:
        """``TrainConfig`` fields chosen here (steps, batch size, device, prosody) plus ``extra_config``."""
        return {"steps": self.steps_spin.value() or None, "batch_size": self.batch_spin.value() or None,
                "device": self.device_box.currentText(), "freeze_prior": not self.prosody_check.isChecked(),
                **self.extra_config}

    def _make_job(self, resume: bool):
        """A :class:`~speechstudio.worker.finetune_jobs.FineTuneJob` and the folder an earlier
        run was moved to (None when none was), or None when it cannot start (said)."""
        if self.wiz.dataset_dir is None or self.wiz.base is None:
            self._say("choose a base voice and check a dataset first")
            return None
        if self._est_job is not None:
            self.worker.cancel(self._est_job)
        try:
            job = FineTuneJob(self.run_dir(), self.wiz.dataset_dir, self.wiz.base.location, resume=resume,
                              preset=self.preset_box.currentText(), overrides=self._overrides())
        except Exception as e:  # noqa: BLE001 - trainer missing, bad settings: said, not raised
            self._say(f"cannot start: {plain_error(e)}")
            return None
        # the earlier run moves aside only once the new one can start: a failed start keeps it resumable
        return job, (self._archive_run() if not resume and self.resumable() else None)

    def _reset_view(self, keep: bool) -> None:
        if not keep:
            self.curves.clear()
            self.sample_table.clear_samples()
            self.best_step = self.best_val = None
            self.trade_view.set_trade(None)
        self.form.setRowVisible(self.estimate, False)  # a run shows its own speed and time left
        self.warning.setVisible(False)
        self.clock = None
        self._tick.start()

    def _on_event(self, kind: str, ev) -> None:
        self._start_clock()
        if isinstance(ev, Status):
            self._say(str(ev))
        elif kind == "StageEvent":
            steps = getattr(ev, "steps", ())
            if self.clock is not None:
                self.clock.stage(ev.stage, steps, ev.message)
            # the stage in words; the trainer's own lines (clip counts, what trains) in the tooltip
            news = not steps and ev.stage != "prepare"
            self._say(ev.message.splitlines()[0] if news else STAGE_NAMES.get(ev.stage, ev.stage) + "…")
            self.state.setToolTip(ev.message)
        elif kind == "StepEvent":
            if self.clock is not None:
                self.clock.step(ev.stage, ev.step, getattr(ev, "step_s", 0.0))
            self._show_step(ev.step, ev.total_steps, self.clock.stage_steps() if self.clock is not None else None)
            for key, value in ev.losses.items():
                if key not in HIDDEN_LOSSES:
                    self.curves.add(key, ev.step, value)
            lr = getattr(ev, "lr", None)
            self.speed.setToolTip(f"{ev.steps_per_s:.2f} steps/s" + (f", learning rate {lr:.2e}" if lr else ""))
            self._show_clock()
            self._say_training()
        elif kind == "EvalEvent":
            self.curves.add(VAL_KEY, ev.step, ev.val_mel_loss)
            if self.clock is not None:
                self.clock.evaluated()
            if self.best_val is None or ev.val_mel_loss < self.best_val:
                self.best_val, self.best_step = ev.val_mel_loss, ev.step
            self._overtraining(ev)
            text = getattr(ev, "closeness_text", "")
            if text:
                self.closeness.setText(f"How close is your clone (step {ev.step}"
                                       + (", the best so far" if ev.best else "") + f"): {text}.")
                self.closeness.setVisible(True)
                self.show_trade()
        elif kind == "SampleEvent":
            if self.clock is not None:
                self.clock.saved()
            for p in ev.paths:
                self.sample_table.add_sample(ev.step, Path(p))
        elif kind == "CheckpointEvent" and ev.kind == "best":
            self.best_step = ev.step

    def _start_clock(self) -> None:
        """A :class:`StageClock` once the job's config is built (in the worker, before its first event)."""
        if self.clock is None and self.job is not None and getattr(self.job, "config", None) is not None:
            self.clock = StageClock(self.job.config)

    def _show_clock(self) -> None:
        """The speed line: the stage, its steps and time left, and what runs between steps."""
        self._start_clock()
        if self.clock is not None and self.job_id is not None:
            self.speed.setText(self.clock.line())

    def _overtraining(self, ev) -> None:
        """Show the trainer's warning (``EvalEvent.overtraining``: validation loss rising for the config's
        ``patience`` evaluations) in the banner in the page's words (the trainer's in the tooltip); an
        evaluation without it hides the banner."""
        text = ev.overtraining
        if not text:
            self.warning.setVisible(False)
            return
        plain = (f"The voice stopped improving: it got further from your recordings {self.job.config.patience} checks "
                 f"in a row. The best version so far (step {self.best_step}) is kept")
        self.warning.setText("⚠ " + plain + ". You can stop now: the next step uses the best version.")
        self.warning.setToolTip(text)
        self.warning.setVisible(True)
        self.wiz.status_message.emit(plain)

    def _play(self, path: Path) -> None:
        play_file(self.wiz.audio, path, self.wiz.status_message.emit)

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id == self._est_job:
            self._est_job = None
            if status == "done":
                self._show_estimate(result)
            elif status == "failed":
                self.estimate.setText(f"no estimate: {plain_error(result)}")
            return
        super()._on_finished(job_id, status, result)

    def _show_failure(self, result) -> None:
        self._tick.stop()
        self._say(f"training failed: {plain_error(result)}")
        self.wiz.status_message.emit(f"training failed: {plain_error(result)}")

    def _show_done(self, ev, status: str) -> None:
        self._tick.stop()
        reason = getattr(ev, "reason", status)
        self._show_step(ev.step, self.total_steps)
        self.speed.setText("")
        best = self.best_step if self.best_step is not None else ev.step
        self.show_trade()
        chosen = self.trade_view.chosen_name()
        if ev.step == 0:
            self._say("stopped before the first step: nothing was learnt yet; Resume starts the training")
        else:
            kept = (f"{chosen.lower() if chosen.startswith('Base') else chosen} is chosen" if chosen
                    else f"the best version (step {best}) is kept")
            self._say(f"{'finished' if reason == 'finished' else 'stopped'} at step {ev.step}; {kept}: Next saves it"
                      + ("" if reason == "finished" else ", Resume goes on"))
        self.wiz.status_message.emit(f"training {reason} at step {ev.step}")

    def show_trade(self) -> None:
        """Read the run's judged tries (``RUN/closeness.json``) into the trade view; its tab comes to
        the front when the first try besides the base voice appears."""
        def tried(t) -> bool:
            return t is not None and any(r.step > 0 for r in t.rows)

        before = tried(self.trade_view.trade)
        trade = load_run_trade(self.run_dir())
        self.trade_view.set_trade(trade, self.run_dir())
        if tried(trade) and not before:
            self.views.setCurrentWidget(self.trade_view)

    def has_model(self) -> bool:
        """True when there is a trained checkpoint to save: a run here that made a step, or a saved run that
        did (stopped before the first step, Next once saved the base voice under the new name)."""
        if self.done is not None:
            return int(getattr(self.done, "step", 0) or 0) > 0
        return ((self.resumable() and (saved_step(self.run_dir()) or 0) > 0)
                or (self.run_dir() / "checkpoints" / "best.pt").is_file())  # a finished run keeps only best.pt

    def entered(self) -> None:
        super().entered()
        if self.job_id is None and self.done is None:
            self._show_saved_run()
        self.refresh_estimate()

    def _show_saved_run(self) -> None:
        """A run opened again: its name and the steps it trained, on the state line and the
        progress bar (the folder in the tooltip), its tries and its samples."""
        run = self.run_dir()
        self.show_trade()
        if not self.has_model():
            return
        if not self.sample_table.samples:  # what it said at each save, in step order
            found = [(int(step), p) for p in (run / "samples").glob("step_*_*.wav")
                     if (step := p.name.split("_")[1]).isdigit()]  # the trainer's step_<N>_<tag>.wav
            for step, path in sorted(found):
                self.sample_table.add_sample(step, path)
        step = saved_step(run)
        try:
            total = int(json.loads((run / "config.json").read_text(encoding="utf-8"))["train"]["steps"])
        except (OSError, ValueError, KeyError, TypeError):
            total = step or 0
        if step is not None:
            self._show_step(step, max(total, step))
        trained = f"{step} of {self.total_steps} steps trained" if step is not None else "trained"
        more = ("Resume continues it, Start begins again" if self.resumable() and step is not None and step < total
                else "Next saves it, Start trains a new one")
        self._say(f"the saved run {run.name}: {trained}; {more}")
        self.state.setToolTip(str(run))
