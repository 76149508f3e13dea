"""The Qt-free transcript editing model: edit / split / merge / retime / type / find-replace / undo,
word timing through edits, JSON round trip (unknown keys kept, history survives a reload), export."""
from __future__ import annotations

import json
import os

import pytest

from speechstudio.asr.types import Segment as AsrSegment
from speechstudio.asr.types import TranscriptInfo
from speechstudio.asr.types import Word as AsrWord
from speechstudio.batch.export import write_transcript
from speechstudio.errors import UsageError
from speechstudio.transcript import TranscriptDocument, TranscriptFileError
from speechstudio.transcript.words import interpolate, retime

INFO = TranscriptInfo(6.0, "en", "whisper-tiny.en", "whisper")


def segs():
    W = AsrWord
    return [AsrSegment(0.0, 2.0, "Hello wrold again", (W(0.1, 0.5, "Hello", 0.9), W(0.6, 1.0, "wrold", 0.4),
                                                      W(1.2, 1.8, "again", 0.8)), -0.2, 0.01),
            AsrSegment(2.5, 4.0, "second part here", (W(2.5, 3.0, "second", 0.7), W(3.1, 3.5, "part", 0.6),
                                                     W(3.6, 4.0, "here", 0.5)), -0.6, 0.03)]


@pytest.fixture
def json_path(tmp_path):
    p = tmp_path / "talk.json"
    write_transcript(p, segs(), INFO, "json")
    d = json.loads(p.read_text())
    d["my_tool"] = {"reviewed": False}           # unknown keys at every level
    d["segments"][0]["reviewer"] = "A"
    d["segments"][1]["words"][0]["style"] = "bold"
    p.write_text(json.dumps(d))
    return p


def words(seg):
    return [(w.start_s, w.end_s, w.text) for w in seg.words]


def test_edit_word_in_place_keeps_times(json_path):
    doc = TranscriptDocument.load(json_path)
    doc.replace_lines(0, 1, ["Hello world again"], "edit segment 1")
    s = doc.segments[0]
    assert (s.start_s, s.end_s, s.text) == (0.0, 2.0, "Hello world again")
    assert words(s) == [(0.1, 0.5, "Hello"), (0.6, 1.0, "world"), (1.2, 1.8, "again")]
    assert [w.probability for w in s.words] == [0.9, 1.0, 0.8]  # the typed word: 1.0
    assert s.extra == {"reviewer": "A"}


def test_free_edit_interpolates_inside_the_gap():
    W = AsrWord
    old = [W(0.0, 1.0, "one"), W(1.0, 2.0, "two"), W(2.0, 3.0, "three")]
    # "two" -> "to do" (1 word -> 2): share 1.0..2.0 by characters (2 : 2)
    assert [(w.start_s, w.end_s, w.text) for w in retime(old, "one to do three", 0.0, 3.0)] == [
        (0.0, 1.0, "one"), (1.0, 1.5, "to"), (1.5, 2.0, "do"), (2.0, 3.0, "three")]
    # a word typed between two touching words: the one before shares its span (3 : 3 chars)
    assert [(w.start_s, w.end_s, w.text) for w in retime(old, "one new two three", 0.0, 3.0)] == [
        (0.0, 0.5, "one"), (0.5, 1.0, "new"), (1.0, 2.0, "two"), (2.0, 3.0, "three")]
    assert interpolate(["a", "bbb"], 1.0, 2.0) == [(1.0, 1.25), (1.25, 2.0)]


def test_split_at_word_boundary_and_merge(json_path):
    doc = TranscriptDocument.load(json_path)
    doc.split(0, len("Hello wrold"))
    a, b = doc.segments[:2]
    assert (a.start_s, a.end_s, a.text, words(a)) == (0.0, 1.0, "Hello wrold", [(0.1, 0.5, "Hello"), (0.6, 1.0, "wrold")])
    assert (b.start_s, b.end_s, b.text, words(b)) == (1.2, 2.0, "again", [(1.2, 1.8, "again")])
    assert a.extra == b.extra == {"reviewer": "A"}
    doc.merge(1)  # "again" + "second part here"
    m = doc.segments[1]
    assert (m.start_s, m.end_s, m.text) == (1.2, 4.0, "again second part here")
    assert words(m) == [(1.2, 1.8, "again"), (2.5, 3.0, "second"), (3.1, 3.5, "part"), (3.6, 4.0, "here")]
    assert m.avg_logprob == pytest.approx((-0.2 * 0.8 - 0.6 * 1.5) / 2.3)
    assert len(doc.segments) == 2
    with pytest.raises(UsageError, match="segment 2 is the last one"):
        doc.merge(1)
    with pytest.raises(UsageError, match="between words"):
        doc.split(0, 0)


