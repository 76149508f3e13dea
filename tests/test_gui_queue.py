"""Transcribe page queue (issues 12 and 15): drops of odd file names, click-to-play on real
segments, the finished-batch summary, honest button states, column widths, the queue and history
kept in SQLite across a restart, watched folders."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

import shutil  # noqa: E402
from urllib.parse import quote_from_bytes  # noqa: E402

from PySide6.QtCore import QByteArray, QMimeData, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QDropEvent  # noqa: E402

from test_gui_support import fake_audio, win, write_tone  # noqa: E402,F401 - fixtures


def drop_uri_list(widget, raw_paths: list[bytes]):
    """Drop as a file manager does: text/uri-list with percent-encoded path bytes."""
    mime = QMimeData()
    uris = b"".join(b"file://" + quote_from_bytes(p, safe="/").encode() + b"\r\n" for p in raw_paths)
    mime.setData("text/uri-list", QByteArray(uris))
    ev = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                    Qt.KeyboardModifier.NoModifier)
    widget.dropEvent(ev)
    assert ev.isAccepted()


def setup_page(win, model_dir, formats=("txt", "json")):
    page = win.transcribe
    page.model_box.setCurrentText(str(model_dir))
    page.device_box.setCurrentText("cpu")
    for f, c in page.format_checks.items():
        c.setChecked(f in formats)
    return page


def test_drop_names_with_spaces_hash_percent_non_ascii_and_invalid_utf8(win, qtbot, tmp_path, tiny_w2v_dir):
    folder = os.fsencode(tmp_path)
    names = [b"a b #1 %41 caf\xc3\xa9.wav", b"latin1 caf\xe9.wav"]     # the second is not valid UTF-8
    for n in names:
        os.rename(write_tone(tmp_path / "t.wav", 1.0), folder + b"/" + n)    # libsndfile wants str names
    page = setup_page(win, tiny_w2v_dir, formats=("txt",))
    drop_uri_list(page, [folder + b"/" + n for n in names])
    assert [r.status for r in page.rows] == ["queued", "queued"]
    assert [os.fsencode(r.item.path.name) for r in page.rows] == names
    assert [page.table.item(i, 0).text() for i in range(2)] == ["a b #1 %41 café.wav", "latin1 caf\ufffd.wav"]
    with qtbot.waitSignal(page.queue_finished, timeout=60000):
        page.start_btn.click()
    assert [r.status for r in page.rows] == ["done", "done"], [r.reason for r in page.rows]
    assert sorted(os.listdir(folder)) == sorted(names + [b"a b #1 %41 caf\xc3\xa9.txt", b"latin1 caf\xe9.txt"])


def test_click_on_a_segment_plays_its_span(win, qtbot, tmp_path, realspeech, whisper_dir):
    """Real speech through Whisper tiny.en: segments exist, so the click-to-play check always runs."""
    wav = tmp_path / "talk.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", wav)
    page = setup_page(win, whisper_dir)
    page.add_paths([wav])
    with qtbot.waitSignal(page.queue_finished, timeout=120000):
        page.start_btn.click()
    row = page.rows[0]
    assert row.status == "done", row.reason
    assert len(row.segments) >= 1
    page.select_row(0)
    seg = row.segments[0]
    page.segments.cellClicked.emit(0, 2)
    qtbot.waitUntil(lambda: len(win.audio.backend.played_audio()) > 0, timeout=10000)
    qtbot.waitUntil(lambda: not win.audio.playing, timeout=10000)
    played = win.audio.backend.played_audio()
    assert abs(len(played) / 16000 - (seg.end_s - seg.start_s)) < 0.05
