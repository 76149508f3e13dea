"""What a finished batch says on the Transcribe page: counts, audio hours, wall time, speed (× real time), the
failures with their reasons, and a button that opens the output folder."""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from speechstudio.gui.common import bare, button, hrow, named
from speechstudio.gui.drop_paths import display_name
from speechstudio.gui.wording import speed
from speechstudio.progress import clock


def report_text(summary, wall_s: float) -> tuple[str, str]:
    """``(line, details)`` of a ``BatchSummary``: ``"This run: 19 done, 1 failed · 31:12 of audio in 3:10, 9.8× real
    time overall"`` (speed: audio s / the run's wall s, model loading included, where the queue's Speed column
    times each file alone; no audio part when nothing was transcribed) and one ``name: reason`` line per failure."""
    parts = [f"This run: {summary.done} done"]
    if summary.skipped:
        parts.append(f"{summary.skipped} skipped")
    if summary.failed:
        parts.append(f"{len(summary.failed)} failed")
    if summary.cancelled:
        parts.append("cancelled")
    line = ", ".join(parts) + (f" · {clock(summary.audio_s)} of audio in {clock(wall_s)}" if summary.audio_s else "")
    line += f", {speed(summary.rtfx)} overall" if summary.rtfx and summary.audio_s else ""
    details = "\n".join(f"{display_name(p)}: {reason.replace(str(p) + ': ', '')}" for p, reason in summary.failed)
    if details:
        line += f" · failed: {display_name(summary.failed[0][0])}" + (" …" if len(summary.failed) > 1 else "")
    return line, details


class BatchReport(QWidget):
    """The line under the queue after a batch; ``open_btn`` opens the output folder."""

    opened = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.label = named(QLabel(), "Batch summary")
        # one line, cut at the page's edge (failures in its tooltip): a wrapped label would make the page scroll
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.open_btn = button("Open output folder", "Open output folder", slot=self.open_folder)
        self.setLayout(bare(hrow((self.label, 1), self.open_btn, stretch=False)))
        self.folder: Path | None = None
        self.hide()

    def show_summary(self, summary, wall_s: float) -> str:
        line, details = report_text(summary, wall_s)
        self.label.setText(line)
        self.label.setToolTip(details or line)
        folders = [p.parent for p in summary.outputs]    # the folder most outputs went to, None: nothing written
        self.folder = max(set(folders), key=folders.count) if folders else None
        self.open_btn.setVisible(self.folder is not None)
        self.show()
        return line

    def open_folder(self) -> None:
        if self.folder is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(os.fspath(self.folder)))
            self.opened.emit(os.fspath(self.folder))
