"""The Dictate page's "dictate into any app" controls (issue 16), offscreen: a session's updates
go through spoken commands to the output (a fake injector at the sink boundary: exact key
calls), "stop dictating" stops the page, the captions window shows composed text + grey tail and
remembers its font size / width / opacity / position, the hotkey (fake pynput listener) starts
and stops the page, a missing injector is a message while the page still gets the text, the
commands editor saves the table.
"""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytest.importorskip("PySide6")

from speechstudio.asr.streaming import StreamUpdate  # noqa: E402
from speechstudio.asr.types import Word  # noqa: E402
from speechstudio.worker.dictation import DictateResult, DictateStarted  # noqa: E402
from test_dictation_output import CTRL, ALT, D, FakeInjector, FakeListener  # noqa: E402


class FakeAudio:
    available, reason, recorder = True, "", None

    def claim_mic(self, user: str) -> None:
        pass

    def release_mic(self, user: str) -> None:
        pass

    def __init__(self) -> None:
        from PySide6.QtCore import QObject, Signal

        class Hub(QObject):
            mel_frames = Signal(object, str)

        self._hub = Hub()
        self.mel_frames = self._hub.mel_frames
        self.played: list[np.ndarray] = []

        class Backend:
            def input_devices(self):
                return []

        self.backend = Backend()

    def play(self, audio, rate):
        self.played.append(audio)


@pytest.fixture
def page(qtbot, home):
    from types import SimpleNamespace

    from speechstudio.gui.dictate_page import DictatePage
    from speechstudio.worker.worker import Worker

    win = SimpleNamespace(compute=Worker("test"), audio=FakeAudio())
    p = DictatePage(win)
    qtbot.addWidget(p)
    yield p
    p.shutdown()
    win.compute.shutdown(timeout=3)


class FakeJob:
    stopped = False

    def stop(self):
        self.stopped = True


def session(page, engine="wav2vec2"):
    """Pretend a job runs: the page's engine-signal handlers get what a DictateJob yields."""
    page.anywhere.open_output()
    page.job, page.job_id = FakeJob(), 7
    page._on_progress(7, DictateStarted("model m", "m", "cpu", "window", "fake mic", 16000, engine))


def U(kind, utt, words, stable, tail=""):
    return StreamUpdate(kind, utt, tuple(Word(i * 0.3, i * 0.3 + 0.2, w) for i, w in enumerate(words)), stable, tail,
                        1.0, 0.8)


def test_type_output_with_spoken_commands_and_stop_dictating(page, qtbot, monkeypatch):
    import speechstudio.dictation.inject as inject

    inj = FakeInjector()

    monkeypatch.setattr(inject, "open_injector", lambda *a, **k: inj)
    page.anywhere.output_box.setCurrentIndex(page.anywhere.output_box.findData("type"))
    page.anywhere.hotkey_check.blockSignals(True)
    page.anywhere.hotkey_check.setChecked(True)                # cues play while the global hotkey is on
    page.anywhere.hotkey_check.blockSignals(False)
    session(page)
    assert "text goes to: type into the focused app" in page.note.text()
    page._on_progress(7, U("partial", 0, ["HELLO", "COMMA", "NEW"], "HELLO COMMA NEW", "LI"))
    page._on_progress(7, U("partial", 0, ["LINE", "SECOND", "PART"], "HELLO COMMA NEW LINE SECOND PART", ""))
    page._on_progress(7, U("final", 0, ["SCRATCH", "THAT"], "HELLO COMMA NEW LINE SECOND PART SCRATCH THAT"))
    page._on_progress(7, U("partial", 1, ["DONE", "STOP", "DICTATING"], "DONE STOP DICTATING"))
    qtbot.waitUntil(lambda: len(inj.calls) >= 4, timeout=5000)
    assert inj.calls == [("type", "Hello,"), ("type", "\nSecond part"), ("backspace", 11), ("type", "Done")]
    assert page.job.stopped                                   # "stop dictating" stopped the page
    assert page.text == "HELLO COMMA NEW LINE SECOND PART SCRATCH THAT DONE STOP DICTATING"  # the page: as heard
    out = page.anywhere.output
    page._on_finished(7, "done", DictateResult("x", (), 2.0, 0.1, 0.1))
    out._thread.join(5)
    assert not out._thread.is_alive() and inj.calls[-1] == ("type", "Done")
    assert len(page.win.audio.played) == 2                    # start and stop cues
    assert page.win.audio.played[0].dtype == np.float32 and page.win.audio.played[0].shape == (1920,)


