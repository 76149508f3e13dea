"""Advice the CLI gives at most once a day (a backquoted command that gets a better model), apart from the
line that says which model runs; remembered per piece in ``<data dir>/notices.json``
(``{"advice text": "YYYY-MM-DD"}``)."""
from __future__ import annotations

import contextlib
import datetime as _dt
import re
import sys

from speechstudio.atomic import atomic_write_json, read_json_object
from speechstudio.hub.paths import data_dir

STATE_FILE = "notices.json"

# A clause ("; ..." or a parenthesis' content) holding a backquoted command.
_ADVICE = re.compile(r"(?:; )?[^;()`]*`[^`]+`[^;()]*")


def split_advice(message: str) -> tuple[str, list[str]]:
    """``(message without advice, advice clauses)``.

    ``"English -> whisper-tiny.en (the installed whisper-tiny.en; `speechstudio models download
    facebook/wav2vec2-base-960h` adds a larger English model); on cpu (int8)"`` gives
    ``("English -> whisper-tiny.en (the installed whisper-tiny.en); on cpu (int8)",
    ["`speechstudio models download facebook/wav2vec2-base-960h` adds a larger English model"])``.
    """
    advice = [m.group(0).removeprefix("; ").strip() for m in _ADVICE.finditer(message)]
    rest = re.sub(r"\s*\(\s*\)", "", _ADVICE.sub("", message))
    return re.sub(r"\s{2,}", " ", rest).strip(), [a for a in advice if a]


def due_today(advice: str, today: _dt.date | None = None) -> bool:
    """True (and remembered) when ``advice`` was not given yet on ``today`` (default: the local
    date); False when it was. A state file that cannot be read counts as empty; one that cannot
    be written means the advice is given again next time (never an error)."""
    day = (today or _dt.date.today()).isoformat()
    path = data_dir() / STATE_FILE
    state = read_json_object(path)
    if state.get(advice) == day:
        return False
    state = {k: v for k, v in state.items() if v == day}  # older days: forgotten
    state[advice] = day
    with contextlib.suppress(OSError):
        atomic_write_json(path, state)
    return True


def print_model_line(message: str, *, quiet: bool) -> None:
    """Which model runs (one line on stderr); its advice on a second ``tip:`` line at most once a day
    (:func:`due_today`); nothing at all with ``quiet`` (``-q``)."""
    if quiet:
        return
    line, advice = split_advice(message)
    print(line, file=sys.stderr)
    due = [a for a in advice if due_today(a)]
    if due:
        print(f"tip: {'; '.join(due)}", file=sys.stderr)
