"""Help → "Check my setup": the doctor's checks in a dialog, run in a thread (the window never
freezes); "Copy report" copies the text of ``speechstudio doctor``."""
from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QGuiApplication
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem,
                               QWidget)

from speechstudio import __version__
from speechstudio.doctor.report import Check, to_text
from speechstudio.gui.common import vbox
from speechstudio.gui.contrast import readable

COLORS = {"ok": "#15803d", "info": "#1d4ed8", "warn": "#b45309", "fail": "#b91c1c"}
_OPEN: set = set()
DARK_COLORS = {"ok": "#4ade80", "info": "#93c5fd", "warn": "#fbbf24", "fail": "#f87171"}
WORDS = {"ok": "OK", "info": "Info", "warn": "Warning", "fail": "Problem"}


def verdict_line(checks) -> str:
    """The dialog's closing line: never "All is well." above a warning. ``checks``:
    objects with ``status`` in ``ok`` / ``info`` / ``warn`` / ``fail``."""
    problems = sum(c.status == "fail" for c in checks)
    warnings = sum(c.status == "warn" for c in checks)
    w = f"{warnings} warning{'s' if warnings != 1 else ''}"
    if problems:
        return (f"{problems} problem{'s' if problems != 1 else ''}" + (f" and {w}" if warnings else "")
                + ": the Fix lines say what to do.")
    if warnings:
        return f"Ready to use, with {w}: the amber lines say what works less well and how to fix it."
    return "All is well."

def shown_text(check) -> str:
    """A check's line as the dialog shows it: summary and fix without the raw cause kept in ``details``
    (an OS or GPU library error), which stays in the tooltip and the copied report."""
    text = check.summary + (f"\nFix: {check.fix}" if check.fix else "")
    for key in ("reason", "error"):
        raw = (check.details or {}).get(key)
        if isinstance(raw, str) and raw:
            text = text.replace(f" ({raw})", "")
    return text


class _Relay(QObject):
    checked = Signal(object)   # Check
    finished = Signal()


class DoctorDialog(QDialog):
    """Lists :func:`speechstudio.doctor.run_checks` verdicts as they arrive. ``checks`` holds the
    verdicts so far; ``running`` is True while the worker thread runs; ``done`` is emitted at the end."""

    done = Signal()

    def __init__(self, parent: QWidget | None = None, *, network: bool = True) -> None:
        super().__init__(parent)
        self.setWindowTitle("Check my setup")
        self.setAccessibleName("Check my setup")
        self.resize(900, 420)
        self.network = network
        self.checks: list[Check] = []
        self.running = False
        self.status = QLabel()
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Check", "Verdict", "What was found / how to fix it"])
        self.tree.setWordWrap(True)
        self.tree.setRootIsDecorated(False)
        self.tree.header().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.tree.setColumnWidth(0, 150)
        self.tree.setColumnWidth(1, 80)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.again = buttons.addButton("Check again", QDialogButtonBox.ButtonRole.ActionRole)
        self.copy = buttons.addButton("Copy report", QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.again.clicked.connect(self.start)
        self.copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.report_text()))
        vbox(self, self.status, (self.tree, 1), buttons)
        self._relay = _Relay(self)
        self._relay.checked.connect(self._add, Qt.ConnectionType.QueuedConnection)
        self._relay.finished.connect(self._finish, Qt.ConnectionType.QueuedConnection)

    def start(self) -> None:
        """(Re)run the checks in a worker thread; no-op while a run is in progress."""
        if self.running:
            return
        self.running = True
        self.checks = []
        self.tree.clear()
        self.again.setEnabled(False)
        self.status.setText("Checking this computer…")
        relay, network = self._relay, self.network

        def work() -> None:
            from speechstudio.doctor import run_checks

            try:
                run_checks(network=network, on_check=relay.checked.emit)
                relay.finished.emit()
            except RuntimeError as e:  # "Signal source has been deleted": the dialog closed meanwhile
                if "deleted" not in str(e):
                    raise

        threading.Thread(target=work, name="speechstudio-doctor", daemon=True).start()

    def _add(self, check: Check) -> None:
        self.checks.append(check)
        item = QTreeWidgetItem([check.name, WORDS[check.status], shown_text(check)])
        base = self.tree.palette().base().color().name()  # readable on the dark theme too (WCAG AA)
        item.setForeground(1, QBrush(QColor(readable((COLORS[check.status], DARK_COLORS[check.status]), base))))
        item.setToolTip(2, check.summary + (f"\nFix: {check.fix}" if check.fix else ""))
        self.tree.addTopLevelItem(item)

    def _finish(self) -> None:
        self.running = False
        self.again.setEnabled(True)
        self.status.setText(verdict_line(self.checks))
        self.done.emit()

    def report_text(self) -> str:
        """The verdicts so far as ``speechstudio doctor`` prints them."""
        return to_text(self.checks, __version__)


def show_doctor_dialog(parent: QWidget | None) -> None:
    """Open the non-modal "Check my setup" dialog over ``parent`` (deleted when closed) and start the checks."""
    dlg = DoctorDialog(parent)
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    _OPEN.add(dlg)                      # a parentless dialog lives as long as a Python reference does
    dlg.finished.connect(lambda _=0, d=dlg: _OPEN.discard(d))
    dlg.show()
    dlg.start()
