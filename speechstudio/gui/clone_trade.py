"""The Clone voice wizard's "how each try sounds" panel: each judged try's similarity and naturalness
(``finetune.trade``), the recommended one, and the user's choice for the Use step."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from speechstudio.finetune.run import RunError
from speechstudio.finetune.trade import load_trade
from speechstudio.gui.common import add_row, bare, button, hrow, named, note_label, table, vbox
from speechstudio.gui.devices import allow
from speechstudio.gui.wheel_guard import guard_wheel

#: The table's columns (the last: a Play button).
COLUMNS = ("Version", "Steps", "Sounds like you", "Sounds natural", "", "")
#: Which sample of a step Play plays, first found: one of the user's sentences, then the fixed one.
SAMPLE_TAGS = ("val", "train", "fox")
RECOMMENDED = "recommended"
BELOW = "much less natural"
NOTHING_YET = "Each check during training makes a try of your voice; how each one sounds appears here."
#: Colours of the trade plot: similarity, naturalness, a try too unnatural to recommend, the marks.
TRADE_COLORS = {"similarity": "#3b82f6", "naturalness": "#22c55e", "below": "#ef4444", "mark": "#eab308"}


class TradePlot(QWidget):
    """Similarity (left) and naturalness (right, 1-5) of each judged try by step (``Trade.series``); a
    star on the recommended try, a ring on the chosen one. Signal ``clicked(index)``: a trade row."""

    clicked = Signal(int)
    MIN_HEIGHT = 100

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._lay = bare(QHBoxLayout(self))
        self.plots: dict = {}      # "similarity" / "naturalness" -> PlotWidget
        self.curves: dict = {}     # the same keys -> the series' PlotDataItem
        self.recommended: dict = {}  # the same keys -> the star's PlotDataItem
        self.chosen: dict = {}     # the same keys -> the ring's PlotDataItem
        self.floor_line = None

    def _ensure_plots(self, pg) -> None:
        if self.plots:
            return
        titles = {"similarity": "sounds like you", "naturalness": "sounds natural (1 to 5)"}
        for key, title in titles.items():
            p = named(pg.PlotWidget(title=title), "Sounds like you, per try" if key == "similarity"
                      else "Sounds natural, per try")
            p.setLabel("bottom", "step")
            p.setMenuEnabled(False)
            p.setMinimumHeight(self.MIN_HEIGHT)
            p.setMinimumWidth(160)
            guard_wheel(p)
            self.plots[key] = p
            self.curves[key] = p.plot([], [], pen=pg.mkPen(TRADE_COLORS[key], width=2), symbol="o", symbolSize=8)
            self.curves[key].sigPointsClicked.connect(lambda _item, points, *_a: points and
                                                      self.clicked.emit(int(points[0].index())))
            self.recommended[key] = p.plot([], [], pen=None, symbol="star", symbolSize=18,
                                           symbolBrush=TRADE_COLORS["mark"], symbolPen="k")
            self.chosen[key] = p.plot([], [], pen=None, symbol="o", symbolSize=18, symbolBrush=None,
                                      symbolPen=pg.mkPen(TRADE_COLORS["mark"], width=2))
            self._lay.addWidget(p, 1)
        self.floor_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(TRADE_COLORS["below"], style=Qt.PenStyle.DashLine),
                                          label="lowest recommended",
                                          labelOpts={"position": 0.02, "anchors": [(0, 0), (0, 0)],
                                                     "color": TRADE_COLORS["below"]})
        self.plots["naturalness"].addItem(self.floor_line)

    def show_trade(self, trade, chosen: int | None = None) -> None:
        """Draw ``trade`` (a ``finetune.trade.Trade``; None: empty) with row ``chosen`` ringed."""
        if trade is None and not self.plots:
            return  # nothing to draw yet: pyqtgraph stays unloaded
        import pyqtgraph as pg

        self._ensure_plots(pg)
        series = trade.series() if trade is not None else {"step": [], "similarity": [], "naturalness": [],
                                                            "natural_enough": [], "floor": None}
        rec = trade.recommended if trade is not None else None
        steps = series["step"]
        for key in ("similarity", "naturalness"):
            values = series[key]
            brushes = [TRADE_COLORS[key] if ok else TRADE_COLORS["below"] for ok in series["natural_enough"]]
            self.curves[key].setData(steps, values, symbolBrush=brushes)
            for item, i in ((self.recommended[key], rec), (self.chosen[key], chosen)):
                shown = [i] if i is not None and 0 <= i < len(steps) else []
                item.setData([steps[j] for j in shown], [values[j] for j in shown])
        self.floor_line.setVisible(series["floor"] is not None)
        if series["floor"] is not None:
            self.floor_line.setValue(series["floor"])


def try_names(trade) -> list[str]:
    """Plain names of ``trade.rows``: "Base voice" (``base``, or ``step_0`` when the run has no
    ``base`` row), "Base voice at your pitch" (``step_0`` of a run trained at another rate), "Try 1",
    "Try 2", ... (the later steps, in order)."""
    names, n = [], 0
    shipped = trade.row("base") is not None
    for r in trade.rows:
        if r.checkpoint == "base" or (r.step == 0 and not shipped):
            names.append("Base voice")
        elif r.step == 0:
            names.append("Base voice at your pitch")
        else:
            n += 1
            names.append(f"Try {n}")
    return names


def sample_of(run_dir: Path | None, step: int) -> Path | None:
    """The sample the trainer spoke at ``step`` (``SAMPLE_TAGS`` order), or None when none was kept."""
    if run_dir is None:
        return None
    return next((p for tag in SAMPLE_TAGS if (p := Path(run_dir) / "samples" / f"step_{step}_{tag}.wav").is_file()),
                None)


def load_run_trade(run_dir: Path):
    """The run's ``Trade``, or None when the run judged nothing (no or unreadable ``closeness.json``)."""
    try:
        trade = load_trade(run_dir)
    except RunError:
        return None
    return trade if trade.rows else None


