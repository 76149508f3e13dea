"""Exporters: exact txt/srt/vtt/json content, atomic writes, output paths (mirroring, odd names)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from speechstudio import __version__
from speechstudio.asr.types import Segment, TranscriptInfo, Word
from speechstudio.errors import UsageError
from speechstudio.batch import export
from speechstudio.batch.export import (
    FORMATS,
    output_path,
    parse_formats,
    render,
    write_transcript,
)

SEGMENTS = [
    Segment(0.0, 2.5, " Hello world.", (Word(0.12, 0.5, " Hello", 0.98), Word(0.61, 1.2, " world.", 0.9))),
    Segment(2.5, 5.0, " Café & crème <b>brûlée</b> 😀", (Word(2.5, 3.0004, "Café", 1.0),)),
    Segment(3725.5, 3727.25, "Over   an\nhour.", ()),
]
INFO = TranscriptInfo(duration_s=3727.5004, language="en", model_id="facebook/wav2vec2-base-960h",
                      engine="wav2vec2", device="cuda:0", precision="fp16")

TXT = "Hello world.\nCafé & crème <b>brûlée</b> 😀\nOver an hour.\n"
SRT = (
    "1\n00:00:00,120 --> 00:00:01,200\nHello world.\n\n"
    "2\n00:00:02,500 --> 00:00:05,000\nCafé & crème <b>brûlée</b> 😀\n\n"
    "3\n01:02:05,500 --> 01:02:07,250\nOver an hour.\n\n"
)
VTT = (
    "WEBVTT\n\n"
    "1\n00:00:00.120 --> 00:00:01.200\nHello world.\n\n"
    "2\n00:00:02.500 --> 00:00:05.000\nCafé &amp; crème &lt;b&gt;brûlée&lt;/b&gt; 😀\n\n"
    "3\n01:02:05.500 --> 01:02:07.250\nOver an hour.\n\n"
)


def test_formats_constant():
    assert FORMATS == ("txt", "srt", "vtt", "json", "ass")


def test_txt_exact():
    assert render("txt", SEGMENTS, INFO) == TXT


def test_srt_exact():
    assert render("srt", SEGMENTS, INFO) == SRT


def test_vtt_exact():
    assert render("vtt", SEGMENTS, INFO) == VTT


def test_json_exact():
    doc = json.loads(render("json", SEGMENTS, INFO))
    assert doc == {
        "speechstudio_version": __version__,
        "model_id": "facebook/wav2vec2-base-960h",
        "engine": "wav2vec2",
        "device": "cuda:0",
        "precision": "fp16",
        "language": "en",
        "language_probability": None,
        "language_detected_by": None,
        "task": "transcribe",
        "audio_duration_s": 3727.5,
        "text": "Hello world. Café & crème <b>brûlée</b> 😀 Over an hour.",
        "segments": [
            {"start_s": 0.0, "end_s": 2.5, "text": "Hello world.", "avg_logprob": None, "no_speech_prob": None, "words": [
                {"start_s": 0.12, "end_s": 0.5, "text": "Hello", "probability": 0.98},
                {"start_s": 0.61, "end_s": 1.2, "text": "world.", "probability": 0.9},
            ]},
            {"start_s": 2.5, "end_s": 5.0, "text": "Café & crème <b>brûlée</b> 😀", "avg_logprob": None, "no_speech_prob": None, "words": [
                {"start_s": 2.5, "end_s": 3.0, "text": "Café", "probability": 1.0},
            ]},
            {"start_s": 3725.5, "end_s": 3727.25, "text": "Over   an\nhour.", "avg_logprob": None, "no_speech_prob": None, "words": []},
        ],
    }
    text = render("json", SEGMENTS, INFO)
    assert "😀" in text and "Café" in text  # UTF-8, not \\u escapes
    assert text.endswith("}\n")


def test_empty_transcript():
    """Without speech every format is a file of its kind saying so (was: a 0-byte .srt pysubs2 cannot load, a 0-byte
    .txt, cueless .vtt / .ass); the text stays empty (no invented words)."""
    import pysubs2

    info = TranscriptInfo(7.5, None, "m", "whisper")
    assert render("txt", [], info) == ""
    assert render("srt", [], info) == "1\n00:00:00,000 --> 00:00:07,500\n[no speech]\n\n"
    for fmt in ("srt", "vtt", "ass"):
        subs = pysubs2.SSAFile.from_string(render(fmt, [], info))
        assert [(e.start, e.end, e.text) for e in subs] == [(0, 7500, "[no speech]")], fmt
    assert render("srt", [], TranscriptInfo(0.0, None, "m", "whisper")).startswith("1\n00:00:00,000 --> 00:00:01,000\n")
    doc = json.loads(render("json", [], info))
    assert doc["segments"] == [] and doc["text"] == "" and doc["language"] is None


def test_subtitles_skip_empty_sort_and_keep_braces_and_backslashes():
    """A segment that ends before it starts is never a zero-length cue: too short to read, it joins
    the cue before (1 s apart: no pause over 1 s parts them)."""
    segs = [
        Segment(5.0, 6.0, "second {laughs} a\\Nb"),
        Segment(1.0, 2.0, "first"),
        Segment(2.0, 2.0, "   "),
        Segment(3.0, 2.9, "end before start"),
    ]
    assert render("srt", segs, INFO) == (
        "1\n00:00:01,000 --> 00:00:03,000\nfirst end before start\n\n"
        "2\n00:00:05,000 --> 00:00:06,000\nsecond {laughs} a\\\u2060Nb\n\n"
    )
    assert render("txt", segs, INFO) == "second {laughs} a\\Nb\nfirst\nend before start\n"


def test_render_unknown_format():
    with pytest.raises(UsageError, match=r"unknown output format 'docx' \(choose from txt, srt, vtt, json, ass\)"):
        render("docx", SEGMENTS, INFO)


# --------------------------------------------------------------------------- parse_formats


def test_parse_formats():
    assert parse_formats("txt,srt") == ("txt", "srt")
    assert parse_formats(" SRT , .vtt,srt,") == ("srt", "vtt")
    assert parse_formats("all") == FORMATS
    assert parse_formats(["json", "txt"]) == ("json", "txt")
    with pytest.raises(UsageError, match=r"unknown output format 'docx' \(choose from txt, srt, vtt, json, ass\)"):
        parse_formats("txt,docx")
    with pytest.raises(UsageError, match="no output format given"):
        parse_formats(" , ")


# --------------------------------------------------------------------------- output_path


def test_output_path_next_to_input(tmp_path):
    assert output_path(tmp_path / "a" / "b.wav", "srt") == tmp_path / "a" / "b.srt"
    assert output_path("talk.v2.final.mp3", "srt") == Path("talk.v2.final.srt")
    assert output_path("README", "txt") == Path("README.txt")
    assert output_path("notes.txt", "txt") == Path("notes.txt.txt")  # never the input itself
    assert output_path(".hidden", "vtt") == Path(".hidden.vtt")


def test_output_path_mirrors_tree(tmp_path):
    root, out = tmp_path / "root", tmp_path / "out"
    assert output_path(root / "a" / "b.wav", "srt", input_root=root, output_dir=out) == out / "a" / "b.srt"
    assert output_path(root / "b.wav", "json", input_root=root, output_dir=out) == out / "b.json"
    assert output_path(root / "x" / "y" / "z.v1.flac", "vtt", root, out) == out / "x" / "y" / "z.v1.vtt"
    # a file given directly (no root), or outside its root: flat under out
    assert output_path(root / "a" / "b.wav", "srt", output_dir=out) == out / "b.srt"
    assert output_path(tmp_path / "elsewhere" / "b.wav", "srt", input_root=root, output_dir=out) == out / "b.srt"
    # input_root without output_dir: next to the input
    assert output_path(root / "a" / "b.wav", "txt", input_root=root) == root / "a" / "b.txt"


def test_output_path_relative_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert output_path("rec/day 1/take.wav", "srt", input_root="rec", output_dir="out") == Path("out/day 1/take.srt")
    assert output_path(tmp_path / "rec" / "t.wav", "srt", input_root="rec", output_dir="out") == Path("out/t.srt")


def test_output_path_odd_names(tmp_path):
    root, out = tmp_path / "in put #1", tmp_path / "out dir"
    src = root / "Ünïcödé 日本語" / "my talk #2 😀.v2.final.mp3"
    assert output_path(src, "srt", root, out) == out / "Ünïcödé 日本語" / "my talk #2 😀.v2.final.srt"
    assert output_path(src, "txt") == src.parent / "my talk #2 😀.v2.final.txt"


def test_output_path_unknown_format():
    with pytest.raises(UsageError):
        output_path("a.wav", "doc")


# --------------------------------------------------------------------------- atomic writes


def _listing(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir())


def test_write_transcript_all_formats_mirrored_odd_names(tmp_path):
    root, out = tmp_path / "in #1", tmp_path / "out 😀"
    src = root / "sub dir" / "a.b.c #x é.wav"
    written = [write_transcript(output_path(src, f, root, out), SEGMENTS, INFO, f) for f in FORMATS]
    folder = out / "sub dir"
    assert written == [folder / f"a.b.c #x é.{f}" for f in FORMATS]
    assert _listing(folder) == sorted(f"a.b.c #x é.{f}" for f in FORMATS)  # no temp files
    assert (folder / "a.b.c #x é.txt").read_text(encoding="utf-8") == TXT
    assert (folder / "a.b.c #x é.srt").read_text(encoding="utf-8") == SRT
    assert (folder / "a.b.c #x é.vtt").read_text(encoding="utf-8") == VTT
    assert json.loads((folder / "a.b.c #x é.json").read_text(encoding="utf-8"))["engine"] == "wav2vec2"


def test_write_uses_normal_permissions(tmp_path):
    target = write_transcript(tmp_path / "t.txt", SEGMENTS, INFO, "txt")
    ref = tmp_path / "ref"
    ref.write_text("x")
    assert (target.stat().st_mode & 0o777) == (ref.stat().st_mode & 0o777)


def test_failure_mid_write_leaves_nothing(tmp_path, monkeypatch):
    written = []
    real_fsync = os.fsync

    def failing_fsync(fd):
        written.append(os.fstat(fd).st_size)  # bytes already in the temp file
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(export.os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="No space left"):
        write_transcript(tmp_path / "t.srt", SEGMENTS, INFO, "srt")
    assert written and written[0] > 0
    assert _listing(tmp_path) == []
    monkeypatch.setattr(export.os, "fsync", real_fsync)


def test_failure_keeps_previous_output(tmp_path, monkeypatch):
    target = tmp_path / "t.json"
    target.write_text("old", encoding="utf-8")

    def failing_replace(src, dst):
        raise KeyboardInterrupt  # user pressed Ctrl+C just before the rename

    monkeypatch.setattr(export.os, "replace", failing_replace)
    with pytest.raises(KeyboardInterrupt):
        write_transcript(target, SEGMENTS, INFO, "json")
    assert target.read_text(encoding="utf-8") == "old"
    assert _listing(tmp_path) == ["t.json"]


def test_unencodable_text_leaves_nothing(tmp_path):
    bad = [Segment(0.0, 1.0, "ok"), Segment(1.0, 2.0, "lone surrogate \ud800")]
    with pytest.raises(UnicodeEncodeError):
        write_transcript(tmp_path / "x" / "t.txt", bad, INFO, "txt")
    assert _listing(tmp_path / "x") == []


def test_unknown_format_writes_nothing(tmp_path):
    with pytest.raises(UsageError):
        write_transcript(tmp_path / "t.doc", SEGMENTS, INFO, "doc")
    assert _listing(tmp_path) == []


def test_overwrite_replaces_content(tmp_path):
    target = tmp_path / "t.txt"
    target.write_text("old content that is longer than the new one\n" * 10)
    write_transcript(target, [Segment(0, 1, "new")], INFO, "txt")
    assert target.read_text() == "new\n"
