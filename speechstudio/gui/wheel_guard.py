"""The mouse wheel over a chart scrolls the page; Ctrl + wheel zooms the chart."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget


def scroll_area_of(widget: QWidget) -> QScrollArea | None:
    """The nearest scroll area around ``widget`` (``None`` when there is none)."""
    w = widget.parentWidget()
    while w is not None and not isinstance(w, QScrollArea):
        w = w.parentWidget()
    return w


class WheelToPage(QObject):
    """Event filter: a wheel event without Ctrl goes to the page's scroll bar instead of the chart."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if event.type() != QEvent.Type.Wheel or event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            return False
        area = scroll_area_of(obj) if isinstance(obj, QWidget) else None
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
