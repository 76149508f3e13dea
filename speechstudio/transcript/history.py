"""The edit history: each change a list of splices (at index i, these segments became those), undone
exactly and saved under ``"edit_history"``: ``{"format": 1, "done": [...], "undone": [...]}``."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime, timezone

from speechstudio.transcript.model import Segment, segment_from_dict, segment_to_dict

FORMAT = 1
#: Changes kept in the file (the oldest are dropped first; undo stops there).
MAX_SAVED = 500


@dataclasses.dataclass(frozen=True)
class Splice:
    """At ``index``, the segments ``before`` were replaced by ``after``."""

    index: int
    before: tuple[Segment, ...]
    after: tuple[Segment, ...]

    def inverse(self) -> Splice:
        return Splice(self.index, self.after, self.before)


@dataclasses.dataclass(frozen=True)
class Change:
    """One undoable edit: ``label`` (shown as "Undo <label>"), ``splices`` applied in order,
    ``at``: when it was made (UTC ISO 8601, seconds; now by default)."""

    label: str
    splices: tuple[Splice, ...]
    at: str = dataclasses.field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))

    def inverse(self) -> Change:
        return Change(self.label, tuple(s.inverse() for s in reversed(self.splices)), self.at)


def same(a: Sequence[Segment], b: Sequence[Segment]) -> bool:
    """Whether two segment lists are equal as the JSON stores them (ms, 4-decimal probability)."""
    return len(a) == len(b) and all(segment_to_dict(x) == segment_to_dict(y) for x, y in zip(a, b))


def apply(segments: Sequence[Segment], change: Change) -> tuple[Segment, ...] | None:
    """``segments`` after ``change``; ``None`` when a splice's ``before`` is not what is there (the
    transcript was changed some other way since)."""
    segs = list(segments)
    for sp in change.splices:
        here = segs[sp.index:sp.index + len(sp.before)]
        if sp.index > len(segs) or not same(here, sp.before):
            return None
        segs[sp.index:sp.index + len(sp.before)] = sp.after
    return tuple(segs)


def change_to_dict(c: Change) -> dict:
    return {"label": c.label, "at": c.at,
            "splices": [{"index": s.index, "before": [segment_to_dict(x) for x in s.before],
                         "after": [segment_to_dict(x) for x in s.after]} for s in c.splices]}


def change_from_dict(d: dict, where: str) -> Change:
    """Raises ``ValueError`` naming ``where`` and the bad field."""
    if not isinstance(d, dict) or not isinstance(d.get("splices"), list):
        raise ValueError(f"{where} has no list of splices")
    splices = []
    for k, s in enumerate(d["splices"]):
        w = f"{where} splice {k + 1}"
        if not isinstance(s, dict) or not isinstance(s.get("index"), int) or s["index"] < 0:
            raise ValueError(f"{w} has no valid index")
        splices.append(Splice(s["index"],
                              tuple(segment_from_dict(x, f"{w} before") for x in s.get("before") or []),
                              tuple(segment_from_dict(x, f"{w} after") for x in s.get("after") or [])))
    return Change(str(d.get("label", "edit")), tuple(splices), str(d.get("at", "")))


def history_to_dict(done: Sequence[Change], undone: Sequence[Change]) -> dict:
    return {"format": FORMAT, "done": [change_to_dict(c) for c in list(done)[-MAX_SAVED:]],
            "undone": [change_to_dict(c) for c in list(undone)[-MAX_SAVED:]]}


def history_from_dict(d, where: str) -> tuple[list[Change], list[Change]]:
    """``(done, undone)`` from the ``"edit_history"`` value. Raises ``ValueError``."""
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise ValueError(f"{where}: edit_history is not format {FORMAT}")
    done = [change_from_dict(c, f"{where}: edit {k + 1}") for k, c in enumerate(d.get("done") or [])]
    undone = [change_from_dict(c, f"{where}: undone edit {k + 1}") for k, c in enumerate(d.get("undone") or [])]
    return done, undone
