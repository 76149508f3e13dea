"""Live curves of a CTC fine-tuning run: training loss (left) and held-out WER / CER with the base
model's figures at step 0 (right)."""
from __future__ import annotations

from speechstudio.gui.clone_plots import LossCurves
from speechstudio.gui.common import named

#: ``history`` keys and their colours.
LOSS_KEY, WER_KEY, CER_KEY = "loss", "wer", "cer"
COLORS = {LOSS_KEY: "#3b82f6", WER_KEY: "#f97316", CER_KEY: "#22c55e"}


class CTCCurves(LossCurves):
    """Left: CTC loss by step; right: WER and CER by step (step 0: the base model)."""

    MIN_HEIGHT = 150

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.base_wer: float | None = None
        self._base_line = None

    def set_base(self, wer: float, cer: float) -> None:
        """The base model's figures: the first WER / CER points (step 0) and a dashed line."""
        self.base_wer = float(wer)
        for key, value in ((WER_KEY, wer), (CER_KEY, cer)):
            steps, vals = self.history.setdefault(key, ([], []))
            if steps and steps[0] == 0:
                vals[0] = float(value)
            else:
                steps.insert(0, 0)
                vals.insert(0, float(value))
        self._dirty = True

    def clear(self) -> None:
        super().clear()
        self.base_wer = None
        if self._base_line is not None:
            self._base_line.setVisible(False)

    def _make_plots(self, pg) -> None:
        self._plot = named(pg.PlotWidget(title="how training is going (lower is better)"), "Training loss curve")
        # plain words on the chart; WER / CER in the tooltip
        self._val_plot = named(pg.PlotWidget(title=f"<span style='color:{COLORS[WER_KEY]}'>words</span> / "
                                                   f"<span style='color:{COLORS[CER_KEY]}'>letters</span> wrong on "
                                                   "held-back clips (step 0: base model)"),
                               "Word and character error rate curves", "Word error rate (WER, orange) and character "
                               "error rate (CER, green) on the clips held back from training, in percent; lower is better")
        self._val_plot.getAxis("left").setScale(100)  # ticks in percent, as the figures above it (history: 0..1)
        self._base_line = pg.InfiniteLine(angle=0, movable=False,
                                          pen=pg.mkPen("#f97316", width=1, style=pg.QtCore.Qt.PenStyle.DashLine),
                                          label="base model", labelOpts={"position": 0.5, "color": "#f97316"})
        self._base_line.setVisible(False)
        self._val_plot.addItem(self._base_line)
        self._lay.addWidget(self._plot, 1)
        self._lay.addWidget(self._val_plot, 1)

    def _make_curve(self, pg, key: str):
        rate = key != LOSS_KEY
        plot = self._val_plot if rate else self._plot
        return plot.plot([], [], pen=pg.mkPen(COLORS.get(key, "#6b7280"), width=2 if rate else 1.5),
                         name=key.upper() if rate else None, symbol="o" if rate else None, symbolSize=6)

    def _drawn(self) -> None:
        if self.base_wer is not None:
            self._base_line.setValue(self.base_wer)
            self._base_line.setVisible(True)
