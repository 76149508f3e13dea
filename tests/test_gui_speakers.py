"""Speakers in the app: the Transcribe page's Speakers option labels a real two-person recording,
the segment list shows them in colour, and the editor renames, merges, reassigns words (undoable)
and remembers a named voice, which the next file then names."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

import json  # noqa: E402

import numpy as np  # noqa: E402
import soundfile as sf  # noqa: E402

from conftest import realspeech_file  # noqa: E402
from test_diarize import RATE, _conversation, _load, _matthes_clips  # noqa: E402
# Module fixtures: Whisper loads once per model settings and decodes each distinct audio (the same samples and
# options) once; the diarizer's two networks run once per distinct input. The interview is transcribed and
# labelled by two tests (auto, exactly 2) through the whole page, worker, batch and diarizer; only the model's
# decoding and the networks' outputs for audio already seen are reused.
from test_diarize import _one_decoding_per_audio, _one_network_run_per_input  # noqa: E402,F401
from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures


@pytest.fixture
def interview(tmp_path):
    other = _load(realspeech_file("lhotse_librispeech_2412-153948-0000.flac"))
    m = _matthes_clips(0, 2)
    audio, ref = _conversation([("M", m[0]), ("L", other), ("M", m[1])])
    path = tmp_path / "in" / "interview.wav"
    path.parent.mkdir()
    sf.write(path, audio, RATE)
    return path


def run_page(win, qtbot, path, whisper_dir, speakers_index: int):
    page = win.transcribe
    page.model_box.setCurrentText(str(whisper_dir))
    page.device_box.setCurrentText("cpu")
    # English said: tiny.en decodes without the multilingual Whisper's language detection (a 30 s encoder pass per
    # file), which no test here asserts on; test_diarize's interview tests keep speakers with language detection
    page.language_options.set_language("en")
    assert page.language_options.language() == "en"
    for f, c in page.format_checks.items():
        c.setChecked(f in ("txt", "json"))
    page.speakers_box.setCurrentIndex(speakers_index)
    page.add_paths([path])
    with qtbot.waitSignal(page.queue_finished, timeout=120000):
        page.start()
    return page


def test_speakers_option_labels_and_the_list_shows_them(win, qtbot, interview, whisper_dir):
    page = run_page(win, qtbot, interview, whisper_dir, 1)        # "Find out how many"
    assert page.speakers_box.currentData() == "auto"
    row = page.rows[0]
    assert row.status == "done"
    assert [s.speaker for s in row.segments][:1] == ["Speaker 1"]
    assert {s.speaker for s in row.segments} == {"Speaker 1", "Speaker 2"}
    from speechstudio.gui.queue_table import status_text

    assert status_text(row)[0].endswith(" · 2 speakers")       # the count (and its sureness) is shown
    txt = interview.with_suffix(".txt").read_text()
    assert txt.startswith("Speaker 1: ") and "\n\nSpeaker 2: " in txt
    page.table.selectRow(0)
    first = page.segments.item(0, 2)
    assert first.text().startswith("Speaker 1: ")
    assert first.foreground().color().name() == "#0072b2"


def test_editor_renames_reassigns_and_remembers_a_voice(win, qtbot, interview, whisper_dir, tmp_path):
    page = run_page(win, qtbot, interview, whisper_dir, 2)        # exactly 2
    page.table.selectRow(0)
    view = page.transcript
    view.edit_btn.setChecked(True)
    ed = view.editor
    doc = ed.document
    assert doc.speakers() == ["Speaker 1", "Speaker 2"]
    assert ed.text.speaker_width > 0 and ed._gutter_speaker(0)[0] == "Speaker 1"
    assert ed.rename_speaker("Speaker 1", "Matthes")
    assert doc.speakers() == ["Matthes", "Speaker 2"]
    # the selected words of the first line go to the other speaker: the segment is split around them
    first = doc.segments[0]
    words = first.text.split()
    ed.text.place_cursor(0, 0, len(words[0]))        # select the first word
    before = len(doc.segments)
    assert ed.assign_speaker("Speaker 2")
    assert len(doc.segments) == before + 1 and doc.segments[0].speaker == "Speaker 2"
    assert doc.segments[0].text == words[0] and doc.segments[1].speaker == "Matthes"
    ed.undo()
    assert len(doc.segments) == before and doc.segments[0].speaker == "Matthes"
    # remember Matthes's voice from the recording, then a new file names him
    ed.text.place_cursor(0, 0)
    said = []
    ed.voice_saved.connect(said.append)     # the status line may show the autosave's line after it
    t = ed.remember_voice()
    assert t is not None
    t.join()
    qtbot.waitUntil(lambda: any("remembered Matthes's voice" in m for m in said), timeout=10000)
    from speechstudio.diarize.library import load_library

    assert [v.name for v in load_library().voices] == ["Matthes"]
    ed.flush()
    saved = json.loads(interview.with_suffix(".json").read_text())
    assert [s["name"] for s in saved["speakers"]] == ["Matthes", "Speaker 2"]
    view.edit_btn.setChecked(False)
    second = tmp_path / "in2" / "next.wav"
    second.parent.mkdir()
    sf.write(second, _conversation([("L", _load(realspeech_file("lhotse_librispeech_2412-153948-0000.flac"))),
                                     ("M", np.concatenate(_matthes_clips(30, 2)))])[0], RATE)
    page.add_paths([second])
    with qtbot.waitSignal(page.queue_finished, timeout=120000):
        page.start()
    names = json.loads(second.with_suffix(".json").read_text())["speakers"]
    assert [(s["name"], s["known"]) for s in names] == [("Speaker 1", False), ("Matthes", True)]


def test_known_voices_dialog_lists_renames_and_deletes(win, qtbot):
    from speechstudio.diarize.library import library_dir, load_library, save_voice

    rng = np.random.default_rng(0)
    save_voice("Ana", rng.normal(size=192), seconds=12.0, source="talk.wav")
    save_voice("Ben", rng.normal(size=192), seconds=30.0, source="call.wav")
    (library_dir() / "Broken.json").write_text("{")
    dlg = win.transcribe.show_known_voices()
    assert [dlg.table.item(i, 0).text() for i in range(dlg.table.rowCount())] == ["Ana", "Ben"]
    assert "Broken.json: skipped" in dlg.problems.text()
    assert not dlg.rename_btn.isEnabled()
    dlg.select("Ana")
    assert dlg.rename_btn.isEnabled() and dlg.delete_btn.isEnabled()
    assert dlg.rename("Ana", "Ana Lima")
    assert dlg.selected() == "Ana Lima"
    assert not dlg.rename("Ben", "Ana Lima")            # taken: refused with the reason
    assert "exists already" in win.status_label.text()
    assert dlg.delete("Ben")
    assert [v.name for v in load_library().voices] == ["Ana Lima"]
    dlg.close()


def test_known_voices_show_the_file_a_voice_was_made_from_and_its_path_on_hover(win, qtbot):
    """"Made from" was a 100 px column that cut "42 s of /home/ana/…" before the file name: the column takes the
    room, shows the recording's file name (and stretch), and its tooltip the whole path."""
    from speechstudio.diarize.library import save_voice

    where = "/home/ana/Recordings/2024 interviews/interview with the mayor.wav (12 segments)"
    save_voice("Ana Lima", np.random.default_rng(0).normal(size=192), seconds=42.0, source=where)
    win.resize(1366, 768)
    dlg = win.transcribe.show_known_voices()
    item = dlg.table.item(0, 1)
    assert item.text() == "42 s of interview with the mayor.wav (12 segments)"
    assert item.toolTip() == f"42 s of {where}"
    qtbot.waitUntil(lambda: dlg.table.columnWidth(1) > 100)
    assert dlg.table.fontMetrics().horizontalAdvance(item.text()) + 12 < dlg.table.columnWidth(1)  # all of it fits
    assert dlg.table.fontMetrics().horizontalAdvance(dlg.table.item(0, 2).text()) < dlg.table.columnWidth(2)
    dlg.close()


