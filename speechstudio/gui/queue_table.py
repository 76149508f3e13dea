"""The Transcribe page's queue table (file, duration, status, progress, speed, output), its columns
fitted to the window with long texts elided."""
from __future__ import annotations

import os

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHeaderView, QProgressBar, QStyledItemDelegate, QTableWidget, QTableWidgetItem

from speechstudio.gui.common import table
from speechstudio.gui.contrast import readable
from speechstudio.gui.drop_paths import display_name
from speechstudio.gui.transcribe_options import language_tip, status_with_language
from speechstudio.gui.wording import speed
from speechstudio.transcript.model import speaker_count_text
from speechstudio.progress import clock

COLS = ("File", "Duration", "Status", "Progress", "Speed", "Output")
_STATUS = {"queued": "queued", "running": "transcribing", "done": "done", "cancelled": "cancelled (nothing written)",
           "loading": "loading model…"}
# status colours (on a light base, on a dark base)
_COLORS = {"done": ("#15803d", "#4ade80"), "failed": ("#dc2626", "#f87171"), "ignored": ("#6b7280", "#9ca3af"),
           "cancelled": ("#a16207", "#facc15"), "skipped": ("#0e7490", "#22d3ee")}


def status_text(row) -> tuple[str, str]:
    """``(text, tooltip)`` of a row's Status cell; a running file shows its position (``transcribing 1:23 / 4:00``)."""
    text = _STATUS.get(row.status, row.status)
    if row.status == "running":
        pos = getattr(row, "position_s", 0.0) or 0.0
        if pos > 0:
            text = f"transcribing {clock(pos)}" + (f" / {clock(row.duration_s)}" if row.duration_s else "")
    if row.status == "skipped":  # its reason's first line; then the notes of why, in the tooltip
        text = f"skipped: {(row.reason or 'already transcribed').splitlines()[0]}"
    elif row.status in ("failed", "ignored"):
        text = f"{row.status}: {row.reason.replace(str(row.item.path) + ': ', '')}"
    elif row.status == "done" and row.reason:  # decode warnings (e.g. truncated file)
        text = f"done ⚠ {row.reason.replace(str(row.item.path) + ': ', '')}"
    tip = row.reason or text
    if row.status == "done" and getattr(row.info, "language", None):
        text, tip = status_with_language(text, row.info), f"{tip}\n{language_tip(row.info)}"
    speakers = getattr(row.info, "speakers", ()) if row.status == "done" else ()
    if speakers:
        count = speaker_count_text(len(speakers), getattr(row.info, "speakers_could_be", None))
        text, tip = f"{text} · {count}", f"{tip}\n{count}" + (
            ": listen in the editor, then merge two speakers (Rename speaker…) or give words to another"
            if count.endswith("check") else "")
    return text, tip


class _ElideRight(QStyledItemDelegate):
    """A status cuts at its end ("failed: not a recognised audio or vid…"), never in the middle of the words."""

    def initStyleOption(self, option, index) -> None:  # noqa: N802 - Qt API
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideRight


class QueueTable(QTableWidget):
    """The queue table widget; rows are filled from :class:`~speechstudio.gui.transcript_view.QueueRow`."""

    def __init__(self, parent=None) -> None:
        super().__init__(0, len(COLS), parent)
        table("Transcription queue", COLS, single=True, stretch_last=False, t=self)  # Tab goes on to Edit transcript
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)      # file names keep their extension
        self.setItemDelegateForColumn(COLS.index("Status"), _ElideRight(self))
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        h = self.horizontalHeader()
        h.setMinimumSectionSize(48)
        fm = self.fontMetrics()
        pad = 24
        fixed = {1: max(fm.horizontalAdvance("Duration"), fm.horizontalAdvance("00:00:00")) + pad,
                 3: 96, 4: max(fm.horizontalAdvance("Speed"), fm.horizontalAdvance("999×")) + pad,
                 5: fm.horizontalAdvance("txt · srt · vtt · json  in folder") + pad}
        for col, width in fixed.items():
            h.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
            self.setColumnWidth(col, width)
        for col in (0, 2):
            h.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)

    def _tint(self, item) -> None:
        """Colour a Status cell by its status, readable (WCAG AA) on the table's current background."""
        status = item.data(Qt.ItemDataRole.UserRole)
        if status in _COLORS:
            light, dark = _COLORS[status]
            base = self.palette().base().color().name()
            order = (dark, light) if self.palette().base().color().lightness() < 128 else (light, dark)
            item.setForeground(QColor(readable(order, base)))
        else:
            item.setForeground(self.palette().text().color())

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """A theme switch recolours the rows already shown (they kept the old theme's colours)."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            for r in range(self.rowCount()):
                if self.item(r, 2) is not None:
                    self._tint(self.item(r, 2))

    def append_row(self, row) -> int:
        r = self.rowCount()
        self.insertRow(r)
        for c in range(len(COLS)):
            if c == 3:
                bar = QProgressBar()
                bar.setRange(0, 100)
                bar.setAccessibleName(f"Progress of {display_name(row.item.path)}")
                self.setCellWidget(r, c, bar)
            else:
                self.setItem(r, c, QTableWidgetItem(""))
        self.refresh(r, row)
        self.scrollToItem(self.item(r, 0))  # a new row is in view
        return r

    def refresh(self, r: int, row) -> None:
        """Show ``row`` in table line ``r``."""
        self.item(r, 0).setText(display_name(row.item.path))
        self.item(r, 0).setToolTip(display_name(row.item.path, full=True))
        self.item(r, 1).setText(clock(row.duration_s) if row.duration_s is not None else "")
        text, tip = status_text(row)
        self.item(r, 2).setText(text)
        self.item(r, 2).setToolTip(tip)
        self.item(r, 2).setData(Qt.ItemDataRole.UserRole, row.status)
        self._tint(self.item(r, 2))
        bar = self.cellWidget(r, 3)
        if bar is not None:
            bar.setValue(int(round(100 * row.progress)))
            bar.setVisible(row.status not in ("failed", "ignored"))
        self.item(r, 4).setText(speed(row.rtfx).removesuffix(" real time"))
        self.item(r, 4).setToolTip(f"{speed(row.rtfx)}: {row.rtfx:.1f} s of audio per second of work (RTFx)"
                                   if row.rtfx else "")
        out = " · ".join(p.suffix.lstrip(".") for p in row.outputs)
        if row.outputs:
            # a folder: "in in/", not "in in"
            out += f"  in {row.outputs[0].parent.name or row.outputs[0].parent}{os.sep}"
        self.item(r, 5).setText(out)
        self.item(r, 5).setToolTip("\n".join(display_name(p, full=True) for p in row.outputs))
