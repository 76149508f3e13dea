"""The clone wizard's "Remove old runs…" button: earlier runs with their size, removed after a
confirmation on the I/O worker (saved voices stay; a run being trained is left alone)."""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from speechstudio.gui.wording import plain_error
from speechstudio.worker.jobs import CallJob


def _removable():
    from speechstudio.finetune.leftovers import list_runs

    return [r for r in list_runs() if r.state != "in use"]


def _remove(paths):
    from speechstudio.finetune.leftovers import remove_run

    return sum(remove_run(p) for p in paths)


def confirm_removal(parent: QWidget, text: str, details: str) -> bool:
    """Ask before removing (a Yes / No box with the list of runs as details)."""
    box = QMessageBox(QMessageBox.Icon.Question, "Remove old runs", text,
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, parent)
    box.setDetailedText(details)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    return box.exec() == QMessageBox.StandardButton.Yes


class OldRuns(QObject):
    """Drives the button: :meth:`start` lists the runs, asks (``confirm``), removes them (both on the
    I/O worker), emits ``done(message)`` and relists the step's runs."""

    done = Signal(str)

    def __init__(self, step) -> None:
        super().__init__(step)
        self.step = step
        self.confirm = confirm_removal
        self._list_job = self._remove_job = None
        self.runs: list = []
        step.wiz.io.job_finished.connect(self._on_finished)

    def start(self) -> int | None:
        if self._list_job is not None or self._remove_job is not None:
            return None
        self._list_job = self.step.wiz.io.submit(CallJob(_removable, description="list training runs"))
        return self._list_job

    def _on_finished(self, job_id: int, status: str, result) -> None:
        from speechstudio.disk import format_size

        if job_id == self._list_job:
            self._list_job = None
            if status != "done":
                self.done.emit(f"cannot list the runs: {plain_error(result)}")
                return
            self.runs = list(result)
            if not self.runs:
                self.done.emit("no earlier runs to remove")
                return
            total = sum(r.size_bytes for r in self.runs)
            details = "\n".join(f"{r.name}: {format_size(r.size_bytes)}, {r.age_days():.0f} days old, {r.state}"
                                for r in self.runs)
            text = (f"Remove {len(self.runs)} earlier training run(s) ({format_size(total)})? Saved voices stay; "
                    "a removed run cannot be continued.")
            if not self.confirm(self.step, text, details):
                self.done.emit("nothing removed")
                return
            self._remove_job = self.step.wiz.io.submit(CallJob(_remove, [r.path for r in self.runs],
                                                               description="remove training runs"))
        elif job_id == self._remove_job:
            self._remove_job = None
            if status != "done":
                self.done.emit(f"cannot remove the runs: {plain_error(result)}")
            else:
                self.done.emit(f"removed {len(self.runs)} run(s), freed {format_size(int(result))}")
            self.step.refresh()
