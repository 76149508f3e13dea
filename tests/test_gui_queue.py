"""Transcribe page queue (issues 12 and 15): drops of odd file names, click-to-play on real
segments, the finished-batch summary, honest button states, column widths, the queue and history
kept in SQLite across a restart, watched folders."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

import json
import shutil
import subprocess
import sys
from urllib.parse import quote_from_bytes

from PySide6.QtCore import QByteArray, QMimeData, QPointF, Qt
from PySide6.QtGui import QDropEvent
from test_gui_support import fake_audio, win, write_tone  # noqa: F401 - fixtures


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
    folder = os.fsencode(tmp_path / "in")
    os.mkdir(folder)
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
    drop_uri_list(page, [folder + b"/" + names[0]])  # dropped again: the reason nothing was added
    assert win.status_label.text() == "added 0 files, 1 already in the queue" and len(page.rows) == 2


def test_click_on_a_segment_plays_its_span(win, qtbot, tmp_path, realspeech, whisper_dir):
    """Real speech through Whisper tiny.en: segments exist, so the click-to-play check always runs."""
    wav = tmp_path / "talk.wav"
    # one 30 s window (speechbrain_spk1_snt1.wav, used before, leaves a 70 ms tail window that Whisper samples
    # five times at temperature 0.2: three times the CPU for the same check)
    shutil.copy(realspeech / "pocketsphinx_cards_005.wav", wav)
    page = setup_page(win, whisper_dir)
    page.add_paths([wav])
    with qtbot.waitSignal(page.queue_finished, timeout=300000):
        page.start_btn.click()
    row = page.rows[0]
    assert row.status == "done", row.reason
    assert len(row.segments) >= 1
    page.table.selectRow(0)
    seg = row.segments[0]
    page.segments.cellClicked.emit(0, 2)
    qtbot.waitUntil(lambda: len(win.audio.backend.played_audio()) > 0, timeout=10000)
    qtbot.waitUntil(lambda: not win.audio.playing, timeout=10000)
    played = win.audio.backend.played_audio()
    assert abs(len(played) / 16000 - (seg.end_s - seg.start_s)) < 0.05


def test_queue_survives_a_restart_and_continues(win, qtbot, tmp_path, tiny_w2v_dir, monkeypatch):
    """Kill mid-queue (a file left 'running' in the database), start again: same queue, the
    finished file with its outputs, Start goes on with the rest and redoes nothing."""
    from PySide6.QtGui import QDesktopServices

    from speechstudio.gui.transcribe_page import TranscribePage

    folder = tmp_path / "in"
    folder.mkdir()
    for i, secs in enumerate((1.0, 1.5, 2.0)):
        write_tone(folder / f"t{i}.wav", secs, freq=200 + 50 * i)
    page = setup_page(win, tiny_w2v_dir)
    assert not page.pause_btn.isEnabled()                 # nothing runs: nothing to pause
    page.add_paths([folder])
    page.start_btn.click()
    assert page.pause_btn.isEnabled()
    page.pause_btn.setChecked(True)                       # stop after the first file
    qtbot.waitUntil(lambda: not page.running, timeout=60000)
    assert [r.status for r in page.rows] == ["done", "queued", "queued"]
    store = page.keeper.store
    store.set_status(page.rows[1].store_id, "running")    # as if the app died during t1.wav:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    store.db.execute("UPDATE jobs SET owner_pid=? WHERE id=?",  # its process is gone (issue 29: a live
                     (int(dead.stdout), page.rows[1].store_id))  # owner's row is left alone)
    first_json = folder / "t0.json"
    stamp = first_json.stat().st_mtime_ns

    again = TranscribePage(win.compute, win.io, win.audio)     # the next start of the app
    qtbot.addWidget(again)
    assert [(r.item.path.name, r.status) for r in again.rows] == [("t0.wav", "done"), ("t1.wav", "queued"),
                                                                 ("t2.wav", "queued")]
    assert again.rows[0].outputs == (folder / "t0.txt", folder / "t0.json")
    assert again.table.item(0, 5).text() == f"txt · json  in in{os.sep}"
    win.transcribe.hide()
    for f, c in again.format_checks.items():
        c.setChecked(f in ("txt", "json"))
    again.model_box.setCurrentText(str(tiny_w2v_dir))
    again.device_box.setCurrentText("cpu")
    with qtbot.waitSignal(again.queue_finished, timeout=60000):
        again.start_btn.click()
    assert [r.status for r in again.rows] == ["done", "done", "done"]
    assert first_json.stat().st_mtime_ns == stamp         # nothing finished is redone
    # the finished batch's summary: totals and the output folder
    assert not again.report.isHidden()
    text = again.report.label.text()
    assert text.startswith("This run: 2 done · 0:0") and " of audio in 0:" in text, text
    assert text.endswith("× real time overall") and "RTF" not in text  # issue 30: speed in words
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    again.report.open_btn.click()
    assert opened == [str(folder)]
    assert not again.pause_btn.isEnabled()

    # History: every finished job, re-export from the JSON, remove
    dlg = again.show_history()
    qtbot.addWidget(dlg)
    assert sorted(dlg.table.item(i, 0).text() for i in range(dlg.table.rowCount())) == ["t0.wav", "t1.wav", "t2.wav"]
    row = next(i for i in range(dlg.table.rowCount()) if dlg.table.item(i, 0).text() == "t2.wav")
    dlg.table.selectRow(row)
    assert dlg.table.item(row, 5).text() == "txt · json"
    assert dlg.table.item(row, 3).text() == "0:02"
    out = dlg.reexport_selected("srt")
    assert out == folder / "t2.srt" and out.is_file()
    dlg.remove_selected()
    assert dlg.table.rowCount() == 2
    assert (folder / "t2.txt").is_file()                  # removing from the history keeps the files


def test_failed_file_reason_in_the_summary(win, qtbot, tmp_path, tiny_w2v_dir):
    folder = tmp_path / "in"
    folder.mkdir()
    write_tone(folder / "ok.wav", 1.0)
    (folder / "bad.wav").write_text("not audio\n" * 40)
    page = setup_page(win, tiny_w2v_dir)
    page.add_paths([folder])
    with qtbot.waitSignal(page.queue_finished, timeout=60000):
        page.start_btn.click()
    assert page.report.label.text().startswith("This run: 1 done, 1 failed · 0:01 of audio in 0:")
    assert page.report.label.text().endswith("· failed: bad.wav")
    assert page.report.label.toolTip().startswith("bad.wav: not a recognised audio or video file")
    ok = next(i for i, r in enumerate(page.rows) if r.status == "done")
    assert page.table.item(ok, 5).text().endswith(f"  in in{os.sep}")     # the folder "in", said as a folder
    page.transcript.show_row(next(r for r in page.rows if r.status == "failed"))
    assert page.transcript.title.text().startswith("bad.wav: not a recognised audio or video file")  # named once


def test_the_queue_line_counts_the_file_being_transcribed(win, tmp_path, tiny_w2v_dir):
    from types import SimpleNamespace

    from speechstudio.batch.run import BatchEvent

    page = setup_page(win, tiny_w2v_dir)
    paths = [write_tone(tmp_path / f"t{i}.wav", 1.0) for i in range(2)]
    page.add_paths(paths)
    assert page.summary.text() == "2 queued"
    page.job, page._job_rows = SimpleNamespace(id=7), {r.item.path: r for r in page.rows}
    page._on_progress(7, BatchEvent("start", page.rows[0].item, 0, duration_s=1.0))
    assert page.summary.text() == "1 transcribing, 1 queued"
    page.job, page._job_rows = None, {}


def test_watched_folder_queues_and_transcribes_new_files(win, qtbot, tmp_path, tiny_w2v_dir):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_tone(inbox / "before.wav", 1.0)                 # already there: not queued
    page = setup_page(win, tiny_w2v_dir, formats=("txt",))
    page.watcher.settle_s = 0.0
    page.watch_folder(str(inbox))
    assert page.watch_btn.text() == "Watched folders (1)" and page.watch_timer.isActive()
    assert page.poll_watched() == 0
    write_tone(inbox / "new one.wav", 1.0)
    assert page.poll_watched() == 0                       # first sight: maybe still growing
    with qtbot.waitSignal(page.queue_finished, timeout=60000):
        assert page.poll_watched() == 1                   # unchanged since: queued and started
    assert [(r.item.path.name, r.status) for r in page.rows] == [("new one.wav", "done")]
    assert (inbox / "new one.txt").is_file() and not (inbox / "before.txt").exists()
    assert page.poll_watched() == 0
    page.unwatch(page.keeper.store.watched()[0].id)
    assert page.watch_btn.text() == "Watched folders" and not page.watch_timer.isActive()


def test_queue_columns_fit_at_1280x800_without_horizontal_scroll(win, qtbot, tmp_path):
    win.resize(1280, 800)
    win.show_page("Transcribe")
    page = win.transcribe
    long_name = tmp_path / ("an interview recorded on a long afternoon in the archive " * 3 + ".wav")
    write_tone(long_name, 0.5)
    page.add_paths([long_name])
    qtbot.wait(50)
    t = page.table
    widths = [t.columnWidth(c) for c in range(t.columnCount())]
    assert sum(widths) <= t.viewport().width() + 1, (widths, t.viewport().width())
    assert t.horizontalScrollBar().maximum() == 0
    assert min(widths) >= 48
    fm = t.fontMetrics()
    assert t.columnWidth(1) >= fm.horizontalAdvance("00:00:00")
    assert t.columnWidth(5) >= fm.horizontalAdvance("txt · srt · vtt · json")


def test_status_colours_read_on_the_light_and_the_dark_theme(win, qtbot, tmp_path):
    """A done / failed / skipped / cancelled / ignored Status reads at 4.5:1 or more on the
    table's base in both themes (Qt's darkGreen was about 3:1 on the dark one)."""
    from speechstudio.batch.run import InputItem
    from speechstudio.gui import preferences
    from speechstudio.gui.transcript_view import QueueRow

    def luminance(c) -> float:
        ch = [v / 255 for v in (c.red(), c.green(), c.blue())]
        ch = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in ch]
        return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]

    t = win.transcribe.table
    try:
        for theme in ("light", "dark"):
            preferences.apply_theme(theme)
            qtbot.wait(10)
            base = t.palette().base().color()
            assert (base.lightness() < 128) == (theme == "dark")
            for status in ("done", "failed", "skipped", "cancelled", "ignored"):
                r = t.append_row(QueueRow(InputItem(tmp_path / f"{status}.wav"), status=status, reason="x"))
                fg = t.item(r, 2).foreground().color()
                hi, lo = sorted((luminance(fg), luminance(base)), reverse=True)
                assert (hi + 0.05) / (lo + 0.05) >= 4.5, (theme, status, fg.name(), base.name())
    finally:
        preferences.apply_theme("light")


def test_running_file_shows_its_position():
    from pathlib import Path

    from speechstudio.batch.run import InputItem
    from speechstudio.gui.queue_table import status_text
    from speechstudio.gui.transcript_view import QueueRow

    row = QueueRow(InputItem(Path("/x/a.wav")), status="running", duration_s=600.0)
    assert status_text(row)[0] == "transcribing"
    row.position_s = 83.2
    assert status_text(row)[0] == "transcribing 1:23 / 10:00"


def test_a_running_file_shows_its_segments_progress_and_position_before_it_ends(win, qtbot, tmp_path, realspeech,
                                                                               whisper_dir):
    """Issue 15 (progress): a file's progress is not 0 % until it finishes; each Whisper segment is
    shown as it is decoded, with the position in the Status cell and the percentage in Progress."""
    src = tmp_path / "two sentences.flac"
    shutil.copy(realspeech / "lhotse_librispeech_2412-153948-0000.flac", src)   # 11.7 s, two sentences
    page = setup_page(win, whisper_dir)
    page.add_paths([src])
    seen = []

    def watch(_job_id, payload):
        row = page.rows[0]
        if getattr(payload, "kind", None) == "segment" and row.status == "running":
            seen.append((len(row.segments), page.table.cellWidget(0, 3).value(), page.table.item(0, 2).text()))

    win.compute.job_progress.connect(watch)       # after the page's own slot: sees the updated row
    with qtbot.waitSignal(page.queue_finished, timeout=120000):
        page.start_btn.click()
    win.compute.job_progress.disconnect(watch)
    assert page.rows[0].status == "done" and len(page.rows[0].segments) >= 2, page.rows[0].segments
    n, pct, status = seen[0]
    assert n == 1 and 0 < pct < 100, seen
    assert status.startswith("transcribing 0:") and status.endswith(" / 0:12"), status
    assert [s[0] for s in seen] == list(range(1, len(seen) + 1))        # one more segment per event
    assert [s[1] for s in seen] == sorted(s[1] for s in seen)           # never goes back


def test_opening_the_app_with_files_shows_the_transcribe_page(win, tmp_path):
    write_tone(tmp_path / "a.wav", 0.5)
    win.show_page("Speak")
    assert win.open_paths([str(tmp_path / "a.wav")]) == 1
    assert win.nav.currentRow() == 0 and win.current_page() is win.transcribe


KILLED_APP = r"""
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv[:1])
app.setApplicationName("SpeechStudio")
app.setOrganizationName("SpeechStudio")
from fake_audio_backend import FakeBackend
from speechstudio.audio.backends import set_backend
from speechstudio.gui.main_window import MainWindow

