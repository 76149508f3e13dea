"""The bundled naturalness judge (``finetune.distillmos``) scores as the ``distillmos`` package does.

Reference numbers: ``distillmos`` 0.9.1 (``ConvTransformerSQAModel``, float32 weights) on the real
speaker's clips resampled to 16 kHz with soxr HQ, clean and degraded (white noise at 0.03 RMS, 8x gain
clipped at 0.3, band-limited to 2 kHz by a 4 kHz round trip, the clip three times over = three
overlapping 7.68 s windows). Our float16-stored weights differ from them by under 0.001 (max seen
0.0007)."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

from speechstudio.finetune.check import resample

MATTHES = Path(os.environ.get("SPEECHSTUDIO_VOICES", Path(__file__).resolve().parents[2] / "shared" / "voices")) / "matthes"

REFERENCE = {  # clip -> variant -> distillmos 0.9.1 MOS
    "LJ001-0001": {"clean": 4.5654, "noise": 2.1487, "clip": 2.5539, "band4k": 3.0381, "long": 4.5962},
    "LJ001-0012": {"clean": 4.6800, "noise": 2.1123, "clip": 2.9226, "band4k": 2.9458, "long": 4.6691},
}


def _variants(path: Path) -> tuple[dict[str, np.ndarray], np.ndarray, int]:
    assert path.is_file(), f"real speaker clip not found: {path}"
    a, sr = sf.read(str(path), dtype="float32")
    a16 = resample(a, sr, 16000)
    noise = a16 + 0.03 * np.random.default_rng(0).standard_normal(len(a16)).astype(np.float32)
    return ({"clean": a16, "noise": noise, "clip": np.clip(a16 * 8, -0.3, 0.3),
             "band4k": resample(resample(a16, 16000, 4000), 4000, 16000), "long": np.tile(a16, 3)}, a, sr)


@pytest.fixture(scope="module")
def model():
    """``DistillMOS.load()``: the one ``Naturalness`` keeps per process (loaded once for the module)."""
    from speechstudio.finetune.closeness import Naturalness
    from speechstudio.finetune.distillmos import DistillMOS

    loaded = Naturalness()._model
    assert isinstance(loaded, DistillMOS) and not loaded.training
    return loaded


@pytest.mark.parametrize("clip", sorted(REFERENCE))
def test_scores_match_the_distillmos_package(model, clip):
    variants, _, _ = _variants(MATTHES / "wavs" / f"{clip}.flac")
    with torch.no_grad():
        ours = {k: float(model(torch.from_numpy(np.ascontiguousarray(v))[None])[0]) for k, v in variants.items()}
    assert ours == pytest.approx(REFERENCE[clip], abs=0.003)


def test_naturalness_resamples_with_soxr_and_scores_a_batch(model):
    from speechstudio.finetune.closeness import Naturalness

    _, a, sr = _variants(MATTHES / "wavs" / "LJ001-0001.flac")
    assert sr == 44100
    assert Naturalness().score(a, sr) == pytest.approx(4.5654, abs=0.003)  # 44.1 kHz in, soxr to 16 kHz
    x = torch.from_numpy(resample(a, sr, 16000))[None, :16000 * 7]  # one 7.68 s window each
    with torch.no_grad():
        two = model(torch.cat([x, 0.5 * x]))  # peak normalisation: the level does not change the score
    assert two.shape == (2,) and float(two[0]) == pytest.approx(float(two[1]), abs=1e-4)


def test_missing_or_foreign_weights_say_so(tmp_path):
    from safetensors.torch import save_file

    from speechstudio.finetune.distillmos import DistillMOS

    with pytest.raises(FileNotFoundError, match="naturalness model's weights are missing"):
        DistillMOS.load(tmp_path / "none.safetensors")
    save_file({"w": torch.zeros(2)}, str(tmp_path / "other.safetensors"))
    with pytest.raises(ValueError, match="not DistillMOS weights"):
        DistillMOS.load(tmp_path / "other.safetensors")
