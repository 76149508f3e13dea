"""Subtitles (issue 12, fault 7): line width/count, cue length, no zero-length or overlapping cues,
long CTC segments split, word karaoke in VTT and ASS."""
from __future__ import annotations

import re

import pysubs2
import pytest

from speechstudio.asr.types import Segment, TranscriptInfo, Word
from speechstudio.batch.export import render
from speechstudio.batch.subtitles import (
    SubtitleOptions,
    layout_cues,
    render_subtitles,
    wrap_words,
)

INFO = TranscriptInfo(duration_s=20.0, language="en", model_id="m", engine="wav2vec2")
TEXT = ("so the thing about recording interviews is that you never know which part will matter later "
        "and that is why we keep every word")        # 24 words


def ctc_segment(start=0.0, step=0.5):
    """A CTC-like segment: 24 words, one every 0.5 s (12 s), each 0.4 s long."""
    words = tuple(Word(start + i * step, start + i * step + 0.4, w) for i, w in enumerate(TEXT.split()))
    return Segment(start, words[-1].end_s, TEXT, words)


def test_long_ctc_segment_is_split_into_cues_within_limits():
    cues = layout_cues([ctc_segment()])
    # each cue ends at its last word (6.4 s: the next one starts 0.1 s later, under a linger); neither a line
    # nor a cue ends on "is" / "will" (an auxiliary away from its verb)
    assert [(c.start_ms, c.end_ms) for c in cues] == [(0, 6400), (6500, 11900)]
    assert cues[0].text == "so the thing about recording interviews\nis that you never know which part"
    assert cues[1].text == "will matter later\nand that is why we keep every word"
    for c in cues:
        assert c.end_ms - c.start_ms <= 7000
        assert all(len(line) <= 42 for line in c.text.split("\n")) and len(c.text.split("\n")) <= 2


def test_line_width_and_count_are_configurable():
    cues = layout_cues([ctc_segment()], SubtitleOptions(max_line_width=20, max_line_count=1, max_cue_s=0))
    # no cue ends on "about" / "is" / "that" (function words): "interviews" stands alone (20 cells, one line)
    assert [c.text for c in cues][:4] == ["so the thing", "about recording", "interviews", "is that you never"]
    assert max(len(c.text) for c in cues) == 18
    assert all("\n" not in c.text for c in cues)
    # a cue ends at its last word (plus reading time up to 0.5 s), 2 frames (83 ms) before the next; the
    # one-word cue is given 5/6 s from the free time before it and by starting the next later
    assert [(c.start_ms, c.end_ms) for c in cues[:4]] == [(0, 1400), (1500, 2400), (2483, 3316), (3399, 4900)]
    assert all(b.start_ms - a.end_ms >= 83 for a, b in zip(cues, cues[1:]))
    assert (cues[0].start_ms, cues[-1].end_ms) == (0, 11900)


def test_no_limits_keeps_one_cue_per_segment():
    cues = layout_cues([ctc_segment()], SubtitleOptions(max_line_width=0, max_line_count=0, max_cue_s=0))
    assert len(cues) == 1 and cues[0].text == TEXT


def test_segment_without_word_times_is_split_by_text_length():
    seg = Segment(10.0, 22.0, TEXT)                  # no words: times spread by characters
    cues = layout_cues([seg])
    assert len(cues) == 2
    assert cues[0].start_ms == 10000 and cues[-1].end_ms == 22000
    assert cues[1].start_ms - cues[0].end_ms == 94      # the spread words' own gap (> 2 frames)
    assert cues[0].end_ms - cues[0].start_ms <= 7000


def test_no_zero_length_or_overlapping_cues():
    segs = [Segment(1.0, 1.0, "a"), Segment(1.0, 3.0, "b"), Segment(2.0, 2.5, "c"), Segment(2.4, 2.4, "d"),
            Segment(9.0, 8.0, "e")]
    cues = layout_cues(segs)
    # cues too short to read join their neighbour (were "b" 167 ms, "c" 400 ms); "e" has none: it stays the
    # minimum 5/6 s (its word and the 0.5 s linger would be 0.5 s); 2 frames between cues
    assert [(c.text, c.start_ms, c.end_ms) for c in cues] == [
        ("a b", 1000, 1917), ("c d", 2000, 2833), ("e", 9000, 9833)]
    srt = render("srt", segs, INFO)
    for a, b in zip(pysubs2.SSAFile.from_string(srt), pysubs2.SSAFile.from_string(srt)[1:]):
        assert a.end > a.start and b.start >= a.end


