"""Times as the transcript editor shows and reads them: ``m:ss.sss`` (``h:mm:ss.sss`` from an hour)."""
from __future__ import annotations

import re

from speechstudio.errors import UsageError

_TIME = re.compile(r"^\s*(?:(?:(\d+):)?(\d+):)?(\d+(?:[.,]\d*)?)\s*$")


def format_time(seconds: float) -> str:
    """``75.5`` -> ``"1:15.500"``; ``3725.0`` -> ``"1:02:05.000"`` (milliseconds, never negative)."""
    ms_total = round(max(0.0, float(seconds)) * 1000)
    h, rest = divmod(ms_total, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s = rest / 1000
    return f"{h}:{m:02d}:{s:06.3f}" if h else f"{m}:{s:06.3f}"


def parse_time(text: str) -> float:
    """Seconds from ``"1:15.5"``, ``"75.5"``, ``"1:02:05"`` or ``"75,5"``. Raises ``UsageError`` otherwise."""
    m = _TIME.match(text or "")
    if not m:
        raise UsageError(f"{text!r} is not a time (write seconds, m:ss.sss or h:mm:ss.sss)")
    h, mi, s = m.groups()
    return round(int(h or 0) * 3600 + int(mi or 0) * 60 + float(s.replace(",", ".")), 3)
