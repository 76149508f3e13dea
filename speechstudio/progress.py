"""Progress bars redrawn in place on a terminal, written as plain lines (no ``\\r``, no repeats, at most
every ``LOG_INTERVAL_S``) into a log."""
from __future__ import annotations

import math
import sys
from typing import IO

#: Seconds between two progress lines written to a file (a long run logs a few lines, not thousands).
LOG_INTERVAL_S = 30.0


def clock(seconds: float | None) -> str:
    """``m:ss`` or ``h:mm:ss`` of ``seconds``; ``?`` for None, NaN or infinity."""
    if seconds is None or seconds != seconds or seconds == float("inf"):
        return "?"
    seconds = int(round(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def roughly(seconds: float | None) -> str:
    """An estimate of ``seconds`` as people say it: "less than a minute", "about 7 minutes" (whole minutes
    under 10), "about 20 minutes" (fives under an hour), "about 1.5 hours" (halves under 10 hours),
    "about 12 hours", "about 3 days" (from 2 days); "an unknown time" for None, NaN or infinity."""
    if seconds is None or not math.isfinite(seconds):
        return "an unknown time"
    if seconds < 60:
        return "less than a minute"
    m, h = seconds / 60, seconds / 3600
    amount, step, unit = ((m, 1, "minute") if m < 9.5 else (m, 5, "minute") if m < 57.5 else
                          (h, 0.5, "hour") if h < 9.75 else (h, 1, "hour") if h < 47.5 else (h / 24, 1, "day"))
    n = math.floor(amount / step + 0.5) * step   # to the nearest step, halves up
    return f"about {f'{n:.1f}'.removesuffix('.0')} {unit}{'' if n == 1 else 's'}"


def is_terminal(stream: IO | None) -> bool:
    """True when ``stream`` is an interactive terminal (``isatty()``; False when it cannot say)."""
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):  # a closed or file-like stream without isatty
        return False


class PlainLines:
    """A text stream wrapper that turns tqdm's ``\\r`` redraws into plain lines, dropping padding, empty
    and repeated lines; ``isatty()`` is False."""

    def __init__(self, stream: IO):
        self.stream = stream
        self._last: str | None = None

    def write(self, text: str) -> int:
        for line in text.replace("\r", "\n").split("\n"):
            line = line.rstrip()
            if line and line != self._last:
                self.stream.write(line + "\n")
                self._last = line
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False


def progress_file(stream: IO | None = None) -> IO:
    """Where a tqdm bar should write: ``stream`` (default ``sys.stderr``) itself on a terminal,
    else a :class:`PlainLines` wrapper of it."""
    stream = sys.stderr if stream is None else stream
    return stream if is_terminal(stream) else PlainLines(stream)


def bar_output(stream: IO | None = None) -> dict:
    """tqdm's ``file`` and ``mininterval`` for a bar on ``stream`` (default ``sys.stderr``): redrawn every 0.1 s
    on a terminal; else (a log, a pipe) plain lines, at most one every ``LOG_INTERVAL_S``."""
    stream = sys.stderr if stream is None else stream
    return dict(file=progress_file(stream), mininterval=0.1 if is_terminal(stream) else LOG_INTERVAL_S)


def hub_tqdm_class():
    """A ``tqdm_class`` for ``huggingface_hub.snapshot_download``: its own bar class (so ``disable_progress_bars``
    still works), writing plain lines every ``LOG_INTERVAL_S`` when the bar's stream is not a terminal."""
    from huggingface_hub.utils import tqdm as hf_tqdm

    class HubProgress(hf_tqdm):
        def __init__(self, *args, **kwargs):
            stream = kwargs.get("file") or sys.stderr
            if not is_terminal(stream):
                kwargs["file"] = PlainLines(stream)
                kwargs["mininterval"] = max(float(kwargs.get("mininterval") or 0.0), LOG_INTERVAL_S)
                kwargs["dynamic_ncols"] = False
            super().__init__(*args, **kwargs)

    return HubProgress


def quiet_transformers() -> None:
    """transformers' own progress bars off and its logging to errors, leaving huggingface_hub's download
    bars on (transformers' ``disable_progress_bar`` would silence every later download of the process)."""
    import transformers
    from huggingface_hub.utils import are_progress_bars_disabled, enable_progress_bars

    hub_was_off = are_progress_bars_disabled()
    transformers.utils.logging.disable_progress_bar()
    transformers.utils.logging.set_verbosity_error()
    if not hub_was_off and are_progress_bars_disabled():
        enable_progress_bars()
