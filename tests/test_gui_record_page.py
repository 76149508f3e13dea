"""Issue 44, the Record page: a take is drawn (its waveform grows while recording) and its levels are
said in plain words, with a warning when it clipped or is very quiet, instead of an empty screen."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures


def _record(win, qtbot, fake_audio, audio: np.ndarray) -> object:
    # the microphone plays this 60 s loop (then silence) at 20x: the whole take is the tone, even on a
    # busy machine where the meter ticks late
    fake_audio._input_audio, fake_audio._input = np.tile(audio, 30), None
    fake_audio.input_rate = 16000
    page = win.show_page("Record")
    page.start()
    qtbot.waitUntil(lambda: page.audio.recorder.duration_s >= 1.0 and len(page._live) >= 3, timeout=20000)
    live = page.waveform.peaks
    page.stop()
    return page, live


def test_a_take_is_drawn_live_and_after_with_its_levels(win, qtbot, fake_audio):
    t = np.arange(32000) / 16000
    page, live = _record(win, qtbot, fake_audio, (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32))
    assert live is not None and len(live) >= 2 and float(live[:, 1].max()) > 0.1  # grew while recording
    n = len(page.recording)
    assert page.waveform.duration_s == pytest.approx(n / 16000)
    assert page.length.text() == f"{n / 16000:.1f} s"  # once, not "0:02 (2.1 s)"
    assert float(page.waveform.peaks[:, 1].max()) == pytest.approx(float(page.recording.max()), abs=1e-6)
    assert page.levels.text().startswith("loudest moment -10 dB, average ")
    assert "distorted" not in page.levels.text() and "quiet" not in page.levels.text()
    assert page.waveform.minimumHeight() >= 120  # the take fills the page, not a 30 px strip


def test_a_clipped_take_and_a_quiet_take_say_what_to_do(win, qtbot, fake_audio):
    t = np.arange(32000) / 16000
    loud = np.clip(1.6 * np.sin(2 * np.pi * 220 * t), -1.0, 1.0).astype(np.float32)
    page, _ = _record(win, qtbot, fake_audio, loud)
    assert "too loud and is distorted in places: turn the microphone's input down" in page.levels.text()
    page, _ = _record(win, qtbot, fake_audio, (0.003 * np.sin(2 * np.pi * 220 * t)).astype(np.float32))
    assert page.levels.text().endswith("It is very quiet: move closer to the microphone or turn its input up")


def test_while_the_record_page_records_dictate_and_the_wizards_say_who_has_the_microphone(win, qtbot, fake_audio):
    """One microphone, one place recording: Dictate and a wizard's Record prompts tab refuse with the reason
    (nothing starts), and may record once the Record page stops."""
    t = np.arange(32000) / 16000
    tone = (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    fake_audio._input_audio, fake_audio._input = np.tile(tone, 30), None
    page = win.show_page("Record")
    page.start()
    assert win.worker_label.text() == "recording…"  # the status bar says so, not "idle"
    busy = "the microphone is recording for the Record page (stop it there first)"
    dictate = win.show_page("Dictate")
    assert dictate.start() is False and dictate.last_error == f"cannot dictate: {busy}" and not dictate.running
    win.show_page("Clone voice")
    win.clone.go(1)
    rec = win.clone.dataset.recorder
    rec.name_edit.setText("Ada")
    rec.record()
    assert rec.recorder is None and rec.note.text() == f"cannot record: {busy}"
    win.show_page("Record")
    page.stop()
    assert win.audio.mic_user is None
    rec.record()
    assert rec.recorder is not None and win.audio.mic_user == "a wizard's Record prompts tab"
    rec.stop()
    assert win.audio.mic_user is None and win.worker_label.text() == "idle"


def test_the_take_is_drawn_in_clear_contrast_on_the_light_and_the_dark_theme(win, qtbot):
    """The Record page's waveform (disabled: no seeking) was drawn in the disabled text colour at half opacity:
    light grey on grey (1.3:1). Now the active colours, the lines 3:1 or more on their background (WCAG 2.1 1.4.11)."""
    from PySide6.QtWidgets import QApplication

    from speechstudio.gui import preferences
    from speechstudio.gui.contrast import contrast

    t = np.arange(32000) / 16000
    loud_then_quiet = np.where(t < 1.0, 0.5, 0.1) * np.sin(2 * np.pi * 220 * t)
    page = win.show_page("Record")
    page.recording = loud_then_quiet.astype(np.float32)
    app = QApplication.instance()
    try:
        for theme in ("light", "dark"):
            preferences.apply_theme(theme, app)
            page.show_take()
            qtbot.wait(20)
            wave = page.waveform
            assert not wave.isEnabled()
            img = wave.grab().toImage()
            x = wave.width() * 3 // 4                      # in the quiet second: the background above the line
            line, above = img.pixelColor(x, wave.height() // 2).name(), img.pixelColor(x, 3).name()
            assert contrast(line, above) >= 3.0, (theme, line, above)     # was 1.24 (light), 1.85 (dark)
            background, shade, played, rest = (c.name() for c in wave.colours())
            assert (line, above) == (rest, background), theme              # what is drawn is what is measured
            assert contrast(played, shade) >= 3.0, (theme, played, shade)  # once played: the highlight on its shade
    finally:
        preferences.apply_theme("light", app)
