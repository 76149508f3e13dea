"""Split one speaker in two by voice (the editor's *Split speaker*): on a real phone call whose two
people were heard as one, and as one undo step of the transcript document."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from speechstudio.asr.types import Segment, TranscriptInfo, Word
from speechstudio.errors import UsageError

CALL = Path(__file__).resolve().parents[1] / "bench" / "diarization_data" / "pyannote_sample_phone.flac"


def _reference() -> list[tuple[float, float, str]]:
    rows = [line.split() for line in CALL.with_suffix(".rttm").read_text().splitlines() if line.startswith("SPEAKER")]
    return [(float(r[3]), float(r[3]) + float(r[4]), r[7]) for r in rows]


def test_a_real_call_heard_as_one_voice_splits_into_its_two_people():
    from speechstudio.diarize.split import split_by_voice

    ref = _reference()
    voices = split_by_voice(CALL, [(a, b) for a, b, _ in ref])
    assert voices[0] == 0 and set(voices) == {0, 1}
    # every turn goes to its own person, the short ones said over the other person's too
    assert [(who, v) for (_, _, who), v in zip(ref, voices)] == [(who, {"speaker90": 0, "speaker91": 1}[who])
                                                              for _, _, who in ref]


def test_too_little_speech_to_split_is_refused_with_the_reason():
    from speechstudio.diarize.split import split_by_voice

    with pytest.raises(UsageError, match=r"pyannote_sample_phone.flac: only \d\.\d s of speech .* too little"):
        split_by_voice(CALL, [(6.69, 7.12), (7.55, 8.35)])


def test_split_speaker_is_one_undo_step(tmp_path):
    from speechstudio.batch.export import write_transcript
    from speechstudio.transcript import TranscriptDocument

    segs = [Segment(float(i), i + 0.8, f"line {i}", (Word(float(i), i + 0.8, f"line{i}", 0.9, "Speaker 1"),),
                    speaker="Speaker 1") for i in range(4)] + \
           [Segment(4.0, 4.8, "other", (Word(4.0, 4.8, "other", 0.9, "Speaker 2"),), speaker="Speaker 2")]
    path = tmp_path / "talk.json"
    write_transcript(path, segs, TranscriptInfo(5.0, "en", "m", "whisper"), "json")
    doc = TranscriptDocument.load(path)
    doc.split_speaker("Speaker 1", [1, 3, 4])         # 4 is Speaker 2's: left alone
    assert [s.speaker for s in doc.segments] == ["Speaker 1", "Speaker 3", "Speaker 1", "Speaker 3", "Speaker 2"]
    assert [w.speaker for s in doc.segments for w in s.words][1] == "Speaker 3"
    assert doc.speaker_count() == "3 speakers"
    doc.undo()
    assert [s.speaker for s in doc.segments] == ["Speaker 1"] * 4 + ["Speaker 2"]
    with pytest.raises(UsageError, match="Speaker 1: choose some, not all"):
        doc.split_speaker("Speaker 1", [0, 1, 2, 3])


def _three_speakers(path):
    from speechstudio.batch.export import write_transcript
    from speechstudio.transcript import TranscriptDocument

    segs = [Segment(float(i), i + 0.8, f"line {i}", (Word(float(i), i + 0.8, f"line{i}", 0.9, f"Speaker {k}"),),
                    speaker=f"Speaker {k}") for i, k in enumerate((1, 2, 1, 3, 1))]
    write_transcript(path, segs, TranscriptInfo(5.0, "en", "m", "whisper"), "json")
    return TranscriptDocument.load(path)


def test_a_split_never_brings_back_the_name_of_a_speaker_merged_away(tmp_path):
    """Speaker 2 merged into Speaker 1, then Speaker 1 split: the new speaker is "Speaker 4", the next number after
    the highest ever used (was "Speaker 2", as if the merged person came back), also once the file is reopened."""
    from speechstudio.transcript import TranscriptDocument

    doc = _three_speakers(tmp_path / "talk.json")
    doc.rename_speaker("Speaker 2", "Speaker 1")
    assert doc.speakers() == ["Speaker 1", "Speaker 3"]
    doc.split_speaker("Speaker 1", [1, 2])
    assert [s.speaker for s in doc.segments] == ["Speaker 1", "Speaker 4", "Speaker 4", "Speaker 3", "Speaker 1"]
    doc.undo()
    doc.split_speaker("Speaker 1", [4])                       # split again after undoing the first
    assert doc.segments[4].speaker == "Speaker 4"
    doc.undo()
    doc.save()
    again = TranscriptDocument.load(tmp_path / "talk.json")   # the merge is in the saved edit history
    assert "Speaker 2" not in json.dumps(again.meta["speakers"])
    again.split_speaker("Speaker 1", [0])
    assert again.segments[0].speaker == "Speaker 4"
    fresh = _three_speakers(tmp_path / "other.json")          # nothing merged: the next number too
    fresh.split_speaker("Speaker 1", [4])
    assert fresh.segments[4].speaker == "Speaker 4"


def test_a_voice_saved_where_the_data_folder_is_a_file_says_so(tmp_path, monkeypatch, capsys):
    """``speakers add`` with SPEECHSTUDIO_HOME pointing at a file: one line naming the file and the
    reason, exit 2 (was "unexpected error: NotADirectoryError")."""
    import numpy as np

    from speechstudio import cli
    from speechstudio.atomic import OutputWriteError
    from speechstudio.diarize.library import save_voice

    home = tmp_path / "home"
    home.write_text("not a folder")
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(home))
    with pytest.raises(OutputWriteError, match=r"speakers/Ana\.json: cannot write \(.*"):
        save_voice("Ana", np.ones(192, np.float32), seconds=3.0, source="test")
    monkeypatch.setattr("speechstudio.diarize.cli.voice_from_file", lambda *a: (np.ones(192, np.float32), 3.0, "x"))
    assert cli.main(["speakers", "add", "Ana", str(tmp_path / "ana.wav")]) == 2
    err = capsys.readouterr().err
    assert "Ana.json: cannot write (" in err and "unexpected error" not in err
