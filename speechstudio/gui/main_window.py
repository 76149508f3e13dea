"""The main window: page list, the mel view and GPU monitor docks, a status line; owns the ``compute``,
``io`` and ``downloads`` workers and the :class:`AudioHub`."""
from __future__ import annotations

import importlib
import logging

from PySide6.QtCore import QByteArray, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QAbstractButton, QAbstractSpinBox, QApplication, QComboBox, QDockWidget, QFrame,
                               QLabel, QLineEdit, QListWidget, QMainWindow, QPlainTextEdit, QScrollArea, QSizePolicy,
                               QStackedWidget, QTextEdit, QWidget)

from speechstudio.gui.audio_hub import AudioHub
from speechstudio.gui.common import bare, hrow, named, note_label, set_font, settings
from speechstudio.gui.gpu_panel import GpuPanel
from speechstudio.gui.transcribe_page import TranscribePage
from speechstudio.gui.window_menus import PAGES, WindowMenusMixin
from speechstudio.gui.wording import UNEXPECTED, jargon_in, plain_error
from speechstudio.worker.monitor import SystemMonitor
from speechstudio.worker.worker import Worker

FIRST_SIZE = (1280, 800)
MIN_SIZE = (900, 600)
DOCK_HEIGHT = 230  # the docks' first height in a window 800 px high or more
PAGE_ROOM = 570  # px of window height the pages get first (menu and status bar included): their room at 1280x800
DOCK_MIN_HEIGHT = 120  # the docks shrink no lower (a 900x600 window's)
FRAME_WAIT_TRIES = 30  # x 100 ms: how long the first window waits for the window manager's frame