def test_editor_says_how_sure_the_count_is_and_a_merge_settles_it(qtbot, home, tmp_path):
    """A transcript whose count the diarizer was unsure of: the editor says '2 or 3 speakers: check';
    merging two speakers (one action: Rename speaker… to the other's name) makes it '2 speakers'."""
    from speechstudio.asr.types import Segment, TranscriptInfo, Word
    from speechstudio.batch.export import write_transcript
    from speechstudio.diarize.family import SpeakerInfo
    from speechstudio.gui.transcript_editor import TranscriptEditor
    from speechstudio.transcript import TranscriptDocument

    segs = [Segment(float(i), i + 0.8, f"line {i}", (Word(float(i), i + 0.8, f"line{i}", 0.9, f"Speaker {i % 3 + 1}"),),
                    speaker=f"Speaker {i % 3 + 1}") for i in range(6)]
    info = TranscriptInfo(6.0, "en", "m", "whisper", speakers=tuple(SpeakerInfo(f"Speaker {k}", 1.6) for k in (1, 2, 3)),
                          speakers_could_be=2)
    path = tmp_path / "talk.json"
    write_transcript(path, segs, info, "json")
    assert json.loads(path.read_text())["speaker_count"] == {"found": 3, "sure": False, "could_be": 2,
                                                             "text": "2 or 3 speakers: check"}
    ed = TranscriptEditor(None)
    qtbot.addWidget(ed)
    ed.set_document(TranscriptDocument.load(path))
    assert ed.count_label.text() == "2 or 3 speakers: check"
    assert "merge two speakers" in ed.count_label.toolTip()
    assert ed.rename_speaker("Speaker 3", "Speaker 1")
    assert ed.count_label.text() == "2 speakers"
    ed.flush()
    assert json.loads(path.read_text())["speaker_count"] == {"found": 2, "sure": True, "could_be": None,
                                                             "text": "2 speakers"}