def test_a_short_cue_whose_linger_the_next_cue_cuts_joins_it():
    """"setting or printing" (0.52 s of words, a segment of its own) 83 ms before the same speaker's next words:
    its 0.5 s linger cannot be shown, so it is a 0.5 s flash unless it joins the next cue."""
    segs = [Segment(5.26, 5.777, "setting or printing", (Word(5.26, 5.5, "setting"), Word(5.5, 5.6, " or"),
                                                         Word(5.6, 5.777, " printing"))),
            Segment(5.86, 7.0, "beautiful letters.", (Word(5.86, 6.4, " beautiful"), Word(6.4, 7.0, " letters.")))]
    cues = layout_cues(segs)
    # one cue, shown for its reading time (38 characters at max_cps 20: 1.9 s)
    assert [(c.text, c.start_ms, c.end_ms) for c in cues] == [("setting or printing beautiful letters.", 5260, 7160)]


def test_vtt_karaoke_has_a_timestamp_before_each_later_word():
    seg = Segment(0.0, 2.0, "Hello big world", (Word(0.1, 0.5, " Hello"), Word(0.6, 1.0, " big"),
                                                  Word(1.2, 1.9, " world")))
    vtt = render_subtitles([seg], "vtt", SubtitleOptions(highlight_words=True))
    # the cue is on screen from its first word to its last (1.9 s; 0.5 s linger would pass the reading time)
    assert vtt == "WEBVTT\n\n1\n00:00:00.100 --> 00:00:01.900\nHello <00:00:00.600>big <00:00:01.200>world\n\n"
    plain = render_subtitles([seg], "vtt")
    assert "Hello big world" in plain and "<00:" not in plain


def test_ass_karaoke_durations_add_up_to_the_cue():
    seg = Segment(0.0, 2.0, "Hello big world", (Word(0.1, 0.5, "Hello"), Word(0.6, 1.0, "big"),
                                                  Word(1.2, 1.9, "world")))
    ass = render("ass", [seg], INFO, SubtitleOptions(highlight_words=True))
    line = [x for x in ass.splitlines() if x.startswith("Dialogue:")]
    assert line == ["Dialogue: 0,0:00:00.10,0:00:01.90,Default,,0,0,0,,{\\k50}Hello {\\k60}big {\\k70}world"]
    assert sum(int(k) for k in re.findall(r"\\k(\d+)", line[0])) == 180      # centiseconds = 1.80 s


def test_wrap_keeps_a_long_word_on_its_own_line():
    words = [Word(0, 1, "a"), Word(1, 2, "x" * 50), Word(2, 3, "b")]
    assert [[w.text for w in line] for line in wrap_words(words, 42)] == [["a"], ["x" * 50], ["b"]]


@pytest.mark.parametrize("flags, message", [
    (["--max-cue-s", "inf"], "--max-cue-s must be >= 0 (0 = no limit), got inf"),
    (["--min-cue-s", "nan"], "--min-cue-s must be >= 0 (0 = no limit), got nan"),
    (["--max-cps=-inf"], "--max-cps must be >= 0 (0 = no limit), got -inf"),
    (["--min-cue-s", "20"], "--min-cue-s 20.0 is longer than --max-cue-s 7.0")])
def test_cue_limits_that_cannot_be_kept_are_refused_before_any_work(tmp_path, home, capsys, flags, message):
    """inf used to fail every file with an OverflowError, nan was taken silently, and a shortest cue over the
    longest drew 1 ms cues past the audio's end: refused as usage errors, naming the flag and value."""
    from speechstudio import cli
    code = cli.main(["transcribe", str(tmp_path / "none.wav"), "--model", str(tmp_path / "no-model"), *flags])
    assert code == 2
    assert f"speechstudio: error: {message}" in capsys.readouterr().err