def test_split_inside_a_word_shares_its_span(json_path):
    doc = TranscriptDocument.load(json_path)
    doc.split(1, len("second pa"))  # "part" 3.1..3.5 -> "pa" | "rt"
    a, b = doc.segments[1:3]
    assert words(a) == [(2.5, 3.0, "second"), (3.1, 3.3, "pa")] and a.end_s == 3.3
    assert words(b) == [(3.3, 3.5, "rt"), (3.6, 4.0, "here")] and (b.start_s, b.end_s) == (3.3, 4.0)


def test_set_times_moves_words_and_rejects_bad_spans(json_path):
    doc = TranscriptDocument.load(json_path)
    doc.set_times(1, 3.0, 4.5)  # 2.5..4.0 -> 3.0..4.5: shift by 0.5
    assert words(doc.segments[1]) == [(3.0, 3.5, "second"), (3.6, 4.0, "part"), (4.1, 4.5, "here")]
    with pytest.raises(UsageError, match="segment 1: end 1.000 s must be after start 1.500 s"):
        doc.set_times(0, 1.5, 1.0)
    # a typo (1:30 for 0:01.3) once spread the words over the next segment's and past the audio
    with pytest.raises(UsageError, match=r"segment 2: end 1:30.000 is after the end of the audio \(0:06.000\)"):
        doc.set_times(1, 3.0, 90.0)
    with pytest.raises(UsageError, match=r"segment 1: end 0:05.000 is after segment 2's end \(0:04.500\)"):
        doc.set_times(0, 0.0, 5.0)
    doc.set_times(0, 0.5, 3.2)        # into the next segment's start: speakers may overlap
    assert (doc.segments[0].end_s, doc.segments[1].start_s) == (3.2, 3.0)
    with pytest.raises(UsageError, match=r"segment 2: start 0:00.200 is before segment 1's start \(0:00.500\)"):
        doc.set_times(1, 0.2, 4.5)


def test_typing_is_one_undo_step_and_keeps_word_times(json_path):
    doc = TranscriptDocument.load(json_path)
    rest = doc.texts()[1:]
    for t in ("Hello wold again", "Hello wod again", "Hello w again", "Hello wor again", "Hello world again"):
        doc.type_lines([t, *rest])
    assert words(doc.segments[0]) == [(0.1, 0.5, "Hello"), (0.6, 1.0, "world"), (1.2, 1.8, "again")]
    doc.type_lines(["Hello world", "again", *rest])          # Enter after "world"
    doc.type_lines(["Hello world", "again and", *rest])
    assert [(s.start_s, s.end_s, s.text) for s in doc.segments] == [
        (0.0, 1.0, "Hello world"), (1.2, 2.0, "again and"), (2.5, 4.0, "second part here")]
    assert words(doc.segments[1]) == [(1.2, 1.8, "again"), (1.8, 2.0, "and")]
    assert doc.undo_label() == "typing"
    doc.undo()
    assert doc.texts() == ["Hello wrold again", "second part here"]
    assert not doc.can_undo and doc.can_redo
    doc.redo()
    assert doc.texts() == ["Hello world", "again and", "second part here"]
    doc.type_lines(["Hello world", "again and second part here"])  # Backspace at a line start: merge
    assert [(s.start_s, s.end_s) for s in doc.segments] == [(0.0, 1.0), (1.2, 4.0)]
    doc.type_lines(["Hello world"])                                 # the line deleted
    assert doc.texts() == ["Hello world"]
    doc.undo()
    assert doc.texts() == ["Hello world", "again and", "second part here"]


def test_find_and_replace(json_path):
    doc = TranscriptDocument.load(json_path)
    m = doc.find("PART", 0, 0)
    assert (m.segment, m.start, m.end) == (1, 7, 11)
    assert doc.find("part", 1, 8) == m  # wraps round to the only match
    assert doc.find("e", 1, 0, case_sensitive=True, backwards=True).segment == 0
    assert doc.find_all("re", whole_word=True) == []
    doc.replace(m, "bit")
    assert words(doc.segments[1])[1] == (3.1, 3.5, "bit")
    assert doc.replace_all("E", "3") == 4
    assert doc.texts() == ["H3llo wrold again", "s3cond bit h3r3"]
    doc.undo()
    assert doc.texts() == ["Hello wrold again", "second bit here"]
    with pytest.raises(UsageError, match="empty"):
        doc.find("")


