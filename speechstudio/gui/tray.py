"""The dictation tray icon (listening / idle / failed, Start/Stop, captions, window, Quit) and
:func:`cue_tone`, the sound played when dictation starts or stops."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QAction, QColor, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from speechstudio.gui.common import action

STATES = {"idle": "#8a8a8a", "listening": "#d92b2b", "error": "#e0a000"}


def state_icon(state: str, size: int = 64) -> QIcon:
    """A round icon in the state's colour (:data:`STATES`) with a white microphone."""
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor(STATES.get(state, STATES["idle"])))
    p.drawEllipse(2, 2, size - 4, size - 4)
    p.setBrush(QColor("white"))
    w, h = size * 0.20, size * 0.36
    p.drawRoundedRect(int((size - w) / 2), int(size * 0.16), int(w), int(h), w / 2, w / 2)   # capsule
    pen = QPen(QColor("white"), max(2.0, size * 0.05))
    p.setPen(pen)
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawArc(int(size * 0.30), int(size * 0.30), int(size * 0.40), int(size * 0.34), 180 * 16, 180 * 16)  # holder
    p.drawLine(int(size * 0.5), int(size * 0.64), int(size * 0.5), int(size * 0.76))                      # stem
    p.drawLine(int(size * 0.38), int(size * 0.78), int(size * 0.62), int(size * 0.78))                    # base
    p.end()
    return QIcon(pm)


class DictationTray(QSystemTrayIcon):
    """The tray icon and its menu. Signals: ``toggle_requested()``, ``captions_toggled(bool)``,
    ``show_requested()``, ``quit_requested()``; a click on the icon toggles dictation."""

    toggle_requested = Signal()
    captions_toggled = Signal(bool)
    show_requested = Signal()
    quit_requested = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(state_icon("idle"), parent)
        self.state = "idle"
        menu = QMenu()
        self.toggle_action = action(menu, "Start dictation", self.toggle_requested.emit, menu=menu)
        self.captions_action = QAction("Show live captions", menu)
        self.captions_action.setCheckable(True)
        self.captions_action.toggled.connect(self.captions_toggled.emit)
        menu.addAction(self.captions_action)
        action(menu, "Show SpeechStudio", self.show_requested.emit, menu=menu)
        menu.addSeparator()
        action(menu, "Quit", self.quit_requested.emit, menu=menu)
        self.menu = menu
        self.setContextMenu(menu)
        self.activated.connect(self._activated)
        self.set_state("idle")

    def _activated(self, reason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.toggle_requested.emit()

    def set_state(self, state: str, detail: str = "") -> None:
        """``"idle"`` / ``"listening"`` / ``"error"``; ``detail`` goes into the tooltip."""
        self.state = state
        self.setIcon(state_icon(state))
        self.toggle_action.setText("Stop dictation" if state == "listening" else "Start dictation")
        words = {"idle": "dictation off", "listening": "dictating", "error": "dictation problem"}[state]
        self.setToolTip(f"SpeechStudio: {words}" + (f"\n{detail}" if detail else ""))

    def set_captions_checked(self, on: bool) -> None:
        with QSignalBlocker(self.captions_action):
            self.captions_action.setChecked(on)

    def notify(self, message: str) -> None:
        """A balloon message (e.g. what is missing for typing into other apps)."""
        if self.isVisible() and QSystemTrayIcon.supportsMessages():
            self.showMessage("SpeechStudio dictation", message, QSystemTrayIcon.MessageIcon.Warning, 8000)


def cue_tone(start: bool, sample_rate: int = 16000) -> np.ndarray:
    """Two 60 ms tones, rising (start: 660 then 880 Hz) or falling (stop), 5 ms fades, peak
    0.2: ``np.ndarray[float32]`` shape (n,), mono, ``sample_rate`` Hz, range [-0.2, 0.2]."""
    n = int(0.06 * sample_rate)
    t = np.arange(n, dtype=np.float32) / sample_rate
    fade = np.minimum(1.0, np.minimum(np.arange(n), np.arange(n)[::-1]) / (0.005 * sample_rate)).astype(np.float32)
    freqs = (660.0, 880.0) if start else (880.0, 660.0)
    out = np.concatenate([0.2 * np.sin(2 * np.pi * f * t) * fade for f in freqs])
    return out.astype(np.float32)