def test_cli_flags_reach_the_srt(tmp_path, tiny_w2v_dir, capsys, home, monkeypatch):
    """--max-line-width/--max-line-count shape the written file."""
    from speechstudio import cli
    from speechstudio.batch import cli as batch_cli

    seen = {}
    real = batch_cli.run_batch

    def spy(items, recognizer, request, **k):
        seen["subtitles"] = request.subtitles
        return real(items, recognizer, request, **k)

    monkeypatch.setattr(batch_cli, "run_batch", spy)
    wav = tmp_path / "x.wav"
    import numpy as np
    import soundfile as sf
    sf.write(str(wav), np.zeros(16000, np.float32), 16000)
    code = cli.main(["transcribe", str(wav), "--model", str(tiny_w2v_dir), "--format", "srt", "-q",
                     "--max-line-width", "30", "--max-line-count", "1", "--highlight-words"])
    assert code == 0, capsys.readouterr().err
    assert seen["subtitles"] == SubtitleOptions(max_line_width=30, max_line_count=1, highlight_words=True)
    code = cli.main(["transcribe", str(wav), "--model", str(tiny_w2v_dir), "--max-line-width", "-1"])
    assert code == 2
    assert "--max-line-width must be >= 0" in capsys.readouterr().err
    for width in ("3", "9"):        # "my" / "fel" cues of 127 ms: refused, naming the flag
        code = cli.main(["transcribe", str(wav), "--model", str(tiny_w2v_dir), "--max-line-width", width])
        assert code == 2
        assert (f"--max-line-width must be 0 (no limit) or at least 10 characters (got {width}"
                in capsys.readouterr().err)
    code = cli.main(["transcribe", str(wav), "--model", str(tiny_w2v_dir), "--format", "srt", "-q", "--overwrite",
                     "--max-line-width", "10"])
    assert code == 0 and seen["subtitles"].max_line_width == 10


@pytest.mark.parametrize("fmt", ["srt", "vtt", "ass"])
def test_every_subtitle_format_parses_back(fmt):
    text = render(fmt, [ctc_segment(), ctc_segment(start=20.0)], INFO)
    subs = pysubs2.SSAFile.from_string(text)
    assert len(subs) == 4
    assert subs[2].start == 20000


def test_speaker_prefix_counts_toward_the_srt_line_width():
    """'Speaker 12: ' is part of the first line a viewer reads: no SRT line over 42 cells with it; a cue where the
    same person goes on carries no name. VTT's <v> voice tag is not shown as text, so its lines may use the
    whole width."""
    import dataclasses

    seg = dataclasses.replace(ctc_segment(), speaker="Speaker 12")
    srt = pysubs2.SSAFile.from_string(render_subtitles([seg], "srt"))
    lines = [line for ev in srt for line in ev.plaintext.split("\n")]
    assert lines == ["Speaker 12: so the thing about recording", "interviews is that you never know",
                     "which part will matter later", "and that is why we keep every word"]
    vtt_first = layout_cues([seg], prefix=False)[0].text.split("\n")[0]
    assert vtt_first == "so the thing about recording interviews"


def test_srt_names_the_speaker_where_the_speaker_changes():
    segs = [Segment(a, b, text, (), speaker=who) for a, b, text, who in (
        (0.0, 2.0, "hello there", "Ana"), (5.0, 7.0, "how are you", "Ana"), (8.0, 9.0, "fine thanks", "Ben"),
        (10.0, 12.0, "good to hear", "Ana"))]
    srt = pysubs2.SSAFile.from_string(render_subtitles(segs, "srt"))
    assert [e.plaintext for e in srt] == ["Ana: hello there", "how are you", "Ben: fine thanks", "Ana: good to hear"]


# ------------------------------------------------------------------ issue 40: cue rules for every format
def timed(text: str, start: float, step: float = 0.3, length: float = 0.25, gaps: dict | None = None) -> list[Word]:
    """Whisper-like words of ``text``, one every ``step`` s; ``gaps``: extra seconds before word k."""
    out, t = [], start
    for k, w in enumerate(text.split()):
        t += (gaps or {}).get(k, 0.0)
        out.append(Word(round(t, 3), round(t + length, 3), " " + w))
        t += step
    return out


