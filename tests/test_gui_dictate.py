"""Dictate page: live transcript from a fake microphone (a real recording played as fast as it is
consumed) through the tiny random-weight Wav2Vec2 in the compute worker's thread.

The page's stable text must equal an offline StreamingRecognizer run on the same file with the
same config (random weights give garbage letters, but deterministic ones); Stop leaves no grey
tail; latency is a number; save is atomic; a missing microphone is a message; a Whisper model
dictates too (LocalAgreement).
"""
from __future__ import annotations

import os
import re

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures

JFK = "whisper_jfk.flac"  # 44.1 kHz stereo FLAC, 11.0 s: a device rate the stream must resample


def tail_ranges(page) -> list[tuple[int, int]]:
    """``(start, end)`` positions of the page's transcript shown in the tail (grey) colour."""
    from PySide6.QtGui import QColor

    from speechstudio.gui.dictate_view import TAIL_COLOR

    out = []
    block = page.view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.charFormat().foreground().color() == QColor(TAIL_COLOR):
                out.append((frag.position(), frag.position() + frag.length()))
            it += 1
        block = block.next()
    return out


@pytest.fixture
def page(win, qtbot, tiny_w2v_dir):
    from speechstudio.gui.dictate_page import DictatePage

    p = win.dictate                      # the page the app shows, never a stand-alone copy
    assert isinstance(p, DictatePage)
    p.model_box.setCurrentText(str(tiny_w2v_dir))
    p.device_box.setCurrentText("cpu")
    return p


def latency_number(label_text: str) -> float | None:
    m = re.search(r"(\d+(?:\.\d+)?) ms", label_text)
    return float(m.group(1)) if m else None


def file_source(realspeech):
    from speechstudio.asr.sources import FileSource

    return FileSource(realspeech / JFK, block_ms=20, realtime=False)


def offline_text(model_dir, source, config) -> str:
    from speechstudio.asr.load import load_model
    from speechstudio.asr.streaming import StreamingRecognizer

    recognizer, _ = load_model(str(model_dir), device="cpu", allow_download=False, progress=False)
    rec = StreamingRecognizer(recognizer, config, input_rate=source.sample_rate)
    for _ in rec.run(source.blocks()):
        pass
    return rec.text


def test_dictation_matches_offline_stream(page, win, qtbot, tiny_w2v_dir, realspeech, tmp_path):
    from speechstudio.asr.streaming import StreamConfig
    page.config = StreamConfig()  # device defaults, endpointing on: the same config offline
    tails: list[str] = []
    page.transcript_changed.connect(lambda: tails.append(page.tail_text))
    mel_before = win.mel.frames_received
    with qtbot.waitSignal(page.finished, timeout=60000) as blk:
        assert page.start(source=file_source(realspeech))
        assert page.running and not page.start_btn.isEnabled() and page.stop_btn.isEnabled()
    assert page.last_error == "", page.last_error

    expected = offline_text(tiny_w2v_dir, file_source(realspeech), page.config)
    assert expected, "the tiny model should emit some letters for real speech"
    assert page.text == expected == blk.args[0]
    assert page.view.toPlainText() == expected
    # the grey tail was shown while it ran, and is gone after Stop
    assert any(tails), "no partial update with a tail arrived"
    assert page.tail_text == "" and tail_ranges(page) == []
    # latency: a number of ms behind real time
    assert latency_number(page.latency_label.text()) is not None
    assert "behind real time" in page.latency_label.text()
    # the live mel view got the microphone's frames (11 s at a 10 ms hop)
    assert win.mel.frames_received - mel_before >= 1000
    assert page.result is not None and abs(page.result.audio_s - 11.0) < 0.1
    assert not page.running and page.start_btn.isEnabled() and page.save_btn.isEnabled()

    # copy, save (atomic), send to a file (append)
    from PySide6.QtGui import QGuiApplication

    page.copy()
    assert QGuiApplication.clipboard().text() == expected
    out = tmp_path / "out" / "dictation.txt"
    assert page.save(out) == out
    assert out.read_text(encoding="utf-8") == expected + "\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["dictation.txt"]  # no temp file left
    notes = tmp_path / "notes.txt"
    notes.write_text("earlier notes", encoding="utf-8")
    page.send_to_file(notes)
    assert notes.read_text(encoding="utf-8") == f"earlier notes\n{expected}\n"


