"""Small shared pieces of the GUI: settings, sparkline, level meter, formatting helpers."""
from __future__ import annotations

import collections
import os
from pathlib import Path

from PySide6.QtCore import QPointF, QRect, QSettings, QSignalBlocker, QSize, Qt
from PySide6.QtGui import QAction, QColor, QKeySequence, QPainter, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel, QLayout,
                               QLineEdit, QMessageBox,
                               QPushButton, QSizePolicy, QSpinBox, QStackedWidget, QStyledItemDelegate, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from speechstudio.gui.wording import automatic_model
from speechstudio.hub.paths import data_dir

ERROR_COLOR = "#dc2626"   # red: failures (readable on the light and the dark palette)
WARNING_COLOR = "#d97706"  # amber: warnings
OK_COLOR = "#16a34a"      # green: checks passed


def set_font(widget: QWidget, point_size: float | None = None, bold: bool | None = None) -> None:
    """Set ``widget``'s font size (points) and weight without a style sheet (it would pin the palette)."""
    font = widget.font()
    if point_size is not None:
        font.setPointSizeF(point_size)
    if bold is not None:
        font.setBold(bold)
    widget.setFont(font)


def tint(widget: QWidget, color: str | None, bold: bool | None = None) -> None:
    """Colour ``widget``'s text (``"#rrggbb"``; ``None``: the theme's) through its palette (see :func:`set_font`)."""
    pal = QPalette()  # nothing set: every role inherits from the parent / the application
    if color is not None:
        for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text):
            pal.setColor(role, QColor(color))
    widget.setPalette(pal)
    if bold is not None:
        set_font(widget, bold=bold)


def named(widget, name: str, tip: str = "", slot=None):
    """``widget`` with its accessible name (``""``: Qt's) and tooltip; ``slot`` connected to a button's ``clicked``."""
    if name:
        widget.setAccessibleName(name)
    if tip:
        widget.setToolTip(tip)
    if slot is not None:
        widget.clicked.connect(slot)
    return widget


def action(parent, text: str, slot, keys=None, menu=None) -> QAction:
    """A QAction ``text`` (owned by ``parent``, added to ``menu``) whose ``triggered`` calls ``slot()``;
    ``keys``: its shortcut (a key string or a ``QKeySequence.StandardKey``)."""
    a = QAction(text, parent)
    if keys is not None:
        a.setShortcut(QKeySequence(keys))
    a.triggered.connect(lambda _checked=False: slot())
    if menu is not None:
        menu.addAction(a)
    return a


def button(text: str, name: str, tip: str = "", slot=None) -> QPushButton:
    """A push button with its accessible name and tooltip, ``clicked`` connected to ``slot``."""
    return named(QPushButton(text), name, tip, slot)


def combo(name: str, items=(), tip: str = "", *, current=None, editable: bool = False) -> QComboBox:
    """A combo box of ``items`` (texts, or ``(text, data)`` pairs) with its accessible name and tooltip, at
    ``current`` (see :func:`refill`), typed into when ``editable``."""
    box = named(QComboBox(), name, tip)
    box.setEditable(editable)
    refill(box, items, current)
    return box


def refill(box: QComboBox, items, keep=None) -> None:
    """Replace ``box``'s items (texts, or ``(text, data)`` pairs) without emitting its signals and choose
    ``keep`` (an item's data, else its text) when listed, else the first item; an editable box keeps
    ``keep`` as its text."""
    with QSignalBlocker(box):
        box.clear()
        for item in items:
            box.addItem(*item) if isinstance(item, tuple) else box.addItem(item)
        if box.isEditable() and keep is not None:
            box.setCurrentText(str(keep))
        else:
            i = box.findData(keep) if keep is not None else 0
            box.setCurrentIndex(i if i >= 0 else max(0, box.findText(str(keep))))


