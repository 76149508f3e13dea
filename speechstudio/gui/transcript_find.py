"""The transcript editor's find / replace bar (literal text, match case, whole words; find wraps
round; replace all is one undo step). Works on a :class:`~.transcript_editor.TranscriptEditor`."""
from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QLabel, QWidget

from speechstudio.errors import SpeechStudioError
from speechstudio.gui.common import bare, button, flow, line_edit, named


class FindBar(QWidget):
    def __init__(self, editor, parent=None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.find_edit = line_edit("Find in the transcript", "Find (Ctrl+F)")
        self.replace_edit = line_edit("Replace with", "Replace with (Ctrl+H)")
        self.case_check, self.word_check = QCheckBox("Match case"), QCheckBox("Whole words")
        self.buttons = [button(text, name, name, slot) for text, name, slot in (
            ("Previous", "Find previous (Shift+F3)", lambda: self.find_next(True)),
            ("Next", "Find next (F3, Enter in the find field)", lambda: self.find_next()),
            ("Replace", "Replace the selected match", self.replace_one),
            ("Replace all", "Replace every match (one undo step)", self.replace_all))]
        self.prev_btn, self.next_btn, self.replace_btn, self.replace_all_btn = self.buttons
        self.result = named(QLabel(""), "Find result")
        self.setLayout(bare(flow(([self.find_edit, self.replace_edit], 1), [self.case_check, self.word_check],
                                 self.buttons, (self.result, 1))))  # wraps in a narrow window
        self.find_edit.returnPressed.connect(self.find_next)
        # every match lit and counted as the query is typed (and after each edit or option change)
        self.find_edit.textChanged.connect(self.show_matches)
        for check in (self.case_check, self.word_check):
            check.toggled.connect(self.show_matches)
        editor.changed.connect(self.show_matches)

    def set_enabled(self, on: bool) -> None:
        for w in (self.find_edit, self.replace_edit, *self.buttons):
            w.setEnabled(on)

    def focus_find(self) -> None:
        sel = self.editor.text.textCursor().selectedText()
        if sel and "\u2029" not in sel:
            self.find_edit.setText(sel)
        self.find_edit.setFocus()
        self.find_edit.selectAll()

    def show_matches(self, *_args) -> None:
        """Light every match of the query in the text and say how many ("3 matches", "not found")."""
        query = self.find_edit.text()
        try:
            matches = self._all() if query and self.editor.document is not None else []
        except SpeechStudioError as e:
            matches = []
            self.result.setText(str(e))
        else:
            self.result.setText("" if not query else f"{len(matches)} match{'es' if len(matches) != 1 else ''}"
                                if matches else "not found")
        self.editor.text.set_found([(m.segment, m.start, m.end) for m in matches])

    def _options(self) -> dict:
        return {"case_sensitive": self.case_check.isChecked(), "whole_word": self.word_check.isChecked()}

    def _all(self):
        return self.editor.document.find_all(self.find_edit.text(), **self._options())

    def find_next(self, backwards: bool = False):
        """Select the next (previous) match from the cursor; returns the match or ``None``."""
        doc, query = self.editor.document, self.find_edit.text()
        if doc is None or not query:
            return None
        c = self.editor.text.textCursor()
        char = (c.selectionStart() if backwards else c.selectionEnd()) - c.block().position()
        try:
            m = doc.find(query, c.blockNumber(), char, backwards=backwards, **self._options())
        except SpeechStudioError as e:
            self.result.setText(str(e))
            return None
        if m is None:
            self.result.setText("not found")
            return None
        matches = self._all()
        self.result.setText(f"{matches.index(m) + 1} of {len(matches)}")
        self.editor.text.place_cursor(m.segment, m.end, anchor=m.start)
        return m

    def _selected_match(self):
        if self.editor.document is None or not self.find_edit.text():
            return None
        c = self.editor.text.textCursor()
        a, b = c.selectionStart() - c.block().position(), c.selectionEnd() - c.block().position()
        return next((m for m in self._all() if (m.segment, m.start, m.end) == (c.blockNumber(), a, b)), None)

    def replace_one(self) -> None:
        """Replace the selected match (finding the next one first when none is selected), then select the next."""
        m = self._selected_match() or self.find_next()
        if m is None:
            return
        rep = self.replace_edit.text()
        doc = self.editor.document
        if self.editor.run(lambda: doc.replace(m, rep), (m.segment, m.start + len(rep))) and self._all():
            self.find_next()

    def replace_all(self) -> int:
        """Replace every match; returns how many."""
        doc, query = self.editor.document, self.find_edit.text()
        if doc is None or not query:
            return 0
        n = []
        if self.editor.run(lambda: n.append(doc.replace_all(query, self.replace_edit.text(), **self._options())),
                           self.editor.text.position()):
            self.result.setText(f"{n[0]} replaced")
            self.editor.status_message.emit(f"replaced {n[0]} match{'es' if n[0] != 1 else ''}")
        return n[0] if n else 0