def test_save_is_atomic(page, tmp_path, monkeypatch):
    from speechstudio.asr.streaming import StreamUpdate

    page.show_update(StreamUpdate("final", 0, (), "hello world", "", 2.0, 1.9, 0.01))
    target = tmp_path / "out" / "t.txt"
    target.parent.mkdir()
    target.write_text("old content", encoding="utf-8")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    assert page.save(target) is None
    assert "No space left on device" in page.note.text()
    assert target.read_text(encoding="utf-8") == "old content"          # untouched
    assert sorted(p.name for p in target.parent.iterdir()) == ["t.txt"]  # temp file removed
    monkeypatch.undo()
    assert page.save(target) == target
    assert target.read_text(encoding="utf-8") == "hello world\n"


def test_stable_black_tail_grey(page):
    from PySide6.QtGui import QColor, QTextFormat

    from speechstudio.asr.streaming import StreamUpdate
    from speechstudio.gui.dictate_page import TAIL_COLOR

    page.show_update(StreamUpdate("final", 0, (), "first part", "", 3.0, 2.9, 0.0))
    page.show_update(StreamUpdate("partial", 1, (), "and then", "somethi", 5.0, 4.5, 0.02))
    assert page.view.toPlainText() == "first part and then somethi"
    assert page.text == "first part and then" and page.tail_text == "somethi"
    start = len("first part and then ")
    assert tail_ranges(page) == [(start, start + len("somethi"))]
    doc = page.view.document()
    stable_fmt = doc.begin().begin().fragment().charFormat()
    assert not stable_fmt.hasProperty(QTextFormat.Property.ForegroundBrush)  # the palette's text colour
    assert stable_fmt.foreground().color() != QColor(TAIL_COLOR)
    assert page.latency_label.text() == "520 ms behind real time"
    page.show_update(StreamUpdate("partial", 1, (), "and then something", "el", 5.5, 5.2, 0.0))
    assert page.view.toPlainText() == "first part and then something el"
    page.show_update(StreamUpdate("final", 1, (), "and then something else", "", 6.0, 6.0, 0.0))
    assert page.view.toPlainText() == "first part and then something else"
    assert tail_ranges(page) == [] and page.tail_text == ""


def test_stable_text_follows_a_switch_to_the_dark_theme(page, qtbot):
    """Dictated text stays readable after Settings → theme dark (was black on the dark palette)."""
    from PySide6.QtGui import QColor

    from speechstudio.asr.streaming import StreamUpdate
    from speechstudio.gui import preferences

    page.show_update(StreamUpdate("final", 0, (), "WWWW MMMM WWWW MMMM", "", 3.0, 2.9, 0.0))
    page.resize(800, 600)
    page.show()
    try:
        assert preferences.apply_theme("dark") == "dark"
        qtbot.wait(20)
        img = page.view.viewport().grab().toImage()
        base = page.view.palette().base().color().lightness()
        text_light = max(QColor(img.pixel(x, y)).lightness() for x in range(0, min(img.width(), 300), 2)
                         for y in range(0, min(img.height(), 40)))
        assert base < 100 and text_light > 180, (base, text_light)
    finally:
        preferences.apply_theme("light")


def test_the_dictated_text_is_there_after_a_restart(page, win, qtbot):
    """Closing the window with dictated text not saved to a file: the next start shows it (Clear empties it)."""
    from speechstudio.asr.streaming import StreamUpdate
    from speechstudio.gui.main_window import MainWindow

    page.show_update(StreamUpdate("final", 0, (), "buy milk", "", 3.0, 2.9, 0.0))
    page.show_update(StreamUpdate("partial", 1, (), "and call", "An", 5.0, 4.5, 0.0))
    win.close()
    again = MainWindow(audio_backend=win.audio.backend, start_monitor=False)
    qtbot.addWidget(again)
    try:
        assert again.dictate.view.toPlainText() == "buy milk and call" and again.dictate.text == "buy milk and call"
        assert again.dictate.clear_btn.isEnabled() and again.dictate.save_btn.isEnabled()
        again.dictate.show_update(StreamUpdate("final", 0, (), "tomorrow", "", 1.0, 1.0, 0.0))
        assert again.dictate.view.toPlainText() == "buy milk and call tomorrow"
        again.dictate.clear()
        again.close()
    finally:
        again.shutdown()
    third = MainWindow(audio_backend=win.audio.backend, start_monitor=False)
    qtbot.addWidget(third)
    try:
        assert third.dictate.view.toPlainText() == ""
    finally:
        third.shutdown()


