"""Wav2Vec2 CTC engine on a tiny model built from a config and loaded by the real code."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
from speechstudio.audio.decode import load_audio
from speechstudio.errors import ModelNotFoundError


@pytest.fixture(scope="module")
def speech(request):
    from conftest import realspeech_file

    path = realspeech_file("lhotse_librispeech_2412-153948-0000.flac")
    return load_audio(path, 16000)   # 11.66 s


def recognizer(path, **kw):
    kw.setdefault("device", "cpu")
    return Wav2Vec2Recognizer(path, "tiny", **kw)


def test_loads_through_real_code(tiny_w2v_dir):
    e = recognizer(tiny_w2v_dir)
    assert e.sample_rate == 16000 and e.frame_len == 320 and e.seconds_per_frame == 0.02
    assert e.blank_id == 0 and e.word_delimiter == "|" and e.precision == "fp32"
    assert e.id_to_token[5] == "E"


def test_not_a_model(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ModelNotFoundError, match="not a loadable Wav2Vec2 CTC model"):
        recognizer(tmp_path)


def test_batch_size_never_changes_logits_or_text(tiny_w2v_dir, speech):
    results = {}
    for bs in (1, 4, 16):
        e = recognizer(tiny_w2v_dir, chunk_s=2.0, stride_s=0.4, batch_size=bs)
        results[bs] = (e.logits(speech), " ".join(s.text for s in e.transcribe_blocks([speech])))
    for bs in (4, 16):
        assert results[bs][0].shape == results[1][0].shape == (582, 32)
        assert np.abs(results[bs][0] - results[1][0]).max() <= 1e-4
        assert results[bs][1] == results[1][1]


def test_block_size_never_changes_text(tiny_w2v_dir, speech):
    e = recognizer(tiny_w2v_dir, chunk_s=2.0, stride_s=0.4, batch_size=4)
    whole = list(e.transcribe_blocks([speech]))
    blocks = [speech[i:i + 4410] for i in range(0, speech.shape[0], 4410)]
    assert list(e.transcribe_blocks(blocks)) == whole


def test_clip_shorter_than_chunk_is_one_full_pass(tiny_w2v_dir, speech):
    e = recognizer(tiny_w2v_dir, chunk_s=30.0)
    with torch.inference_mode():
        ref = e.model(torch.from_numpy(e.normalize(speech))[None]).logits[0].numpy()
    got = e.logits(speech)
    assert got.shape == ref.shape
    assert np.abs(got - ref).max() == 0.0


def test_word_times_monotonic_and_inside_audio(tiny_w2v_dir, speech):
    e = recognizer(tiny_w2v_dir, chunk_s=2.0, stride_s=0.4)
    words = [w for s in e.transcribe_blocks([speech]) for w in s.words]
    assert words
    for a, b in zip(words, words[1:]):
        assert a.start_s < a.end_s <= b.start_s
    assert words[0].start_s >= 0 and words[-1].end_s <= speech.shape[0] / 16000 + 1e-6


class EnergyCTC:
    """A stand-in acoustic model with known output: per 20 ms frame, 'A' where the frame is loud,
    the word delimiter where it is quiet. Swapped in for ``window_logits`` so that the real
    chunking, stitching, decoding and timing code run on a real recording with known speech."""

    def __init__(self, threshold):
        self.threshold = threshold

    def __call__(self, windows):
        out = []
        for w in windows:
            n = (w.shape[0] - 400) // 320 + 1
            rms = np.array([np.sqrt(np.mean(w[i * 320:i * 320 + 400] ** 2)) for i in range(n)])
            lg = np.full((n, 32), -10.0, np.float32)
            lg[rms > self.threshold, 7] = 10.0        # 'A'
            lg[rms <= self.threshold, 4] = 10.0       # '|'
            out.append(lg)
        return out


def test_word_span_contains_its_speech(tiny_w2v_dir, realspeech):
    speech = load_audio(realspeech / "pocketsphinx_cards_005.wav")
    silence = np.zeros(int(1.5 * 16000), np.float32)
    audio = np.concatenate([silence, speech, silence])
    frame_rms = np.array([np.sqrt(np.mean(audio[i:i + 400] ** 2)) for i in range(0, audio.size - 400, 320)])
    threshold = 0.1 * frame_rms.max()
    loud = np.flatnonzero(frame_rms > threshold)
    onset, offset = loud[0] * 0.02, (loud[-1] + 1) * 0.02
    assert 1.5 <= onset < 2.2                                  # speech starts after the silence
    e = recognizer(tiny_w2v_dir, chunk_s=1.0, stride_s=0.2)        # many window boundaries
    e.window_logits = EnergyCTC(threshold)
    words = [w for s in e.transcribe_blocks([audio]) for w in s.words]
    assert words[0].start_s == pytest.approx(onset, abs=0.021)
    assert words[-1].end_s == pytest.approx(offset, abs=0.021)
    assert all(1.5 <= w.start_s < w.end_s <= 1.5 + speech.size / 16000 for w in words)
