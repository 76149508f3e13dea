"""audio.vad.speech_spans is silero's state machine without torch: the same spans as the silero_vad
package's get_speech_timestamps_from_probs, with each set of options the app uses."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import realspeech_file


@pytest.fixture(scope="module")
def silero_reference():
    import torch

    threads = torch.get_num_threads()
    from silero_vad.utils_vad import get_speech_timestamps_from_probs
    torch.set_num_threads(threads)
    return get_speech_timestamps_from_probs


def test_speech_spans_equal_silero_packages(silero_reference):
    from speechstudio.audio.decode import load_audio
    from speechstudio.audio.vad import SileroVad, speech_spans

    rng = np.random.default_rng(0)
    cases = []
    for name in ("whisper_jfk.flac", "picovoice_test_es.wav", "speechbrain_LJ050-0131.wav"):
        audio = load_audio(realspeech_file(name), 16000)
        cases.append((SileroVad(threads=1).probs(audio), audio.size))
    for _ in range(60):      # runs of random probabilities: speech, pauses, flicker
        n = int(rng.integers(1, 2000))
        probs = np.repeat(rng.random(n), rng.integers(1, 40, n))[:n].astype(np.float32)
        cases.append((probs, n * 512 - int(rng.integers(0, 512))))
    options = [{}, dict(min_speech_ms=0, min_silence_ms=2000, pad_ms=400),                   # Whisper's decoding
               dict(min_speech_ms=0, min_silence_ms=500, pad_ms=125, max_speech_s=30.0),    # language stretches
               dict(min_speech_ms=100, min_silence_ms=500, pad_ms=30, max_speech_s=3.0)]
    for probs, n in cases:
        for opts in options:
            want = silero_reference(probs.tolist(), 16000, threshold=0.5, neg_threshold=0.35, audio_length_samples=n,
                                    min_speech_duration_ms=opts.get("min_speech_ms", 250),
                                    min_silence_duration_ms=opts.get("min_silence_ms", 100),
                                    speech_pad_ms=opts.get("pad_ms", 0),
                                    max_speech_duration_s=opts.get("max_speech_s", float("inf")))
            assert speech_spans(probs, n, **opts) == tuple((s["start"], s["end"]) for s in want), opts
    assert speech_spans(cases[0][0], cases[0][1]) == ((5632, 35840), (52736, 70656), (86528, 122368),
                                                     (131072, 169472))
