"""The transcript player's waveform: the whole recording's min / max per pixel column, the played part
shaded; a click or drag jumps there (``seeked(seconds)``)."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from speechstudio.audio.waveform import regroup
from speechstudio.gui.contrast import GRAPHICS, contrast

HEIGHT_PX = 30


def _mix(a: QColor, b: QColor, k: float) -> QColor:
    """``k`` of ``a`` and ``1 - k`` of ``b``, opaque."""
    return QColor.fromRgbF(*(k * x + (1 - k) * y for x, y in zip(a.getRgbF()[:3], b.getRgbF()[:3])))


class WaveformView(QWidget):
    seeked = Signal(float)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setFixedHeight(HEIGHT_PX)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Waveform of the recording")
        self.setToolTip("The whole recording; the played part is shaded. Click to jump there")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.peaks: np.ndarray | None = None     # shape (m, 2) from speechstudio.audio.waveform.peaks
        self.duration_s = 0.0
        self.position_s = 0.0
        self._columns: np.ndarray | None = None  # peaks regrouped to the width (one row per pixel)
        self.margin = 0                          # px left and right (to line up with a slider's groove)
        self.placeholder = ""                    # said on the mid line while there is nothing to draw

    def set_peaks(self, peaks: np.ndarray | None) -> None:
        self.peaks = None if peaks is None else np.asarray(peaks, dtype=np.float32)
        self._columns = None
        self.update()

    def set_duration(self, seconds: float) -> None:
        self.duration_s = max(0.0, float(seconds or 0.0))
        self.update()

    def set_position(self, seconds: float) -> None:
        self.position_s = max(0.0, float(seconds))
        self.update()

    def set_margin(self, px: int) -> None:
        self.margin = max(0, int(px))
        self._columns = None
        self.update()

    def drawn_width(self) -> int:
        """Pixel columns the waveform spans."""
        return max(1, self.width() - 2 * self.margin)

    def columns(self) -> np.ndarray | None:
        """The peaks at the on-screen width: float32 ``(drawn_width(), 2)``, min / max per column; ``None``: unknown."""
        if self.peaks is None:
            return None
        w = self.drawn_width()
        if self._columns is None or len(self._columns) != w:
            self._columns = regroup(self.peaks, w)
        return self._columns

    def time_at(self, x: float) -> float:
        """Seconds into the recording at widget x-coordinate ``x``."""
        f = (x - self.margin) / self.drawn_width()
        return min(max(0.0, f), 1.0) * self.duration_s

    def x_at(self, seconds: float) -> float:
        f = seconds / self.duration_s if self.duration_s else 0.0
        return self.margin + min(max(0.0, f), 1.0) * self.drawn_width()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        self._columns = None
        super().resizeEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - a press or a drag with the left button jumps there
        if event.buttons() & Qt.MouseButton.LeftButton and self.duration_s > 0:
            t = self.time_at(event.position().x())
            self.set_position(t)
            self.seeked.emit(t)

    mousePressEvent = mouseMoveEvent

    def colours(self) -> tuple[QColor, QColor, QColor, QColor]:
        """Opaque ``(background, shade behind the played part, played, rest)`` from the active palette even while
        disabled (the Record page turns seeking off, not the picture); ``played``: the highlight, moved toward the
        text colour while under ``GRAPHICS`` contrast on the shade."""
        pal = self.palette()
        pal.setCurrentColorGroup(QPalette.ColorGroup.Active)
        base, text, hl = pal.base().color(), pal.text().color(), pal.highlight().color()
        shade = _mix(hl, base, 40 / 255)
        mixes = (_mix(text, hl, k / 10) for k in range(11))
        played = next((c for c in mixes if contrast(c.name(), shade.name()) >= GRAPHICS), text)
        return base, shade, played, _mix(text, base, 0.6)

    def paintEvent(self, event) -> None:  # noqa: N802
        p = QPainter(self)
        pal = self.palette()
        base, shade, played, rest = self.colours()
        p.fillRect(self.rect(), base)
        cols = self.columns()
        mid = self.height() / 2
        if cols is None or self.duration_s <= 0:
            p.setPen(QPen(pal.mid().color()))
            p.drawLine(QPointF(self.margin, mid), QPointF(self.width() - self.margin, mid))
            if self.placeholder:
                p.fillRect(QRectF(self.rect()).adjusted(0, mid - 12, 0, -(mid - 12)), base)
                p.setPen(QPen(pal.placeholderText().color()))
                p.drawText(QRectF(self.rect()), Qt.AlignmentFlag.AlignCenter, self.placeholder)
            p.end()
            return
        half = mid - 1
        played_x = self.x_at(self.position_s)
        p.fillRect(QRectF(self.margin, 0, played_x - self.margin, self.height()), shade)
        scale = half / max(1e-3, float(np.abs(cols).max()))  # the loudest moment fills the height
        for i, (lo, hi) in enumerate(cols):
            x = self.margin + i + 0.5
            p.setPen(QPen(played if x <= played_x else rest))
            p.drawLine(QPointF(x, mid - hi * scale), QPointF(x, mid - min(lo * scale, hi * scale - 1)))
        p.setPen(QPen(played, 2))
        p.drawLine(QPointF(played_x, 0), QPointF(played_x, self.height()))
        p.end()
