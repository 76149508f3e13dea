"""Log-mel features (80 mel bins, 25 ms / 10 ms) against reference implementations."""
from __future__ import annotations

import numpy as np
import pytest

from speechstudio.audio.mel import StreamingLogMel, log_mel, mel_filter_bank


def speechlike(seconds=2.0, rate=16000, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * rate)) / rate
    f = 200 + 1800 * t / seconds  # a chirp plus noise
    return (0.4 * np.sin(2 * np.pi * np.cumsum(f) / rate) + 0.05 * rng.standard_normal(len(t))).astype(np.float32)


def transformers_reference(audio, rate=16000):
    au = pytest.importorskip("transformers.audio_utils")
    n_fft, hop = int(0.025 * rate), int(0.010 * rate)
    filters = au.mel_filter_bank(num_frequency_bins=n_fft // 2 + 1, num_mel_filters=80, min_frequency=0.0,
                                 max_frequency=rate / 2, sampling_rate=rate, norm="slaney", mel_scale="slaney")
    spec = au.spectrogram(audio.astype(np.float64), au.window_function(n_fft, "hann"), frame_length=n_fft,
                          hop_length=hop, power=2.0, center=False, mel_filters=filters, mel_floor=1e-10,
                          log_mel="log10", dtype=np.float64)
    return spec.T  # (frames, 80)


def test_matches_transformers_audio_utils():
    audio = speechlike()
    ours = log_mel(audio)
    ref = transformers_reference(audio)
    assert ours.shape == ref.shape == (1 + (len(audio) - 400) // 160, 80)
    np.testing.assert_allclose(ours, ref, atol=1e-3)


@pytest.mark.parametrize("rate", [16000, 22050])
def test_matches_librosa(rate):
    import librosa                       # in the test extra: a missing librosa fails the run
    audio = speechlike(rate=rate)
    n_fft, hop = int(round(0.025 * rate)), int(round(0.010 * rate))
    ref = librosa.feature.melspectrogram(y=audio.astype(np.float64), sr=rate, n_fft=n_fft, hop_length=hop,
                                         center=False, power=2.0, n_mels=80)
    np.testing.assert_allclose(log_mel(audio, rate), np.log10(np.maximum(ref, 1e-10)).T, atol=1e-3)
    np.testing.assert_allclose(mel_filter_bank(rate, n_fft).T,
                               librosa.filters.mel(sr=rate, n_fft=n_fft, n_mels=80), rtol=1e-4, atol=1e-7)


def test_streaming_equals_batch():
    audio = speechlike(3.0)
    s = StreamingLogMel(16000)
    rng = np.random.default_rng(1)
    out, pos = [], 0
    while pos < len(audio):
        n = int(rng.integers(1, 900))
        out.append(s.push(audio[pos:pos + n]))
        pos += n
    np.testing.assert_allclose(np.concatenate(out), log_mel(audio), atol=1e-5)
    assert s.frames_out == len(log_mel(audio))


def test_short_and_silent_input():
    assert log_mel(np.zeros(100, np.float32)).shape == (0, 80)
    silent = log_mel(np.zeros(16000, np.float32))
    assert np.all(silent == -10.0)
