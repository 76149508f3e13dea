"""One doctor check's verdict (:class:`Check`) and the report of all of them (text and JSON). Verdicts:
``ok``, ``info`` (a fact, nothing to do), ``warn`` (a feature limited, the app works), ``fail`` (broken,
see the fix); ``speechstudio doctor`` exits 1 when any fails."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

OK, INFO, WARN, FAIL = "ok", "info", "warn", "fail"
VERDICTS = (OK, INFO, WARN, FAIL)
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Check:
    """One verdict: ``name`` (short title), ``status`` (:data:`VERDICTS`), one-line ``summary``, ``fix``
    command (warn / fail), JSON-serialisable ``details`` (sizes in bytes)."""

    name: str
    status: str
    summary: str
    fix: str = ""
    details: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in VERDICTS:
            raise ValueError(f"unknown verdict {self.status!r} (expected one of {VERDICTS})")


def failed(checks: list[Check]) -> bool:
    """True when any check has the ``fail`` verdict (``speechstudio doctor`` then exits 1)."""
    return any(c.status == FAIL for c in checks)


def to_json(checks: list[Check], version: str) -> str:
    """The report as JSON: ``{"schema": 1, "speechstudio": version, "ok": bool, "checks": [
    {"name", "status", "summary", "fix", "details"}, ...]}``."""
    return json.dumps({"schema": SCHEMA_VERSION, "speechstudio": version, "ok": not failed(checks),
                       "checks": [asdict(c) for c in checks]}, indent=2, default=str)


def to_text(checks: list[Check], version: str) -> str:
    """The report for a terminal: one ``[verdict] name: summary`` line per check, each problem's
    fix on the next line, then a one-line conclusion."""
    width = max((len(c.name) for c in checks), default=0)
    lines = [f"SpeechStudio {version}: checking this computer"]
    for c in checks:
        lines.append(f"[{c.status:>4}] {c.name:<{width}}  {c.summary}")
        if c.fix:
            lines.append(f"       {'':<{width}}  fix: {c.fix}")
    problems = sum(c.status == FAIL for c in checks)
    warnings = sum(c.status == WARN for c in checks)
    lines.append(f"{problems} problem(s), {warnings} warning(s): run the fix lines above, then `speechstudio doctor` "
                 "again." if problems else f"All is well ({warnings} warning(s)).")
    return "\n".join(lines)
