"""Live captions: a frameless, always-on-top window that never takes the focus and shows the dictated
text (stable words white, the changing tail grey); wheel / Ctrl / Shift+wheel: font, opacity, width."""
from __future__ import annotations

import html

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import QLabel, QMenu, QWidget

from speechstudio.gui.common import action, settings, vbox

DEFAULTS = {"font_pt": 20, "width": 760, "opacity": 0.85, "lines": 2}
FONT_RANGE = (8, 72)
WIDTH_RANGE = (240, 3000)
OPACITY_RANGE = (0.2, 1.0)
#: the look's attributes: (attribute, ``captions/`` settings key, type, range)
LOOK = (("font_pt", "font_pt", int, FONT_RANGE), ("width_px", "width", int, WIDTH_RANGE),
        ("opacity", "opacity", float, OPACITY_RANGE), ("lines", "lines", int, (1, 10)))
STABLE_COLOR = "#ffffff"
TAIL_COLOR = "#a0a0a0"


class CaptionsWindow(QWidget):
    """Signals: ``hidden_by_user()`` (Hide chosen in its menu)."""

    hidden_by_user = Signal()

    def __init__(self) -> None:
        super().__init__(None, Qt.WindowType.Tool | Qt.WindowType.FramelessWindowHint
                         | Qt.WindowType.WindowStaysOnTopHint | Qt.WindowType.WindowDoesNotAcceptFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
        self.setWindowTitle("SpeechStudio captions")
        self.setAccessibleName("Live captions")
        self.stable, self.tail = "", ""
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
        self.label.setAccessibleName("Caption text")
        vbox(self, self.label).setContentsMargins(16, 10, 16, 10)
        self._drag: QPoint | None = None
        s = settings()
        for attr, key, kind, limits in LOOK:
            setattr(self, attr, kind(_num(s.value(f"captions/{key}"), DEFAULTS[key], *limits)))
        pos = s.value("captions/pos")
        self._apply()
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        if isinstance(pos, QPoint):
            self.move(pos)
        elif screen is not None:    # first shown: centred, just above the bottom of the screen
            self.move(screen.center().x() - self.width() // 2, screen.bottom() - self.height() - 60)

    def set_text(self, stable: str, tail: str = "") -> None:
        """Show ``stable`` (white) followed by ``tail`` (grey); only the newest lines that fit."""
        self.stable, self.tail = stable, tail
        self._render()

    def _fit(self, stable: str, tail: str) -> tuple[str, str]:
        """Drop words from the front until stable + tail fit in ``lines`` lines."""
        fm = self.label.fontMetrics()
        width = self.width_px - 32
        sep = " " if stable and tail else ""
        full = (stable + sep + tail).replace("\n", " ")
        words = full.split(" ")
        start = 0
        flags = int(Qt.TextFlag.TextWordWrap)
        while start < len(words) - 1:
            text = " ".join(words[start:])
            if fm.boundingRect(0, 0, width, 10_000, flags, text).height() <= self.lines * fm.lineSpacing():
                break
            start += 1
        cut = len(" ".join(words[:start])) + (1 if start else 0)   # characters dropped
        n_stable = len((stable + sep).replace("\n", " "))
        shown = full[cut:]
        k = max(0, n_stable - cut)
        return shown[:k], shown[k:]

    def _render(self) -> None:
        stable, tail = self._fit(self.stable, self.tail)
        self.label.setText(f'<span style="color:{STABLE_COLOR}">{html.escape(stable)}</span>'
                           f'<span style="color:{TAIL_COLOR}">{html.escape(tail)}</span>')

    def _apply(self) -> None:
        f = QFont(self.font())
        f.setPointSize(self.font_pt)
        f.setBold(True)
        self.label.setFont(f)
        lh = self.label.fontMetrics().lineSpacing()
        self.setFixedSize(self.width_px, self.lines * lh + 24)
        self.setWindowOpacity(self.opacity)
        self._render()
        self.update()

    def set_font_pt(self, pt: int) -> None:
        self._set("font_pt", int(pt), FONT_RANGE)

    def set_width(self, px: int) -> None:
        self._set("width_px", int(px), WIDTH_RANGE)

    def set_opacity(self, value: float) -> None:
        self._set("opacity", round(float(value), 2), OPACITY_RANGE)

    def _set(self, name: str, value, limits: tuple) -> None:
        """Set a look attribute within ``limits``, redraw and keep it in the settings."""
        setattr(self, name, min(max(value, limits[0]), limits[1]))
        self._apply()
        self._save()

    def _save(self) -> None:
        s = settings()
        for attr, key, _kind, _limits in LOOK:
            s.setValue(f"captions/{key}", getattr(self, attr))
        s.setValue("captions/pos", self.pos())

    def paintEvent(self, _event) -> None:  # noqa: N802
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setBrush(QColor(20, 20, 20, 235))
        p.setPen(Qt.PenStyle.NoPen)
        p.drawRoundedRect(self.rect(), 10, 10)

    def mousePressEvent(self, e) -> None:  # noqa: N802
        if e.button() == Qt.MouseButton.LeftButton:
            self._drag = e.globalPosition().toPoint() - self.frameGeometry().topLeft()

    def mouseMoveEvent(self, e) -> None:  # noqa: N802
        if self._drag is not None:
            self.move(e.globalPosition().toPoint() - self._drag)

    def mouseReleaseEvent(self, _e) -> None:  # noqa: N802
        if self._drag is not None:
            self._drag = None
            self._save()

    def moveEvent(self, e) -> None:  # noqa: N802
        super().moveEvent(e)
        settings().setValue("captions/pos", self.pos())

    def wheelEvent(self, e) -> None:  # noqa: N802
        step = 1 if e.angleDelta().y() > 0 else -1
        mods = e.modifiers()
        if mods & Qt.KeyboardModifier.ControlModifier:
            self.set_opacity(self.opacity + 0.05 * step)
        elif mods & Qt.KeyboardModifier.ShiftModifier:
            self.set_width(self.width_px + 40 * step)
        else:
            self.set_font_pt(self.font_pt + step)

    def contextMenuEvent(self, e) -> None:  # noqa: N802
        menu = QMenu(self)
        for text, fn in (("Larger text", lambda: self.set_font_pt(self.font_pt + 2)),
                         ("Smaller text", lambda: self.set_font_pt(self.font_pt - 2)),
                         ("Wider", lambda: self.set_width(self.width_px + 80)),
                         ("Narrower", lambda: self.set_width(self.width_px - 80)),
                         ("More opaque", lambda: self.set_opacity(self.opacity + 0.1)),
                         ("More transparent", lambda: self.set_opacity(self.opacity - 0.1)),
                         ("One more line", lambda: self._set("lines", self.lines + 1, (1, 10))),
                         ("One line less", lambda: self._set("lines", self.lines - 1, (1, 10)))):
            action(menu, text, fn, menu=menu)
        menu.addSeparator()
        action(menu, "Hide captions", self._hide_by_user, menu=menu)
        menu.exec(e.globalPos())

    def _hide_by_user(self) -> None:
        self.hide()
        self.hidden_by_user.emit()


def _num(value, default: float, lo: float, hi: float) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return default
    return min(max(v, lo), hi)
