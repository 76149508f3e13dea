"""The transcript player's seek bar: a slider in tenths of a second over the waveform, a "0:12 / 4:00"
label; ``seeked(seconds)`` when the user drags or clicks."""
from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QSlider, QStyle, QStyleOptionSlider, QWidget

from speechstudio.gui.common import bare, named
from speechstudio.gui.waveform_view import WaveformView
from speechstudio.progress import clock

STEPS_PER_S = 10  # slider resolution: 0.1 s


class SeekBar(QWidget):
    seeked = Signal(float)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        lay = bare(QGridLayout(self))
        lay.setVerticalSpacing(0)
        self.waveform = WaveformView()
        self.waveform.seeked.connect(self._clicked)
        self.slider = named(QSlider(Qt.Orientation.Horizontal), "Position in the recording",
                            "Drag to jump in the recording; the text follows while it plays")
        self.label = named(QLabel("0:00 / 0:00"), "Position and length")
        lay.addWidget(self.waveform, 0, 0)
        lay.addWidget(self.slider, 1, 0)
        lay.addWidget(self.label, 1, 1)
        lay.setColumnStretch(0, 1)
        opt = QStyleOptionSlider()
        self.slider.initStyleOption(opt)  # line the waveform up with the groove the handle runs on
        self.waveform.set_margin(self.style().pixelMetric(QStyle.PixelMetric.PM_SliderLength, opt, self.slider) // 2)
        self.duration_s = 0.0
        self.slider.sliderMoved.connect(self._moved)
        self.slider.actionTriggered.connect(lambda _a: self._moved(self.slider.sliderPosition()))
        self.set_duration(0.0)

    def set_duration(self, seconds: float) -> None:
        """The recording's length (0: nothing to seek; the bar is disabled)."""
        self.duration_s = max(0.0, float(seconds or 0.0))
        self.slider.setRange(0, int(round(self.duration_s * STEPS_PER_S)))
        self.setEnabled(self.duration_s > 0)
        self.waveform.set_duration(self.duration_s)
        self.waveform.set_position(0.0)
        self._say(0.0)

    def set_peaks(self, peaks) -> None:
        """The waveform peaks (``(columns, 2)``: min / max, from ``audio.waveform.peaks``); ``None`` while unknown."""
        self.waveform.set_peaks(peaks)

    def show_position(self, seconds: float) -> None:
        """Move the handle to ``seconds`` (not while the user is dragging it)."""
        if self.slider.isSliderDown():
            return
        with QSignalBlocker(self.slider):
            self.slider.setValue(int(round(min(max(0.0, seconds), self.duration_s) * STEPS_PER_S)))
        self.waveform.set_position(min(max(0.0, seconds), self.duration_s))
        self._say(seconds)

    @property
    def position_s(self) -> float:
        return self.slider.value() / STEPS_PER_S

    def _moved(self, value: int) -> None:
        t = value / STEPS_PER_S
        self.waveform.set_position(t)
        self._say(t)
        self.seeked.emit(t)

    def _clicked(self, t: float) -> None:  # on the waveform
        self.show_position(t)
        self.seeked.emit(t)

    def _say(self, seconds: float) -> None:
        self.label.setText(f"{clock(max(0.0, min(seconds, self.duration_s)))} / {clock(self.duration_s)}")
