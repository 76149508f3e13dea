"""The transcript editor's text: a plain-text edit with one line (block) per segment, the
segments' times in a gutter on the left (as Qt's "Code Editor" example draws line numbers), and
helpers to place the cursor and mark words by ``(segment, start_char, end_char)``."""
from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QColor, QKeySequence, QPainter, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

#: Background of the word being said (amber: readable with black text in light and dark themes).
SAID_BACKGROUND = QColor(255, 202, 40)
FOUND_BACKGROUND = QColor(255, 241, 168)  # the find bar's matches: paler than the word being said


class _Gutter(QWidget):
    def __init__(self, text: SegmentTextEdit) -> None:
        super().__init__(text)
        self.text = text

    def sizeHint(self) -> QSize:
        return QSize(self.text.gutter_width(), 0)

    def paintEvent(self, event) -> None:
        self.text.paint_gutter(event)


class SegmentTextEdit(QPlainTextEdit):
    """Plain text, one block per segment; ``times(block) -> str`` fills the gutter, and
    ``speaker(block) -> (name, QColor) | None`` (optional) writes the segment's speaker before it."""

    def __init__(self, times, undo, redo, parent=None, speaker=None) -> None:
        super().__init__(parent)
        self.times, self._undo, self._redo, self.speaker = times, undo, redo, speaker
        self.speaker_width = 0
        self.tag_width = 0          # room for a language tag before the times (a file in two languages)
        self._unsure: list = []
        self._found: list = []
        self._said: tuple[int, int, int] | None = None
        self.gutter = _Gutter(self)
        self.setUndoRedoEnabled(False)  # the document's history is the one undo stack
        self.setTabChangesFocus(True)   # a transcript has no tab characters: Tab goes on to the next control
        self.blockCountChanged.connect(lambda _n: self.setViewportMargins(self.gutter_width(), 0, 0, 0))
        self.updateRequest.connect(self._on_update_request)
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def gutter_width(self) -> int:
        return self.fontMetrics().horizontalAdvance("0:00:00.000–0:00:00.000") + 12 + self.speaker_width + self.tag_width

    def set_tag_room(self, tags: list[str]) -> None:
        """Make room in the gutter for the longest of ``tags`` written before the times (none: no room)."""
        fm = self.fontMetrics()
        width = (max(fm.horizontalAdvance(t + "  ") for t in tags)) if tags else 0
        if width != self.tag_width:
            self.tag_width = width
            self._relayout()

    def set_speaker_names(self, names: list[str]) -> None:
        """Make room in the gutter for the longest of ``names`` (none: no room)."""
        fm = self.fontMetrics()
        self.speaker_width = (min(160, max(fm.horizontalAdvance(n) for n in names)) + 10) if names else 0
        self._relayout()

    def _relayout(self) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)
        cr = self.contentsRect()
        self.gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))
        self.gutter.update()

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._relayout()

    def paint_gutter(self, event) -> None:
        p = QPainter(self.gutter)
        pal = self.palette()
        p.fillRect(event.rect(), pal.alternateBase())
        p.setPen(pal.placeholderText().color())
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        h = self.fontMetrics().height()
        while block.isValid() and top <= event.rect().bottom():
            bottom = top + round(self.blockBoundingRect(block).height())
            if block.isVisible() and bottom >= event.rect().top():
                p.drawText(0, top, self.gutter.width() - 6, h, Qt.AlignmentFlag.AlignRight, self.times(block.blockNumber()))
                who = self.speaker(block.blockNumber()) if self.speaker is not None and self.speaker_width else None
                if who is not None:
                    p.save()
                    p.setPen(who[1])
                    p.drawText(4, top, self.speaker_width - 8, h, Qt.AlignmentFlag.AlignLeft,
                               p.fontMetrics().elidedText(who[0], Qt.TextElideMode.ElideRight, self.speaker_width - 8))
                    p.restore()
            block = block.next()
            top = bottom
        p.end()

    def shortcut_help(self) -> list[tuple[str, str]]:
        """``(keys, what)`` of the keys :meth:`keyPressEvent` handles itself (Help > Keyboard shortcuts): the
        platform's Ctrl bindings of Undo / Redo, and Shift+Enter."""
        def rows(std, what: str) -> list[tuple[str, str]]:
            return [(k.toString(QKeySequence.SequenceFormat.NativeText), what) for k in QKeySequence.keyBindings(std)
                    if k.toString().startswith("Ctrl+")]
        return [*rows(QKeySequence.StandardKey.Undo, "Undo"), *rows(QKeySequence.StandardKey.Redo, "Redo"),
                ("Shift+Enter", "Split the segment at the cursor")]

    def keyPressEvent(self, event) -> None:
        for key, do in ((QKeySequence.StandardKey.Undo, self._undo), (QKeySequence.StandardKey.Redo, self._redo)):
            if event.matches(key):
                do()
                return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.textCursor().insertBlock()  # no line separator inside a segment: Shift+Enter splits too
            return
        super().keyPressEvent(event)

    def range_cursor(self, seg: int, a: int, b: int) -> QTextCursor:
        """A cursor selecting characters ``a:b`` of block ``seg``. Uses ``movePosition``, not the void
        ``setPosition``: PySide6 6.12 on Python 3.11 leaks a ``None`` reference per void call."""
        block = self.document().findBlockByNumber(max(0, min(seg, self.document().blockCount() - 1)))
        end = block.length() - 1
        a, b = max(0, min(a, end)), max(0, min(b, end))
        c = QTextCursor(block)
        if a:
            c.movePosition(QTextCursor.MoveOperation.NextCharacter, QTextCursor.MoveMode.MoveAnchor, a)
        if b > a:
            c.movePosition(QTextCursor.MoveOperation.NextCharacter, QTextCursor.MoveMode.KeepAnchor, b - a)
        elif b < a:
            c.movePosition(QTextCursor.MoveOperation.PreviousCharacter, QTextCursor.MoveMode.KeepAnchor, a - b)
        return c

    def place_cursor(self, seg: int, char: int, anchor: int | None = None) -> None:
        """Move the cursor to ``char`` in block ``seg`` (selecting from ``anchor`` if given)."""
        self.setTextCursor(self.range_cursor(seg, char if anchor is None else anchor, char))
        self.ensureCursorVisible()

    def position(self) -> tuple[int, int]:
        """``(block, char)`` of the cursor."""
        c = self.textCursor()
        return c.blockNumber(), c.positionInBlock()

    def scroll_to_block(self, seg: int) -> None:
        """Scroll so block ``seg`` is visible (without moving the cursor)."""
        first = self.firstVisibleBlock().blockNumber()
        rows = max(1, self.viewport().height() // max(1, self.fontMetrics().height()))
        if not first <= seg < first + rows - 1:
            self.verticalScrollBar().setValue(max(0, seg - 2))

    def visible_blocks(self, margin: int = 20) -> range:
        """Block numbers on screen, widened by ``margin`` blocks each way."""
        first = self.firstVisibleBlock().blockNumber()
        rows = max(1, self.viewport().height() // max(1, self.fontMetrics().height()))
        return range(max(0, first - margin), min(self.document().blockCount(), first + rows + margin))

    def set_unsure(self, unsure: list[tuple[int, int, int]]) -> None:
        """A wavy orange underline under the words ``(seg, a, b)`` (kept until the next call)."""
        wavy = QTextCharFormat()  # one format, assigned (not built) per word: see range_cursor
        wavy.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        wavy.setUnderlineColor(QColor(230, 120, 0))
        self._unsure = [self._selection(word, wavy) for word in unsure]
        self.set_said(self._said)

    def set_found(self, found: list[tuple[int, int, int]]) -> None:
        """A light background on the find bar's matches ``(seg, a, b)`` (kept until the next call)."""
        mark = QTextCharFormat()
        mark.setBackground(FOUND_BACKGROUND)
        mark.setForeground(QColor(0, 0, 0))
        self._found = [self._selection(span, mark) for span in found]
        self.set_said(self._said)

    def set_said(self, said: tuple[int, int, int] | None) -> None:
        """The highlight colour on the word being said ``(seg, a, b)`` (``None``: no word)."""
        self._said = said
        sels = self._unsure + self._found
        if said is not None:
            lit = QTextCharFormat()
            lit.setBackground(SAID_BACKGROUND)  # not the selection colour: both can show at once
            lit.setForeground(QColor(0, 0, 0))
            sels.append(self._selection(said, lit))
        self.setExtraSelections(sels)

    def _selection(self, word: tuple[int, int, int], fmt: QTextCharFormat) -> QTextEdit.ExtraSelection:
        s = QTextEdit.ExtraSelection()
        s.cursor = self.range_cursor(*word)
        s.format = fmt
        return s
