"""Live views of a clone's training: loss curves, checkpoint samples and the similarity / naturalness
plot (pyqtgraph, imported on first draw: it is slow to import)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView, QHBoxLayout, QHeaderView, QTableWidget, QWidget

from speechstudio.gui.common import add_row, bare, button, named
from speechstudio.gui.devices import allow
from speechstudio.gui.wheel_guard import guard_wheel
from speechstudio.gui.wording import LOSS_NAMES

#: Colours of the loss curves, by loss name (``StepEvent.losses`` keys; others are grey).
CURVE_COLORS = {"mel": "#3b82f6", "kl": "#a855f7", "dur": "#22c55e", "gen": "#f97316", "disc": "#ef4444",
                "fm": "#eab308", "val_mel": "#f8fafc"}
#: Losses not drawn (``total_g``: the weighted sum, on another scale than its terms).
HIDDEN_LOSSES = ("total_g",)
#: The validation curve's key (drawn on its own plot).
VAL_KEY = "val_mel"


class LossCurves(QWidget):
    """Training losses (left plot, with a legend) and the validation mel loss (right plot).
    Other curves (:class:`~speechstudio.gui.adapt_train.CTCCurves`) override :meth:`_make_plots`,
    :meth:`_make_curve` and :meth:`_drawn`."""

    #: each plot's minimum height (pixels)
    MIN_HEIGHT = 160

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.history: dict[str, tuple[list[int], list[float]]] = {}
        self.curves: dict = {}
        self._plot = self._val_plot = None
        self._dirty = False
        self._lay = bare(QHBoxLayout(self))
        self._timer = QTimer(self, interval=300, timeout=self.draw)

    def start(self) -> None:
        """Redraw periodically (while a run is going)."""
        self._timer.start()

    def stop(self) -> None:
        """Stop the periodic redraw after drawing what is pending."""
        self.draw()
        self._timer.stop()

    def clear(self) -> None:
        self.history.clear()
        for c in self.curves.values():
            c.setData([], [])

    def add_losses(self, step: int, losses: dict) -> None:
        for key, value in losses.items():
            if key not in HIDDEN_LOSSES:
                self.add(key, step, value)

    def add(self, key: str, step: int, value: float) -> None:
        steps, vals = self.history.setdefault(key, ([], []))
        steps.append(int(step))
        vals.append(float(value))
        self._dirty = True

    def _ensure_plots(self) -> None:
        if self._plot is not None:
            return
        import pyqtgraph as pg

        self._make_plots(pg)
        for p in (self._plot, self._val_plot):
            p.setLabel("bottom", "step")
            p.setMenuEnabled(False)
            p.setMinimumHeight(self.MIN_HEIGHT)
            guard_wheel(p)  # the wheel scrolls the page; Ctrl + wheel zooms

    def _make_plots(self, pg) -> None:
        """Make ``_plot`` (left) and ``_val_plot`` (right) and add them to the layout."""
        self._plot = named(pg.PlotWidget(title="how training is going (lower is better)"), "Training loss curves")
        self._plot.addLegend(offset=(-10, 10))
        self._val_plot = named(pg.PlotWidget(title="match with recordings it did not learn from (lower is better)"),
                               "Validation loss curve")
        self._lay.addWidget(self._plot, 2)
        self._lay.addWidget(self._val_plot, 1)

    def _make_curve(self, pg, key: str):
        """The plot item of curve ``key`` (made on its first value)."""
        val = key == VAL_KEY
        pen = pg.mkPen(CURVE_COLORS.get(key, "#6b7280"), width=2 if val else 1.5)
        return (self._val_plot if val else self._plot).plot([], [], pen=pen, name=LOSS_NAMES.get(key, key),
                                                            symbol="o" if val else None, symbolSize=5)

    def draw(self) -> None:
        """Draw what changed since the last draw (the plots are made on the first one)."""
        if not self._dirty:
            return
        self._ensure_plots()
        import pyqtgraph as pg

        for key, (steps, vals) in self.history.items():
            curve = self.curves.get(key)
            if curve is None:
                curve = self.curves[key] = self._make_curve(pg, key)
            curve.setData(steps, vals)
        self._drawn()
        self._dirty = False

    def _drawn(self) -> None:
        """After a draw: what a subclass draws besides the curves."""


class SampleTable(QTableWidget):
    """Rows of (step, sample name, Play button); Enter on a row plays it too. Signal
    ``play(path)`` asks the owner to play a file."""

    play = Signal(object)

    def __init__(self, audio, parent=None) -> None:
        super().__init__(0, 3, parent)
        self.samples: list[tuple[int, Path]] = []
        self.audio = audio  # the window's AudioHub: Play follows the no-device policy (gui.devices)
        self.setAccessibleName("Checkpoint samples")
        self.setHorizontalHeaderLabels(("Step", "Sample", ""))
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.cellActivated.connect(lambda r, _c: self.play_row(r))

    def clear_samples(self) -> None:
        self.samples.clear()
        self.setRowCount(0)

    def add_sample(self, step: int, path: Path) -> None:
        """Add ``path`` (a WAV the trainer wrote at checkpoint ``step``)."""
        path = Path(path)
        self.samples.append((step, path))
        r = add_row(self, [str(step), path.stem.replace("_", " ")], ["", str(path)])
        btn = button("Play", f"Play sample {path.stem} of step {step}")
        allow(btn, self.audio, "speaker")
        btn.clicked.connect(lambda _=False, row=r: self.play_row(row))
        self.setCellWidget(r, 2, btn)
        self.scrollToBottom()

    def play_row(self, row: int) -> None:
        if 0 <= row < len(self.samples):
            self.play.emit(self.samples[row][1])


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