def seg_of(words: list[Word], speaker=None) -> Segment:
    return Segment(words[0].start_s, words[-1].end_s, "".join(w.text for w in words).strip(), tuple(words),
                   speaker=speaker)


def test_srt_counts_the_speaker_prefix_only_on_the_cues_that_show_it():
    """A cue where the same person goes on carries no name, so its first line has all 42 cells (it was laid out
    as if "Speaker 1: " were there: "This is Diane" / "in New Jersey. And", 32 characters on two lines); a cue
    where the speaker changes counts its name. VTT and ASS carry the speaker outside the text: whole lines."""
    said = "This is Diane in New Jersey. And"
    segs = [seg_of(timed("Hello, good evening.", 0.0), "Speaker 1"), seg_of(timed(said, 3.0), "Speaker 1"),
            seg_of(timed(said, 8.0), "Speaker 2")]
    srt = render_subtitles(segs, "srt")
    assert [block.split("\n", 2)[2] for block in srt.strip().split("\n\n")] == [
        "Speaker 1: Hello, good evening.", said, "Speaker 2: This is Diane\nin New Jersey. And"]
    for fmt in ("vtt", "ass"):
        assert [e.plaintext for e in pysubs2.SSAFile.from_string(render_subtitles(segs, fmt))] == [
            "Hello, good evening.", said, said]


def test_a_pause_over_a_second_ends_the_cue_within_half_a_second():
    words = timed("Now, as all books not primarily intended as picture-books", 0.4, gaps={4: 4.0})
    cues = layout_cues([seg_of(words)])
    assert [c.text for c in cues] == ["Now, as all books", "not primarily intended as picture-books"]
    assert (cues[0].start_ms, cues[0].end_ms) == (400, 1550)       # "books" ends 1.35 s; 0.2 s to read
    assert cues[1].start_ms == 5600                               # when "not" is said, not before
    for fmt in ("srt", "vtt", "ass"):
        subs = pysubs2.SSAFile.from_string(render_subtitles([seg_of(words)], fmt))
        assert [(e.start, e.end) for e in subs] == [(400, 1550), (5600, 7550)]


def test_a_long_gap_is_never_highlighted_nor_on_screen():
    words = timed("Wine and beer might be", 1.0) + timed("had in any quantity.", 27.8)
    ass = render("ass", [seg_of(words)], TranscriptInfo(40.0, "en", "m", "whisper"), SubtitleOptions(highlight_words=True))
    lines = [x for x in ass.splitlines() if x.startswith("Dialogue:")]
    # each cue ends with its last word ("be" 2.45 s: already readable), the highlight never spans the gap
    assert lines == ["Dialogue: 0,0:00:01.00,0:00:02.45,Default,,0,0,0,,{\\k30}Wine {\\k30}and {\\k30}beer "
                     "{\\k30}might {\\k25}be",
                     "Dialogue: 0,0:00:27.80,0:00:28.95,Default,,0,0,0,,{\\k30}had {\\k30}in {\\k30}any "
                     "{\\k25}quantity."]


def test_no_cue_over_seven_seconds_and_a_gap_between_cues():
    words = timed(" ".join(["word"] * 80), 0.0, step=0.35)       # 28 s of fast, unbroken speech
    for opts in (SubtitleOptions(), SubtitleOptions(max_line_width=0)):
        cues = layout_cues([seg_of(words)], opts)
        assert max(c.end_ms - c.start_ms for c in cues) <= 7000
        assert min(b.start_ms - a.end_ms for a, b in zip(cues, cues[1:])) >= 83