def test_json_round_trip_keeps_unknown_keys_and_history(json_path):
    before = json.loads(json_path.read_text())
    doc = TranscriptDocument.load(json_path)
    doc.save()
    same = json.loads(json_path.read_text())
    assert same.pop("edit_history") == {"format": 1, "done": [], "undone": []}
    assert same == before                                     # every key, in order, unchanged

    doc.replace_lines(0, 1, ["Hello world again"], "edit segment 1")
    doc.split(1, len("second"))
    assert doc.dirty
    doc.save()
    assert not doc.dirty
    d = json.loads(json_path.read_text())
    assert d["my_tool"] == {"reviewed": False} and d["segments"][0]["reviewer"] == "A"
    assert d["segments"][1]["words"][0] == {"start_s": 2.5, "end_s": 3.0, "text": "second", "probability": 0.7,
                                           "style": "bold"}
    assert d["text"] == "Hello world again second part here"
    assert [c["label"] for c in d["edit_history"]["done"]] == ["edit segment 1", "split segment 2"]

    again = TranscriptDocument.load(json_path)                # a restart: undo still works
    assert again.texts() == ["Hello world again", "second", "part here"]
    again.undo()
    again.undo()
    assert again.texts() == ["Hello wrold again", "second part here"]
    assert words(again.segments[0])[1] == (0.6, 1.0, "wrold")
    again.save()
    assert json.loads(json_path.read_text())["segments"] == before["segments"]


def test_history_that_does_not_match_is_refused(json_path):
    doc = TranscriptDocument.load(json_path)
    doc.replace_lines(0, 1, ["Hello world again"], "edit segment 1")
    doc.save()
    d = json.loads(json_path.read_text())
    d["segments"][0]["text"] = "changed by another tool"
    json_path.write_text(json.dumps(d))
    doc = TranscriptDocument.load(json_path)
    with pytest.raises(TranscriptFileError, match="cannot undo 'edit segment 1'.*changed outside the editor"):
        doc.undo()
    assert not doc.can_undo


