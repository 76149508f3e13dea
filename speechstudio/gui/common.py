"""Small shared pieces of the GUI: settings, sparkline, level meter, formatting helpers."""
from __future__ import annotations

import collections
import os
from pathlib import Path

from PySide6.QtCore import QPointF, QSettings, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QComboBox, QMessageBox, QWidget


def settings() -> QSettings:
    """The app's QSettings: an INI file in ``$SPEECHSTUDIO_HOME`` when that is set (tests, portable
    installs), else the platform's usual place for "SpeechStudio/SpeechStudio"."""
    home = os.environ.get("SPEECHSTUDIO_HOME")
    if home:
        Path(home).mkdir(parents=True, exist_ok=True)
        return QSettings(str(Path(home) / "settings.ini"), QSettings.Format.IniFormat)
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "SpeechStudio", "SpeechStudio")


def setting_list(s: QSettings, key: str, default: list[str]) -> list[str]:
    v = s.value(key, default)
    if v is None:
        return list(default)
    if isinstance(v, str):
        return [x for x in v.split(",") if x] if v else []
    return [str(x) for x in v]


def fmt_duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def fmt_ts(seconds: float) -> str:
    """``m:ss.s`` timestamps for transcript rows."""
    m, s = divmod(max(0.0, seconds), 60)
    return f"{int(m)}:{s:04.1f}"


def show_error(parent: QWidget, title: str, message: str) -> None:
    """A modal error for things the user must see (the status line has the same text)."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, parent)
    box.setAccessibleName(title)
    box.open()  # non-blocking: never freezes the window, and tests are not stuck on exec()


class Sparkline(QWidget):
    """A tiny line chart of the last ``length`` values between ``lo`` and ``hi``."""

    def __init__(self, length: int = 60, lo: float = 0.0, hi: float = 100.0, color: str = "#3b82f6",
                 parent=None) -> None:
        super().__init__(parent)
        self.values: collections.deque[float] = collections.deque(maxlen=length)
        self.lo, self.hi = lo, hi
        self.color = QColor(color)
        self.setMinimumSize(120, 28)

    def add(self, value: float | None) -> None:
        if value is not None:
            self.values.append(float(value))
            self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt API
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        r = self.rect().adjusted(1, 1, -1, -1)
        p.fillRect(r, self.palette().base())
        p.setPen(QPen(self.palette().mid().color(), 1))
        p.drawRect(r)
        n = self.values.maxlen or 60
        if len(self.values) >= 2:
            span = (self.hi - self.lo) or 1.0
            pts = QPolygonF()
            start = n - len(self.values)
            for i, v in enumerate(self.values):
                x = r.left() + (start + i) * r.width() / max(1, n - 1)
                y = r.bottom() - (min(max(v, self.lo), self.hi) - self.lo) / span * r.height()
                pts.append(QPointF(x, y))
            p.setPen(QPen(self.color, 1.5))
            p.drawPolyline(pts)
        p.end()


class LevelMeter(QWidget):
    """A horizontal level meter in dBFS (-60 .. 0), green / yellow / red."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.db = -100.0
        self.setMinimumSize(160, 18)
        self.setAccessibleName("Input level meter")

    def set_level(self, db: float) -> None:
        self.db = db
        self.setAccessibleDescription(f"{db:.0f} dBFS")
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802
        p = QPainter(self)
        r = self.rect().adjusted(1, 1, -1, -1)
        p.fillRect(r, QColor("#222"))
        frac = min(1.0, max(0.0, (self.db + 60) / 60))
        w = int(r.width() * frac)
        color = QColor("#22c55e") if self.db < -12 else QColor("#eab308") if self.db < -3 else QColor("#ef4444")
        p.fillRect(r.left(), r.top(), w, r.height(), color)
        p.setPen(Qt.GlobalColor.white)
        p.drawText(r, Qt.AlignmentFlag.AlignCenter, f"{self.db:.0f} dBFS" if self.db > -100 else "—")
        p.end()


DEFAULT_MODEL = "(default)"


class ModelPicker(QComboBox):
    """Editable model picker: "(default)", the installed names, or any typed HF id / folder."""

    def __init__(self, accessible_name: str, tooltip: str) -> None:
        super().__init__()
        self.setEditable(True)
        self.setMinimumWidth(220)
        self.setAccessibleName(accessible_name)
        self.setToolTip(tooltip)
        self.addItem(DEFAULT_MODEL)

    def set_models(self, names: list[str]) -> None:
        """Fill the list with installed model names, keeping the current text."""
        cur = self.currentText()
        self.blockSignals(True)
        self.clear()
        self.addItem(DEFAULT_MODEL)
        self.addItems(names)
        self.setCurrentText(cur)
        self.blockSignals(False)

    def model(self) -> str | None:
        """The chosen model spec, or ``None`` for the default model."""
        m = self.currentText().strip()
        return None if m in ("", DEFAULT_MODEL) else m


def device_picker(accessible_name: str) -> QComboBox:
    box = QComboBox()
    box.addItems(["auto", "cpu", "cuda"])
    box.setAccessibleName(accessible_name)
    return box
