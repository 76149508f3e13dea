"""Edit the spoken commands table (:mod:`speechstudio.dictation.commands`): per language, what
is said and what it does (a punctuation mark, a line break, any text, "scratch that", "stop
dictating"). Saved atomically to ``<data dir>/dictation/commands.json``."""
from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel

from speechstudio.dictation.commands import DEFAULT_COMMANDS, Command, CommandTable, CommandTableError, key
from speechstudio.gui.common import add_row, button, combo, hrow, note_label, table as table_widget, vbox

#: What the "Does" column offers; any other text is inserted as typed ("\\n" = a line break).
PRESETS = {",": ", (comma)", ".": ". (full stop)", "?": "? (question mark)", "!": "! (exclamation mark)",
           ":": ": (colon)", ";": "; (semicolon)", "\n": "new line", "\n\n": "new paragraph",
           "@scratch": "scratch that (remove the last phrase)", "@stop": "stop dictating"}


def describe(c: Command) -> str:
    """The "Does" cell for ``c``."""
    if c.action is not None:
        return PRESETS["@" + c.action]
    return PRESETS.get(c.insert, (c.insert or "").replace("\n", "\\n"))


def parse_does(text: str) -> tuple[str | None, str | None]:
    """A "Does" cell -> ``(insert, action)``."""
    for k, v in PRESETS.items():
        if text == v:
            return (None, k[1:]) if k.startswith("@") else (k, None)
    return text.replace("\\n", "\n"), None


class CommandsDialog(QDialog):
    def __init__(self, parent=None, table: CommandTable | None = None, language: str = "en") -> None:
        """``language``: the table shown first (the Dictate page's); one without a table yet is added, empty."""
        super().__init__(parent)
        self.setWindowTitle("Spoken commands")
        self.resize(560, 440)
        self.error = ""
        try:
            self.table = table or CommandTable.load()
        except CommandTableError as e:
            self.error = str(e)
            self.table = CommandTable()
        self.lang_box = combo("Commands language", sorted(self.table.languages),
                              "Language code (en, de, fr, ...); type a new one to add a table", editable=True)
        self.grid = table_widget("Spoken commands table", ("Say", "Does"), editable=True, numbers=True)
        self.grid.setColumnWidth(0, 220)
        self.note = note_label("About spoken commands", self.error or "Say the words on the left while dictating. "
                               "\"Does\": pick a preset or type the text to insert (\\n = line break).")
        buttons = hrow(button("Add", "", slot=lambda: self._add_row(Command("", ","))),
                       button("Remove", "", slot=lambda: self.grid.removeRow(self.grid.currentRow())),
                       button("Reset language to defaults", "", slot=self._reset))
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        box.accepted.connect(self.save)
        box.rejected.connect(self.reject)
        vbox(self, hrow(QLabel("Language"), self.lang_box), (self.grid, 1), self.note, buttons, box)
        if self.lang_box.findText(language) < 0:
            self.lang_box.addItem(language)
        self.lang_box.setCurrentText(language)
        self._lang = self.lang_box.currentText()
        self.lang_box.currentTextChanged.connect(self._switch)
        self._fill(self._lang)

    def _add_row(self, c: Command) -> None:
        r = add_row(self.grid, (c.say,), ("",))
        self.grid.setCellWidget(r, 1, combo("", PRESETS.values(), current=describe(c), editable=True))

    def _fill(self, lang: str) -> None:
        self.grid.setRowCount(0)
        for c in self.table.languages.get(lang, ()):
            self._add_row(c)

    def rows(self) -> tuple[Command, ...]:
        """The table as shown (rows without words are skipped)."""
        out = []
        for r in range(self.grid.rowCount()):
            say = key(self.grid.item(r, 0).text() if self.grid.item(r, 0) else "")
            insert, action = parse_does(self.grid.cellWidget(r, 1).currentText())
            if say and (action or insert):
                out.append(Command(say, insert, action))
        return tuple(out)

    def _switch(self, lang: str) -> None:
        if self._lang:
            self.table.languages[self._lang] = self.rows()
        self._lang = lang.strip().lower()
        self._fill(self._lang)

    def _reset(self) -> None:
        self.table.languages[self._lang] = DEFAULT_COMMANDS.get(self._lang, ())
        self._fill(self._lang)

    def save(self) -> None:
        """Write the table (all languages) and close; an error stays in the dialog."""
        self.table.languages[self._lang] = self.rows()
        try:
            self.table.save()
        except OSError as e:
            self.note.setText(f"cannot save the commands: {e}")
            return
        self.accept()