def test_missing_microphone_is_a_message(page, qtbot):
    page.mic_box.addItem("USB headset (unplugged)", 7)
    page.mic_box.setCurrentIndex(page.mic_box.count() - 1)
    assert page.start() is False
    assert "microphone 7 is not connected" in page.note.text()
    assert not page.running and page.start_btn.isEnabled()


def test_no_audio_backend_is_a_message_and_a_file_still_dictates(page, win, qtbot, tiny_w2v_dir, realspeech,
                                                                  tmp_path):
    """Issue 15 (honest states): with no microphone Start is off and says why; "Dictate a file…"
    plays a recording through the same job (the same text as an offline stream of that file)."""
    from speechstudio.asr.sources import FileSource
    from speechstudio.asr.streaming import StreamConfig
    from speechstudio.audio.backends import UnavailableBackend

    win.audio.set_backend(UnavailableBackend("Recording and playback are off: PortAudio library not found"))
    page.refresh_devices()
    assert not page.mic_box.isEnabled()
    assert not page.start_btn.isEnabled() and page.file_btn.isEnabled()
    assert page.start_btn.toolTip() == "No microphone: Dictate a file… dictates a recording"
    assert page.view.placeholderText() == "No microphone found: Dictate a file… dictates a recording."
    # drawn unwrapped on one line: it fits the page at the smallest window (900 px less the page list)
    assert page.view.fontMetrics().horizontalAdvance(page.view.placeholderText()) < 900 - 130 - 60
    assert page.note.text() == "Recording and playback are off: PortAudio library not found. Dictate a file… still works."
    assert page.start() is False                       # Ctrl+Enter / the hotkey: a message, not a crash
    assert page.note.text() == ("cannot dictate from a microphone: Recording and playback are off: PortAudio library "
                                "not found; Dictate a file… plays a recording instead")
    assert not page.running

    bad = tmp_path / "notes.wav"
    bad.write_bytes(b"not audio at all")
    assert page.dictate_file(bad, realtime=False) is False
    assert page.note.text().startswith("cannot dictate notes.wav: ") and not page.running

    page.config = StreamConfig()
    with qtbot.waitSignal(page.finished, timeout=60000) as blk:
        assert page.dictate_file(realspeech / JFK, realtime=False)
        assert page.running and not page.file_btn.isEnabled() and page.stop_btn.isEnabled()
    assert page.last_error == "", page.last_error
    expected = offline_text(tiny_w2v_dir, FileSource(realspeech / JFK, block_ms=20, realtime=False), page.config)
    assert expected and page.text == expected == blk.args[0]
    assert page.file_btn.isEnabled() and not page.start_btn.isEnabled()


def test_whisper_model_dictates(page, qtbot, whisper_dir, realspeech):
    """A Whisper model (tiny.en) on the page: LocalAgreement-2 stable text with a grey tail while it
    runs, text close to the recording's reference, latency and language in the summary."""
    import jiwer

    from speechstudio.worker.dictation import DictateStarted

    page.model_box.setCurrentText("whisper-tiny.en")      # the package model (whisper_dir: installed)
    assert [page.language_box.itemData(i) for i in range(page.language_box.count())] == [None, "en"]
    tails: list[str] = []
    started: list[DictateStarted] = []
    page.transcript_changed.connect(lambda: tails.append(page.tail_text))
    page.compute.job_progress.connect(lambda _id, p: started.append(p) if isinstance(p, DictateStarted) else None)
    with qtbot.waitSignal(page.finished, timeout=180000):
        assert page.start(source=file_source(realspeech))
    assert page.last_error == "", page.last_error
    assert started and started[0].engine == "whisper" and "LocalAgreement-2" in started[0].window
    assert any(tails) and page.tail_text == "" and tail_ranges(page) == []
    assert page.view.toPlainText() == page.text
    norm = lambda t: " ".join(re.sub(r"[^\w' ]+", " ", t.lower()).split())  # noqa: E731
    ref = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
    assert jiwer.wer(norm(ref), norm(page.text)) <= 0.2, page.text
    r = page.result
    assert r.language == "en" and 0 < r.latency_p50_s <= r.latency_p90_s and r.rtf > 0
    assert "word end to stable text" in page.note.toolTip() and "language en" in page.note.toolTip()
    assert page.note.text() == (f"{r.audio_s:.0f} s dictated; words appeared about {r.latency_p50_s:.1f} s after you "
                                "said them; language: English.")  # plain words on the page (issue 30)
    assert latency_number(page.latency_label.text()) is not None
    assert page.state_label.text() == "stopped" and not page.running and page.start_btn.isEnabled()