backend = FakeBackend(speed=20.0)
set_backend(backend)
win = MainWindow(audio_backend=backend, start_monitor=False)
win.show()
page = win.transcribe
page.model_box.setCurrentText(sys.argv[1])
page.device_box.setCurrentText("cpu")
for fmt, check in page.format_checks.items():
    check.setChecked(fmt in ("txt", "json"))
page.add_paths([Path(sys.argv[2])])
page.start_btn.click()
sys.exit(app.exec())
"""


def test_app_killed_mid_queue_shows_the_same_queue_and_continues(qtbot, home, fake_audio, tmp_path, tiny_w2v_dir):
    """The real app in its own process, SIGKILLed while the second of three files is transcribed;
    the next start shows the same queue (the first done with its outputs, the killed one queued
    again), and Start finishes the rest without redoing the first."""
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    from speechstudio.batch.queue_store import default_path
    from speechstudio.gui.main_window import MainWindow

    folder = tmp_path / "in"
    folder.mkdir()
    for name, secs in (("a.wav", 1.0), ("b.wav", 240.0), ("c.wav", 1.0)):   # b runs long enough to be killed
        write_tone(folder / name, secs)
    db = default_path()
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"),   # its settings stay its own
               PYTHONPATH=os.pathsep.join([str(__import__("pathlib").Path(__file__).parent), os.environ.get("PYTHONPATH", "")]))
    log = tmp_path / "app.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", KILLED_APP, str(tiny_w2v_dir), str(folder)], env=env,
                                stdout=out, stderr=subprocess.STDOUT)

    def statuses() -> list[tuple[str, str]]:
        if not db.exists():
            return []
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return [(bytes(p).decode().rsplit("/", 1)[-1], s)
                    for p, s in con.execute("SELECT path, status FROM jobs ORDER BY position")]
        except sqlite3.OperationalError:           # tables not created yet
            return []
        finally:
            con.close()

    try:
        deadline = time.monotonic() + 600
        while statuses() != [("a.wav", "done"), ("b.wav", "running"), ("c.wav", "queued")]:
            assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, statuses()
            time.sleep(0.2)
        stamp = (folder / "a.json").stat().st_mtime_ns
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert not (folder / "b.txt").exists() and not (folder / "b.json").exists()

    win = MainWindow(audio_backend=fake_audio, start_monitor=False)    # the next start of the app
    qtbot.addWidget(win)
    page = win.transcribe
    assert [(r.item.path.name, r.status) for r in page.rows] == [("a.wav", "done"), ("b.wav", "queued"),
                                                                ("c.wav", "queued")]
    assert page.rows[0].outputs == (folder / "a.txt", folder / "a.json")
    page = setup_page(win, tiny_w2v_dir)
    with qtbot.waitSignal(page.queue_finished, timeout=600000):
        page.start_btn.click()
    assert [r.status for r in page.rows] == ["done", "done", "done"], [r.reason for r in page.rows]
    assert (folder / "a.json").stat().st_mtime_ns == stamp                # nothing finished is redone
    assert abs(json.loads((folder / "b.json").read_text())["audio_duration_s"] - 240.0) < 0.01
    assert page.report.label.text().startswith("This run: 2 done · 4:01 of audio"), page.report.label.text()
    win.shutdown()


def test_remove_rows_start_after_cancel_and_history_closes(win, qtbot, tmp_path, tiny_w2v_dir):
    """Delete takes rows off the queue (a queued one leaves no history); Start after Cancel runs
    the cancelled file again (it used to stay disabled); the History dialog has a Close button."""
    from test_gui_support import write_tone

    page = win.transcribe
    page.model_box.setCurrentText(str(tiny_w2v_dir))
    page.device_box.setCurrentText("cpu")
    for f, c in page.format_checks.items():
        c.setChecked(f == "txt")
    paths = []
    for i in range(3):
        p = tmp_path / f"t{i}.wav"
        write_tone(p, 1.0 + i)
        paths.append(p)
    page.add_paths(paths)
    assert [r.status for r in page.rows] == ["queued"] * 3
    page.table.selectRow(1)
    page.table.setFocus()
    page.remove_action.trigger()
    assert [r.item.path.name for r in page.rows] == ["t0.wav", "t2.wav"]
    assert "removed 1 file from the queue" in win.status_label.text()
    for r in page.rows:
        r.status = "cancelled"
    page._update_buttons()
    assert page.start_btn.isEnabled()
    with qtbot.waitSignal(page.queue_finished, timeout=60000):
        page.start()
    assert [r.status for r in page.rows] == ["done", "done"]
    dlg = page.show_history()
    names = [dlg.table.item(i, 0).text() for i in range(dlg.table.rowCount())]
    assert "t1.wav" not in " ".join(names) and sum("t0.wav" in n for n in names) == 1
    assert dlg.close_btn.text() == "Close"
    dlg.close_btn.click()
    assert not dlg.isVisible()


def test_a_file_added_again_shows_its_earlier_transcript(win, tmp_path):
    """After "Clear finished", a file added again is queued (Start checks it), and its transcript from the earlier
    run shows at once instead of "not transcribed yet"; one without an earlier transcript still says that."""
    from test_gui_support import INFO, SEGMENTS

    from speechstudio.batch.export import write_transcript

    done, new = write_tone(tmp_path / "talk.wav", 5.0), write_tone(tmp_path / "new.wav", 1.0)
    write_transcript(tmp_path / "talk.json", SEGMENTS, INFO, "json")
    page = win.show_page("Transcribe")
    assert page.add_paths([done, new]) == 2
    page.table.selectRow(0)
    view = page.transcript
    assert page.rows[0].status == "queued" and view.title.text() == (
        "talk.wav: queued; its transcript from an earlier run is shown (Start keeps it unless Redo finished files "
        "is on)")
    assert [view.segments.item(r, 2).text() for r in range(view.segments.rowCount())] == [
        "Hello wrold again", "second part here"]
    page.table.selectRow(1)
    assert view.title.text() == "new.wav: not transcribed yet" and view.segments.rowCount() == 0


def test_the_run_summary_says_what_this_run_did():
    """The line under the queue is this run's (the toolbar counts every row); no "0:00 of audio" when every file
    was skipped; its speed includes loading the model, where each row's Speed times the file alone."""
    from speechstudio.batch.run import BatchSummary
    from speechstudio.gui.batch_report import report_text

    assert report_text(BatchSummary(skipped=2, wall_s=1.2), 1.2) == ("This run: 0 done, 2 skipped", "")
    ran = BatchSummary(done=1, audio_s=11.0, wall_s=16.0)
    assert report_text(ran, 16.0)[0] == "This run: 1 done · 0:11 of audio in 0:16, 0.7× real time overall"


def test_a_restored_row_keeps_its_speaker_count(tmp_path):
    """After a restart the row is read back from its .json: "done · English · 3 or 4 speakers: check", as before
    the restart (the count was lost: "done · English")."""
    from dataclasses import replace

    from test_gui_support import INFO, SEGMENTS

    from speechstudio.batch.export import write_transcript
    from speechstudio.batch.run import InputItem
    from speechstudio.diarize.family import SpeakerInfo
    from speechstudio.gui.queue_table import status_text
    from speechstudio.gui.transcript_view import QueueRow, load_json_transcript

    talkers = tuple(SpeakerInfo(f"Speaker {k}", 2.0) for k in (1, 2, 3))
    info = replace(INFO, speakers=talkers, speakers_could_be=4)
    js = write_transcript(tmp_path / "talk.json", SEGMENTS, info, "json")
    row = QueueRow(InputItem(tmp_path / "talk.wav"), status="done", outputs=(js,))
    load_json_transcript(row)
    assert [s.name for s in row.info.speakers] == ["Speaker 1", "Speaker 2", "Speaker 3"]
    assert status_text(row)[0] == "done · English · 3 or 4 speakers: check"
