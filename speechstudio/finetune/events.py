"""What both trainers share with their callers: ``TrainControl`` (stop / pause from any thread;
``stop_on_signals`` sets it from Ctrl+C) and ``CheckpointEvent``; ``finetune.vits.events`` and
``finetune.ctc.events`` re-export them beside their own events."""
from __future__ import annotations

import signal
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path


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


def stop_on_signals(control, launched: bool):
    """Ctrl+C asks the trainer to stop after the current step (it saves a checkpoint); a second one
    interrupts at once. Under ``accelerate launch`` Ctrl+C reaches every process twice (from the
    terminal, then from the launcher, which also sends SIGTERM and kills after 30 s), so there SIGINT
    and SIGTERM only ask for a stop, which the processes agree on after the step. Returns a function
    that restores the previous handlers."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)[: 2 if launched else 1]}

    def handler(signum, frame):
        if control.stop.is_set() and not launched:
            raise KeyboardInterrupt
        if not control.stop.is_set():
            print("\nstopping after this step and saving a checkpoint"
                  + ("" if launched else " (Ctrl+C again to quit at once)"), file=sys.stderr, flush=True)
        control.stop.set()

    for sig in previous:
        signal.signal(sig, handler)
    return lambda: [signal.signal(sig, h) for sig, h in previous.items()]
