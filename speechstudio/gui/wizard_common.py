"""What the two fine-tuning wizards share: the four-step shell (:class:`WizardPage`), step 1's listing
and name (:class:`BaseStepFrame`), and step 3's run control (:class:`TrainingStep`)."""
from __future__ import annotations

import re
import time
from operator import attrgetter
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFormLayout, QFrame, QLabel, QLineEdit, QProgressBar, QScrollArea, QWidget

from speechstudio.audio.decode import AudioReader
from speechstudio.errors import SpeechStudioError
from speechstudio.finetune.manifest import Manifest
from speechstudio.gui.common import (ERROR_COLOR, CurrentStack, bare, button, combo, hrow, named, note_label, refill,
                                     set_font, tint, vbox)
from speechstudio.gui.wording import plain_error
from speechstudio.tts.voices import NAME_RE       # a new voice's / model's name: also its run folder's
from speechstudio.worker.jobs import CallJob
from speechstudio.worker.worker import Worker


def saved_step(run_dir: Path) -> int | None:
    """The last step a run folder's ``train.log`` says was saved or reached, None when it says none."""
    try:
        lines = (Path(run_dir) / "train.log").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        m = re.search(r"\b(?:checkpoint latest at|stopped at|finished at|closed at|done \(\w+\) at) step (\d+)", line)
        if m:
            return int(m.group(1))
    return None


def show(label: QLabel, text: str, error: bool = False, tip: str | None = None) -> None:
    """Show ``text`` on ``label``, in red and bold for an ``error``; ``tip``: its tooltip (None: kept)."""
    tint(label, ERROR_COLOR if error else None, bold=error)
    label.setText(text)
    if tip is not None:
        label.setToolTip(tip)


def play_file(audio, path, say) -> None:
    """Play the sound file ``path`` on ``audio`` (an ``AudioHub``); a missing file or no sound device
    is said through ``say(text)``, never raised."""
    try:
        reader = AudioReader(path, None)  # the file's own rate
        audio.play(np.concatenate(list(reader.blocks())), reader.sample_rate, source=Path(path).name)
    except Exception as e:  # noqa: BLE001 - file gone, no audio device
        say(f"cannot play {Path(path).name}: {plain_error(e)}")


def open_with(win, page: str, box: str, name: str | None) -> None:
    """Show the window's ``page`` with ``name`` chosen in its picker ``box`` (added when the list has
    not caught up yet)."""
    target = getattr(win, page.lower(), None)
    if target is None or not name:
        return
    picker = getattr(target, box)
    if picker.findText(name) < 0:
        picker.addItem(name)
    picker.setCurrentText(name)
    win.show_page(page)


