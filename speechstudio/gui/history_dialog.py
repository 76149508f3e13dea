"""History: every past transcription (file, model, date, duration, speed, outputs, status) from the
queue database, with Open, Re-export (another format, from the JSON transcript) and Remove."""
from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QLabel

from speechstudio.batch.export import FORMATS, write_transcript
from speechstudio.errors import SpeechStudioError, UsageError
from speechstudio.gui.common import add_row, button, chosen, combo, hrow, table, vbox
from speechstudio.gui.drop_paths import display_name
from speechstudio.gui.transcript_view import QueueRow, load_json_transcript
from speechstudio.gui.wording import speed
from speechstudio.progress import clock

COLS = ("File", "Model", "Date", "Duration", "Speed", "Outputs", "Status")


def reexport(record, fmt: str) -> Path:
    """Write ``record``'s transcript (read back from its JSON output) as ``fmt`` next to that JSON.

    Raises:
        UsageError: the job has no JSON transcript to read (it was run without the json format).
        OSError: reading or writing failed.
    """
    js = next((p for p in record.outputs if p.suffix == ".json"), None)
    if js is None or not js.is_file():
        raise UsageError(f"{display_name(record.path)}: no JSON transcript to export from (run it with the json format)")
    row = QueueRow(item=None, outputs=(js,))
    load_json_transcript(row)
    if row.info is None:
        raise UsageError(f"{js}: not a SpeechStudio JSON transcript")
    return write_transcript(js.with_suffix(f".{fmt}"), row.segments, row.info, fmt)


class HistoryDialog(QDialog):
    """Non-modal; ``status_message(str)`` reports what the buttons did."""

    status_message = Signal(str)

    def __init__(self, store, parent=None) -> None:
        super().__init__(parent)
        self.store = store
        self.setWindowTitle("History")
        self.resize(1000, 480)
        self.table = table("Past transcriptions", COLS, stretch=0)
        self.open_btn = button("Open", "", "Open the transcript (the first output) in its application",
                               self.open_selected)
        self.format_box = combo("Re-export format", [f for f in FORMATS if f != "json"])
        self.reexport_btn = button("Re-export", "", slot=lambda: self.reexport_selected(self.format_box.currentText()))
        self.remove_btn = button("Remove", "", "Remove from the history (the files stay)", self.remove_selected)
        self.note = QLabel()
        self.close_btn = button("Close", "Close the history", slot=self.close)
        vbox(self, (self.table, 1), hrow(self.open_btn, QLabel("as"), self.format_box, self.reexport_btn,
                                         self.remove_btn, (self.note, 1), self.close_btn, stretch=False))
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.refresh()

    def refresh(self) -> None:
        self.records = self.store.history()
        self.table.setRowCount(0)
        for rec in self.records:
            when = _dt.datetime.fromtimestamp(rec.finished_at).strftime("%Y-%m-%d %H:%M") if rec.finished_at else ""
            cells = (display_name(rec.path), rec.model or "", when,
                     clock(rec.duration_s) if rec.duration_s else "", speed(rec.rtfx),
                     " · ".join(p.suffix.lstrip(".") for p in rec.outputs),
                     rec.status + (f": {rec.reason}" if rec.status == "failed" else ""))
            add_row(self.table, cells, [display_name(rec.path, full=True), *cells[1:5],
                                        "\n".join(display_name(p, full=True) for p in rec.outputs), cells[6]])
        self._update_buttons()

    def selected(self):
        return chosen(self.table, self.records)

    def _update_buttons(self) -> None:
        rec = self.selected()
        self.open_btn.setEnabled(rec is not None and bool(rec.outputs))
        self.reexport_btn.setEnabled(rec is not None and any(p.suffix == ".json" for p in rec.outputs))
        self.remove_btn.setEnabled(rec is not None)

    def open_selected(self) -> None:
        rec = self.selected()
        if rec is not None and rec.outputs:
            QDesktopServices.openUrl(QUrl.fromLocalFile(os.fspath(rec.outputs[0])))

    def reexport_selected(self, fmt: str) -> Path | None:
        rec = self.selected()
        if rec is None:
            return None
        try:
            path = reexport(rec, fmt)
        except (SpeechStudioError, OSError) as e:
            self.note.setText(str(e))
            self.status_message.emit(str(e))
            return None
        self.note.setText(f"wrote {display_name(path)}")
        self.status_message.emit(f"exported {display_name(path, full=True)}")
        return path

    def remove_selected(self) -> None:
        rec = self.selected()
        if rec is not None:
            self.store.remove(rec.id)
            self.refresh()
            self.status_message.emit(f"removed {display_name(rec.path)} from the history")
