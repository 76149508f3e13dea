"""Adapt recognition page: a four-step wizard (base, dataset, train, evaluate & use) that fine-tunes
a CTC recogniser on the user's speech; run folders are the CLI's (``finetune asr --out NAME``)."""
from __future__ import annotations

from PySide6.QtCore import Signal

from speechstudio.finetune.run import RunFolder
from speechstudio.gui.adapt_base import DEFAULT_NAME, BaseModelStep
from speechstudio.gui.adapt_train import TrainStep
from speechstudio.gui.adapt_use import UseStep
from speechstudio.gui.clone_dataset import DatasetStep
from speechstudio.gui.common import settings
from speechstudio.gui.wizard_common import WizardPage
from speechstudio.worker.adapt_jobs import resume_dataset, run_dir_for

STEPS = ("Base model", "Dataset", "Train", "Evaluate & use")
#: Usable minutes under which the dataset step warns (the wizard asks for 10–20 minutes of speech).
MIN_MINUTES = 10.0


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