class WizardPage(QWidget):
    """The four-step shell: subclasses set :attr:`STEPS` and :attr:`STEP_TYPES` (made into ``base_step``,
    ``dataset``, ``train``, ``use``, each with ``ready() -> (ok, why)``, ``entered()``, ``changed``) and
    implement ``read_run(name) -> (config, dataset folder)`` for :meth:`open_run`.
    Signal ``status_message(str)``."""

    status_message = Signal(str)
    STEPS: tuple[str, ...] = ()  # the step bar's titles
    STEP_TYPES: tuple = ()  # the four steps' classes, each made with the page
    WRAP_WHY = False  # whether the "what the step needs" line wraps
    FIRST_CONTROLS: tuple[str, ...] = ()  # each step's control keyboard users land on (attribute paths)
    DEFAULT_NAME = ""  # the new voice's / model's name while the name field is empty

    def __init__(self, win, worker_name: str) -> None:
        super().__init__()
        self.win = win
        self.compute, self.io, self.audio = win.compute, win.io, win.audio
        self.trainer = Worker(worker_name, self)
        self.base = self.base_info = None
        self.dataset_dir: Path | None = None
        for attr, make in zip(("base_step", "dataset", "train", "use"), self.STEP_TYPES):
            setattr(self, attr, make(self))  # one at a time: a step may use those made before it
        self.step_bar = named(QLabel(""), "Wizard steps")
        set_font(self.step_bar, 12)
        self.step_bar.setMargin(4)
        self.stack = CurrentStack()
        self.steps = [self.base_step, self.dataset, self.train, self.use]
        for s in self.steps:
            self.stack.addWidget(s)
            if hasattr(s, "changed"):
                s.changed.connect(self._update_nav)
        # the steps scroll inside their own area, so Back / Next stay on screen
        self.step_area = QScrollArea()
        self.step_area.setFrameShape(QFrame.Shape.NoFrame)
        self.step_area.setWidgetResizable(True)
        self.step_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        holder = QWidget()  # the scroll area asks the holder's layout, which asks CurrentStack (not Qt's stack)
        bare(vbox(holder, self.stack))
        self.step_area.setWidget(holder)
        self.back_btn = button("◀ Bac&k", "Back to the previous step", "", self.back)
        self.next_btn = button("&Next ▶", "Next step", "", self.next)
        self.why = note_label("What the step needs")
        self.why.setWordWrap(self.WRAP_WHY)
        vbox(self, self.step_bar, (self.step_area, 1), hrow(self.back_btn, (self.why, 1), self.next_btn, stretch=False))

    def refresh_models(self) -> bool:
        """List the models and voices again on the Models page (which refills the other pages' pickers);
        False when the window has none."""
        models = getattr(self.win, "models", None)
        if models is None or not hasattr(models, "refresh"):
            return False
        pending = getattr(models, "_list_job", None)
        if pending is not None:  # a listing started before the save would miss it: list again after it
            def again(job_id: int, _status: str, _result) -> None:
                if job_id == pending:
                    self.io.job_finished.disconnect(again)
                    models.refresh()

            self.io.job_finished.connect(again)
        else:
            models.refresh()
        return True

    def open_run(self, name: str) -> bool:
        """Continue run folder ``name`` (base, dataset and options from its ``config.json``) at the
        Train step. Returns False, saying why on the status line, when it cannot."""
        try:
            cfg, dataset = self.read_run(name)
            manifest = Manifest.load(dataset)
        except SpeechStudioError as e:  # RunError, DatasetError: config unreadable, dataset gone
            self.status_message.emit(f"cannot open run {name}: {plain_error(e)}")
            return False
        missing = self.base_step.choose_run_base(cfg)
        if missing:
            self.status_message.emit(f"cannot open run {name}: {missing}")
            return False
        self.base_step.name_edit.setText(name)
        self.dataset.set_manifest(manifest, dataset)
        self.train.set_options(cfg.get("train") or {})
        self.go(2)
        return True

    def voice_name(self) -> str:
        """The new voice's / model's name (also its run, dataset and recordings folder name)."""
        return self.base_step.name() or self.DEFAULT_NAME

    def manifest(self):
        return self.dataset.manifest

    @property
    def index(self) -> int:
        return self.stack.currentIndex()

    def go(self, index: int) -> None:
        index = max(0, min(len(self.steps) - 1, index))
        self.stack.setCurrentIndex(index)
        self.step_bar.setText("  ›  ".join(f"<b><u>{i + 1}. {n}</u></b>" if i == index else f"{i + 1}. {n}"
                                           for i, n in enumerate(self.STEPS)))
        self.step_bar.setAccessibleDescription(f"step {index + 1} of {len(self.STEPS)}: {self.STEPS[index]}")
        self.steps[index].entered()
        self._update_nav()
        if self.isVisible():  # keyboard users land on the step's first control
            attrgetter(self.FIRST_CONTROLS[index])(self).setFocus()
        self.step_area.verticalScrollBar().setValue(0)  # a step opens at its top

    def next(self) -> None:
        ok, why = self.steps[self.index].ready()
        if ok:
            self.go(self.index + 1)
        else:
            self.status_message.emit(why)

    def back(self) -> None:
        self.go(self.index - 1)

    def _update_nav(self) -> None:
        ok, why = self.steps[self.index].ready()
        last = self.index == len(self.steps) - 1
        self.next_btn.setEnabled(ok and not last)
        self.next_btn.setToolTip("" if ok else why)
        self.why.setText("" if ok or last else why)
        self.back_btn.setEnabled(self.index > 0)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        if self.index == 0 and self.base_step._list_job is None:
            self.base_step.refresh()  # voices / models may have been installed or saved since

    def stop(self) -> None:
        """Esc: stop recording / playback, cancel a dataset check (training is stopped with Stop)."""
        self.dataset.recorder.stop()
        self.dataset.cancel()

    def shutdown(self) -> None:
        """Stop recording and training (the trainer saves a checkpoint), then the training worker."""
        self.dataset.shutdown()
        self.train.shutdown()
        self.trainer.shutdown(timeout=10)


