"""The transcript player's speed choice (0.5x–2x, the pitch kept: :mod:`speechstudio.audio.tempo`)."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox

from speechstudio.audio.tempo import SPEEDS


class SpeedBox(QComboBox):
    """``speed_changed(float)`` when the user picks another speed; :meth:`speed` reads it."""

    speed_changed = Signal(float)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        for s in SPEEDS:
            self.addItem(f"{s:g}×", s)
        self.setCurrentIndex(SPEEDS.index(1.0))
        self.setAccessibleName("Playback speed")
        self.setToolTip("Listen faster or slower; voices keep their pitch and the text still follows")
        self.currentIndexChanged.connect(lambda _i: self.speed_changed.emit(self.speed()))

    def speed(self) -> float:
        return float(self.currentData())

    def set_speed(self, speed: float) -> None:
        i = self.findData(float(speed))
        if i >= 0:
            self.setCurrentIndex(i)
