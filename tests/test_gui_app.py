"""The whole window: audio missing, models page (catalog, import, remove), shortcuts, accessible
names, settings, and start-up without torch."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

import subprocess
import sys

import pytest
from PySide6.QtWidgets import QComboBox, QPushButton

from test_gui_support import fake_audio, select_model, win  # noqa: F401 - fixtures


def test_no_portaudio_disables_record_and_playback(qtbot, home):
    from speechstudio.audio.backends import UnavailableBackend
    from speechstudio.gui.main_window import MainWindow

    reason = "recording and playback are off: PortAudio library not found (install PortAudio ...)"
    w = MainWindow(audio_backend=UnavailableBackend(reason), start_monitor=False)
    qtbot.addWidget(w)
    try:
        assert not w.record.rec_btn.isEnabled()
        assert not w.record.device_box.isEnabled()
        assert "PortAudio library not found" in w.record.note.text()
        assert w.speak.info.text() == f"{reason}. Save as… still works."     # said once, not "Playback is off: …"
        w.speak.speak()
        assert w.status_label.text() == f"{reason}; use Save as…"
        w.transcribe.play_span(home, 0, 1)  # one no-device policy (gui.devices), in plain words
        assert w.status_label.text() == "No speaker found: sound is off on this computer (no audio system found)."
        assert w.audio_label.toolTip() == reason
    finally:
        w.shutdown()


def test_models_page_lists_imports_and_removes(win, qtbot, tiny_w2v_dir):
    page = win.models
    with qtbot.waitSignal(page.refreshed, timeout=30000):
        page.refresh()
    names = {m.name: m for m in page.models}
    catalog = [m for m in page.models if not m.installed]
    assert catalog and all(page.table.item(i, 3).text() != "?" for i, m in enumerate(page.models) if not m.installed)
    select_model(page, catalog[0].name)
    assert page.download_btn.isEnabled() and not page.remove_btn.isEnabled()
    with qtbot.waitSignal(page.refreshed, timeout=30000):
        page.import_model(str(tiny_w2v_dir))
    names = {m.name: m for m in page.models}
    assert names["tiny-w2v"].installed and names["tiny-w2v"].source == "imported"
    assert "tiny-w2v" in [win.transcribe.model_box.itemText(i) for i in range(win.transcribe.model_box.count())]
    with qtbot.waitSignal(page.refreshed, timeout=30000):
        page.remove_model("tiny-w2v")
    assert "tiny-w2v" not in {m.name for m in page.models}


def test_download_offline_is_a_message(win, qtbot):
    page = win.models
    with qtbot.waitSignal(win.downloads.job_finished, timeout=60000) as blk:
        page.download("facebook/wav2vec2-base-960h")
    assert blk.args[1] == "failed"
    assert page.dl_label.text() == ("Download of wav2vec2-base-960h failed: the app is in offline mode (downloads "
                                     "are switched off; installed models still work).")  # plain words (issue 30)
    assert not page.progress.isVisible() and page.download_job is None


def test_shortcuts_and_accessible_names(win, qtbot):
    keys = {a.shortcut().toString() for a in (win.act_add_files, win.act_add_folder)}
    assert keys == {"Ctrl+O", "Ctrl+Shift+O"}
    assert win.sc_space.key().toString() == "Space"
    assert win.sc_run.key().toString() == "Ctrl+Return"
    assert win.sc_esc.key().toString() == "Esc"
    buttons = [b for b in win.findChildren(QPushButton) if b.text()]
    assert len(buttons) > 20
    assert [b.text() for b in buttons if not b.accessibleName()] == []
    combos = win.findChildren(QComboBox)
    assert [c.currentText() for c in combos if not c.accessibleName()] == []
    # Esc on the Transcribe page cancels (nothing running: no error); Ctrl+Enter with an empty queue
    win.show_page("Transcribe")
    win.cancel_action()
    win.run_action()
    assert "nothing queued" in win.status_label.text()


def test_window_starts_without_torch(home):
    code = ("import sys, os; os.environ['QT_QPA_PLATFORM']='offscreen';"
            "from speechstudio.cli import main; sys.exit(main(['gui', '--startup-time']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "SPEECHSTUDIO_AUDIO": "none"})
    assert out.returncode == 0, out.stderr
    line = next(l for l in out.stdout.splitlines() if l.startswith("SPEECHSTUDIO_STARTUP"))
    assert line.endswith("heavy_imported=none")


def test_a_broken_page_does_not_stop_the_window(qtbot, home, fake_audio, monkeypatch):
    from speechstudio.gui import record_page
    from speechstudio.gui.main_window import MainWindow

    def boom(self, win):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(record_page.RecordPage, "__init__", boom)
    w = MainWindow(audio_backend=fake_audio, start_monitor=False)
    qtbot.addWidget(w)
    try:
        assert w.record is None
        w.show_page("Record")
        assert w.current_page().text() == "This page could not be loaded: simulated bug"  # no class name (issue 30)
        w.play_pause()  # no crash with the page missing
        w.cancel_action()
        w.show_page("Speak")
        assert w.current_page() is w.speak
    finally:
        w.shutdown()


def test_a_long_status_message_does_not_widen_the_window(win, qtbot):
    win.resize(1400, 800)
    qtbot.wait(50)
    before = win.width()
    text = "x" * 2000
    win.show_status(text)
    qtbot.wait(50)
    assert win.width() == before and win.minimumSizeHint().width() < 1500
    assert win.status_label.toolTip() == text


def test_a_pages_status_line_does_not_outlive_the_page(win, qtbot):
    """New-user pass: 'dictation stopped: …' stayed in the status line on the Speak page, where it meant
    nothing. A line said by the page shown goes when another page is shown, which brings back the last line
    for the whole app (a queue ending or a job failing on a page not shown, or the window's own)."""
    from speechstudio.gui.wording import dictate

    win.show_page("Dictate")
    win.dictate.status_message.emit(dictate("dictation_stopped", summary="5 s dictated"))
    assert win.status_label.text() == "dictation stopped: 5 s dictated"
    win.show_page("Speak")
    assert win.status_label.text() == "Ready"
    win.transcribe.status_message.emit("3 files done in 12 s")          # the queue ends in the background
    win.show_page("Record")
    assert win.status_label.text() == "3 files done in 12 s"
    win.record.status_message.emit("saved take.wav")
    win.show_page("Models")
    assert win.status_label.text() == "3 files done in 12 s"
    win.models.status_message.emit("downloading whisper-base…")
    win.adapt.status_message.emit("training failed: see the Train step")  # a job's error on a page not shown
    win.show_page("Speak")
    assert win.status_label.text() == "training failed: see the Train step"


def test_keys_in_fields_tables_and_lists(win, qtbot, tmp_path, monkeypatch):
    """Esc in a field leaves the field and never cancels the run (the find field: back to the transcript); Esc
    elsewhere does; Space opens a focused list; Tab leaves the queue table and the transcript's text."""
    from PySide6.QtCore import Qt

    from speechstudio.batch.run import InputItem
    from speechstudio.gui.transcript_view import QueueRow
    from test_gui_support import INFO, SEGMENTS, write_tone

    page = win.show_page("Transcribe")
    cancelled = []
    monkeypatch.setattr(page, "cancel", lambda: cancelled.append(True))
    with qtbot.waitActive(win):
        win.activateWindow()
    view = page.transcript
    view.show_row(QueueRow(InputItem(write_tone(tmp_path / "talk.wav", 5.0)), status="done", segments=list(SEGMENTS),
                           info=INFO))
    view.edit_btn.click()
    find = view.editor.find_bar.find_edit
    find.setFocus()
    qtbot.keyClicks(find, "wrold")
    qtbot.keyClick(find, Qt.Key.Key_Escape)
    assert cancelled == [] and view.editor.text.hasFocus()
    qtbot.keyClick(view.editor.text, Qt.Key.Key_Escape)          # typing in the transcript: Esc stops no run
    assert cancelled == [] and view.editor.text.hasFocus()
    qtbot.keyClick(view.editor.text, Qt.Key.Key_Tab)              # a transcript has no tabs: Tab moves on
    assert not view.editor.text.hasFocus() and "\t" not in view.editor.text.toPlainText()
    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_Tab)
    assert not page.table.hasFocus()
    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_Escape)                 # not typing: Esc cancels the page's run
    assert cancelled == [True]
    opened = []
    monkeypatch.setattr(page.speakers_box, "showPopup", lambda: opened.append(True))
    page.speakers_box.setFocus()
    qtbot.keyClick(page.speakers_box, Qt.Key.Key_Space)
    assert opened == [True]