def test_lines_count_every_character_and_break_naturally():
    """'of Technology and a well-known state-of-the-art' was a 47-character line; the speaker prefix
    counts; no break inside a hyphenated compound, a number or a name."""
    text = ("He worked at the Massachusetts Institute of Technology and a well-known state-of-the-art "
            "laboratory in New York City for 25 years, and then he went home to Rio de Janeiro.")
    toks = text.replace("-", " -").split()              # Whisper splits compounds: " state", "-of", ...
    words, t = [], 0.0
    for tok in toks:
        words.append(Word(t, t + 0.2, tok if tok.startswith("-") else " " + tok))
        t += 0.22
    seg = Segment(0.0, t, text, tuple(words), speaker="Speaker 12")
    for fmt in ("srt", "vtt", "ass"):
        out = render_subtitles([seg], fmt)
        shown = [line for ev in pysubs2.SSAFile.from_string(out) for line in ev.plaintext.split("\n")]
        assert max(len(line) for line in shown) <= 42, shown
        assert "".join(shown).replace("Speaker 12: ", "").replace(" ", "") == text.replace(" ", "")
        for line in shown:
            assert not line.endswith(("-", "New", "25", "Rio", "de")) and not line.startswith(("-", "York", "years"))
    srt = pysubs2.SSAFile.from_string(render_subtitles([seg], "srt"))
    assert [ev.plaintext for ev in srt][0].startswith("Speaker 12: He worked at")


def test_a_word_wider_than_a_line_is_split_by_characters(caplog):
    import logging

    word = "Pneumonoultramicroscopicsilicovolcanoconiosis" + "xxxxx"      # 50 characters
    seg = Segment(0.0, 2.0, f"It is {word} indeed", (Word(0.0, 0.2, "It"), Word(0.3, 0.5, "is"),
                                                      Word(0.6, 1.6, word), Word(1.7, 2.0, "indeed")))
    with caplog.at_level(logging.INFO, logger="speechstudio.batch.subtitles"):
        cues = layout_cues([seg])
    lines = [line for c in cues for line in c.text.split("\n")]
    assert max(len(line) for line in lines) <= 42
    assert "".join(lines).replace(" ", "") == f"Itis{word}indeed"
    assert "a word of 50 characters is wider than a subtitle line (42): split into 2 pieces" in caplog.text


NAMES = ["Kennedy, John {JFK}", 'Dr. "Bob": O\'Neil', "Zoë,\nÜnal", "李雷, 韩梅梅"]


@pytest.mark.parametrize("fmt", ["srt", "vtt", "ass"])
def test_speaker_names_with_commas_braces_quotes_and_line_breaks_parse_back(fmt, tmp_path):
    segs = [Segment(3.0 * i, 3.0 * i + 2, "And so, my fellow {Americans}", (), speaker=n) for i, n in enumerate(NAMES)]
    path = tmp_path / f"x.{fmt}"
    path.write_text(render_subtitles(segs, fmt), encoding="utf-8")
    subs = pysubs2.load(str(path))
    assert len(subs) == 4
    names = ["Kennedy, John {JFK}", 'Dr. "Bob": O\'Neil', "Zoë, Ünal", "李雷, 韩梅梅"]     # one line each
    if fmt == "ass":        # Name and Style are comma-separated fields: a comma becomes U+201A, braces ()
        shown = [n.replace(",", "\u201a").replace("{", "(").replace("}", ")") for n in names]
        assert [e.name for e in subs] == shown
        assert [e.style for e in subs] == shown and set(shown) <= set(subs.styles)
        assert [e.plaintext for e in subs] == ["And so, my fellow (Americans)"] * 4
    elif fmt == "srt":      # braces are text in SRT (pysubs2 keeps them in .text, drops them from .plaintext)
        assert [e.text.replace("\\N", " ") for e in subs] == [f"{n}: And so, my fellow {{Americans}}" for n in names]
    else:                   # pysubs2 drops the WebVTT voice span: read it from the file
        assert [e.text for e in subs] == ["And so, my fellow {Americans}"] * 4
        assert re.findall(r"^<v ([^>]*)>", path.read_text(encoding="utf-8"), re.M) == names


def spoken(speaker, *timed):
    """A segment of ``(word, start_s, end_s)`` triples, as the diarized JSON of a real run has them."""
    words = tuple(Word(a, b, w, speaker=speaker) for w, a, b in timed)
    return Segment(words[0].start_s, words[-1].end_s, " ".join(w for w, _, _ in timed), words, speaker=speaker)


