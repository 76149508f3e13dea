"""The similarity / naturalness trade of a clone run, checkpoint by checkpoint: the trainer judges the
base voice (step 0) and every evaluated checkpoint (``closeness.CloneJudge``), keeps each as
``checkpoints/step_N.pt`` and writes the rows to ``RUN/closeness.json``; the recommended one is
``closeness.recommend``'s. ``load_trade`` gives the GUI its plot data, ``format_table`` the CLI its
table. Qt-free."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from speechstudio.atomic import atomic_write_json
from speechstudio.finetune.closeness import NATURALNESS_DROP, natural_enough, recommend
from speechstudio.finetune.run import RunError

TRADE_FILE = "closeness.json"


@dataclass(frozen=True)
class TradeRow:
    """One judged voice: ``step`` (0: the base voice at the run's rate), ``similarity`` (mean SECS),
    ``naturalness`` (mean DistillMOS, 1-5, or None), ``pitch_hz`` (median F0, or None),
    ``pitch_offset_st`` (semitones from the speaker's median, or None), ``score`` (the checkpoint
    choice), ``checkpoint`` (``step_N``, ``base``: the base voice as it ships when the run trains at
    another rate, or ``blend_A``: what ``finetune save --checkpoint`` takes)."""

    step: int
    similarity: float
    naturalness: float | None
    pitch_hz: float | None
    pitch_offset_st: float | None
    score: float
    checkpoint: str


def row_of(step: int, closeness, checkpoint: str | None = None) -> dict:
    """The JSON row of a ``closeness.Closeness`` judged at ``step``."""
    return asdict(TradeRow(int(step), float(closeness.similarity),
                           None if closeness.naturalness is None else float(closeness.naturalness),
                           closeness.pitch.median_hz, closeness.pitch_offset_st, float(closeness.score),
                           checkpoint or f"step_{int(step)}"))


@dataclass(frozen=True)
class Trade:
    """A run's judged voices: ``base_naturalness`` (the base voice at its own rate; None: not
    measured, no guard), ``rows`` (:class:`TradeRow`, step order), ``blends`` (rows of WiSE-FT blends,
    ``finetune.blend``), ``recommended`` (index into ``rows``, or None)."""

    base_naturalness: float | None
    rows: list[TradeRow]
    blends: list[TradeRow] = field(default_factory=list)

    @property
    def floor(self) -> float | None:
        """Naturalness under which a checkpoint is never recommended (None: no guard)."""
        return None if self.base_naturalness is None else self.base_naturalness - NATURALNESS_DROP

    @property
    def recommended(self) -> int | None:
        return recommend([asdict(r) for r in self.rows], self.base_naturalness)

    def natural_enough(self, row: TradeRow) -> bool:
        return natural_enough(row.naturalness, self.base_naturalness)

    def row(self, checkpoint: str) -> TradeRow | None:
        return next((r for r in self.rows + self.blends if r.checkpoint == checkpoint), None)

    def series(self) -> dict[str, list]:
        """Plot data: ``step``, ``similarity``, ``naturalness`` (NaN for None), ``natural_enough``
        lists, ``recommended_step`` (or None), ``floor`` (or None)."""
        nan = float("nan")
        rec = self.recommended
        return {"step": [r.step for r in self.rows], "similarity": [r.similarity for r in self.rows],
                "naturalness": [nan if r.naturalness is None else r.naturalness for r in self.rows],
                "natural_enough": [self.natural_enough(r) for r in self.rows],
                "recommended_step": None if rec is None else self.rows[rec].step, "floor": self.floor}


def write_trade(run_dir: Path, base_naturalness: float | None, rows: list[dict]) -> Path:
    """Write ``RUN/closeness.json`` atomically (keeping the file's blends)."""
    path = Path(run_dir) / TRADE_FILE
    try:
        blends = json.loads(path.read_text(encoding="utf-8")).get("blends", [])
    except (OSError, ValueError, AttributeError):
        blends = []
    return atomic_write_json(path, {"base_naturalness": base_naturalness, "rows": rows, "blends": blends})


def _row(r: dict) -> TradeRow:
    """A row as written, or as a run from before the table wrote it (step, similarity, naturalness, score)."""
    return TradeRow(int(r["step"]), float(r["similarity"]), r.get("naturalness"), r.get("pitch_hz"),
                    r.get("pitch_offset_st"), float(r["score"]), r.get("checkpoint") or f"step_{int(r['step'])}")


def load_trade(run_dir: Path) -> Trade:
    """The run's :class:`Trade`. Raises ``RunError`` when the run judged nothing (no or unreadable
    ``closeness.json``: a run without the clone judge, or from an older version)."""
    path = Path(run_dir) / TRADE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Trade(data.get("base_naturalness"), [_row(r) for r in data["rows"]], [_row(r) for r in data.get("blends", [])])
    except FileNotFoundError:
        raise RunError(f"{path}: this run has no judged checkpoints (trained without the clone judge)") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RunError(f"{path}: unreadable ({str(exc)[:120]})") from exc


def _fmt(v: float | None, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def format_table(trade: Trade, chosen: str | None = None) -> str:
    """The CLI's table: one line per checkpoint (and blend) with similarity, naturalness, pitch,
    ``<- recommended`` / ``<- saved`` marks and ``below the floor`` for checkpoints too unnatural to
    recommend; a last line explains the floor."""
    rec = trade.recommended
    rec_name = None if rec is None else trade.rows[rec].checkpoint
    lines = [f"{'checkpoint':<12} {'step':>5} {'similarity':>10} {'naturalness':>11} {'pitch':>16}"]
    for r in trade.rows + trade.blends:
        pitch = "-" if r.pitch_hz is None else f"{r.pitch_hz:.0f} Hz ({_fmt(r.pitch_offset_st, '+.1f')} st)"
        marks = [mark for mark, on in (("recommended", r.checkpoint == rec_name),
                                       ("saved", chosen is not None and r.checkpoint == chosen)) if on]
        line = f"{r.checkpoint:<12} {r.step:>5} {r.similarity:>10.3f} {_fmt(r.naturalness, '.2f'):>11} {pitch:>16}"
        if not trade.natural_enough(r):
            line += "  below the floor"
        lines.append(line + (f"  <- {', '.join(marks)}" if marks else ""))
    if trade.row("base") is not None:
        lines.append("base: the base voice as it ships; step_0: the base at your pitch, where training starts")
    if trade.floor is not None:
        lines.append(f"naturalness of the base voice {trade.base_naturalness:.2f}; checkpoints under "
                     f"{trade.floor:.2f} are not recommended (the save command still takes them with --checkpoint)")
    return "\n".join(lines)
