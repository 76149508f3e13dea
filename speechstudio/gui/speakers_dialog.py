"""Known voices: the speaker library (``speechstudio speakers``) as a small dialog: list, rename,
delete. Voices are added from the transcript editor ("Remember voice")."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QInputDialog, QMessageBox

from speechstudio.diarize.library import load_library, remove_voice, rename_voice
from speechstudio.errors import SpeechStudioError
from speechstudio.gui.common import add_row, button, chosen, hrow, note_label, table, vbox

COLS = ("Name", "Made from", "Saved")


class SpeakersDialog(QDialog):
    """Non-modal. ``status_message(str)`` reports what the buttons did."""

    status_message = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Known voices")
        self.note = note_label("About known voices", "Voices you saved are named in new transcripts when speaker "
                               "labels are on. Save one from the transcript editor: rename a speaker, then "
                               "\"Remember voice\".")
        self.table = table("Known voices", COLS, single=True, stretch=1)   # "Made from" gets the room
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)   # a long file name keeps its start and end
        self.problems = note_label("Known voices problems")
        self.rename_btn = button("Rename…", "Rename the selected voice", slot=self._rename_dialog)
        self.delete_btn = button("Delete", "Delete the selected voice", slot=self._delete_selected)
        self.close_btn = button("Close", "Close known voices", slot=self.close)
        vbox(self, self.note, (self.table, 1), self.problems,
             hrow(self.rename_btn, self.delete_btn, None, self.close_btn))
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.resize(720, 320)
        self.refresh()

    def refresh(self) -> None:
        lib = load_library()
        self.voices = list(lib.voices)
        self.table.setRowCount(0)
        for v in self.voices:   # the recording's file name (and stretch) shown, its whole path in the tooltip
            made = [f"{v.seconds:.0f} s" + (f" of {src}" if src else "")
                    for src in (v.source.replace("\\", "/").rsplit("/", 1)[-1], v.source)]
            saved = v.created.replace("T", " ")
            add_row(self.table, (v.name, made[0], saved), (v.name, made[1], saved))
        self.problems.setText("\n".join(lib.problems))
        self.problems.setVisible(bool(lib.problems))
        if not self.voices:
            self.note.setText("No known voices yet. Save one from the transcript editor: rename a speaker, then "
                              "\"Remember voice\".")
        self._update_buttons()

    def selected(self) -> str | None:
        return getattr(chosen(self.table, self.voices), "name", None)

    def select(self, name: str) -> None:
        for i, v in enumerate(self.voices):
            if v.name == name:
                self.table.selectRow(i)

    def _update_buttons(self) -> None:
        on = self.selected() is not None
        self.rename_btn.setEnabled(on)
        self.delete_btn.setEnabled(on)

    def rename(self, old: str, new: str) -> bool:
        try:
            v = rename_voice(old, new)
        except SpeechStudioError as e:
            self.status_message.emit(str(e))
            return False
        self.status_message.emit(f"renamed {old} to {v.name}")
        self.refresh()
        self.select(v.name)
        return True

    def delete(self, name: str) -> bool:
        try:
            remove_voice(name)
        except SpeechStudioError as e:
            self.status_message.emit(str(e))
            return False
        self.status_message.emit(f"deleted the voice of {name}")
        self.refresh()
        return True

    def _rename_dialog(self) -> None:
        old = self.selected()
        if old is None:
            return
        new, ok = QInputDialog.getText(self, "Rename voice", f"New name for {old}:", text=old)
        if ok and new.strip() and new.strip() != old:
            self.rename(old, new)

    def _delete_selected(self) -> None:
        name = self.selected()
        if name is None:
            return
        if QMessageBox.question(self, "Delete voice", f"Forget the voice of {name}?") == QMessageBox.StandardButton.Yes:
            self.delete(name)
