"""The Settings dialog (File > Settings…, Ctrl+,): the values of :mod:`speechstudio.gui.preferences`.

OK writes them to QSettings at once; the theme applies at once, the data and cache folders at the
next start (the dialog says so).
"""
from __future__ import annotations

from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout,
                               QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QVBoxLayout,
                               QWidget)

from speechstudio.gui import preferences as prefs
from speechstudio.gui.common import DEFAULT_MODEL


def _folder_row(edit: QLineEdit, title: str, parent: QWidget) -> QHBoxLayout:
    row = QHBoxLayout()
    row.addWidget(edit, 1)
    btn = QPushButton("Choose…")
    btn.setAccessibleName(f"Choose {title.lower()}")

    def pick() -> None:
        d = QFileDialog.getExistingDirectory(parent, title, edit.text())
        if d:
            edit.setText(d)

    btn.clicked.connect(pick)
    row.addWidget(btn)
    return row


class SettingsDialog(QDialog):
    """Edit the preferences; ``values()`` is what OK would save, ``accept()`` saves them."""

    def __init__(self, parent=None, models: list[str] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setAccessibleName("Settings")
        self.setMinimumWidth(620)
        p = prefs.load()
        lay = QVBoxLayout(self)

        out = QGroupBox("Transcripts")
        f = QFormLayout(out)
        self.output_dir = QLineEdit(p.output_dir)
        self.output_dir.setPlaceholderText("next to each input file")
        self.output_dir.setAccessibleName("Default output folder")
        f.addRow("Output folder", _folder_row(self.output_dir, "Output folder", self))
        fmt_row = QHBoxLayout()
        self.format_checks: dict[str, QCheckBox] = {}
        for name in prefs.FORMATS:
            c = QCheckBox(name)
            c.setAccessibleName(f"Default format {name}")
            c.setChecked(name in p.formats)
            self.format_checks[name] = c
            fmt_row.addWidget(c)
        fmt_row.addStretch(1)
        f.addRow("Formats", fmt_row)
        self.line_width = QSpinBox()
        self.line_width.setRange(0, 200)
        self.line_width.setSpecialValueText("no limit")
        self.line_width.setSuffix(" characters")
        self.line_width.setValue(p.subtitle_max_line_width)
        self.line_width.setAccessibleName("Subtitle line width")
        self.line_count = QSpinBox()
        self.line_count.setRange(0, 10)
        self.line_count.setSpecialValueText("no limit")
        self.line_count.setSuffix(" lines")
        self.line_count.setValue(p.subtitle_max_line_count)
        self.line_count.setAccessibleName("Subtitle lines per cue")
        f.addRow("Subtitle line width", self.line_width)
        f.addRow("Subtitle lines per cue", self.line_count)
        lay.addWidget(out)

        rec = QGroupBox("Recognition")
        f = QFormLayout(rec)
        self.model_boxes: dict[str, QComboBox] = {}
        for code, label in prefs.MODEL_LANGUAGES:
            box = QComboBox()
            box.setEditable(True)
            box.addItem(DEFAULT_MODEL)
            box.addItems(models or [])
            box.setCurrentText(p.models.get(code) or DEFAULT_MODEL)
            box.setAccessibleName(f"Default model for {label}")
            self.model_boxes[code] = box
            f.addRow(label, box)
        self.device = QComboBox()
        self.device.addItems(prefs.DEVICES)
        self.device.setCurrentText(p.device)
        self.device.setAccessibleName("Default device")
        self.precision = QComboBox()
        self.precision.addItems(prefs.PRECISIONS)
        self.precision.setCurrentText(p.precision)
        self.precision.setAccessibleName("Default precision")
        f.addRow("Device", self.device)
        self.precision.setToolTip("Precision of the numbers on the GPU: auto picks fp16 on NVIDIA GPUs (faster, "
                                  "half the memory) and fp32 on the CPU")
        row = QHBoxLayout()
        row.addWidget(self.precision)
        note = QLabel("how exactly the recogniser computes: auto is right on every computer (smaller formats "
                      "are faster on a graphics card)")
        note.setWordWrap(True)
        row.addWidget(note, 1)
        f.addRow("Number format", row)
        lay.addWidget(rec)

        app = QGroupBox("Application")
        f = QFormLayout(app)
        self.data_dir = QLineEdit(p.data_dir)
        self.data_dir.setPlaceholderText("the platform's data folder")
        self.data_dir.setAccessibleName("Data folder")
        self.cache_dir = QLineEdit(p.cache_dir)
        self.cache_dir.setPlaceholderText("the Hugging Face cache (~/.cache/huggingface/hub)")
        self.cache_dir.setAccessibleName("Model cache folder")
        f.addRow("Data folder", _folder_row(self.data_dir, "Data folder", self))
        f.addRow("Model cache", _folder_row(self.cache_dir, "Model cache folder", self))
        self.theme = QComboBox()
        self.theme.addItems(prefs.THEMES)
        self.theme.setCurrentText(p.theme)
        self.theme.setAccessibleName("Theme")
        f.addRow("Theme", self.theme)
        note = QLabel("Data and cache folders take effect the next time SpeechStudio starts.")
        note.setWordWrap(True)
        f.addRow(note)
        lay.addWidget(app)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def values(self) -> prefs.Preferences:
        models = {code: box.currentText().strip() for code, box in self.model_boxes.items()}
        return prefs.Preferences(
            output_dir=self.output_dir.text().strip(),
            formats=tuple(n for n, c in self.format_checks.items() if c.isChecked()) or ("txt",),
            subtitle_max_line_width=self.line_width.value(),
            subtitle_max_line_count=self.line_count.value(),
            models={k: v for k, v in models.items() if v and v != DEFAULT_MODEL},
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
