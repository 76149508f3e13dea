"""The Settings dialog (File > Settings…, Ctrl+,): the values of :mod:`speechstudio.gui.preferences`."""
from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QFormLayout, QGroupBox

from speechstudio.batch.subtitles import MIN_LINE_WIDTH
from speechstudio.gui import preferences as prefs
from speechstudio.gui.common import combo, hrow, line_edit, named, note_label, path_row, spin, vbox


class SettingsDialog(QDialog):
    """Edit the preferences; ``values()`` is what OK would save, ``accept()`` saves them."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setAccessibleName("Settings")
        self.setMinimumWidth(620)
        p = prefs.load()
        out = QGroupBox("Transcripts")
        f = QFormLayout(out)
        self.output_dir = line_edit("Default output folder", "next to each input file", p.output_dir)
        f.addRow("Output folder", path_row(self.output_dir, "Output folder", self))
        self.format_checks: dict[str, QCheckBox] = {n: named(QCheckBox(n), f"Default format {n}") for n in prefs.FORMATS}
        for name, c in self.format_checks.items():
            c.setChecked(name in p.formats)
        f.addRow("Formats", hrow(*self.format_checks.values()))
        # "no limit" (0) sits just under the narrowest width the writer takes: a step up from it gives that width
        self.line_width = spin("Subtitle line width", MIN_LINE_WIDTH - 1, 200,
                               max(p.subtitle_max_line_width, MIN_LINE_WIDTH - 1), "no limit", suffix=" characters")
        self.line_count = spin("Subtitle lines per cue", 0, 10, p.subtitle_max_line_count, "no limit", suffix=" lines")
        f.addRow("Subtitle line width", self.line_width)
        f.addRow("Subtitle lines per cue", self.line_count)

        rec = QGroupBox("Recognition")
        f = QFormLayout(rec)
        self.device = combo("Default device", prefs.DEVICES, current=p.device)
        self.precision = combo("Default precision", prefs.PRECISIONS, "Precision of the numbers on the GPU: auto picks "
                               "fp16 on NVIDIA GPUs (faster, half the memory) and fp32 on the CPU", current=p.precision)
        f.addRow("Device", self.device)
        note = note_label("What the number format is", "how exactly the recogniser computes: auto is right on "
                          "every computer (smaller formats are faster on a graphics card)")
        f.addRow("Number format", hrow(self.precision, (note, 1), stretch=False))

        app = QGroupBox("Application")
        f = QFormLayout(app)
        self.data_dir = line_edit("Data folder", "the platform's data folder", p.data_dir)
        self.cache_dir = line_edit("Model cache folder", "the Hugging Face cache (~/.cache/huggingface/hub)",
                                   p.cache_dir)
        f.addRow("Data folder", path_row(self.data_dir, "Data folder", self))
        f.addRow("Model cache", path_row(self.cache_dir, "Model cache folder", self))
        self.theme = combo("Theme", prefs.THEMES, current=p.theme)
        f.addRow("Theme", self.theme)
        f.addRow(note_label("When settings apply",
                            "Data and cache folders take effect the next time SpeechStudio starts."))

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        vbox(self, out, rec, app, buttons)

    def values(self) -> prefs.Preferences:
        return prefs.Preferences(
            output_dir=self.output_dir.text().strip(),
            formats=tuple(n for n, c in self.format_checks.items() if c.isChecked()) or ("txt",),
            subtitle_max_line_width=self.line_width.value() if self.line_width.value() >= MIN_LINE_WIDTH else 0,
            subtitle_max_line_count=self.line_count.value(),
            device=self.device.currentText(),
            precision=self.precision.currentText(),
            data_dir=self.data_dir.text().strip(),
            cache_dir=self.cache_dir.text().strip(),
            theme=self.theme.currentText(),
        )

    def accept(self) -> None:
        p = self.values()
        prefs.save(p)
        prefs.apply_theme(p.theme)
        super().accept()