def test_a_split_after_a_merge_names_a_new_speaker_and_says_so_after_the_autosave(qtbot, home, tmp_path):
    """Speaker 2 merged into Speaker 1, then Split speaker finds a second voice: its segments become "Speaker 4"
    (was "Speaker 2" again), and the status line still says so after the autosave (its "saved talk.json" hid it)."""
    from speechstudio.asr.types import Segment, TranscriptInfo, Word
    from speechstudio.batch.export import write_transcript
    from speechstudio.gui.transcript_editor import AUTOSAVE_MS, TranscriptEditor
    from speechstudio.transcript import TranscriptDocument

    segs = [Segment(float(i), i + 0.8, f"line {i}", (Word(float(i), i + 0.8, f"line{i}", 0.9, f"Speaker {k}"),),
                    speaker=f"Speaker {k}") for i, k in enumerate((1, 2, 1, 3, 1))]
    path = tmp_path / "talk.json"
    write_transcript(path, segs, TranscriptInfo(5.0, "en", "m", "whisper"), "json")
    ed = TranscriptEditor(None)
    qtbot.addWidget(ed)
    messages = []
    ed.status_message.connect(messages.append)
    ed.set_document(TranscriptDocument.load(path))
    assert ed.rename_speaker("Speaker 2", "Speaker 1")
    spans = [(s.start_s, s.end_s) for s in ed.document.segments if s.speaker == "Speaker 1"]
    ed.split_found.emit("Speaker 1", spans, [0, 1, 1, 0])   # what split_by_voice heard (segments 1, 2: voice 1)
    assert [s.speaker for s in ed.document.segments] == ["Speaker 1", "Speaker 4", "Speaker 4", "Speaker 3",
                                                         "Speaker 1"]
    said = "Speaker 1 split in two: 2 segments are now Speaker 4 (undo puts them back)"
    assert messages[-1] == said
    qtbot.wait(AUTOSAVE_MS + 300)
    assert messages[-1] == said and not ed.document.dirty   # saved already, and the result still on the line
    assert [s["speaker"] for s in json.loads(path.read_text())["segments"]][1] == "Speaker 4"
    ed.undo()
    qtbot.wait(AUTOSAVE_MS + 300)
    assert messages[-1] == "undid split Speaker 1: 2 segments to Speaker 4"


def test_editor_splits_a_speaker_heard_as_one_into_two_people(qtbot, home, tmp_path):
    """pyannote.audio's real phone call with both people under "Speaker 1": Split speaker listens to
    the segments again and gives the second voice its own speaker; one undo puts it back."""
    from pathlib import Path

    from speechstudio.asr.types import Segment, TranscriptInfo, Word
    from speechstudio.batch.export import write_transcript
    from speechstudio.gui.transcript_editor import TranscriptEditor
    from speechstudio.transcript import TranscriptDocument

    call = Path(__file__).resolve().parents[1] / "bench" / "diarization_data" / "pyannote_sample_phone.flac"
    ref = [(float(r[3]), float(r[3]) + float(r[4]), r[7]) for r in
           (line.split() for line in call.with_suffix(".rttm").read_text().splitlines())]
    segs = [Segment(a, b, f"turn {i}", (Word(a, b, f"turn{i}", 0.9, "Speaker 1"),), speaker="Speaker 1")
            for i, (a, b, _) in enumerate(ref)]
    path = tmp_path / "call.json"
    write_transcript(path, segs, TranscriptInfo(30.0, "en", "m", "whisper"), "json")
    doc = TranscriptDocument.load(path)
    doc.meta["source"] = {"path": str(call)}
    ed = TranscriptEditor(None)
    qtbot.addWidget(ed)
    messages = []
    ed.status_message.connect(messages.append)
    ed.set_document(doc)
    ed.text.place_cursor(0, 0)
    assert ed.count_label.text() == "1 speaker"
    ed.split_speaker().join()
    qtbot.waitUntil(lambda: ed.count_label.text() == "2 speakers", timeout=10000)
    said = {who: {s.speaker for s, (a, b, w) in zip(doc.segments, ref) if w == who and b - a > 1.0}
            for who in ("speaker90", "speaker91")}
    assert said == {"speaker90": {"Speaker 1"}, "speaker91": {"Speaker 2"}}     # the first voice keeps the name
    assert messages[-1] == "Speaker 1 split in two: 5 segments are now Speaker 2 (undo puts them back)"
    ed.undo()
    assert {s.speaker for s in doc.segments} == {"Speaker 1"}