class TradeView(QWidget):
    """Table + plots of a run's tries: ``trade`` and ``chosen`` (row index) or None; :meth:`checkpoint`
    is what the Use step saves; ``audio``: the window's AudioHub. Signal ``play(path)``: a try's sample."""

    play = Signal(object)

    def __init__(self, audio=None, parent=None) -> None:
        super().__init__(parent)
        self.trade = None
        self.chosen: int | None = None
        self.names: list[str] = []
        self.audio = audio
        self.summary = note_label("Which try is recommended", NOTHING_YET)
        self.table = table("Tries of the voice", COLUMNS, single=True, stretch=len(COLUMNS) - 2)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.horizontalHeader().setToolTip("Sounds like you: speaker similarity, your own recordings score about 0.9. Sounds "
                          "natural: predicted listener score from 1 to 5.")
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.setMinimumHeight(96)
        self.plot = TradePlot()
        self.plot.clicked.connect(self.choose)
        # side by side: the page is short at 1280x768 with the docks open
        bare(vbox(self, self.summary, (hrow((self.table, 6), (self.plot, 5), stretch=False), 1)))

    def set_trade(self, trade, run_dir: Path | None = None) -> None:
        """Show ``trade`` (None: nothing judged yet) of run ``run_dir`` (its samples: Play). The choice
        stays on the same step when the trade grows during training, else it moves to the recommended try."""
        was = getattr(self.trade, "recommended", None)
        keep = self.checkpoint() if self.chosen is not None and self.chosen != was else None
        self.trade = trade
        self.names = try_names(trade) if trade is not None else []
        rows = trade.rows if trade is not None else []
        rec = getattr(trade, "recommended", None)
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for i, r in enumerate(rows):
            note = RECOMMENDED if i == rec else ("" if trade.natural_enough(r) else BELOW)
            tip = self._details(r) + ("" if note != BELOW else "; much less natural than the base voice: not "
                                      "recommended")
            cells = (self.names[i], str(r.step), f"{r.similarity:.2f}",
                     "not measured" if r.naturalness is None else f"{r.naturalness:.1f}", note)
            add_row(self.table, cells, [tip] * len(cells))
            self.table.setCellWidget(i, len(COLUMNS) - 1, self._play_button(self.names[i], sample_of(run_dir, r.step)))
        self.table.blockSignals(False)
        # nothing recommended: nothing chosen; the Use step saves the trainer's best, never an unnatural try unasked
        self.choose(next((i for i, r in enumerate(rows) if r.checkpoint == keep), rec))

    def _play_button(self, name: str, sample: Path | None) -> QPushButton:
        btn = button("Play", f"Play {name}", f"Play what {name.lower() if name.startswith('Base') else name} said "
                     "during training" if sample else "No sample of this one was kept (samples are made at each save)")
        btn.setMaximumWidth(btn.fontMetrics().horizontalAdvance("Play") + 24)
        btn.setEnabled(sample is not None)
        if sample is not None and self.audio is not None:
            allow(btn, self.audio, "speaker")
        btn.clicked.connect(lambda _=False, p=sample: p is not None and self.play.emit(p))
        return btn

    @staticmethod
    def _details(r) -> str:
        """A row's figures for the tooltip (pitch in Hz stays here, off the page)."""
        pitch = "" if r.pitch_hz is None else f"; pitch {r.pitch_hz:.0f} Hz" + (
            "" if r.pitch_offset_st is None else f", {r.pitch_offset_st:+.1f} semitones from yours")
        return f"{r.checkpoint}: speaker similarity {r.similarity:.3f}, naturalness " + (
            "not measured" if r.naturalness is None else f"{r.naturalness:.2f}") + pitch

    def checkpoint(self) -> str | None:
        """The chosen row's checkpoint name (``step_N``, ``base``), or None when nothing was judged."""
        if self.trade is None or self.chosen is None or not 0 <= self.chosen < len(self.trade.rows):
            return None
        return self.trade.rows[self.chosen].checkpoint

    def chosen_name(self) -> str:
        """The chosen try's plain name ("Try 2"), or "" when nothing was judged."""
        return self.names[self.chosen] if self.chosen is not None and self.chosen < len(self.names) else ""

    def choose(self, index: int | None) -> None:
        """Pick row ``index`` (a table row or a plot point)."""
        self.chosen = index
        with QSignalBlocker(self.table):
            self.table.clearSelection() if index is None else self.table.selectRow(index)
        self.plot.show_trade(self.trade, index)
        self.summary.setText(self._summary())

    def _selection_changed(self) -> None:
        rows = {i.row() for i in self.table.selectedIndexes()}
        if len(rows) == 1:
            self.choose(rows.pop())

    def _summary(self) -> str:
        """What the table says, in one or two sentences."""
        t = self.trade
        if t is None:
            return NOTHING_YET
        rec, chosen = t.recommended, self.chosen
        head = ("How natural each try sounds could not be measured on this computer: "
                if t.base_naturalness is None else "")
        if rec is None:
            text = head + ("no try sounds natural enough to recommend: each is much less natural than the base "
                           "voice. Pick one to save anyway, or blend it with the base voice on the next step.")
        else:
            why = ("the one most like you" if t.base_naturalness is None else
                   "the one most like you that still sounds about as natural as the base voice")
            text = head + f"Recommended: {self.names[rec]}, {why}."
        if chosen is not None and chosen != rec:
            r = t.rows[chosen]
            text += f" You chose {self.names[chosen]}"
            if not t.natural_enough(r):
                text += (f": it sounds much less natural than the base voice ({r.naturalness:.1f} against "
                         f"{t.base_naturalness:.1f}). It is saved only because you chose it")
            text += "."
        elif rec is not None:
            text += " Pick another row or point to save that one instead."
        return text[0].upper() + text[1:]
