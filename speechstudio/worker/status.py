"""``Status``: a human-readable progress line a job yields. Qt-free, so that job modules
(:mod:`speechstudio.worker.jobs`, the fine-tuning and dictation jobs) can import it without
PySide6; :mod:`speechstudio.worker.worker` re-exports it for older imports."""
from __future__ import annotations


class Status(str):
    """A human-readable progress line a job yields (e.g. "loading model ...")."""