def test_missing_injector_is_a_message_and_the_page_still_gets_the_text(page, monkeypatch):
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    monkeypatch.setenv("PATH", "/nonexistent")
    page.anywhere.output_box.setCurrentIndex(page.anywhere.output_box.findData("paste"))
    said = []
    page.status_message.connect(said.append)
    session(page, engine="whisper")
    assert "text stays in this window" in page.note.text() and "install wtype" in page.note.text()
    # the status line keeps saying so ("dictating with …" replaced the warning at once)
    status = said[-1]
    assert status.startswith("dictating with ") and "text stays in this window" in status and "wtype" in status
    page._on_progress(7, U("final", 0, ["Hello", "there."], "Hello there."))
    assert page.text == "Hello there." and page.anywhere.output is None
    page._on_finished(7, "done", DictateResult("Hello there.", (), 1.0, 0.1, 0.1))
    assert page.win.audio.played == []                        # no cue: the hotkey is off
    assert said[-1] == "dictation stopped: 1 s dictated."     # not "dictating with" any more


def shown_text(captions) -> str:
    """The plain text on the captions window now (after cutting old lines)."""
    return "".join(captions._fit(captions.stable, captions.tail))


def test_captions_show_composed_text_and_tail_and_remember_their_look(page, qtbot):
    from PySide6.QtCore import QPoint

    from speechstudio.gui.captions import CaptionsWindow

    page.anywhere.captions_check.setChecked(True)
    cap = page.anywhere.captions
    assert cap.isVisible()
    flags = cap.windowFlags()
    from PySide6.QtCore import Qt

    assert flags & Qt.WindowType.FramelessWindowHint and flags & Qt.WindowType.WindowStaysOnTopHint
    assert flags & Qt.WindowType.WindowDoesNotAcceptFocus
    session(page)
    page._on_progress(7, U("partial", 0, ["GOOD", "MORNING", "NEW"], "GOOD MORNING NEW", "EVERY"))
    assert (cap.stable, cap.tail) == ("Good morning", "NEW EVERY")
    assert shown_text(cap) == "Good morning NEW EVERY"
    cap.set_font_pt(30)
    cap.set_width(900)
    cap.set_opacity(0.6)
    cap.move(QPoint(40, 50))
    again = CaptionsWindow()
    qtbot.addWidget(again)
    assert (again.font_pt, again.width_px, again.opacity, again.pos()) == (30, 900, 0.6, QPoint(40, 50))
    assert again.width() == 900 and abs(again.windowOpacity() - 0.6) < 0.01
    # long text: only the newest lines are shown
    again.set_text(" ".join(f"word{i}" for i in range(300)), "tail")
    shown = shown_text(again)
    assert shown.endswith("word299 tail") and not shown.startswith("word0 ") and len(shown) < 600
    page.anywhere.captions_check.setChecked(False)
    assert not cap.isVisible()


