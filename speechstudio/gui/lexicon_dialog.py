"""Pronunciations dialog (Speak page): the user lexicon of a voice language as a table, saved
atomically; the voices read it again at the next sentence."""
from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHeaderView, QLabel

from speechstudio.errors import SpeechStudioError
from speechstudio.gui.common import add_row, button, hrow, line_edit, note_label, table, vbox


class LexiconDialog(QDialog):
    """Edit ``<data dir>/lexicon/<language>.tsv``. ``saved_path`` is set after a successful save."""

    def __init__(self, language: str = "en", parent=None) -> None:
        super().__init__(parent)
        from speechstudio.tts.lexicon import lexicon_path

        self.setWindowTitle("Pronunciations")
        self.language = (language or "en").split("-")[0]
        self.path = lexicon_path(self.language)
        self.saved_path = None
        intro = QLabel(f"Words the {self.language} voices say your way: a respelling (win), or IPA "
                       "phonemes between slashes (/ŋwˈɪn/; Piper and espeak voices only).")
        self.table = table("Pronunciations", ["Word", "Pronunciation"], editable=True, numbers=True, stretch_last=False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.word = line_edit("Word", "word")
        self.pron = line_edit("Pronunciation", "respelling or /IPA/")
        self.error = note_label("Lexicon problem")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        row = hrow(self.word, self.pron, button("Add", "", slot=self.add_entry),
                   button("Remove selected", "", slot=self._remove_selected), stretch=False)
        vbox(self, intro, (self.table, 1), row, self.error, QLabel(f"File: {self.path}"), buttons)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        self._load()
        self.resize(560, 420)

    def _load(self) -> None:
        from speechstudio.tts.lexicon import load_lexicon

        if not self.path.is_file():
            return
        try:
            lex = load_lexicon(self.path)
        except SpeechStudioError as exc:
            self.error.setText(str(exc))
            return
        for line in lex.lines():
            self._append(*line.split("\t", 1))

    def _append(self, word: str, pron: str) -> None:
        for r in range(self.table.rowCount()):  # one row per word
            if self.table.item(r, 0).text().lower() == word.lower():
                self.table.item(r, 1).setText(pron)
                return
        add_row(self.table, (word, pron), ("", ""))

    def add_entry(self) -> None:
        word, pron = self.word.text().strip(), self.pron.text().strip()
        if not word or not pron:
            self.error.setText("give a word and its pronunciation")
            return
        from speechstudio.tts.lexicon import not_ipa

        if why := not_ipa(pron):
            self.error.setText(why)
            return
        self._append(word, pron)
        self.word.clear()
        self.pron.clear()
        self.error.setText("")

    def _remove_selected(self) -> None:
        for r in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            self.table.removeRow(r)

    def entries(self) -> list[tuple[str, str]]:
        cells = ((self.table.item(r, 0), self.table.item(r, 1)) for r in range(self.table.rowCount()))
        return [(w.text(), p.text()) for w, p in cells if w and p and w.text().strip() and p.text().strip()]

    def save(self) -> None:
        """Write the table to the lexicon file (atomically) and close; a bad row keeps it open."""
        from speechstudio.tts.lexicon import Lexicon, save_lexicon

        lex = Lexicon()
        try:
            for w, p in self.entries():
                lex.add(w, p)
            self.saved_path = save_lexicon(lex, self.path)
        except (SpeechStudioError, OSError) as exc:
            self.error.setText(f"not saved: {exc}")
            return
        self.accept()
