"""Issue 30, the transcript view's player: playback speed (0.5x-2x, pitch kept, Praat's overlap-add
through audio/tempo.py), the highlight and the seek bar in the file's time at any speed, and the
waveform (one column per pixel, the played part shaded, a click seeks). The real window on the
fake sound card (which records what it is given to play)."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from PySide6.QtCore import QPoint, Qt  # noqa: E402

from speechstudio.batch.export import write_transcript  # noqa: E402
from test_gui_support import INFO, SEGMENTS, fake_audio, win, write_tone  # noqa: E402,F401 - fixtures

SR = 16000


def open_editor(win, tmp_path, seconds=5.0, freq=220.0):
    from speechstudio.batch.run import InputItem
    from speechstudio.gui.transcript_view import QueueRow

    wav = write_tone(tmp_path / "talk.wav", seconds, freq=freq, noise=0.0)
    srt = write_transcript(tmp_path / "talk.srt", SEGMENTS, INFO, "srt")
    view = win.transcribe.transcript
    view.show_row(QueueRow(InputItem(wav), status="done", outputs=(srt,), segments=list(SEGMENTS), info=INFO))
    view.edit_btn.click()
    return view.editor, view.player


def dominant_hz(audio: np.ndarray) -> float:
    spec = np.abs(np.fft.rfft(audio * np.hanning(len(audio))))
    return float(np.fft.rfftfreq(len(audio), 1 / SR)[spec.argmax()])


@pytest.mark.parametrize("speed", [0.5, 1.5, 2.0])
def test_speed_changes_the_played_length_and_keeps_the_pitch(win, qtbot, tmp_path, fake_audio, speed):
    ed, player = open_editor(win, tmp_path, seconds=3.0)
    assert [ed.speed_box.itemText(i) for i in range(ed.speed_box.count())] == ["0.5×", "0.75×", "1×", "1.25×",
                                                                                "1.5×", "2×"]
    ed.speed_box.setCurrentIndex(ed.speed_box.findData(speed))
    assert player.speed == speed
    ed.text.place_cursor(0, 0)
    ed.play_btn.click()
    # the fake card plays 20x faster than real time: a 1.5 s play can start and end between two polls,
    # so wait for its end (the file's end reached, nothing playing), not for it to be seen playing
    qtbot.waitUntil(lambda: not player.playing and player.position_s >= 2.99, timeout=30000)
    played = fake_audio.played_audio()
    sound = played[played != 0]  # the card plays silence while it waits for the next piece
    assert abs(len(sound) / SR - 3.0 / speed) <= 0.05 * 3.0 / speed, len(sound) / SR
    assert abs(dominant_hz(sound) - 220.0) <= 0.03 * 220.0, dominant_hz(sound)
    assert player.position_s == pytest.approx(3.0, abs=0.01)  # at the end of the file, in its time


def test_highlight_and_seek_stay_in_the_files_time_at_2x(win, qtbot, tmp_path, fake_audio):
    ed, player = open_editor(win, tmp_path)
    fake_audio.speed = 1.0  # real time, to watch the highlight move
    ed.speed_box.setCurrentIndex(ed.speed_box.findData(2.0))
    ed.text.place_cursor(1, 0)                     # "second", 2.5 s
    ed.play_btn.click()
    qtbot.waitUntil(lambda: ed._said == (1, 7, 11), timeout=10000)   # "part", 3.1-3.5 s into the file
    pos, out_s = player.position_s, win.audio.player.played_samples / SR
    assert 3.1 <= pos <= 3.6
    assert out_s == pytest.approx((pos - 2.5) / 2, abs=0.03)   # half as much sound played as file passed
    qtbot.waitUntil(lambda: ed.seek_bar.slider.value() >= 31, timeout=2000)
    assert ed.seek_bar.slider.value() <= 40 and ed.seek_bar.waveform.position_s >= 3.1
    ed.seek_bar._clicked(0.7)                      # seek while playing at 2x: "wrold" (0.6-1.0 s)
    assert 0.7 <= player.position_s <= 0.8 and player.playing and player.speed == 2.0
    qtbot.waitUntil(lambda: ed._said == (0, 6, 11), timeout=2000)
    ed.speed_box.setCurrentIndex(ed.speed_box.findData(1.0))                    # back to normal speed, from where it is
    assert 0.7 <= player.position_s <= 1.0 and player.playing
    ed.play_btn.click()
    assert not player.playing


def test_the_waveform_has_a_column_per_pixel_shades_the_played_part_and_seeks(win, qtbot, tmp_path):
    win.resize(1280, 800)
    ed, player = open_editor(win, tmp_path)
    wave = ed.seek_bar.waveform
    qtbot.waitUntil(lambda: wave.peaks is not None, timeout=30000)   # decoded on the I/O worker
    assert wave.isVisible() and wave.height() <= 32
    cols = wave.columns()
    assert cols.shape == (wave.width() - 2 * wave.margin, 2) and wave.drawn_width() > 300
    assert cols[:, 1].max() == pytest.approx(0.3, abs=0.01) and cols[:, 0].min() == pytest.approx(-0.3, abs=0.01)
    x = wave.margin + wave.drawn_width() * 16 // 25            # 64 % of 5 s: 3.2 s
    qtbot.mouseClick(wave, Qt.MouseButton.LeftButton, pos=QPoint(x, wave.height() // 2))
    assert player.position_s == pytest.approx(3.2, abs=5.0 / wave.drawn_width() + 1e-6)
    assert ed.seek_bar.slider.value() == 32 and ed.seek_bar.label.text() == "0:03 / 0:05"
    assert ed._said == (1, 7, 11)                               # "part", 3.1-3.5 s
    img = wave.grab().toImage()
    hl = wave.palette().highlight().color().rgb()

    def column_has_highlight(px: int) -> bool:
        return any(img.pixel(px, y) == hl for y in range(img.height()))

    assert column_has_highlight(wave.margin + 20) and not column_has_highlight(x + 20)
    before = wave.width()
    win.resize(1100, 800)
    qtbot.wait(50)
    assert wave.width() < before
    assert len(wave.columns()) == wave.width() - 2 * wave.margin   # one column per pixel after a resize too


def test_another_page_playing_ends_the_players_stream_without_mixing_in(win, qtbot, tmp_path, fake_audio):
    """At 2x the player feeds the speaker from a thread: when another page plays a clip (Record,
    the clone wizard...), the feeder stops and none of the transcript's audio lands in that clip."""
    ed, player = open_editor(win, tmp_path, seconds=60.0, freq=220.0)
    fake_audio.speed = 1.0
    ed.speed_box.setCurrentIndex(ed.speed_box.findData(2.0))
    ed.play_btn.click()
    qtbot.waitUntil(lambda: player.position_s > 0.5, timeout=30000)
    t = np.arange(20 * SR) / SR
    other = (0.2 * np.sin(2 * np.pi * 1000 * t)).astype(np.float32)  # 20 s at 1 kHz: longer than what was fed ahead
    fake_audio.played.clear()
    fake_audio.speed = 20.0
    win.audio.play(other, SR, source="your recording")
    qtbot.waitUntil(lambda: not player.playing, timeout=2000)         # the player sees it is not its sound
    qtbot.waitUntil(lambda: not win.audio.playing, timeout=10000)
    played = fake_audio.played_audio()
    sound = played[played != 0]
    assert abs(len(sound) - 20 * SR) <= 0.02 * SR                      # the clip, no 220 Hz pieces fed into it
    assert dominant_hz(sound) == pytest.approx(1000.0, rel=0.01)