class BaseStepFrame(QWidget):
    """Step 1's shared parts, worded by :attr:`NOUN`; subclasses implement static ``list_bases() ->
    (bases, runs)`` (run on the I/O worker), ``_fill(bases, runs)`` and ``ready()`` (ending with
    :meth:`name_problem`)."""

    changed = Signal()
    NOUN = "model"
    LIST_DESCRIPTION = "list base models"

    def __init__(self, wizard) -> None:
        super().__init__()
        self.wiz = wizard
        self._list_job: int | None = None
        wizard.io.job_finished.connect(self._on_finished)

    def refresh(self) -> int:
        """List the installed bases and the earlier runs on the I/O worker; returns the job id."""
        self._list_job = self.wiz.io.submit(CallJob(self.list_bases, description=self.LIST_DESCRIPTION))
        return self._list_job

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id != self._list_job:
            return
        self._list_job = None
        if status != "done":
            self.about.setText(f"{self.NOUN}s unavailable: {plain_error(result)}")
            return
        self._fill(*result)

    def _add_about_and_name(self, form: QFormLayout, default: str) -> None:
        """Rows under the base chooser: ``about`` it, and ``name_edit`` (the new name)."""
        self.about = note_label(f"About the base {self.NOUN}", f"listing {self.NOUN}s…")
        form.addRow("", self.about)
        self.name_edit = named(QLineEdit(default), f"Name of the new {self.NOUN}",
                               f"letters, digits, . _ - (the run folder and the {self.NOUN} get this name)")
        self.name_edit.textChanged.connect(lambda _t: self.changed.emit())
        form.addRow(f"New {self.NOUN} na&me", self.name_edit)
        self.name_note = note_label(f"Is the {self.NOUN} name free")  # shown only when the name is taken
        form.addRow("", self.name_note)
        self._name_form = form
        self.changed.connect(self._show_name_note)
        self._show_name_note()

    def _runs_row(self, tip: str):
        """The "continue an earlier run" row (``run_box``, ``open_btn`` -> ``wiz.open_run(name)``)."""
        self.run_box = combo("Earlier runs")
        self.open_btn = button("&Open run", "Open earlier run", tip, lambda: self.wiz.open_run(self.run_box.currentText()))
        return hrow(QLabel("Or continue an earlier run:"), (self.run_box, 1), self.open_btn, stretch=False)

    def _show_runs(self, runs) -> None:
        refill(self.run_box, [r.name for r in runs])
        self.run_box.setEnabled(bool(runs))
        self.open_btn.setEnabled(bool(runs))

    def name(self) -> str:
        return self.name_edit.text().strip()

    def name_problem(self) -> tuple[bool, str]:
        """``(True, "")`` for a valid new name that may be saved, else ``(False, why)`` (checked as it is typed)."""
        if not NAME_RE.match(self.name()):
            return False, f"the new {self.NOUN} needs a name: letters, digits, . _ - (up to 80)"
        why, refused = self.name_clash(self.name())
        return (False, why) if refused else (True, "")

    def name_clash(self, name: str) -> tuple[str, bool]:
        """``(why, refused)``: ``("", False)`` when ``name`` is free; ``(why, True)`` when it can never be
        saved; ``(why, False)`` when saving would replace what has that name. Subclasses say which names."""
        return "", False

    def _show_name_note(self) -> None:
        """The warning under the name (a name taken by an earlier result, which saving would replace)."""
        why, refused = self.name_clash(self.name()) if NAME_RE.match(self.name()) else ("", False)
        text = "" if refused else why  # a refused name is said beside Next
        if self.name_note.text() != text:
            self.name_note.setText(text)
        self._name_form.setRowVisible(self.name_note, bool(text))

    def entered(self) -> None:
        if self.isVisible() and self._list_job is None:
            self.refresh()