def test_bad_files_name_the_file_and_field(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"segments": [{"start_s": 0, "end_s": "x", "text": "a"}]}')
    with pytest.raises(TranscriptFileError, match=r"bad.json: segment 1 end_s is 'x', not a number"):
        TranscriptDocument.load(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(TranscriptFileError, match="not a JSON transcript"):
        TranscriptDocument.load(bad)


def test_export_round_trip_srt_and_json(json_path, tmp_path):
    doc = TranscriptDocument.load(json_path)
    doc.replace_lines(0, 1, ["Hello world again"], "edit segment 1")
    doc.split(0, len("Hello world"))
    doc.set_times(1, 1.2, 2.2)  # cues of 1 s or more: subtitle layout rules leave them as they are
    srt = write_transcript(tmp_path / "out.srt", doc.segments, doc.info, "srt")
    assert srt.read_text() == ("1\n00:00:00,100 --> 00:00:01,000\nHello world\n\n"
                               "2\n00:00:01,200 --> 00:00:02,033\nagain\n\n"
                               "3\n00:00:02,500 --> 00:00:04,000\nsecond part here\n\n")
    js = json.loads(write_transcript(tmp_path / "out.json", doc.segments, doc.info, "json").read_text())
    assert [(s["start_s"], s["end_s"], s["text"]) for s in js["segments"]] == [
        (0.0, 1.0, "Hello world"), (1.2, 2.2, "again"), (2.5, 4.0, "second part here")]
    assert [w["start_s"] for w in js["segments"][1]["words"]] == [1.2]
    assert write_transcript(tmp_path / "out.txt", doc.segments, doc.info, "txt").read_text() == "Hello world\nagain\nsecond part here\n"


def test_time_at_cursor_and_word_at_time(json_path):
    doc = TranscriptDocument.load(json_path)
    assert doc.time_at(0, 0) == 0.1 and doc.time_at(0, 7) == 0.6 and doc.time_at(0, 17) == 1.2
    assert doc.word_at(0.7) == (0, 6, 11)      # "wrold"
    assert doc.word_at(1.1) is None            # between words
    assert doc.word_at(3.2) == (1, 7, 11)      # "part"


def test_time_format_and_parse():
    from speechstudio.transcript.timefmt import format_time, parse_time

    assert [format_time(t) for t in (0, 1.2345, 75.5, 3725)] == ["0:00.000", "0:01.234", "1:15.500", "1:02:05.000"]
    assert [parse_time(t) for t in ("1:15.5", "75.5", "1:02:05", "0,25", " 2 ")] == [75.5, 75.5, 3725.0, 0.25, 2.0]
    with pytest.raises(UsageError, match="'1:x' is not a time"):
        parse_time("1:x")


def test_save_refuses_a_file_changed_on_disk(json_path):
    doc = TranscriptDocument.load(json_path)
    doc.replace_lines(0, 1, ["Hello world again"], "edit segment 1")
    assert not doc.changed_on_disk()
    write_transcript(json_path, segs(), INFO, "json")      # transcribed again meanwhile
    os.utime(json_path, ns=(1, 1))
    assert doc.changed_on_disk()
    with pytest.raises(TranscriptFileError, match="changed on disk since it was opened"):
        doc.save()
    assert "edit_history" not in json.loads(json_path.read_text())
    assert doc.save(json_path.with_name("copy.json")).is_file()   # elsewhere is fine


def test_typing_into_an_empty_transcript(tmp_path):
    doc = TranscriptDocument.from_segments([], TranscriptInfo(4.0, "en", "m", "whisper"), tmp_path / "t.json")
    doc.type_lines(["hi there"])
    # the words share the audio's 4 s by their lengths (2 : 5 characters)
    assert [(w.start_s, w.end_s, w.text) for w in doc.segments[0].words] == [(0.0, 1.143, "hi"), (1.143, 4.0, "there")]
    doc.type_lines(["hi there", "more"])                  # 2 : 5 : 4 characters, dealt to two lines
    assert [(s.start_s, s.end_s, s.text) for s in doc.segments] == [(0.0, 2.545, "hi there"), (2.545, 4.0, "more")]
    doc.undo()
    assert doc.segments == ()


def test_an_edited_transcript_saved_and_loaded_back_is_the_same_document(tmp_path):
    W = AsrWord
    p = tmp_path / "two.json"
    write_transcript(p, [AsrSegment(0.0, 1.0, " hi there", (W(0.0, 0.4, "hi", 0.9), W(0.5, 1.0, "there", 0.8)),
                                    -0.1, 0.0, "Ana", "en"),
                         AsrSegment(1.5, 2.0, "hallo", (W(1.5, 2.0, "hallo", 0.7),), None, None, None, "de")],
                     INFO, "json")
    doc = TranscriptDocument.load(p)
    doc.replace_lines(0, 1, ["hi there, Bo"], "edit segment 1")
    doc.set_speaker(1, "Bo")
    doc.save()
    saved = json.loads(p.read_text())
    assert list(saved["segments"][1]) == ["start_s", "end_s", "text", "avg_logprob", "no_speech_prob", "speaker",
                                          "language", "words"]           # the run writer's order, one writer
    assert saved["segments"][1]["words"] == [{"start_s": 1.5, "end_s": 2.0, "text": "hallo", "probability": 0.7,
                                              "speaker": "Bo"}]
    back = TranscriptDocument.load(p)
    assert back.to_dict() == doc.to_dict()            # a word without a speaker is written with its segment's
    text = p.read_text()
    back.save()
    assert p.read_text() == text
    assert back.texts() == ["hi there, Bo", "hallo"] and [s.speaker for s in back.segments] == ["Ana", "Bo"]
    back.undo()
    assert [s.speaker for s in back.segments] == ["Ana", None]


def test_words_given_to_a_speaker_are_the_selected_ones_even_from_a_space():
    """Selecting " you kno" (from the space after "thought,") gives "you know," to Alice; "thought," stays."""
    W = AsrWord
    text = "I thought, you know, I heard a deer."
    words = tuple(W(0.4 * k, 0.4 * k + 0.3, w, 0.9) for k, w in enumerate(text.split()))
    doc = TranscriptDocument([AsrSegment(0.0, 3.2, text, words, speaker="Bob")], {"audio_duration_s": 4.0})
    a = text.index(" you")
    doc.set_speaker(0, "Alice", a, a + len(" you kno"))
    assert [(s.speaker, s.text) for s in doc.segments] == [("Bob", "I thought,"), ("Alice", "you know,"),
                                                           ("Bob", "I heard a deer.")]
