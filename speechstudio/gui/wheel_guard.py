"""The mouse wheel over a chart scrolls the page; Ctrl + wheel zooms the chart."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget


class WheelToPage(QObject):
    """Event filter: a wheel event without Ctrl goes to the page's scroll bar instead of the chart."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if event.type() != QEvent.Type.Wheel or event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            return False
        area = obj.parentWidget() if isinstance(obj, QWidget) else None
        while area is not None and not isinstance(area, QScrollArea):   # the nearest scroll area around it
            area = area.parentWidget()
        if area is not None:
            QApplication.sendEvent(area.verticalScrollBar(), event.clone())
        return True  # never zoom the chart without Ctrl


def guard_wheel(chart: QWidget) -> WheelToPage:
    """Install the filter on ``chart`` (and its viewport, where a graphics view gets its wheel)."""
    f = WheelToPage(chart)
    chart.installEventFilter(f)
    viewport = getattr(chart, "viewport", None)
    if callable(viewport):
        viewport().installEventFilter(f)
    return f
