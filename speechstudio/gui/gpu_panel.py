"""GPU monitor dock content (a scroll area): per NVIDIA GPU utilisation, VRAM, temperature, power, SM clock,
throttle reasons, ~1 min sparklines beside utilisation, VRAM, CPU and RAM; without a GPU, a plain line and CPU /
RAM. Samples come from :class:`~speechstudio.worker.monitor.SystemMonitor` (its own thread)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QGroupBox, QLabel, QScrollArea, QVBoxLayout, QWidget

from speechstudio.gui.common import Sparkline, named, note_label, vbox
from speechstudio.gui.wording import plain_error


def _num(v, fmt: str, unit: str) -> str:
    return "n/a" if v is None else f"{v:{fmt}} {unit}".strip()


def _rows(box: QGroupBox, *rows, text: str = "") -> list[QLabel]:
    """A label per ``(row title, accessible name[, sparkline beside it])`` in a grid on ``box``."""
    grid = QGridLayout(box)
    grid.setColumnStretch(2, 1)
    labels = []
    for r, (title, name, *spark) in enumerate(rows):
        labels.append(named(QLabel(text), name))
        grid.addWidget(QLabel(title), r, 0)
        grid.addWidget(labels[-1], r, 1)
        for s in spark:
            grid.addWidget(s, r, 2)
    return labels


class _GpuBox(QGroupBox):
    def __init__(self, title: str, parent=None) -> None:
        super().__init__(title, parent)
        self.util_spark = Sparkline(color="#22c55e")
        self.mem_spark = Sparkline(color="#3b82f6")
        self.util, self.mem, self.temp, self.power, self.clock, self.throttle, self.proc = _rows(
            self, ("Utilisation", "GPU utilisation", self.util_spark), ("VRAM", "VRAM used", self.mem_spark),
            ("Temperature", "GPU temperature"), ("Power", "GPU power"), ("SM clock", "SM clock"),
            ("Throttle", "Throttle reasons"), ("This app", "VRAM of this app"))

    def update_sample(self, g) -> None:
        self.setTitle(f"GPU {g.index}: {g.name}")
        self.util.setText(_num(g.util_pct, ".0f", "%"))
        self.util_spark.add(g.util_pct)
        known = g.mem_used_mib is not None and bool(g.mem_total_mib)
        share = 100 * g.mem_used_mib / g.mem_total_mib if known else None
        self.mem.setText(f"{g.mem_used_mib / 1024:.1f} / {g.mem_total_mib / 1024:.1f} GiB ({share:.0f}%)" if known
                         else "n/a")
        self.mem_spark.add(share)
        self.temp.setText(_num(g.temp_c, ".0f", "°C"))
        self.power.setText(_num(g.power_w, ".0f", "W") + (f" / {g.power_limit_w:.0f} W"
                                                          if g.power_w is not None and g.power_limit_w else ""))
        self.clock.setText(_num(g.sm_clock_mhz, ".0f", "MHz"))
        self.throttle.setText(g.throttle)
        self.proc.setText(_num(g.process_vram_mib, ".0f", "MiB")
                          if g.process_vram_mib is not None else "no model on this GPU")
        self.proc.setToolTip("as PyTorch's allocator counts it" if g.process_vram_mib is not None else "")


class GpuPanel(QScrollArea):
    """Show :class:`~speechstudio.worker.monitor.SystemSample` objects (``update_sample``)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName("GPU monitor")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # as wide as its rows
        body = QWidget()
        self.setWidget(body)
        self.headline = note_label("GPU status", "Reading GPU status ...")
        self.gpu_boxes: list[_GpuBox] = []
        self._gpu_area = QVBoxLayout()
        sysbox = QGroupBox("This computer")
        self.cpu_spark = Sparkline(color="#f97316")
        self.ram_spark = Sparkline(color="#a855f7")
        self.cpu, self.ram, self.rss = _rows(sysbox, ("CPU", "CPU usage", self.cpu_spark),
                                             ("RAM", "RAM usage", self.ram_spark), ("This app", "Memory of this app"),
                                             text="…")
        vbox(body, self.headline, self._gpu_area, sysbox).addStretch(1)
        self._fit_width()

    def _fit_width(self) -> None:
        """The dock never narrower than its rows (it scrolls up and down only)."""
        self.setMinimumWidth(self.widget().minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width())

    def update_sample(self, s) -> None:
        if s.gpus:
            self.headline.setText(f"{len(s.gpus)} NVIDIA GPU{'s' if len(s.gpus) > 1 else ''}"
                                  + (f", driver {s.driver}" if s.driver else ""))
        else:
            reason = s.no_gpu_reason or "No NVIDIA GPU found"
            self.headline.setText(f"{plain_error(reason)}. Models run on the CPU; "
                                  "showing CPU and RAM instead.")
            self.headline.setToolTip(reason)
        while len(self.gpu_boxes) < len(s.gpus):
            box = _GpuBox(f"GPU {len(self.gpu_boxes)}")
            self.gpu_boxes.append(box)
            self._gpu_area.addWidget(box)
            self._fit_width()
        for box, g in zip(self.gpu_boxes, s.gpus):
            box.setVisible(True)
            box.update_sample(g)
        for box in self.gpu_boxes[len(s.gpus):]:
            box.setVisible(False)
        self.cpu.setText(f"{s.cpu_pct:.0f}%")
        self.cpu_spark.add(s.cpu_pct)
        if s.ram_total_mib:
            self.ram.setText(f"{s.ram_used_mib / 1024:.1f} / {s.ram_total_mib / 1024:.1f} GiB")
            self.ram_spark.add(100 * s.ram_used_mib / s.ram_total_mib)
        self.rss.setText(f"{s.process_rss_mib:.0f} MiB")
        if self.minimumWidth() < self.widget().minimumSizeHint().width():  # a longer value than before
            self._fit_width()
