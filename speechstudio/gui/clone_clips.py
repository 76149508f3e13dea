"""The clips of a checked dataset as an editable table (text, flags, the recogniser's cross-check);
play or drop a clip; emits ``edited(manifest, message)`` for its owner to save."""
from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableWidgetItem, QVBoxLayout, QWidget

from speechstudio.gui.common import bare, button, hrow, table
from speechstudio.gui.devices import allow

#: column titles in plain words: "Letters wrong" is the character error rate (CER, on hover)
CLIP_COLS = ("ID", "Seconds", "Text", "Marked", "Letters wrong", "Heard")
COL_TEXT, COL_FLAGS, COL_CER, COL_HEARD = 2, 3, 4, 5


#: ``manifest.FLAGS`` in plain words, for the dataset summary.
FLAG_WORDS = {
    "clipping": "distorted (recorded too loud)", "low_level": "very quiet", "noisy": "background noise",
    "asr_mismatch": "the words heard differ from the text", "too_short": "too short", "too_long": "too long",
    "unsayable": "text the voice cannot say", "text_normalised": "invisible characters removed from the text",
    "other_speaker": "may be another person",
}


def _flag_help(flag: str) -> str:
    from speechstudio.finetune.manifest import FLAGS

    return f"{FLAG_WORDS.get(flag, flag)}: {FLAGS.get(flag, '')}"


class ClipEditor(QWidget):
    """Signals: ``edited(manifest, message)`` after a text fix or a drop / keep;
    ``play(row)`` when the user asks to hear a clip."""

    edited = Signal(object, str)
    play = Signal(int)

    def __init__(self, audio, parent=None) -> None:
        super().__init__(parent)
        self.manifest = None
        self.audio = audio  # the window's AudioHub: Play follows the no-device policy (gui.devices)
        self._filling = False
        lay = bare(QVBoxLayout(self))
        self.table = table("Clips", CLIP_COLS, editable=True, numbers=True, stretch_last=False)
        self.table.horizontalHeaderItem(COL_HEARD).setToolTip("what speech recognition (Whisper) heard")
        self.table.horizontalHeaderItem(COL_CER).setToolTip("Character error rate (CER) between the text and what "
                                                            "speech recognition heard, in percent")
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self._layout_columns()
        self.table.itemChanged.connect(self._item_changed)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        lay.addWidget(self.table, 1)
        self.play_btn = button("Pla&y clip", "Play clip", slot=lambda: self.play.emit(self.table.currentRow()))
        self.drop_btn = button("&Drop clip", "Drop or keep clip",
                               "Leave the selected clip out of training (press again to keep it)",
                               self.toggle_drop_selected)
        lay.addLayout(hrow(self.play_btn, self.drop_btn, QLabel("Double-click a text (or F2) to fix it.")))
        self._update_buttons()

    def _layout_columns(self) -> None:
        """Narrow columns fit their contents; the two texts share the rest of the width."""
        header = self.table.horizontalHeader()
        for col in range(len(CLIP_COLS)):
            stretch = col in (COL_TEXT, COL_HEARD)
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch if stretch
                                        else QHeaderView.ResizeMode.ResizeToContents)

    def set_manifest(self, manifest) -> None:
        self.manifest = manifest
        self._fill()

    def _fill(self) -> None:
        self._filling = True
        clips = self.manifest.clips
        self.table.setRowCount(len(clips))
        for r, c in enumerate(clips):
            cells = (c.id, f"{c.duration_s:.2f}", c.text,
                     ", ".join(FLAG_WORDS.get(f, f.replace("_", " ")) for f in c.flags) + (" (not used)" if c.dropped else ""),
                     "" if c.cer is None else f"{100 * c.cer:.0f} %", c.asr_text or "")
            for col, v in enumerate(cells):
                item = QTableWidgetItem(v)
                if col != COL_TEXT:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                if c.dropped:
                    f = item.font()
                    f.setStrikeOut(True)
                    item.setFont(f)
                if c.flags and col == COL_FLAGS:
                    item.setToolTip("\n".join(_flag_help(x) for x in c.flags))
                self.table.setItem(r, col, item)
        self._filling = False
        self._update_buttons()

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or self.manifest is None or item.column() != COL_TEXT:
            return
        self.set_text(item.row(), item.text())

    def set_text(self, row: int, text: str) -> None:
        """Fix the text of clip ``row`` (whitespace collapsed; an empty text is refused)."""
        clip = self.manifest.clips[row]
        text = " ".join(text.split())
        if not text or text == clip.text:
            if not text:  # put the old text back
                self._fill()
            return
        self.manifest = self.manifest.with_clip(dataclasses.replace(clip, text=text))
        self.edited.emit(self.manifest, f"{clip.id}: text changed")

    def toggle_drop(self, row: int) -> None:
        """Drop clip ``row`` from training, or keep it again."""
        clip = self.manifest.clips[row]
        self.manifest = self.manifest.with_clip(dataclasses.replace(clip, dropped=not clip.dropped))
        self._fill()
        self.table.selectRow(row)
        self.edited.emit(self.manifest, f"{clip.id}: {'kept' if clip.dropped else 'dropped'}")

    def toggle_drop_selected(self) -> None:
        row = self.table.currentRow()
        if self.manifest is not None and row >= 0:
            self.toggle_drop(row)

    def _update_buttons(self) -> None:
        row = self.table.currentRow()
        have = self.manifest is not None and 0 <= row < len(self.manifest.clips)
        self.play_btn.setEnabled(allow(self.play_btn, self.audio, "speaker") and have)
        self.drop_btn.setEnabled(have)
        if have:
            self.drop_btn.setText("Un&drop clip" if self.manifest.clips[row].dropped else "&Drop clip")
