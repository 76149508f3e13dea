"""What both trainers (VITS voice, CTC recognition) share with their callers: ``TrainControl``
(stop / pause from any thread) and ``CheckpointEvent`` (a checkpoint was written).

The trainer-specific events live in ``finetune.vits.events`` and ``finetune.ctc.events``; both
re-export these two, so callers import everything from their trainer's package.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["TrainControl", "CheckpointEvent"]


@dataclass
class TrainControl:
    """Set ``stop`` (from any thread) to end after the optimizer step in progress: the latest
    checkpoint is saved first and the run ends with a ``DoneEvent`` whose reason is
    ``"stopped"`` (resumable). Set ``pause`` to hold between steps until it is cleared (or
    ``stop`` is set)."""

    stop: threading.Event = field(default_factory=threading.Event)
    pause: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class CheckpointEvent:
    """A checkpoint was written atomically at optimizer step ``step``: ``kind`` ``"latest"``
    (full resume state), ``"best"`` (VITS: the generator to export) or ``"latest+best"`` (CTC:
    the latest is also the best so far); ``path``: the file (VITS) or folder (CTC)."""

    step: int
    path: Path
    kind: str
