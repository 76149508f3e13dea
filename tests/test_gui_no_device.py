"""Issue 30, one no-sound-device policy (speechstudio.gui.devices): on a sound card that lists no
microphone and no speaker, every Record / Play button of both wizards, sample Play, clip Play,
Try it and the transcript player is disabled with a plain tooltip, segment playback says so on
the status line, and no raw device error ("Error querying device -1") appears anywhere."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from fake_audio_backend import FakeBackend  # noqa: E402
from speechstudio.gui.devices import NO_MIC, NO_SPEAKER, allow, has_device  # noqa: E402
from test_gui_wording import visible_texts  # noqa: E402


class NoDevices(FakeBackend):
    """A working audio system with nothing plugged in."""

    def input_devices(self):
        return []

    def output_devices(self):
        return []


class MicOnly(FakeBackend):
    def output_devices(self):
        return []


@pytest.fixture
def bare(qtbot, home):
    from speechstudio.audio.backends import set_backend
    from speechstudio.gui.main_window import MainWindow

    backend = NoDevices()
    set_backend(backend)
    w = MainWindow(audio_backend=backend, start_monitor=False)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.shutdown()
    set_backend(None)


def _off(button, why):
    return (button.isEnabled(), button.toolTip().split(":")[0]) == (False, why)


@pytest.mark.parametrize("wizard,page", [("clone", "Clone voice"), ("adapt", "Adapt recognition")])
def test_wizard_record_and_play_are_off_with_a_plain_tooltip(bare, qtbot, wizard, page):
    wiz = getattr(bare, wizard)
    bare.show_page(page)
    wiz.go(1)
    rec = wiz.dataset.recorder
    rec.name_edit.setText("Ada")  # the clone wizard wants a name before recording
    rec._update()
    assert _off(rec.rec_btn, NO_MIC), rec.rec_btn.toolTip()
    assert _off(rec.play_btn, NO_SPEAKER), rec.play_btn.toolTip()
    assert rec.rec_btn.toolTip() == "No microphone found: plug one in and restart the app, or import recordings instead."
    assert rec.note.text() == rec.rec_btn.toolTip()  # the reason on the page too, not only on hover (issue 44)
    assert _off(wiz.dataset.clips.play_btn, NO_SPEAKER)
    texts = "\n".join(visible_texts(bare))
    assert "Error querying device" not in texts and "device -1" not in texts and "PortAudio" not in texts


def test_checkpoint_samples_and_try_it_are_off(bare, qtbot, tmp_path):
    import soundfile as sf

    wav = tmp_path / "step_5_fox.wav"
    sf.write(str(wav), np.zeros(1600, np.float32), 16000)
    bare.show_page("Clone voice")
    bare.clone.go(2)
    bare.clone.train.sample_table.add_sample(5, wav)
    assert _off(bare.clone.train.sample_table.cellWidget(0, 2), NO_SPEAKER)
    use = bare.clone.use
    use.saved_name = "my-voice"
    use._update()
    assert _off(use.try_btn, NO_SPEAKER)


def test_transcript_player_and_segment_playback_say_no_speaker(bare, qtbot, tmp_path):
    page = bare.transcribe
    editor = page.transcript.editor
    editor._update_actions()
    assert _off(editor.play_btn, NO_SPEAKER), editor.play_btn.toolTip()
    page.play_span(tmp_path / "talk.wav", 0.0, 1.0)
    assert bare.status_label.text() == "No speaker found: connect one and restart the app."


@pytest.mark.parametrize("backend,mic,speaker", [(NoDevices, False, False), (MicOnly, True, False),
                                                 (FakeBackend, True, True)])
def test_the_policy_reads_the_device_lists(qtbot, backend, mic, speaker):
    from PySide6.QtWidgets import QPushButton

    from speechstudio.gui.audio_hub import AudioHub

    hub = AudioHub(backend())
    assert (has_device(hub, "mic"), has_device(hub, "speaker")) == (mic, speaker)
    b = QPushButton("Play")
    b.setToolTip("Play the take")
    assert allow(b, hub, "speaker") is speaker
    assert b.toolTip() == ("Play the take" if speaker else "No speaker found: connect one and restart the app.")
    assert b.isEnabled() is speaker  # disabled only when the device is missing
