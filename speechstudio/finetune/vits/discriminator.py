"""HiFi-GAN discriminators as VITS uses them (jaywalnut310/vits ``models.py``; Piper the same).

``MultiPeriodDiscriminator``: one scale discriminator on the raw waveform (``DiscriminatorS``, MelGAN,
Kumar et al. 2019) + periods 2, 3, 5, 7, 11 (``DiscriminatorP``, HiFi-GAN, Kong et al. 2020, sec. 2.2);
VITS' layers, channels, kernels, strides and groups, weight norm (``torch.nn.utils.parametrizations``;
VITS' spectral-norm option is off in ``net_d``). Fresh, except from a Piper training checkpoint (``piper_ckpt``)."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.parametrizations import weight_norm

#: Leaky ReLU slope of every discriminator layer (VITS ``modules.LRELU_SLOPE``).
LRELU_SLOPE = 0.1
#: Periods of the period discriminators (HiFi-GAN sec. 2.2: primes, to avoid overlap).
PERIODS = (2, 3, 5, 7, 11)


def _ch(channels: int, width: float) -> int:
    return max(1, round(channels * width))


def _groups(groups: int, c_in: int, c_out: int, width: float) -> int:
    g = max(1, round(groups * width))
    while c_in % g or c_out % g:
        g -= 1
    return g


def _scores(disc: nn.Module, x: torch.Tensor):
    """``disc.convs`` (leaky ReLU after each) then ``disc.conv_post`` on ``x``: (scores (batch, n),
    feature maps: every layer's output)."""
    fmap = []
    for layer in disc.convs:
        x = F.leaky_relu(layer(x), LRELU_SLOPE)
        fmap.append(x)
    x = disc.conv_post(x)
    fmap.append(x)
    return torch.flatten(x, 1, -1), fmap


class DiscriminatorP(nn.Module):
    """Period discriminator: the waveform folded into (frames / p, p) and 2-D convolved.

    ``forward(x)``: ``x`` (batch, 1, samples) float in [-1, 1] -> (scores (batch, n), feature
    maps: list of 6 tensors).
    ``width``: fraction of VITS' channels (1.0 = VITS; smaller only for tests / toy voices).
    """

    def __init__(self, period: int, width: float = 1.0, kernel_size: int = 5, stride: int = 3):
        super().__init__()
        self.period = period
        pad = ((kernel_size - 1) // 2, 0)
        chans = [1] + [_ch(c, width) for c in (32, 128, 512, 1024)]
        top = chans[-1]
        self.convs = nn.ModuleList(
            [weight_norm(nn.Conv2d(chans[i], chans[i + 1], (kernel_size, 1), (stride, 1), padding=pad))
             for i in range(4)]
            + [weight_norm(nn.Conv2d(top, top, (kernel_size, 1), 1, padding=pad))]
        )
        self.conv_post = weight_norm(nn.Conv2d(top, 1, (3, 1), 1, padding=(1, 0)))

    def forward(self, x: torch.Tensor):
        b, c, t = x.shape
        if t % self.period:
            n_pad = self.period - t % self.period
            x = F.pad(x, (0, n_pad), "reflect")
            t = t + n_pad
        return _scores(self, x.view(b, c, t // self.period, self.period))


class DiscriminatorS(nn.Module):
    """Scale discriminator on the raw waveform (grouped strided 1-D convs, MelGAN).

    ``forward(x)``: ``x`` (batch, 1, samples) -> (scores (batch, n), feature maps: list of 7).
    ``width``: fraction of VITS' channels and groups (1.0 = VITS).
    """

    def __init__(self, width: float = 1.0):
        super().__init__()
        c = [1] + [_ch(n, width) for n in (16, 64, 256, 1024, 1024)]
        layers = []
        for i, (k, stride, groups, pad) in enumerate(((15, 1, 1, 7), (41, 4, 4, 20), (41, 4, 16, 20), (41, 4, 64, 20),
                                                      (41, 4, 256, 20))):
            c_in, c_out = c[i], c[i + 1]
            g = _groups(groups, c_in, c_out, width)
            layers.append(weight_norm(nn.Conv1d(c_in, c_out, k, stride, groups=g, padding=pad)))
        layers.append(weight_norm(nn.Conv1d(c[5], c[5], 5, 1, padding=2)))
        self.convs = nn.ModuleList(layers)
        self.conv_post = weight_norm(nn.Conv1d(c[5], 1, 3, 1, padding=1))

    def forward(self, x: torch.Tensor):
        return _scores(self, x)


class MultiPeriodDiscriminator(nn.Module):
    """``DiscriminatorS`` + ``DiscriminatorP(p)`` for p in ``PERIODS`` (VITS' ``net_d``).

    ``forward(y)``: ``y`` (batch, 1, samples) float32 / autocast, the sample rate of the voice ->
    (scores: list of 6 tensors (batch, n_i), feature maps: list of 6 lists of tensors).
    VITS' ``forward(y, y_hat)`` runs both inputs; calling ``forward`` once per input lets the
    trainer run the real audio once per step instead of twice (see ``step.py``). ``width``:
    fraction of VITS' channels (1.0, ~46.7 M parameters; smaller only for tests / toy voices).
    """

    def __init__(self, width: float = 1.0):
        super().__init__()
        self.discriminators = nn.ModuleList([DiscriminatorS(width)] + [DiscriminatorP(p, width) for p in PERIODS])

    def forward(self, y: torch.Tensor):
        scores, fmaps = zip(*(d(y) for d in self.discriminators))
        return list(scores), list(fmaps)