def test_no_cue_shorter_than_the_minimum_where_the_audio_leaves_room():
    """Real runs (noise_-10dB.wav, noise_+6dB.wav of the break test) gave 17 ms and 38 ms cues."""
    gap = lambda cues: [b.start_ms - a.end_ms for a, b in zip(cues, cues[1:])]  # noqa: E731
    # a one-word turn right before another speaker's answer (was 40160-40177): it starts earlier, into the
    # silence before it, and ends 2 frames before the answer
    segs = [spoken("Speaker 3", ("In", 23.52, 23.6), ("this", 23.6, 23.8), ("regard,", 23.8, 24.04)),
            spoken("Speaker 2", ("if", 40.16, 40.26)),
            spoken("Speaker 4", ("the", 40.26, 40.4), ("reader", 40.4, 40.56), ("will", 40.56, 40.86),
                   ("excuse", 40.86, 41.26), ("me,", 41.26, 41.82))]
    cues = layout_cues(segs, prefix=True)
    assert [(c.speaker, c.text, c.start_ms, c.end_ms) for c in cues] == [
        ("Speaker 3", "In this regard,", 23520, 24353), ("Speaker 2", "if", 39344, 40177),
        ("Speaker 4", "the reader will excuse me,", 40260, 41820)]
    # the decoder overlapped two segments of one voice (was 57530-57568, the next at 57568, no gap): the
    # unreadable one joins the next
    segs = [Segment(57.53, 58.41, "It is how I gather.", (Word(57.53, 57.67, "It"), Word(57.67, 57.93, "is"),
                    Word(57.93, 58.13, "how"), Word(58.13, 58.41, "I"), Word(58.41, 58.41, "gather.")))]
    segs.append(Segment(57.568, 58.234, "This is how I gather, do this for you.", tuple(
        Word(57.568 + 0.074 * k, 57.568 + 0.074 * (k + 1), w) for k, w in enumerate(
            ["This", "is", "how", "I", "gather,", "do", "this", "for", "you."]))))
    cues = layout_cues(segs)
    assert [(c.text, c.start_ms, c.end_ms) for c in cues] == [
        ("It is how I gather.\nThis is how I gather, do this for you.", 57530, 58910)]
    # no room before (the question ends 2 frames before) nor after (the same speaker goes on at once): the
    # cue gets 5/6 s and the next one starts 2 frames after it
    segs = [spoken("Speaker 1", ("Well,", 10.0, 10.4), ("that", 10.4, 10.7), ("is", 10.7, 10.9), ("the", 10.9, 11.0),
                   ("plan.", 11.0, 11.5)),
            spoken("Speaker 2", ("Not", 11.55, 11.6)),
            spoken("Speaker 1", ("they", 11.6, 11.8), ("are", 11.8, 11.9), ("suing", 11.9, 12.3), ("us", 12.3, 12.5),
                   ("anyway.", 12.5, 13.0))]
    cues = layout_cues(segs, prefix=True)
    assert [(c.text, c.start_ms, c.end_ms) for c in cues] == [
        ("Well, that is the plan.", 10000, 11467), ("Not", 11550, 12383), ("they are suing us anyway.", 12466, 13299)]
    assert gap(cues) == [83, 83]
    assert min(c.end_ms - c.start_ms for c in cues) == 833    # the pushed one too (its words end at 13 s)


def test_a_cue_pushed_toward_the_end_of_the_audio_keeps_its_time():
    """A quick exchange in the last second: the short "Yeah." used to push "Okay." to 10999-11000 (1 ms, past
    its words, on an 11 s file); now each keeps its words' time and the two never overlap."""
    segs = [spoken("A", ("Right", 9.0, 9.5), ("then.", 9.5, 10.0)), spoken("B", ("Yeah.", 10.2, 10.4)),
            spoken("A", ("Okay.", 10.5, 10.7))]
    cues = layout_cues(segs, duration_s=11.0)
    assert [(c.text, c.start_ms, c.end_ms) for c in cues] == [
        ("Right then.", 9000, 10000), ("Yeah.", 10083, 10417), ("Okay.", 10500, 11000)]
    # four quick answers: a cue is pushed later only while it still comes before its last word is said (pushed
    # one after the other to 5/6 s each, "Fine." came 2 s after it was said); the first grows into the time before
    segs = [spoken("A", ("So?", 5.0, 5.1)), spoken("B", ("No.", 5.2, 5.3)), spoken("C", ("Yes.", 5.4, 5.5)),
            spoken("A", ("Fine.", 5.6, 5.7))]
    cues = layout_cues(segs, duration_s=20.0)
    assert [(c.text, c.start_ms, c.end_ms) for c in cues] == [
        ("So?", 4284, 5117), ("No.", 5200, 5317), ("Yes.", 5400, 5517), ("Fine.", 5600, 6433)]


