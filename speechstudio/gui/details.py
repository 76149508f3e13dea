"""A "Details" expander: expert settings one click away, collapsed by default (state kept in ``details/<key>``)."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFormLayout, QToolButton, QVBoxLayout, QWidget

from speechstudio.gui.common import bare, settings, vbox


class Details(QWidget):
    """``Details ▸`` button over ``body`` (``body_layout``: a form when ``form``); ``key``: the settings key
    of the open/closed state (``None``: not kept)."""

    toggled = Signal(bool)

    def __init__(self, title: str = "Details", key: str | None = None, form: bool = False) -> None:
        super().__init__()
        self._key = key
        self.button = QToolButton()
        self.button.setText(title)
        self.button.setCheckable(True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.setAutoRaise(True)
        self.button.setAccessibleName(f"{title}: show or hide")
        self.body = QWidget()
        self.body_layout = QFormLayout(self.body) if form else QVBoxLayout(self.body)
        self.body_layout.setContentsMargins(16, 0, 0, 0)
        bare(vbox(self, (self.button, 0, Qt.AlignmentFlag.AlignLeft), self.body)).setSpacing(2)
        opened = bool(key) and settings().value(f"details/{key}", False, type=bool)
        self.button.setChecked(opened)
        self._show(opened)
        self.button.toggled.connect(self._show)

    def _show(self, opened: bool) -> None:
        self.body.setVisible(opened)
        self.button.setArrowType(Qt.ArrowType.DownArrow if opened else Qt.ArrowType.RightArrow)
        if self._key:
            settings().setValue(f"details/{self._key}", opened)
        self.toggled.emit(opened)