class MainWindow(WindowMenusMixin, QMainWindow):
    def __init__(self, audio_backend=None, start_monitor: bool = True) -> None:
        super().__init__()
        # the display name alone: Qt appends it to any title not ending with it (the version is in Help > About)
        self.setWindowTitle("SpeechStudio")
        self.setAccessibleName("SpeechStudio main window")
        self._fit_to_screen()
        self.compute = Worker("compute", self)
        self.io = Worker("io", self)
        self.downloads = Worker("downloads", self)
        self.audio = AudioHub(audio_backend, self)

        self.nav = named(QListWidget(), "Pages")
        self.nav.addItems(PAGES)
        self.stack = QStackedWidget()
        self.transcribe = TranscribePage(self.compute, self.io, self.audio)
        self._add_to_stack(self.transcribe)
        self.dictate = self._page("speechstudio.gui.dictate_page", "DictatePage")
        self.speak = self._page("speechstudio.gui.speak_page", "SpeakPage")
        self.record = self._page("speechstudio.gui.record_page", "RecordPage")
        self.models = self._page("speechstudio.gui.models_page", "ModelsPage")
        self.clone = self._page("speechstudio.gui.clone_page", "ClonePage")
        self.adapt = self._page("speechstudio.gui.adapt_page", "AdaptPage")
        central = QWidget()  # a plain row, no splitter: the page list has a fixed width
        central.setLayout(bare(hrow(self.nav, (self.stack, 1), stretch=False)))
        self.setCentralWidget(central)
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)

        self.status = self.statusBar()
        self._status_page, self._app_status = None, "Ready"  # the page (shown) that said the line; the app's last
        self.status_label = named(QLabel(self._app_status), "Status line")
        # a long message is cut at the window's edge (full text in the tooltip), never widens the window
        self.status_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.status.addWidget(self.status_label, 1)
        self.worker_label = named(QLabel("idle"), "Worker state")
        self.status.addPermanentWidget(self.worker_label)
        if not self.audio.available:
            self.audio_label = named(QLabel("audio off"), "Audio state", self.audio.reason)
            self.status.addPermanentWidget(self.audio_label)
            self.show_status(self.audio.reason)
        for page in self.pages():
            page.status_message.connect(lambda text, page=page: self.show_status(text, page))
        self._pause_note = ""  # "playing" / "paused" said by Space (play_pause): replaced when playback ends
        self.audio.playing_changed.connect(self._playback_changed)
        # "working…" while any worker is busy: transcription and speech, or a wizard's training
        busy: dict[str, bool] = {}

        def worker_busy(name: str, flag: bool) -> None:
            busy[name] = flag
            self.worker_label.setText("recording…" if self.audio.mic_user else "working…" if any(busy.values())
                                      else "idle")

        self.audio.mic_changed.connect(lambda _user: worker_busy("mic", False))

        for name, worker in (("compute", self.compute), ("clone", getattr(self.clone, "trainer", None)),
                             ("adapt", getattr(self.adapt, "trainer", None))):
            if worker is not None:
                worker.busy_changed.connect(lambda flag, name=name: worker_busy(name, flag))

        self._mel = None
        self.gpu = GpuPanel()
        for name, title, body in (("mel_dock", "Sound picture (spectrogram)", QLabel("Sound picture loading…")),
                                  ("gpu_dock", "GPU monitor", self.gpu)):
            dock = QDockWidget(title, self)
            dock.setObjectName(name)
            dock.setWidget(body)
            self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            setattr(self, name, dock)
        # the GPU monitor beside the mel view, under the pages: the pages get the window's full width
        self.splitDockWidget(self.mel_dock, self.gpu_dock, Qt.Orientation.Horizontal)
        self._fit_docks()
        self.resizeDocks([self.mel_dock, self.gpu_dock], [900, 340], Qt.Orientation.Horizontal)
        self.monitor = SystemMonitor(1.0, self)
        self.monitor.sampled.connect(self.gpu.update_sample)
        set_font(self.nav, 12)  # not a style sheet: it would keep the light palette after a theme switch
        self.nav.setSpacing(4)
        # as wide as the longest page name ("Adapt recognition") at the list's 12 pt
        longest = max(self.nav.fontMetrics().horizontalAdvance(name) for name in PAGES)
        self.nav.setFixedWidth(max(130, longest + 2 * 6 + 2 * self.nav.frameWidth() + 8))
        self.nav.currentRowChanged.connect(self._page_shown)

        self._menus()
        self._shortcuts()
        self._restore()
        self._drop_missing_models()
        # the mel view once the window is on screen (see mel); the window as the timers' context drops them
        QTimer.singleShot(400, self, lambda: self.mel)
        if start_monitor:
            QTimer.singleShot(0, self, self.monitor.start)
        if self.models is not None:
            QTimer.singleShot(50, self, self.models.refresh)

    def _fit_to_screen(self) -> None:
        """First-launch size :data:`FIRST_SIZE` and minimum :data:`MIN_SIZE`, capped by the screen."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        avail = screen.availableGeometry() if screen is not None else QRect()
        room = QSize(*FIRST_SIZE) if avail.isEmpty() else avail.size()  # no screen size known: not capped
        # explicit, so a page's long unbreakable text cannot widen the window past the screen
        self.setMinimumSize(QSize(*MIN_SIZE).boundedTo(room))
        self.resize(QSize(*FIRST_SIZE).boundedTo(room))
        self._frame_wait = False

    def clamp_to_screen(self) -> None:
        """Shrink and move the window so that its frame (title bar included) is inside the screen."""
        screen = self.screen()
        if screen is None or self.isMaximized() or self.isFullScreen():
            return
        avail = screen.availableGeometry()
        inside = avail.size() - (self.frameGeometry().size() - self.size())     # the frame inside the screen
        # a 1024x600 netbook: MIN_SIZE's 600 px plus a 19 px title bar put the status bar below the screen
        self.setMinimumSize(self.minimumSize().boundedTo(inside))
        size = self.size().boundedTo(inside)
        if size != self.size():
            self.resize(size.expandedTo(self.minimumSize()))
        frame = self.frameGeometry()
        x = min(max(frame.x(), avail.x()), avail.right() + 1 - frame.width())
        y = min(max(frame.y(), avail.y()), avail.bottom() + 1 - frame.height())
        if (x, y) != (frame.x(), frame.y()):
            self.move(max(x, avail.x()), max(y, avail.y()))

    def _fit_frame(self, tries: int = FRAME_WAIT_TRIES) -> None:
        """Clamp to the screen now and every 100 ms until the window manager reports its frame."""
        self.clamp_to_screen()
        if self.frameGeometry().size() == self.size() and tries > 0:
            QTimer.singleShot(100, self, lambda: self._fit_frame(tries - 1))

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        if not self._frame_wait:
            self._frame_wait = True  # once per window
            QTimer.singleShot(0, self, self._fit_frame)

    _docks_due, _dock_set, _fit_h = False, 0, 0  # a _fit_docks is queued; the docks' and window's heights it left

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        if not self._docks_due:      # after the event, once: resizing docks inside a resize re-enters the layout
            self._docks_due = True
            QTimer.singleShot(0, self, self._fit_docks)

    def _dock_height(self) -> int:
        return max(DOCK_MIN_HEIGHT, min(DOCK_HEIGHT, self.height() - PAGE_ROOM))

    def _fit_docks(self) -> None:
        """The bottom docks get the window's height beyond the pages' :data:`PAGE_ROOM` (:data:`DOCK_MIN_HEIGHT` to
        :data:`DOCK_HEIGHT` px); a height the user dragged them to (saved) stays unless the window is made lower."""
        self._docks_due = False
        bottom = [d for d in (self.mel_dock, self.gpu_dock) if not d.isFloating() and d.isVisible()
                  and self.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea]
        if not bottom and self.isVisible():
            return
        dock = bottom[0] if bottom else self.mel_dock  # before the window is shown: its first size
        height, lower = self._dock_height(), self.height() < self._fit_h
        if not bottom or dock.height() == self._dock_set or lower and dock.height() > height:
            self.resizeDocks([dock], [height], Qt.Orientation.Vertical)
            self._dock_set = height
        self._fit_h = self.height()

    @property
    def mel(self):
        """The live mel view, built on first use (pyqtgraph is slow to import; not in a thread: shiboken's
        lazy type setup is not thread-safe)."""
        if self._mel is None:
            from speechstudio.gui.mel_view import MelView

            self._mel = MelView()
            self.mel_dock.setWidget(self._mel)
            self.audio.mel_frames.connect(self._mel.push_frames)
        return self._mel

    def _page_shown(self, index: int) -> None:
        page = self._inner(self.stack.widget(index))
        # leaving a page leaves no stale sound picture (unless something still plays or records)
        if self._mel is not None and not self.audio.playing and self.audio.recorder is None and not (
                self.dictate is not None and getattr(self.dictate, "running", False)):
            self._mel.clear()
        if page is self.speak and self.speak is not None:
            self.speak.preload()
        if self._status_page not in (None, page):  # its line says nothing here: the app's last line again
            self.show_status(self._app_status)

    def _add_to_stack(self, page: QWidget) -> None:
        """Add a page inside a frameless scroll area: a page larger than its room scrolls."""
        area = QScrollArea()
        area.setFrameShape(QFrame.Shape.NoFrame)
        area.setWidgetResizable(True)
        area.setWidget(page)
        self.stack.addWidget(area)

    @staticmethod
    def _inner(area: QWidget | None) -> QWidget | None:
        return area.widget() if area is not None and hasattr(area, "widget") else area

    def _page(self, module: str, cls: str) -> QWidget | None:
        """Build one page; one that cannot load becomes a line of text saying why (the window still works)."""
        try:
            page = getattr(importlib.import_module(module), cls)(self)
        except Exception as e:  # noqa: BLE001 - the window must open anyway
            logging.getLogger(__name__).warning("page %s unavailable", cls, exc_info=True)
            self._add_to_stack(note_label("Page unavailable", f"This page could not be loaded: {plain_error(e)}"))
            return None
        self._add_to_stack(page)
        return page

    def current_page(self) -> QWidget:
        return self._inner(self.stack.currentWidget())

    def pages(self) -> list[QWidget]:
        """The pages that loaded (a page whose module is missing is left out)."""
        return [p for p in (self.transcribe, self.dictate, self.speak, self.record, self.models, self.clone,
                            self.adapt) if p is not None]

    def show_page(self, name: str) -> QWidget:
        """Switch to the page called ``name`` (one of ``PAGES``) and return it."""
        self.nav.setCurrentRow(PAGES.index(name))
        return self.current_page()

    def play_pause(self) -> None:
        """Space: pause/resume what plays, else play the current page's selection (a focused button gets it)."""
        focus = QApplication.focusWidget()
        if isinstance(focus, QAbstractButton) and focus.isEnabled():
            focus.animateClick()
            return
        if isinstance(focus, QComboBox) and focus.isEnabled():     # Space opens a focused list, as everywhere
            focus.showPopup()
            return
        if self.audio.playing:
            paused = self.audio.toggle_pause()
            self._pause_note = "paused" if paused else "playing"
            self.show_status(self._pause_note)
            return
        page = self.current_page()
        if page is self.transcribe:
            self.transcribe.play_selected_segment()
        elif page is self.record and self.record is not None:
            self.record.play()

    def _playback_changed(self, playing: bool) -> None:
        if not playing and not self.audio.playing and self._pause_note:
            if self.status_label.text() == self._pause_note:  # still Space's word, no page's line since
                self.show_status("playback ended")
            self._pause_note = ""

    def run_action(self) -> None:
        """Ctrl+Enter: Speak on the Speak page, Start on Transcribe, start/stop on Dictate."""
        page = self.current_page()
        if page is self.speak and self.speak is not None:
            self.speak.speak()
        elif page is self.dictate and self.dictate is not None:
            self.dictate.toggle()
        elif page is self.transcribe:
            self.transcribe.start()

    def cancel_action(self) -> None:
        """Esc: stop playback, then the current page's work. In a field being typed in, Esc only leaves the field
        (the find field: back to the transcript; the transcript's text: stays): it never stops a run."""
        self.audio.stop()
        focus = QApplication.focusWidget()
        if isinstance(focus, (QTextEdit, QPlainTextEdit)) and not focus.isReadOnly():
            return
        if isinstance(focus, (QLineEdit, QAbstractSpinBox)):
            editor = self.transcribe.transcript.editor
            if editor.isVisible() and editor.isAncestorOf(focus):
                editor.text.setFocus()
            else:
                focus.clearFocus()
            return
        page = self.current_page()
        if page is self.transcribe:
            page.cancel()
        elif page is self.models and page is not None:
            page.cancel_download()
        elif hasattr(page, "stop"):  # Speak, Dictate, Record and the wizards
            page.stop()

    def show_status(self, text: str, page: QWidget | None = None) -> None:
        """The status line (a raw error line that slips past ``plain_error`` reads ``UNEXPECTED``). A line from ``page``
        while shown goes once another page is shown; the window's and those of pages not shown (a queue ending) stay."""
        plain = UNEXPECTED if {"exception class name", "raw import error"} & set(jargon_in(text)) else text
        self.status_label.setText(plain)
        self.status_label.setToolTip(plain if plain == text else f"{plain}\n\nDetails: {text}")
        self._status_page = page if page is self.current_page() else None
        self._app_status = text if self._status_page is None else self._app_status

    def _restore(self) -> None:
        s = settings()  # Qt moves/shrinks a saved geometry onto the current screens
        for key, restore in (("window/geometry", self.restoreGeometry), ("window/state", self.restoreState)):
            if isinstance(saved := s.value(key), QByteArray) and not saved.isEmpty():
                restore(saved)
        self._dock_set, self._fit_h = self._dock_height(), self.height()  # docks saved at another: the user's
        self.nav.setCurrentRow(s.value("window/page", 0, type=int))  # 0 when unreadable

    def save_settings(self) -> None:
        s = settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("window/page", self.nav.currentRow())
        for page in self.pages():
            if hasattr(page, "save_settings"):
                page.save_settings()
        s.sync()

    def closeEvent(self, event) -> None:  # noqa: N802
        self.save_settings()
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop audio, the monitor and the workers (cancels running jobs)."""
        self.audio.shutdown()
        self.monitor.stop()
        for page in (self.dictate, self.clone, self.adapt):  # Dictate: global hotkey, tray icon, captions window;
            if page is not None and hasattr(page, "shutdown"):  # the wizards: training stops (a checkpoint is saved)
                page.shutdown()
        for e in (self.compute, self.io, self.downloads):
            e.shutdown(timeout=3)