def test_short_cues_in_a_row_never_drift_after_their_words():
    """Narrow one-line cues of continuous speech (a new user's run: --max-line-width 20 --max-line-count 1
    --max-cue-s 3): each too-short cue pushed the next later, until five in a row started after their last word
    ("country." at 7.948 s, said 7.06-7.62)."""
    words = [("I", 5.0, 5.2), ("had", 5.2, 5.4), ("to", 5.4, 5.6), ("leave", 5.6, 5.9), ("my", 5.9, 6.1),
             ("native", 6.1, 6.5), ("country.", 6.5, 7.0), ("The", 7.1, 7.2), ("narrative", 7.2, 7.6), ("was", 7.6, 7.8),
             ("painful", 7.8, 8.2), ("to", 8.2, 8.3), ("myself.", 8.3, 8.8)]
    opts = SubtitleOptions(max_line_width=20, max_line_count=1, max_cue_s=3)
    cues = layout_cues([spoken("A", *words)], opts)
    assert len(cues) >= 4
    for c in cues:
        said = [w for line in c.lines for w in line]
        assert c.start_ms <= round(said[-1].start_s * 1000), (c.text, c.start_ms)    # on screen while it is said
    assert all(b.start_ms - a.end_ms >= 83 for a, b in zip(cues, cues[1:]))


def test_lines_and_cues_break_after_punctuation_and_pauses_not_after_function_words():
    """Word times of a real run (music_+6dB.wav of the break test, diarized): lines used to end on "for",
    "be", "in" ("what your country can do for" / "you, ask what..."), although "you," has a comma and 0.58 s
    of pause after it (Netflix Timed Text Style Guide, Line Treatment)."""
    jfk = spoken("Speaker 1", ("what", 5.44, 5.6), ("your", 5.6, 5.94), ("country", 5.94, 6.28), ("can", 6.28, 6.7),
                 ("do", 6.7, 6.92), ("for", 6.92, 7.18), ("you,", 7.18, 7.616), ("ask", 8.192, 8.6),
                 ("what", 8.6, 8.86), ("you", 8.86, 9.2), ("can", 9.2, 9.42), ("do", 9.42, 9.66), ("for", 9.66, 9.84),
                 ("your", 9.84, 10.12), ("country.", 10.12, 10.432))
    austen = spoken("Speaker 3", ("The", 48.064, 48.21), ("narrative", 48.21, 48.41), ("would", 48.41, 48.71),
                    ("be", 48.71, 48.89), ("tedious", 48.89, 49.09), ("to", 49.09, 49.35), ("him", 49.35, 49.57),
                    ("and", 49.57, 49.75), ("painful", 49.75, 49.99), ("to", 49.99, 50.19), ("myself.", 50.19, 50.784))
    cues = layout_cues([jfk, austen], prefix=True)
    assert [(c.text, c.start_ms) for c in cues] == [
        ("what your country\ncan do for you,", 5440),              # was "what your country can do for\nyou, ask..."
        ("ask what you can do for your country.", 8192),     # no name shown: it fits one line
        ("The narrative would be tedious\nto him and painful to myself.", 48064)]    # was "...would be\ntedious..."


@pytest.mark.parametrize("fmt", ["srt", "vtt", "ass"])
def test_an_empty_transcript_is_one_no_speech_cue(fmt, tmp_path):
    """No words: one "[no speech]" cue over the recording, the same in every format. The SRT was 0 bytes, which
    pysubs2 (and players, ffmpeg) cannot read as a subtitle file: SubRip has no header, only cues."""
    path = tmp_path / f"x.{fmt}"
    path.write_text(render_subtitles([], fmt, duration_s=4.25), encoding="utf-8")
    assert [(e.start, e.end, e.text) for e in pysubs2.load(str(path))] == [(0, 4250, "[no speech]")]
