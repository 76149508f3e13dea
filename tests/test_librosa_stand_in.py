"""The packaged app has no librosa (numba/llvmlite left out): Resemblyzer runs on our stand-in for
the librosa calls it makes, and gives the same mel frames and speaker embeddings as with librosa."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import realspeech_file

from speechstudio.audio.decode import load_audio
from speechstudio.audio.librosa_stand_in import melspectrogram, resample

SPEECH = "lhotse_librispeech_2412-153948-0000.flac"


@pytest.mark.parametrize("n_fft,hop,n_mels,n", [(400, 160, 40, 16000 * 3), (400, 160, 40, 16000 * 3 + 77),
                                                 (1024, 256, 80, 22050)])
def test_melspectrogram_matches_librosa(n_fft, hop, n_mels, n):
    librosa = pytest.importorskip("librosa")
    y = load_audio(realspeech_file(SPEECH), 16000)[:n]
    want = librosa.feature.melspectrogram(y=y, sr=16000, n_fft=n_fft, hop_length=hop, n_mels=n_mels)
    got = melspectrogram(y=y, sr=16000, n_fft=n_fft, hop_length=hop, n_mels=n_mels)
    assert got.shape == want.shape == (n_mels, 1 + n // hop)
    assert got.dtype == np.float32
    assert np.max(np.abs(got - want)) <= 1e-5 * np.max(want)


def test_resample_and_load():
    y = np.sin(2 * np.pi * 440 * np.arange(22050) / 22050).astype(np.float32)
    out = resample(y, orig_sr=22050, target_sr=16000)
    assert out.shape == (16000,) and out.dtype == np.float32
    with pytest.raises(RuntimeError, match="librosa.load is not available"):
        from speechstudio.audio.librosa_stand_in import load
        load("x.wav")


SCRIPT = """
import sys, numpy as np
if sys.argv[1] == "none":
    sys.modules["librosa"] = None            # as in the packaged app: librosa cannot be imported
from speechstudio.audio.decode import load_audio
from speechstudio.audio import speaker_encoder as vp
y = load_audio(sys.argv[2], 16000)[: 16000 * 8]
rz = vp.import_resemblyzer()
print(getattr(rz.audio.librosa, "__speechstudio_stand_in__", False), "librosa" in sys.modules and sys.modules["librosa"] is not None)
np.save(sys.argv[3], vp.embed_speech(y))
"""


def test_resemblyzer_without_librosa_gives_the_same_embedding(tmp_path):
    pytest.importorskip("librosa")
    # without librosa: a fresh process, where it cannot be imported (as in the packaged app)
    r = subprocess.run([sys.executable, "-c", SCRIPT, "none", str(realspeech_file(SPEECH)), str(tmp_path / "none.npy")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "False"]      # the stand-in was used, and not left in sys.modules
    # with librosa: this process, which has it (the same lines as SCRIPT's "real" mode)
    from speechstudio.audio import speaker_encoder as vp

    y = load_audio(realspeech_file(SPEECH), 16000)[: 16000 * 8]
    rz = vp.import_resemblyzer()
    assert getattr(rz.audio.librosa, "__speechstudio_stand_in__", False) is False
    assert "librosa" in sys.modules and sys.modules["librosa"] is not None
    cos = float(np.load(tmp_path / "none.npy") @ vp.embed_speech(y))
    assert cos > 0.9999