def table(name: str, headers, rows: int = 0, *, editable: bool = False, numbers: bool = False,
          stretch_last: bool = True, single: bool = False, t: QTableWidget | None = None,
          stretch: int | None = None) -> QTableWidget:
    """A table of ``headers`` (``t``, else a new one) that selects whole rows (one at a time when ``single``), with
    its accessible name; read-only unless ``editable``, no row numbers unless ``numbers``, the last column stretched
    unless ``stretch_last`` is False, or column ``stretch`` stretched and the others fitted to their contents;
    Tab goes to the next widget unless ``editable``."""
    t = named(QTableWidget(rows, len(headers)) if t is None else t, name)
    t.setHorizontalHeaderLabels(list(headers))
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    if single:
        t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    if not editable:
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.verticalHeader().setVisible(numbers)
    t.horizontalHeader().setStretchLastSection(stretch_last and stretch is None)
    if stretch is not None:
        t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        t.horizontalHeader().setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    t.setTabKeyNavigation(editable)   # Tab leaves a read-only table (the arrows move inside it); an editable one
    # goes from cell to cell as a spreadsheet does
    return t


def add_row(t: QTableWidget, texts, tips=None) -> int:
    """Append a row of ``texts`` to ``t`` (tooltips: ``tips``, else the texts); returns its index."""
    r = t.rowCount()
    t.insertRow(r)
    for c, text in enumerate(texts):
        item = QTableWidgetItem(text)
        item.setToolTip(text if tips is None else tips[c])
        t.setItem(r, c, item)
    return r


def chosen(t: QTableWidget, items: list):
    """``items[row]`` of the first row selected in ``t``; ``None`` when none is (or it is past ``items``' end)."""
    rows = t.selectionModel().selectedRows() if t.selectionModel() else []
    return items[rows[0].row()] if rows and rows[0].row() < len(items) else None


def spin(name: str, lo: int, hi: int, value: int, special: str = "", tip: str = "", *, suffix: str = "",
         step: int = 1) -> QSpinBox:
    """A spin box from ``lo`` to ``hi`` at ``value`` with its accessible name; ``special``: the text shown at ``lo``."""
    s = named(QSpinBox(), name, tip)
    s.setRange(lo, hi)
    s.setValue(value)
    s.setSpecialValueText(special)
    s.setSuffix(suffix)
    s.setSingleStep(step)
    return s


def line_edit(name: str, placeholder: str = "", text: str = "", tip: str = "") -> QLineEdit:
    """A line edit holding ``text`` (``placeholder`` shown while empty) with its accessible name and tooltip."""
    edit = named(QLineEdit(text), name, tip)
    edit.setPlaceholderText(placeholder)
    return edit


def note_label(name: str, text: str = "") -> QLabel:
    """A word-wrapped label showing ``text``, with the accessible name ``name``."""
    label = named(QLabel(text), name)
    label.setWordWrap(True)
    return label


def buddy_label(text: str, buddy: QWidget) -> QLabel:
    """A form label whose Alt+letter focuses ``buddy`` (``addRow`` with a layout sets no buddy)."""
    label = QLabel(text)
    label.setBuddy(buddy)
    return label


def hrow(*items, stretch: bool = True) -> QHBoxLayout:
    """A row of widgets (``(widget, stretch)`` grows; ``int``: spacing in pixels; ``None``: the stretch
    there), a stretch at its end unless ``stretch`` is False or placed by ``None``."""
    row = QHBoxLayout()
    for w in items:
        (row.addStretch(1) if w is None else row.addSpacing(w) if isinstance(w, int)
         else row.addWidget(*w) if isinstance(w, tuple) else row.addWidget(w))
    if stretch and None not in items:
        row.addStretch(1)
    return row


