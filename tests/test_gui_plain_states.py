"""Issue 30, states that misled: "All is well." above warnings, Resume after a finished run, the
sound picture labelled "microphone" while a file plays (and kept on other pages), the captions
overlay left on top after dictation stops, the spoken-commands editor opening on "de"."""
from __future__ import annotations

import os
from types import SimpleNamespace

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from speechstudio.gui.doctor_dialog import verdict_line  # noqa: E402
from speechstudio.gui.mel_view import FLOOR, IDLE_CAPTION, caption_for  # noqa: E402
from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures


def _checks(*statuses):
    return [SimpleNamespace(status=s) for s in statuses]


@pytest.mark.parametrize("statuses,line", [
    (("ok", "ok", "info"), "All is well."),
    (("ok", "warn", "warn"), "Ready to use, with 2 warnings: the amber lines say what works less well and how to fix it."),
    (("ok", "warn"), "Ready to use, with 1 warning: the amber lines say what works less well and how to fix it."),
    (("fail", "warn", "ok"), "1 problem and 1 warning: the Fix lines say what to do."),
    (("fail", "fail"), "2 problems: the Fix lines say what to do."),
    ((), "All is well."),
])
def test_check_my_setup_never_says_all_is_well_above_a_warning(statuses, line):
    assert verdict_line(_checks(*statuses)) == line


@pytest.mark.parametrize("wizard", ["clone", "adapt"])
@pytest.mark.parametrize("reason,enabled", [("finished", False), ("early_stop", False), ("stopped", True)])
def test_resume_is_off_after_a_finished_run(win, qtbot, wizard, reason, enabled):
    tr = getattr(win, wizard).train
    ckpt = tr.run_dir() / "checkpoints" / "latest.pt"
    ckpt.parent.mkdir(parents=True)
    ckpt.write_bytes(b"checkpoint")
    tr.done = SimpleNamespace(reason=reason, step=10)
    tr._update()
    assert tr.resumable()  # the checkpoint is there either way
    assert tr.resume_btn.isEnabled() is enabled
    tr.steps_spin.setValue(20)  # more steps than the run made: Resume continues it
    assert tr.resume_btn.isEnabled()


@pytest.mark.parametrize("source,caption", [
    ("mic", "Sound picture: microphone"),
    ("file:jfk.flac", "Sound picture: jfk.flac"),
    ("playback", "Sound picture: playback"),
    ("", "Sound picture: playback"),
])
def test_sound_picture_names_its_source(source, caption):
    assert caption_for(source) == caption


def test_sound_picture_follows_the_file_and_clears_on_another_page(win, qtbot):
    win.show_page("Transcribe")
    frames = np.full((20, 80), -2.0, np.float32)
    win.audio.mel_frames.emit(frames, "file:jfk.flac")
    assert win.mel.caption.text() == "Sound picture: jfk.flac"
    assert (win.mel.image[-20:] == -2.0).all()
    win.show_page("Speak")
    assert win.mel.caption.text() == IDLE_CAPTION and (win.mel.image == FLOOR).all()
    assert "80 mel bins" in win.mel.caption.toolTip()  # the field's figures one hover away


def test_playing_a_file_names_it_in_the_sound_picture(win, qtbot):
    win.audio.play(np.zeros(1600, np.float32), 16000, source="interview.wav")
    assert win.audio.play_source == "file:interview.wav"
    win.audio.play(np.zeros(1600, np.float32), 16000)
    assert win.audio.play_source == "playback"


def test_captions_close_when_dictation_stops_and_return_with_the_next(win, qtbot):
    aw = win.dictate.anywhere
    aw.captions_check.setChecked(True)
    cap = aw.captions
    assert cap.isVisible()
    aw.session_started("wav2vec2", "en")
    aw.session_finished()
    assert not cap.isVisible() and aw.captions_check.isChecked()  # hidden, the choice kept
    aw.session_started("wav2vec2", "en")
    assert cap.isVisible()
    aw.session_finished()
    aw.captions_check.setChecked(False)


@pytest.mark.parametrize("language,shown", [("fr", "fr"), ("en", "en"), (None, "en"), ("de", "de")])
def test_commands_editor_opens_on_the_dictation_language(win, qtbot, monkeypatch, language, shown):
    from speechstudio.gui.commands_dialog import CommandsDialog

    seen = []
    monkeypatch.setattr(CommandsDialog, "exec", lambda self: seen.append(self.lang_box.currentText()) or 0)
    win.dictate.language_options.set_language(language)
    win.dictate.anywhere.edit_commands()
    assert seen == [shown]


def test_a_queued_file_is_not_said_to_have_zero_segments(win, tmp_path):
    """Issue 44: selecting a file still in the queue read "Transcript of x.wav (0 segments)"."""
    from test_gui_support import write_tone

    page = win.show_page("Transcribe")
    page.add_paths([write_tone(tmp_path / "later.wav", 1.0)])
    page.table.selectRow(0)
    assert page.transcript.title.text() == "later.wav: not transcribed yet"


def test_the_worker_state_says_working_while_a_voice_trains(win):
    """The status bar's worker state followed only transcription and speech: "idle" while a clone trained."""
    label = win.worker_label
    assert label.text() == "idle"
    win.clone.trainer.busy_changed.emit(True)
    assert label.text() == "working…"
    win.compute.busy_changed.emit(False)           # a transcription ends while the voice still trains
    assert label.text() == "working…"
    win.adapt.trainer.busy_changed.emit(True)
    win.clone.trainer.busy_changed.emit(False)
    assert label.text() == "working…"
    win.adapt.trainer.busy_changed.emit(False)
    assert label.text() == "idle"
