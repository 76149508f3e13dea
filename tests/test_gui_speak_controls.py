"""Speak page: sliders greyed out for controls a voice lacks, the Pronunciations dialog, and the
"no sound output device" message instead of PortAudio's "Error querying device -1"."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from test_gui_support import fake_audio, win  # noqa: F401 - fixtures


def test_unsupported_controls_are_greyed_out(win):
    from speechstudio.worker.jobs import VoiceInfo

    page = win.speak
    page._set_voice_info(VoiceInfo("speecht5_tts", 16000, ("awb", "slt"), 2,
                                   {"length_scale": 1.0, "controls": ("speaker", "seed")}, "voice speecht5_tts"))
    assert [s.isEnabled() for s in (page.rate, page.noise, page.noise_w)] == [False, False, False]
    assert page.speaker_box.isEnabled() and page.speaker_box.count() == 2
    assert page.rate.toolTip() == "voice speecht5_tts has no speed control"
    job = page._job()
    assert (job.length_scale, job.noise_scale, job.noise_w, job.speaker) == (None, None, None, "awb")
    page._set_voice_info(VoiceInfo("joe", 22050, (), 1, {"length_scale": 1.0, "noise_scale": 0.667,
                                                         "noise_w": 0.8}, "voice joe"))
    assert [s.isEnabled() for s in (page.rate, page.noise, page.noise_w)] == [True, True, True]
    assert page._job().noise_scale == pytest.approx(page.noise.value() / 100)


def test_the_sliders_start_at_the_voices_own_settings_as_the_cli_speaks_it(win):
    """A voice made to speak slowly (length_scale 1.5) with less noise spoke at 1.0 / 0.667 / 0.8 in the app (the
    sliders' own values) and at its own settings in the CLI. Now the noise sliders move to the voice's values when
    it loads, and the rate is the voice's own tempo times the slider (1.00x: the voice's own, as the CLI)."""
    from speechstudio.worker.jobs import VoiceInfo

    page = win.speak
    page._set_voice_info(VoiceInfo("slow", 22050, (), 1, {"length_scale": 1.5, "noise_scale": 0.333,
                                                          "noise_w": 0.4}, "voice slow"))
    job = page._job()
    assert (job.length_scale, job.noise_scale, job.noise_w) == (None, 0.33, 0.4)
    assert (page.noise_label.text(), page.noise_w_label.text()) == ("0.33", "0.40")
    page.rate.setValue(200)
    assert page._job().length_scale == pytest.approx(0.75)
    assert page.rate.toolTip() == "1.00×: the voice's own tempo"


def test_no_output_device_offers_save_as(win, fake_audio):
    page = win.speak
    fake_audio.output_devices = lambda: []  # no sound card output
    page.text.setPlainText("Hello there.")
    page.speak()
    assert page.job_id is None
    assert page.info.text() == "no sound output device: use Save as… to write the speech to a file"
    assert "Error querying device" not in win.status_label.text()
    win.show_page("Speak")  # shown: Speak is greyed and says why, Save as… stays (issue 44)
    assert not page.speak_btn.isEnabled() and page.save_btn.isEnabled()
    assert page.speak_btn.toolTip() == "No sound output device: Save as… writes the speech to a file"


def test_pronunciations_dialog_saves_the_lexicon(win, home, qtbot):
    from speechstudio.gui.lexicon_dialog import LexiconDialog
    from speechstudio.tts.lexicon import user_lexicon

    dlg = LexiconDialog("en-us", win)
    qtbot.addWidget(dlg)
    dlg.word.setText("Nguyen")
    dlg.pron.setText("/ŋwˈɪn/")
    dlg.add_entry()
    dlg.word.setText("GIF")
    dlg.pron.setText("jif")
    dlg.add_entry()
    dlg.save()
    assert dlg.saved_path == home / "lexicon" / "en.tsv"
    assert user_lexicon("en").entries == {"nguyen": (None, "ŋwˈɪn"), "gif": ("jif", None)}
    again = LexiconDialog("en", win)
    qtbot.addWidget(again)
    assert again.entries() == [("gif", "jif"), ("nguyen", "/ŋwˈɪn/")]
    again.word.setText("bad")
    again.pron.setText("   ")
    again.add_entry()
    assert again.error.text() == "give a word and its pronunciation"
    again.pron.setText("/☃/")  # no IPA has it: refused here, not at every later text with the word
    again.add_entry()
    assert again.error.text().startswith("/☃/ is not IPA (☃)") and len(again.entries()) == 2


def test_pitch_slider_follows_the_voice_until_moved(win):
    """A cloned voice's own pitch shift (VoiceInfo defaults "pitch") shows on the slider and the
    job leaves it to the voice (None) until the user moves the slider."""
    from speechstudio.worker.jobs import VoiceInfo

    page = win.speak
    page._set_voice_info(VoiceInfo("myclone", 22050, (), 1, {"length_scale": 1.0, "noise_scale": 0.667,
                                                             "noise_w": 0.8, "pitch": 4.3}, "voice myclone"))
    assert page.pitch.value() == 9 and page.pitch_label.text() == "+4.5 semitones"  # half-semitone steps
    assert page._job().pitch is None  # the voice's own 4.3 st
    page.pitch.setValue(-6)
    assert page.pitch_label.text() == "-3.0 semitones" and page._job().pitch == -3.0
    page._set_voice_info(VoiceInfo("joe", 22050, (), 1, {"length_scale": 1.0, "pitch": 0.0}, "voice joe"))
    assert page.pitch.value() == 0 and page._job().pitch is None
