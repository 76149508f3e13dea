"""Live mel view: frames from the fake microphone (48 kHz file, resampled to 16 kHz) reach the
pyqtgraph image, and the values match a reference log-mel from transformers' audio_utils."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

import numpy as np
import pytest

from test_gui_support import fake_audio, win, write_tone  # noqa: F401 - fixtures
from test_mel import transformers_reference


@pytest.fixture
def mic_file(tmp_path):
    return write_tone(tmp_path / "mic.wav", 3.0, rate=48000, freq=440, noise=0.05)


def test_mel_view_follows_fake_microphone(win, qtbot, mic_file):
    from fake_audio_backend import FakeBackend

    backend = FakeBackend(mic_file, input_rate=48000, speed=4.0)
    win.audio.set_backend(backend)
    win.show_page("Record")
    page = win.record
    got = []
    win.audio.mel_frames.connect(lambda f, src: got.append(f))
    updates0 = win.mel.updates
    page.rec_btn.click()
    assert win.audio.recorder is not None and win.audio.recorder.native_rate == 48000
    qtbot.waitUntil(lambda: win.audio.recorder.duration_s >= 2.0, timeout=10000)
    qtbot.wait(60)
    page.stop_btn.click()
    qtbot.wait(100)  # let queued frames and one redraw arrive
    rec = page.recording
    assert rec is not None and len(rec) >= 2 * 16000

    frames = np.concatenate(got)
    ref = transformers_reference(rec)
    assert frames.shape[1] == 80
    n = min(len(frames), len(ref))
    assert n >= len(ref) - 2
    np.testing.assert_allclose(frames[:n], ref[:n], atol=2e-3)
    # the image shows the latest frames (time along x, 80 mel bins) and was redrawn
    shown = win.mel.image[-n:] if n <= win.mel.n_frames else win.mel.image
    np.testing.assert_allclose(shown, frames[-len(shown):], atol=1e-6)
    assert win.mel.updates > updates0
    assert "microphone" in win.mel.caption.text()
    # the 440 Hz tone is where it should be: the brightest mel bin is the one around 440 Hz
    from speechstudio.audio.mel import mel_filter_bank

    tone_bin = int(np.argmax(mel_filter_bank()[int(440 / 40)]))
    assert abs(int(np.argmax(frames[5:].mean(axis=0))) - tone_bin) <= 1

    # play back, save, send to Transcribe
    assert page.play_btn.isEnabled()
    page.play_btn.click()
    qtbot.waitUntil(lambda: not win.audio.playing, timeout=10000)
    assert abs(len(backend.played_audio()) - len(rec)) < 400
    page.send_btn.click()
    assert win.current_page() is win.transcribe
    row = win.transcribe.rows[-1]
    assert row.item.path.suffix == ".wav" and row.item.path.is_file()


@pytest.mark.parametrize("height, title", [(80, ""), (110, "pitch"), (160, "pitch"), (220, "pitch (low to high)")])
def test_the_pitch_axis_title_is_read_whole_at_any_height(qtbot, height, title):
    """In a short window the mel dock's vertical axis showed "ch (low to hi": the title is shortened to what fits."""
    from speechstudio.gui.mel_view import MelView

    view = MelView()
    qtbot.addWidget(view)
    view.resize(400, height)
    view.show()
    qtbot.wait(50)
    axis = view.plot.getAxis("left")
    assert axis.labelText == title
    assert axis.label.boundingRect().width() <= axis.height()          # the title runs along the axis, whole
    assert axis.style["showValues"] is False  # no mel bin numbers (0-80) beside a "pitch" title
