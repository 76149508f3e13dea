"""Issue 30: the Adapt wizard's quick check is judged on what the model writes, not only on
"no blocking problem" (it said "Sanity check passed" in green above gibberish)."""
from __future__ import annotations

import pytest

from speechstudio.finetune.ctc.events import SanityEvent
from speechstudio.gui.sanity_words import gibberish, judge, sample_wer

REF = "the quick brown fox jumps over the lazy dog"


@pytest.mark.parametrize("hyp,why", [
    ("", "it writes nothing yet"),
    ("   ", "it writes nothing yet"),
    ("eeeeeeeeeeeeeee", "it repeats one letter"),
    ("THE QUICK BROWNNNNNN FOX", "it repeats one letter"),
    ("ab ab ab ab ab ab", "it repeats one letter"),           # two letters over and over
    ("tha qick brwn fx jmps ovr th lzy dg", "it got 100% of the words wrong"),
    ("the quick brown fox jumbs ofer tha lasy dock", "it got 56% of the words wrong"),
    ("the quick brown fox jumps over the lazy dog", ""),
    ("The quick brown fox jumps over a lazy dog", ""),        # case ignored, 1 of 9 words wrong
    ("the quick brown fox jumps over lazy dog", ""),
])
def test_gibberish_is_named(hyp, why):
    assert gibberish(REF, hyp) == why


def _event(ok=True, ref=REF, hyp=REF, vocab_source="base"):
    return SanityEvent(ok, ("vocabulary: 32 tokens from the base (upper case): ABC",), vocab_source=vocab_source,
                       sample_ref=ref, sample_hyp=hyp, train_clips=4, val_clips=1)


@pytest.mark.parametrize("event,level,start", [
    (_event(), "ok", "Quick check passed: after a few practice steps the model writes “the quick brown fox"),
    (_event(hyp="EEEEEEEE"), "warning", "Quick check: after a few practice steps the model still writes gibberish "
                                        "(it repeats one letter: “EEEEEEEE” for"),
    (_event(hyp=""), "warning", "Quick check: after a few practice steps the model still writes gibberish "
                                "(it writes nothing yet: nothing for"),
    (_event(ok=False, hyp=""), "problem", "The quick check found a problem: training cannot start."),
    (_event(ref="", hyp=""), "ok", "Quick check done: your recordings and texts are ready for training."),
])
def test_verdict(event, level, start):
    v = judge(event)
    assert v.level == level and v.headline.startswith(start), v.headline
    assert "passed" not in v.headline or v.level == "ok"
    assert v.details == "4 training clips, 1 held back for checks\n• vocabulary: 32 tokens from the base (upper case): ABC"


def test_new_alphabet_warning_says_it_is_normal():
    assert "normal for a new alphabet" in judge(_event(hyp="", vocab_source="data")).headline
    assert "Training may still fix it" in judge(_event(hyp="", vocab_source="base")).headline


def test_sample_wer_values():
    assert sample_wer(REF, REF) == 0.0
    assert sample_wer(REF, "") == 1.0
    assert sample_wer("", "x") is None
    assert sample_wer("a b c d", "a b x d") == 0.25
