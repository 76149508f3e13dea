"""The transcript of one queue row (start / end / text, click to hear) with "export as", plus the
queue row itself and reading our ``.json`` output back for files skipped as already transcribed."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QLabel, QPushButton, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from speechstudio.gui.common import fmt_ts


@dataclass
class QueueRow:
    """One input in the queue. ``status``: queued | running | done | skipped | failed | cancelled |
    ignored. ``segments``: transcript (``Segment`` list) once known."""

    item: object  # speechstudio.batch.run.InputItem
    status: str = "queued"
    duration_s: float | None = None
    progress: float = 0.0
    rtfx: float | None = None
    outputs: tuple[Path, ...] = ()
    reason: str = ""
    segments: list = field(default_factory=list)
    info: object = None  # TranscriptInfo for re-export


def load_json_transcript(row: QueueRow, segments: bool = True) -> None:
    """Read a ``.json`` output (ours) for the transcript / metadata of a skipped file."""
    from speechstudio.asr.types import Segment, TranscriptInfo, Word

    js = next((p for p in row.outputs if p.suffix == ".json"), None)
    if js is None or not js.is_file():
        return
    try:
        d = json.loads(js.read_text(encoding="utf-8"))
        row.info = TranscriptInfo(d.get("audio_duration_s") or 0.0, d.get("language"), d.get("model_id", ""),
                                  d.get("engine", ""), d.get("device", "cpu"), d.get("precision", "fp32"))
        if segments:
            row.segments = [Segment(s["start_s"], s["end_s"], s["text"],
                                    tuple(Word(w["start_s"], w["end_s"], w["text"], w.get("probability", 1.0))
                                          for w in s.get("words", [])))
                            for s in d.get("segments", [])]
    except (OSError, ValueError, KeyError, TypeError):
        pass



class TranscriptView(QWidget):
    """Title line, export format + button, and the segment table."""

    def __init__(self, formats, parent=None) -> None:
        super().__init__(parent)
        bl = QVBoxLayout(self)
        bl.setContentsMargins(0, 0, 0, 0)
        hdr = QHBoxLayout()
        self.title = QLabel("Transcript: select a finished file")
        self.title.setAccessibleName("Transcript title")
        hdr.addWidget(self.title, 1)
        hdr.addWidget(QLabel("Export as"))
        self.export_box = QComboBox()
        self.export_box.addItems(formats)
        self.export_box.setAccessibleName("Export format")
        self.export_btn = QPushButton("Export…")
        self.export_btn.setAccessibleName("Export transcript")
        self.export_btn.setEnabled(False)
        hdr.addWidget(self.export_box)
        hdr.addWidget(self.export_btn)
        bl.addLayout(hdr)
        self.segments = QTableWidget(0, 3)
        self.segments.setHorizontalHeaderLabels(("Start", "End", "Text"))
        self.segments.setAccessibleName("Transcript segments; click one to hear it")
        self.segments.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.segments.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.segments.verticalHeader().setVisible(False)
        self.segments.horizontalHeader().setStretchLastSection(True)
        self.segments.setColumnWidth(0, 70)
        self.segments.setColumnWidth(1, 70)
        self.segments.setWordWrap(True)
        bl.addWidget(self.segments)

    def show_row(self, row: QueueRow | None) -> None:
        self.segments.setRowCount(0)
        if row is None:
            self.title.setText("Transcript: select a finished file")
            self.export_btn.setEnabled(False)
            return
        name = row.item.path.name
        if row.status in ("failed", "ignored"):
            self.title.setText(f"{name}: {row.reason}")
        elif row.status == "cancelled":
            self.title.setText(f"{name}: cancelled, nothing written")
        else:
            self.title.setText(f"Transcript of {name} ({len(row.segments)} segments) — click a segment to hear it")
        for seg in row.segments:
            r = self.segments.rowCount()
            self.segments.insertRow(r)
            self.segments.setItem(r, 0, QTableWidgetItem(fmt_ts(seg.start_s)))
            self.segments.setItem(r, 1, QTableWidgetItem(fmt_ts(seg.end_s)))
            self.segments.setItem(r, 2, QTableWidgetItem(seg.text.strip()))
        self.segments.resizeRowsToContents()
        self.export_btn.setEnabled(row.status in ("done", "skipped") and row.info is not None)