class TrainingStep(QWidget):
    """Step 3's run control. Subclasses lay out :meth:`_controls`, set ``curves``, ``steps_spin`` and
    ``option_widgets``, and implement ``run_dir()``, ``_make_job(resume)``, ``_reset_view(keep)``,
    ``_on_event(kind, ev)``, ``_show_failure``, ``_show_done`` and ``has_model()``. Signal ``changed()`` when
    training starts or ends."""

    changed = Signal()
    UNTRAINED = "train first"  # what ready() says while there is no model to use
    NOUN = "model"  # what a run makes, in the "kept" line of a checkpoint

    def __init__(self, wizard) -> None:
        super().__init__()
        self.wiz = wizard
        self.worker = wizard.trainer
        self.job = None
        self.job_id: int | None = None
        self.done = None
        self.step = self.total_steps = 0
        self.option_widgets: tuple = ()
        self.extra_config: dict = {}
        self.worker.job_progress.connect(self._on_progress)
        self.worker.job_finished.connect(self._on_finished)

    def _controls(self, start_tip: str, stop_tip: str, *between: QWidget) -> list:
        """The Start / Pause / Resume / Stop row with the state line, ``between``, then the progress bar and
        the speed line (items for :func:`~speechstudio.gui.common.vbox`)."""
        self.start_btn = button("S&tart", "Start training", start_tip, self.start)
        self.pause_btn = button("P&ause", "Pause training", "Pause after the current step", self.pause)
        self.resume_btn = button("&Resume", "Resume training",
                                 "Resume a paused run, or continue the saved run from its last checkpoint", self.resume)
        self.stop_btn = button("St&op", "Stop training", stop_tip, self.stop)
        self.state = note_label("Training state", "not started")
        self.progress = named(QProgressBar(), "Training progress")
        self.progress.setFormat("not started")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.speed = named(QLabel(""), "Training speed and time left")
        return [hrow(self.start_btn, self.pause_btn, self.resume_btn, self.stop_btn, (self.state, 1), stretch=False),
                *between, self.progress, self.speed]

    def _say(self, text: str, error: bool = False) -> None:
        """Show ``text`` on the state line (in red and bold for an ``error``)."""
        show(self.state, text, error)

    def resumable(self) -> bool:
        """True when the run folder holds a checkpoint to continue from."""
        return (self.run_dir() / "checkpoints" / "latest.pt").is_file()

    def finished(self) -> bool:
        """True when this session's run reached its end and ``steps_spin`` asks for no more steps than
        it made: nothing to resume. Raising the step count makes Resume continue."""
        return (self.done is not None and getattr(self.done, "reason", "") in ("finished", "early_stop")
                and self.steps_spin.value() <= int(getattr(self.done, "step", 0) or 0))

    def start(self, resume: bool = False) -> int | None:
        """Start (or with ``resume`` continue) training on the page's training worker; returns
        the job's id, or None when it cannot start (the state line says why)."""
        if self.job_id is not None:
            return self.job_id
        made = self._make_job(resume)
        if made is None:
            return None
        self.job, moved = made
        self._reset_view(keep=resume)
        if not resume:
            self._show_step(0, 0)  # a new run: the last run's count goes
        self.done = None
        self.job_id = self.worker.submit(self.job)
        self._say("resuming…" if resume else "starting…" + (f" (the earlier run is kept in {moved})" if moved else ""))
        self.curves.start()
        self._update()
        self.changed.emit()
        return self.job_id

    def _archive_run(self) -> Path:
        """Rename the run folder to ``NAME-<date-time>``; returns the new path."""
        src = self.run_dir()
        dest = src.with_name(f"{src.name}-{time.strftime('%Y%m%d-%H%M%S')}")
        src.rename(dest)
        return dest

    def pause(self) -> None:
        if self.job is not None and self.job_id is not None:
            self.job.pause()
            self._say(f"paused at step {self.step}")
            self._update()

    def resume(self) -> int | None:
        """Unpause a paused run; with none going, continue the saved run (returns the new job's id)."""
        if self.job is not None and self.job_id is not None:
            self.job.resume_training()
            self._say("training")
            self._update()
            return None
        return self.start(resume=True) if self.resumable() else None

    def stop(self) -> None:
        if self.job is not None and self.job_id is not None:
            self.job.stop()
            self._say("stopping after this step (keeping what was learnt)…")
            self._update()

    def _on_progress(self, job_id: int, ev) -> None:
        """The run's events: ``DoneEvent`` and ``CheckpointEvent`` here, every event to ``_on_event(kind, ev)``."""
        if job_id != self.job_id:
            return
        kind = type(ev).__name__
        if kind == "DoneEvent":
            self.done = ev
        elif kind == "CheckpointEvent":
            self.wiz.status_message.emit(f"the {self.NOUN} so far is kept (step {ev.step})" if ev.kind == "latest"
                                         else f"step {ev.step} is the best version so far")
        self._on_event(kind, ev)

    def _show_step(self, step: int, total: int, stage: tuple[int, int] | None = None) -> None:
        """The progress bar: ``step`` steps of ``total`` trained ("3 of 10 steps trained"); with ``stage``
        ``(done, of)`` the bar follows the stage's own steps and the text says both. No step count known
        (stopped before the first step) reads "no steps trained yet", never "step 0 / 1"."""
        self.step, self.total_steps = step, total
        if stage is not None and stage[1] > 0:
            (done, of), text = stage, f"this stage: %v of %m steps (run: {step} of {total} steps trained)"
        elif total > 0:
            done, of, text = step, total, "%v of %m steps trained"
        else:
            done, of, text = 0, 1, "no steps trained yet"
        self.progress.setRange(0, of)
        self.progress.setValue(min(done, of))
        self.progress.setFormat(text)

    def _say_training(self) -> None:
        """Say "training" on the state line, unless "paused" / "stopping" is shown."""
        if self.job is not None and not self.job.paused and not self.job.stopping:
            self._say("training")

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id != self.job_id:
            return
        self.job_id = None
        self.curves.stop()
        if status == "failed":
            self._show_failure(result)
        else:
            self.done = ev = result or self.done
            if ev is None:
                self._say(f"training ended ({status}) at step {self.step}")
            else:
                self._show_done(ev, status)
        self.job = None
        self._update()
        self.changed.emit()

    def _update(self) -> None:
        running = self.job_id is not None
        paused = running and self.job is not None and self.job.paused
        self.start_btn.setEnabled(not running)
        self.pause_btn.setEnabled(running and not paused)
        self.resume_btn.setEnabled(paused or (not running and not self.finished() and self.resumable()))
        self.stop_btn.setEnabled(running)
        for w in self.option_widgets:
            w.setEnabled(not running)

    def ready(self) -> tuple[bool, str]:
        if self.job_id is not None:
            return False, "training is running (stop it to use the best version so far)"
        if not self.has_model():
            return False, self.UNTRAINED
        return True, ""

    def entered(self) -> None:
        self._update()
        if self.job_id is None and self.done is None and self.resumable():
            step = saved_step(self.run_dir())
            self._say(f"a saved run of {self.run_dir().name}" + (f" (stopped at step {step})" if step else "")
                      + ": Resume continues it, Start begins again")
            self.state.setToolTip(str(self.run_dir()))

    def shutdown(self) -> None:
        if self.job is not None:
            self.job.stop()