class FlowLayout(QLayout):
    """Items left to right, wrapping where the width runs out, so a row of options never widens its page
    (Qt's Flow Layout example); a growing item (:meth:`add` ``grow=True``) takes its line's spare width. Its
    minimum height is the height at its current width (no height-for-width: the page would scroll where it fits)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._items, self._growing, self._height = [], set(), None
        self.setSpacing(6)

    def add(self, widget: QWidget, grow: bool = False) -> None:
        self.addWidget(widget)
        if grow:
            self._growing.add(id(self._items[-1]))

    def addItem(self, item) -> None:  # noqa: N802 - Qt API
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, i: int):  # noqa: N802
        return self._items[i] if 0 <= i < len(self._items) else None

    def takeAt(self, i: int):  # noqa: N802
        return self._items.pop(i) if 0 <= i < len(self._items) else None

    def expandingDirections(self):  # noqa: N802
        return Qt.Orientation(0)

    def setGeometry(self, rect) -> None:  # noqa: N802
        super().setGeometry(rect)
        height = self._place(rect, move=True)
        if height != self._height:     # wrapped onto more or fewer lines: ask the parent for that height
            self._height = height
            self.invalidate()

    def sizeHint(self) -> QSize:  # noqa: N802 - all on one line
        hints = [i.sizeHint() for i in self._items if not i.isEmpty()]
        m = self.contentsMargins()
        one_line = max((h.height() for h in hints), default=0) + m.top() + m.bottom()
        return QSize(sum(h.width() for h in hints) + self.spacing() * max(0, len(hints) - 1) + m.left() + m.right(),
                     self._height or one_line)

    def minimumSize(self) -> QSize:  # noqa: N802 - the widest item, the height at the current width
        width = max((item.minimumSize().width() for item in self._items), default=-1)
        m = self.contentsMargins()
        return QSize(width + m.left() + m.right(), self.sizeHint().height())

    def _place(self, rect: QRect, move: bool) -> int:
        """Lay the items out in ``rect`` (when ``move``); the height they take."""
        m, gap = self.contentsMargins(), self.spacing()
        r = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        lines, line, x = [], [], 0
        for item in (i for i in self._items if not i.isEmpty()):
            w = item.sizeHint().width()
            if line and x + w > r.width():
                lines.append(line)
                line, x = [], 0
            line.append(item)
            x += w + gap
        lines += [line] if line else []
        y = r.y()
        for line in lines:
            height = max(i.sizeHint().height() for i in line)
            growing = [i for i in line if id(i) in self._growing]
            spare = r.width() - sum(i.sizeHint().width() for i in line) - gap * (len(line) - 1)
            x = r.x()
            for item in line:
                hint = item.sizeHint()
                w = hint.width() + (max(0, spare) // len(growing) if item in growing else 0)
                if move:
                    item.setGeometry(QRect(x, y + (height - hint.height()) // 2, min(w, r.width()), hint.height()))
                x += w + gap
            y += height + gap
        return max(0, y - gap - r.y()) + m.top() + m.bottom()


def vbox(parent, *items) -> QVBoxLayout:
    """A column layout on ``parent`` of ``items``: widgets, layouts, or ``(item, stretch[, alignment])``; ``int``:
    spacing in pixels; ``None``: a stretch."""
    lay = QVBoxLayout(parent)
    for item in items:
        item, *stretch = item if isinstance(item, tuple) else (item,)
        (lay.addStretch(1) if item is None else lay.addSpacing(item) if isinstance(item, int)
         else (lay.addLayout if isinstance(item, QLayout) else lay.addWidget)(item, *stretch))
    return lay


def flow(*items) -> FlowLayout:
    """A :class:`FlowLayout` of ``items``: a widget or a list of widgets kept on one line together (a label
    and its control); either as ``(item, 1)`` grows."""
    layout = FlowLayout()
    for item in items:
        item, grow = item if isinstance(item, tuple) else (item, False)
        if isinstance(item, list):
            item, widgets = QWidget(), item
            item.setLayout(bare(hrow(*widgets, stretch=False)))
        layout.add(item, bool(grow))
    return layout


def bare(layout):
    """``layout`` with no margins."""
    layout.setContentsMargins(0, 0, 0, 0)
    return layout


def asker(parent, title: str, then, files: str = "", start=""):
    """A slot that asks for a folder (or, with a ``files`` filter, a file) in a dialog titled ``title``
    starting at ``start`` (a path, or a callable giving one), and calls ``then(choice)`` unless cancelled."""
    def ask() -> None:
        at = str(start() if callable(start) else start)
        d = (QFileDialog.getOpenFileName(parent, title, at, files)[0] if files
             else QFileDialog.getExistingDirectory(parent, title, at))
        if d:
            then(d)
    return ask


def picker(edit, title: str, parent, files: str = ""):
    """:func:`asker` that puts the choice into ``edit``, starting at its path."""
    return asker(parent, title, edit.setText, files, edit.text)


def path_row(edit, title: str, parent, text: str = "Choose…", name: str = "", files: str = "") -> QHBoxLayout:
    """``edit`` (stretching) and a button ``text`` (accessible name ``name``, else "Choose <title>") that
    fills it through :func:`picker`."""
    pick = button(text, name or f"Choose {title.lower()}", slot=picker(edit, title, parent, files))
    return hrow((edit, 1), pick, stretch=False)


def settings() -> QSettings:
    """The app's QSettings (INI): ``$SPEECHSTUDIO_SETTINGS`` (set at start-up, so moving the data folder does not move
    it), else ``$SPEECHSTUDIO_HOME/settings.ini``, else the platform's place for "SpeechStudio/SpeechStudio"."""
    explicit = os.environ.get("SPEECHSTUDIO_SETTINGS")
    if explicit:
        return QSettings(explicit, QSettings.Format.IniFormat)
    if os.environ.get("SPEECHSTUDIO_HOME"):
        home = data_dir()
        home.mkdir(parents=True, exist_ok=True)
        return QSettings(str(home / "settings.ini"), QSettings.Format.IniFormat)
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "SpeechStudio", "SpeechStudio")