def test_fake_microphone_stop_keeps_buffered_words(page, win, qtbot, realspeech):
    """The app's own audio backend (a FakeBackend playing the recording at 20x): Stop mid-speech
    ends the session with a final update, no grey tail, and the text heard so far."""
    from fake_audio_backend import FakeBackend

    win.audio.set_backend(FakeBackend(realspeech / JFK, input_rate=44100, speed=20.0))
    page.refresh_devices()
    assert page.mic_box.isEnabled() and "Fake microphone" in page.mic_box.currentText()
    assert page.start()
    qtbot.waitUntil(lambda: bool(page.text) or bool(page.tail_text), timeout=30000)
    with qtbot.waitSignal(page.finished, timeout=30000):
        page.stop()
    assert page.last_error == ""
    assert page.text and page.tail_text == "" and tail_ranges(page) == []
    assert page.result is not None and page.result.audio_s > 0.5
    assert page.view.toPlainText() == page.text


def test_keyboard_start_stop_from_the_main_window(page, win, qtbot):
    """Ctrl+Enter starts / Esc stops dictation on the Dictate page (the fake sound card's
    microphone plays a loud tone at 20x real time)."""
    assert win.dictate is page
    win.show_page("Dictate")
    win.run_action()
    assert page.running
    assert page.note.text() == ""          # its own job loading: not "waiting for the running job…"
    qtbot.waitUntil(lambda: page.result is None and (bool(page.text) or bool(page.tail_text)), timeout=30000)
    record = win.show_page("Record")  # one place records at a time: the Record page says who has the microphone
    record.start()
    assert record.note.text() == "cannot record: the microphone is recording for Dictate (stop it there first)"
    assert win.audio.recorder is None
    win.show_page("Dictate")
    with qtbot.waitSignal(page.finished, timeout=30000):
        win.cancel_action()
    assert page.last_error == "" and not page.running and page.tail_text == ""
    assert win.audio.mic_user is None  # given back: the Record page may record now


def test_device_source_drains_after_stop():
    """Qt-free: the backend adapter yields captured blocks, and what was queued before stop()."""
    import numpy as np

    from fake_audio_backend import FakeBackend
    from speechstudio.audio.backends import AudioUnavailableError, Backend
    from speechstudio.asr.sources import MicSource

    src = MicSource(None, block_ms=20, backend=FakeBackend(np.ones(48000, np.float32) * 0.1, input_rate=48000, speed=50.0))
    assert src.sample_rate == 48000 and src.block == 960
    got = []
    for block in src.blocks():
        got.append(block)
        if len(got) == 5:
            src.stop()
    assert len(got) >= 5 and all(len(b) == 960 for b in got)

    class NoInputs(Backend):
        available = True

    with pytest.raises(AudioUnavailableError, match="no microphone found"):
        MicSource(backend=NoInputs())


def test_an_error_mid_stream_keeps_the_stable_words(page, qtbot):
    """A session that fails after some partial updates (no final) keeps its stable words as
    text, removes the grey tail, and a new session continues after them."""
    from speechstudio.asr.streaming import StreamUpdate

    page.job_id = 999  # pretend a job is running
    page.show_update(StreamUpdate("partial", 0, (), "kept words", "gone", 2.0, 1.5, 0.0))
    from speechstudio.errors import ErrorLine

    page._on_finished(999, "failed", ErrorLine.of(RuntimeError("device lost"), "unexpected error: RuntimeError: device lost"))
    assert "device lost" in page.note.text() and not page.running
    assert page.text == "kept words" and page.tail_text == "" and tail_ranges(page) == []
    assert page.view.toPlainText() == "kept words"
    page._new_utterance_block()
    page.show_update(StreamUpdate("final", 0, (), "more", "", 1.0, 1.0, 0.0))
    assert page.text == page.view.toPlainText() == "kept words more"