def test_hotkey_starts_and_stops_the_page(page, qtbot, monkeypatch):
    log = []
    monkeypatch.setattr(page, "start", lambda source=None: log.append("start") or True)
    monkeypatch.setattr(page, "stop", lambda: log.append("stop"))
    FakeListener.instances.clear()
    assert page.anywhere.enable_hotkey(True, listener_factory=FakeListener) == ""
    lst = FakeListener.instances[-1]
    assert lst.started and "ctrl+alt+d (toggle)" in page.note.text()
    lst.chord(CTRL, ALT, D)
    qtbot.waitUntil(lambda: log == ["start"], timeout=3000)
    page.job_id = 3                                              # the page runs now
    lst.chord(CTRL, ALT, D)
    qtbot.waitUntil(lambda: log == ["start", "stop"], timeout=3000)
    page.job_id = None
    page.anywhere.enable_hotkey(False)
    assert lst.stopped and page.anywhere.hotkey is None
    page.anywhere.hotkey_edit.setText("ctrl+shift")
    page.anywhere.hotkey_check.setChecked(True)
    assert "expected modifiers and one key" in page.anywhere.enable_hotkey(True, listener_factory=FakeListener)
    assert "expected modifiers and one key" in page.note.text()
    # the box does not stay ticked for a hotkey that is not set (it said "on" while none worked)
    assert not page.anywhere.hotkey_check.isChecked()
    assert "expected modifiers and one key" in page.anywhere.hotkey_check.toolTip()


def test_settings_survive_a_new_page(page, qtbot):
    from types import SimpleNamespace

    from speechstudio.gui.dictate_page import DictatePage

    aw = page.anywhere
    aw.output_box.setCurrentIndex(aw.output_box.findData("paste"))
    aw.shortcut_box.setCurrentText("ctrl+shift+v")
    aw.commands_check.setChecked(False)
    aw.hotkey_edit.setText("ctrl+alt+f9")
    aw.hotkey_mode.setCurrentIndex(1)
    page.save_settings()
    other = DictatePage(SimpleNamespace(compute=page.compute, audio=FakeAudio()))
    qtbot.addWidget(other)
    o = other.anywhere
    assert (o.mode, o.shortcut_box.currentText(), o.commands_check.isChecked(), o.hotkey_edit.text(),
            o.hotkey_mode.currentData()) == ("paste", "ctrl+shift+v", False, "ctrl+alt+f9", "push_to_talk")
    other.shutdown()


def test_commands_dialog_edits_and_saves_the_table(page, qtbot, home):
    from speechstudio.dictation.commands import Command, CommandTable
    from speechstudio.gui.commands_dialog import CommandsDialog

    d = CommandsDialog(page, language="de")  # the Dictate page passes its language (issue 30)
    qtbot.addWidget(d)
    assert d.lang_box.currentText() == "de" and d.rows()[0] == Command("komma", ",")
    d.lang_box.setCurrentText("en")
    n = d.grid.rowCount()
    d._add_row(Command("", ","))
    d.grid.item(n, 0).setText("Smiley Face")
    d.grid.cellWidget(n, 1).setCurrentText(":-)")
    d._add_row(Command("", ","))
    d.grid.item(n + 1, 0).setText("undo that")
    d.grid.cellWidget(n + 1, 1).setCurrentText("scratch that (remove the last phrase)")
    d.save()
    t = CommandTable.load()
    en = t.for_language("en")
    assert en[-2:] == (Command("smiley face", ":-)"), Command("undo that", action="scratch"))
    assert en[0] == Command("comma", ",") and t.for_language("de")[0] == Command("komma", ",")


def test_tray_show_keeps_a_maximised_window_maximised(page, qtbot):
    """The tray's "Show SpeechStudio" un-maximised the window (showNormal); now it only un-minimises, as a second
    launch does (single_instance.bring_to_front)."""
    win = page.window()
    win.showMaximized()
    qtbot.waitUntil(win.isMaximized, timeout=5000)
    page.anywhere._show_window()
    assert win.isMaximized() and win.isVisible()
    win.showMinimized()
    qtbot.waitUntil(win.isMinimized, timeout=5000)
    page.anywhere._show_window()
    assert not win.isMinimized()
