"""DistillMOS (Stahl & Gamper, ICASSP 2025): a 4.2 M-parameter CNN + transformer distilled from XLS-R
SQA that predicts the mean opinion score (1-5) of 16 kHz speech.

Network and variant-7 weights from the ``distillmos`` 0.9.1 wheel (MIT, Copyright (c) Microsoft
Corporation; ``weights/DISTILLMOS_LICENSE``) with the head of ``xls-r-sqa`` 0.1.0 (MIT); both wheels need
torchaudio, which has no build for our torch, and scoring uses none of it. Weights ship as float16
safetensors, load as float32; ``tests/test_distillmos.py`` checks scores against the package's."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

#: Bundled weights: distillmos 0.9.1 ``distill_mos_v7.pt``, state dict as float16 safetensors.
WEIGHTS = Path(__file__).with_name("weights") / "distillmos_v7.safetensors"
_SEQ_LEN = 122880  # 7.68 s windows
_MAX_HOP = 16000  # windows of a longer clip start at most 1 s apart
_FEAT_LEN = 384  # positional-encoding length (frames at 50 Hz)
_DIM, _HEADS, _LAYERS, _CHANNELS = 200, 8, 7, 256
_PE = "transformer_pool_attn.transformer.position_encoding.pe"
_ZERO_RUN = 64  # zero frames run once for the outputs over a window's silent end (even, as the window's 768)


def _compressed_spectrum(x: torch.Tensor, hop: int = 160, win: int = 320) -> torch.Tensor:
    """(batch, samples) -> (batch, 2, 161, frames): STFT (Hann 20 ms, hop 10 ms, reflect padding),
    magnitude compressed to the power 0.3, phase kept (real and imaginary channels)."""
    pad = (win - hop) // 2
    x = F.pad(x, (pad, pad), mode="reflect")
    spec = torch.view_as_real(torch.stft(x, n_fft=win, hop_length=hop, win_length=win, center=False,
                                         return_complex=True, window=torch.hann_window(win, device=x.device)))
    mag = torch.clip(torch.sum(spec**2, dim=-1, keepdim=True) ** 0.5, 1e-12)
    return (mag**0.3 * spec / mag).permute(0, 3, 1, 2)


class _SpecCNN(nn.Module):
    def __init__(self, layers: int = 6, first: int = 64):
        super().__init__()
        convs, c_in, fdim = [], 2, 161
        for i in range(layers):
            c_out = min(first * 2 ** max(i - 1, 0), _CHANNELS)
            f_stride, t_stride = (2 if i >= 1 else 1), (2 if i == layers - 1 else 1)
            convs += [nn.Conv2d(c_in, c_out, (3, 3), stride=(f_stride, t_stride), padding=(0, 1)), nn.LeakyReLU(0.1)]
            fdim = (fdim - 3) // f_stride + 1
            c_in = c_out
        self.cnn = nn.Sequential(*convs)
        self.out_dim = _CHANNELS * fdim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.flatten(self._cnn_skipping_silence(_compressed_spectrum(x)), 1, -2).permute(0, 2, 1)

    def _cnn_skipping_silence(self, spec: torch.Tensor) -> torch.Tensor:
        """``self.cnn(spec)``, without convolving the all-zero frames after the speech (a short clip zero-padded
        to a 7.68 s window): each output frame whose receptive field (+-6 input frames) holds zeros only is the
        network's output for an all-zero input at the same distance from the window's end. Those come from one
        run over ``_ZERO_RUN`` zero frames; the frames before, from a run over the speech and a margin."""
        frames = spec.shape[-1]
        nonzero = torch.nonzero(spec.abs().amax(dim=(0, 1, 2)))
        last = int(nonzero[-1]) if len(nonzero) else -1
        head_in = last + 16 + (last + 16) % 2  # even, like the window's 768 frames (the last layer's time stride)
        if frames % 2 or head_in + _ZERO_RUN > frames:
            return self.cnn(spec)
        head_out = (head_in - 8) // 2  # outputs of the shortened run not reached by its artificial end
        zero_out = self.cnn(spec.new_zeros(1, *spec.shape[1:3], _ZERO_RUN))
        total, tail = frames // 2, _ZERO_RUN // 2 - 8  # the zero run's last outputs: the window's last ones
        parts = [self.cnn(spec[..., :head_in])[..., :head_out]]
        middle = total - tail - head_out
        if middle > 0:
            parts.append(zero_out[..., _ZERO_RUN // 4: _ZERO_RUN // 4 + 1].expand(len(spec), -1, -1, middle))
        parts.append(zero_out[..., -tail:].expand(len(spec), -1, -1, -1)[..., max(0, -middle):])
        return torch.cat(parts, dim=-1)


class _Transformer(nn.Module):
    def __init__(self, dim_in: int):
        super().__init__()
        self.norm = nn.BatchNorm1d(dim_in)
        self.position_encoding = nn.Module()
        pos = torch.arange(_FEAT_LEN).unsqueeze(1)
        div = torch.exp(torch.arange(0, _DIM, 2) * (-math.log(2 * _FEAT_LEN) / _DIM))
        pe = torch.zeros(1, _FEAT_LEN, _DIM)
        pe[0, :, 0::2], pe[0, :, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
        self.position_encoding.register_buffer("pe", pe)
        self.linear_proj = nn.Linear(dim_in, _DIM)
        layer = nn.TransformerEncoderLayer(_DIM, _HEADS, dim_feedforward=2 * _DIM, dropout=0.0, batch_first=True)
        self.transformer_encoder = nn.TransformerEncoder(layer, _LAYERS, enable_nested_tensor=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.linear_proj(self.norm(x.transpose(-1, -2)).transpose(-1, -2))
        return self.transformer_encoder(x + self.position_encoding.pe.expand(x.shape))


class _Head(nn.Module):
    """XLS-R SQA's SingleLayerModel: normalise, transformer, attention pooling (NISQA's PoolAttFF)."""

    def __init__(self, dim_in: int):
        super().__init__()
        self.norm_input = nn.BatchNorm1d(dim_in)
        self.transformer = _Transformer(dim_in)
        self.norm_trans = nn.BatchNorm1d(_DIM)
        self.pool = nn.Module()
        self.pool.linear1, self.pool.linear2 = nn.Linear(_DIM, 2 * _DIM), nn.Linear(2 * _DIM, 1)
        self.pool.linear3 = nn.Linear(_DIM, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.norm_input(x.transpose(-1, -2)).transpose(-1, -2)
        x = self.norm_trans(self.transformer(x).transpose(-1, -2)).transpose(-1, -2)
        att = F.softmax(self.pool.linear2(F.relu(self.pool.linear1(x))).transpose(2, 1), dim=2)
        return torch.sigmoid(self.pool.linear3(torch.bmm(att, x).squeeze(1))).squeeze(-1)


class DistillMOS(nn.Module):
    """``model(x)``: 16 kHz float32 waveforms ``(batch, samples)``, any length -> MOS ``(batch,)``
    in 1..5. Clips are peak-normalised, cut into 7.68 s windows (a shorter clip is zero-padded) and the
    windows' scores averaged. ``DistillMOS.load()`` gives the bundled weights in eval mode; raises
    ``FileNotFoundError`` when the weights file is missing from the install."""

    def __init__(self):
        super().__init__()
        self.cnn = _SpecCNN()
        self.transformer_pool_attn = _Head(self.cnn.out_dim)

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> "DistillMOS":
        from safetensors.torch import load_file

        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: the naturalness model's weights are missing (reinstall SpeechStudio)")
        model = cls()
        state = {k: v.float() if v.is_floating_point() else v for k, v in load_file(str(path)).items()}
        missing, unexpected = model.load_state_dict(state, strict=False)
        if unexpected or missing != [_PE]:  # only the positional encoding is computed, not stored
            raise ValueError(f"{path}: not DistillMOS weights (missing {missing[:3]}, unexpected {unexpected[:3]})")
        return model.eval()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        over = x.shape[1] - _SEQ_LEN
        if over < 0:
            x, over = F.pad(x, (0, -over)), 0
        starts = np.linspace(0, 1, int(np.ceil(over / _MAX_HOP)) + 1)
        windows = torch.cat([x[:, int(c * over):int(c * over) + _SEQ_LEN] for c in starts], dim=0)
        windows = windows / (torch.max(torch.abs(windows), dim=1, keepdim=True).values + 1e-8)
        quality = self.transformer_pool_attn(self.cnn(windows)).reshape(len(starts), -1).mean(0)
        return 1 + 4 * quality