def setting_list(s: QSettings, key: str, default: list[str]) -> list[str]:
    v = s.value(key, default)
    if v is None:
        return list(default)
    return [x for x in v.split(",") if x] if isinstance(v, str) else [str(x) for x in v]


#: One colour per speaker, in the order they first talk (readable on light and dark palettes:
#: Okabe-Ito's colour-blind-safe set without black and yellow).
SPEAKER_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#7A5195", "#8C564B")


def speaker_colour(names: list[str], name: str | None) -> QColor | None:
    """The colour of speaker ``name`` among ``names`` (order of first appearance); ``None`` without one."""
    if not name:
        return None
    i = names.index(name) if name in names else len(names)
    return QColor(SPEAKER_COLOURS[i % len(SPEAKER_COLOURS)])


def fmt_ts(seconds: float) -> str:
    """``m:ss.s`` timestamps for transcript rows."""
    m, s = divmod(max(0.0, seconds), 60)
    return f"{int(m)}:{s:04.1f}"


def show_error(parent: QWidget, title: str, message: str) -> None:
    """A modal error for things the user must see (the status line has the same text)."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, parent)
    box.setAccessibleName(title)
    box.open()  # non-blocking: never freezes the window, and tests are not stuck on exec()


_BREAK_AFTER = "/\\_.,;:=&?-"
_ZWSP = "\u200b"


def breakable(text: str, longest: int = 30) -> str:
    """``text`` with zero-width spaces after ``/ \\ _ . , ; : = & ? -`` in words longer than ``longest``
    (paths, URLs), else cut every ``longest`` characters, so a wrapped label can break them."""
    out = []
    for word in text.split(" "):
        if len(word) <= longest:
            out.append(word)
            continue
        pieces, run = [], 0
        for ch in word:
            pieces.append(ch)
            run += 1
            if ch in _BREAK_AFTER or run >= longest:
                pieces.append(_ZWSP)
                run = 0
        out.append("".join(pieces))
    return " ".join(out)


class WrapLabel(QLabel):
    """A label that wraps long paths and URLs, never widening its window; ``text()``: the text as set (and tooltip)."""

    def __init__(self, text: str = "", parent=None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._plain = ""
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt API
        self._plain = str(text)
        super().setText(breakable(self._plain))
        self.setToolTip(self._plain if len(self._plain) > 80 else "")

    def text(self) -> str:
        return self._plain

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt API
        """One line (layouts get the real height from ``heightForWidth``)."""
        m = self.contentsMargins()
        return QSize(0, self.fontMetrics().height() + m.top() + m.bottom() + 2 * self.margin())


def fit_columns(table, caps: dict[int, int], min_width: int = 48) -> None:
    """Size a table's columns to content, capped at ``caps[col]`` px, then shrink the widest until all fit."""
    header = table.horizontalHeader()
    n = table.columnCount()
    if n == 0:
        return
    wants = [max(table.sizeHintForColumn(c), header.sectionSizeHint(c), min_width) for c in range(n - 1)]
    widths = [min(want, caps.get(c, want)) for c, want in enumerate(wants)]
    room = table.viewport().width() - max(min_width * 2, header.sectionSizeHint(n - 1))
    while sum(widths) > room and max(widths) > min_width:
        i = widths.index(max(widths))
        widths[i] = max(min_width, widths[i] - max(8, (sum(widths) - room) // 2))
    for c, w in enumerate(widths):
        table.setColumnWidth(c, w)


class Sparkline(QWidget):
    """A tiny area chart of the last ``length`` values between ``lo`` and ``hi`` (a value held at ``hi`` fills it)."""

    def __init__(self, length: int = 60, lo: float = 0.0, hi: float = 100.0, color: str = "#3b82f6",
                 parent=None) -> None:
        super().__init__(parent)
        self.values: collections.deque[float] = collections.deque(maxlen=length)
        self.lo, self.hi = lo, hi
        self.color = QColor(color)
        self.setMinimumSize(80, 22)

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
            inner = r.adjusted(1, 2, -1, -1)  # the line at hi stays inside the frame
            span = (self.hi - self.lo) or 1.0
            pts = QPolygonF()
            start = n - len(self.values)
            for i, v in enumerate(self.values):
                x = inner.left() + (start + i) * inner.width() / max(1, n - 1)
                y = inner.bottom() - (min(max(v, self.lo), self.hi) - self.lo) / span * inner.height()
                pts.append(QPointF(x, y))
            area = QPolygonF(pts)
            area.append(QPointF(pts.last().x(), inner.bottom()))
            area.append(QPointF(pts.first().x(), inner.bottom()))
            fill = QColor(self.color)
            fill.setAlpha(90)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(fill)
            p.drawPolygon(area)
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


def is_default_model(text: str | None) -> bool:
    """True for the picker's "(default)" entry (and an empty field)."""
    t = (text or "").strip()
    return t in ("", DEFAULT_MODEL)


def missing_model(spec: str | None) -> str | None:
    """A note when a saved model spec names a folder that no longer exists, else None (names, HF ids: at load)."""
    if is_default_model(spec):
        return None
    t = str(spec).strip()
    looks_like_path = (t.startswith(("/", "~", ".")) or "\\" in t or t.count("/") >= 2
                       or (len(t) > 2 and t[1] == ":"))
    if looks_like_path and not Path(t).expanduser().exists():
        return f"The model saved last time, {t}, no longer exists; using the default model instead."
    return None


class _DefaultNameDelegate(QStyledItemDelegate):
    """Draws row 0 of the picker's list as "(default): NAME" (the item's text stays "(default)")."""

    def __init__(self, picker: "ModelPicker") -> None:
        super().__init__(picker)
        self.picker = picker

    def initStyleOption(self, option, index) -> None:  # noqa: N802 - Qt API
        super().initStyleOption(option, index)
        if index.row() == 0 and self.picker.default_name:
            option.text = f"{DEFAULT_MODEL}: {self.picker.shown_default()}"


class ModelPicker(QComboBox):
    """Editable model picker: "(default)", installed names, or a typed HF id / folder (see :func:`missing_model`)."""

    def __init__(self, accessible_name: str, tooltip: str) -> None:
        super().__init__()
        named(self, accessible_name, tooltip)
        self.setEditable(True)
        self.setMinimumWidth(220)
        self._tooltip = tooltip
        self.default_name = self._default_reason = self._others = ""
        self.addItem(DEFAULT_MODEL)
        self.setItemDelegate(_DefaultNameDelegate(self))
        # "(default)" in the field is followed by a grey "= NAME" (a label over the line edit)
        self.default_hint = named(QLabel(self.lineEdit()), "Default model name")
        self.default_hint.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        # the current palette's placeholder colour (a palette set here would not follow a theme switch)
        self.default_hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.default_hint.hide()
        self.currentTextChanged.connect(self._place_hint)

    def set_default_name(self, name: str, reason: str = "", others: str = "") -> None:
        """Say which model "(default)" stands for (list entry, grey "= NAME", tooltip); ``others``: non-English."""
        self.default_name, self._default_reason, self._others = name, reason, others
        text = automatic_model(name, others) + (f" ({reason})" if reason else "")
        typed = self.currentText()
        self.setItemData(0, text, Qt.ItemDataRole.ToolTipRole)
        if self.isEditable() and self.currentText() != typed:
            self.setEditText(typed)  # QComboBox resets the edit text when the current item's data changes
        self.setToolTip(f"{self._tooltip}\n{text}")
        self.default_hint.setText(f"= {self.shown_default()}")
        self.default_hint.setToolTip(automatic_model(name, others))
        self._place_hint()

    def shown_default(self) -> str:
        """What "(default)" stands for: "NAME", or "NAME for English, OTHER for others"."""
        name, others = self.default_name, self._others
        return f"{name} for English, {others} for others" if others and others != name else name

    def _place_hint(self, *_args) -> None:
        edit = self.lineEdit()
        show = bool(self.default_name) and self.currentText().strip() == DEFAULT_MODEL
        self.default_hint.setVisible(show)
        if not show:
            return
        x = edit.fontMetrics().horizontalAdvance(DEFAULT_MODEL + " ") + edit.textMargins().left() + 4
        self.default_hint.setMaximumWidth(max(0, edit.width() - x))    # first: adjustSize keeps within the maximum
        self.default_hint.adjustSize()
        self.default_hint.move(x, max(0, (edit.height() - self.default_hint.height()) // 2))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self._place_hint()

    def set_models(self, names: list[str]) -> None:
        """Fill the list with installed model names, keeping the current text."""
        cur = self.currentText()
        refill(self, [DEFAULT_MODEL, *names], cur)
        if self.default_name:  # clear() dropped row 0's tooltip
            self.set_default_name(self.default_name, self._default_reason, self._others)

    def model(self) -> str | None:
        """The chosen model spec, or ``None`` for the default model."""
        m = self.currentText().strip()
        return None if is_default_model(m) else m


def device_picker(accessible_name: str) -> QComboBox:
    return combo(accessible_name, ["auto", "cpu", "cuda"])


class CurrentStack(QStackedWidget):
    """A stack that asks only for the room of the page it shows (Qt's asks for its largest page's)."""

    def __init__(self) -> None:
        super().__init__()
        self.currentChanged.connect(lambda _i: self.updateGeometry())

    def sizeHint(self):  # noqa: N802 - Qt API
        w = self.currentWidget()
        return w.sizeHint() if w is not None else super().sizeHint()

    def minimumSizeHint(self):  # noqa: N802
        w = self.currentWidget()
        return w.minimumSizeHint().expandedTo(w.minimumSize()) if w is not None else super().minimumSizeHint()

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return False
