"""``Status``: a human-readable progress line a job yields. Qt-free, so that job modules
(:mod:`speechstudio.worker.jobs`, the fine-tuning and dictation jobs) can import it without
PySide6; :mod:`speechstudio.worker.worker` re-exports it for older imports."""
from __future__ import annotations


class Status(str):
    """A human-readable progress line a job yields (e.g. "loading model ..."). ``kind``: ``"progress"``, or
    ``"loading"`` (``value``: the model asked for, None for the default) or ``"model"``, the loader's line on
    which model runs (``value``: its id; None for the automatic choice by language), so that an interface
    words those itself."""

    def __new__(cls, text: str = "", *, kind: str = "progress", value=None) -> Status:
        out = super().__new__(cls, text)
        out.kind, out.value = kind, value
        return out
