"""Live scrolling log-mel spectrogram (pyqtgraph): 80 mel bins, 25 ms / 10 ms frames from the
:class:`AudioHub`, redrawn at most every 40 ms; ``image`` is ``(n_frames, 80)`` log10 power."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QWidget

from speechstudio.audio.mel import HOP_S, N_MELS
from speechstudio.gui.common import named, vbox

FLOOR = -10.0  # log10 power shown as black
IDLE_CAPTION = "Sound picture: idle (shows the microphone while recording and whatever is playing)"
DETAILS = "Live log-mel spectrogram: 80 mel bins, 25 ms window, 10 ms hop; low pitches at the bottom"


def caption_for(source: str) -> str:
    """The caption for a ``mel_frames`` source: ``"mic"``, ``"file:NAME"`` or (anything else) playback."""
    if source == "mic":
        return "Sound picture: microphone"
    if source.startswith("file:"):
        return f"Sound picture: {source[5:]}"
    return "Sound picture: playback"


class MelView(QWidget):
    def __init__(self, seconds: float = 6.0, parent=None) -> None:
        super().__init__(parent)
        import pyqtgraph as pg

        pg.setConfigOptions(imageAxisOrder="col-major", antialias=False)
        self.n_frames = int(round(seconds / HOP_S))
        self.image = np.full((self.n_frames, N_MELS), FLOOR, dtype=np.float32)
        self.frames_received = 0
        self.updates = 0  # redraws so far
        self._dirty = False
        self.source = ""

        self.plot = named(pg.PlotWidget(), "Live mel spectrogram")
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(False, False)
        self.plot.hideButtons()
        self._axis_title = ""
        self._title_axis()
        self.plot.getAxis("left").setStyle(showValues=False)  # mel bin numbers (0-80) say nothing to a listener
        self.plot.setLabel("bottom", "seconds")
        self.img = pg.ImageItem(self.image)
        self.img.setRect(-seconds, 0, seconds, N_MELS)
        cmap = pg.colormap.get("inferno")
        self.img.setLookupTable(cmap.getLookupTable(nPts=256))
        self.img.setLevels((-6.0, 1.5))
        self.plot.addItem(self.img)
        self.plot.setXRange(-seconds, 0, padding=0)
        self.plot.setYRange(0, N_MELS, padding=0)
        self.caption = named(QLabel(IDLE_CAPTION), "Mel view status", DETAILS)
        vbox(self, self.caption, self.plot).setContentsMargins(4, 2, 4, 2)
        self.setMinimumHeight(80)  # a short window's docks give the pages room (main_window.DOCK_MIN_HEIGHT)

        self._timer = QTimer(self, interval=40, timeout=self._redraw)
        self._timer.start()

    def _title_axis(self) -> None:
        """The vertical axis's title as long as the plot's height lets it be read whole ("pitch" alone, then none)."""
        h = self.plot.height() if self.isVisible() else 200     # before the first show: the usual dock
        title = "pitch (low to high)" if h >= 150 else "pitch" if h >= 60 else ""
        if title != self._axis_title:
            self._axis_title = title
            self.plot.setLabel("left", title)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        QTimer.singleShot(0, self, self._title_axis)  # once the layout has given the plot its new height

    def push_frames(self, frames: np.ndarray, source: str = "") -> None:
        """Append log-mel frames (``np.ndarray[float32]`` shape ``(k, 80)``) and scroll left."""
        frames = np.asarray(frames, dtype=np.float32)
        k = len(frames)
        if k == 0:
            return
        self.image[:] = np.concatenate((self.image, frames))[-self.n_frames:]
        self.frames_received += k
        if source and source != self.source:
            self.source = source
            self.caption.setText(caption_for(source))
        self._dirty = True

    def clear(self) -> None:
        """Blank the picture and say it is idle (a page change leaves no stale picture)."""
        self.image[:] = FLOOR
        self.source = ""
        self.caption.setText(IDLE_CAPTION)
        self._dirty = True

    def _redraw(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        self.img.setImage(self.image, autoLevels=False)
        self.updates += 1
