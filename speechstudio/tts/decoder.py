"""HiFi-GAN decoder with residual block type "1" or "2", built from a ``VitsConfig``.

transformers' ``VitsHifiGan`` only has HiFi-GAN residual block type "1" (three dilated convs, each
followed by a plain conv). Piper's x_low / low / medium voices use type "2": one dilated conv per
dilation, no second conv (VITS ``modules.ResBlock2``, jaywalnut310/vits and rhasspy/piper
``vits/modules.py``; HiFi-GAN paper, Kong et al. 2020, "V2/V3" generators).

``VitsHifiGanV2`` subclasses ``VitsHifiGan`` and only replaces ``self.resblocks`` when
``config.resblock == "2"``; ``forward`` (upsample, average of the resblocks, tanh) is inherited,
so transformers is used as is, not forked.
"""
from __future__ import annotations

import torch
from torch import nn
from transformers.models.vits.modeling_vits import VitsHifiGan

__all__ = ["HifiGanResidualBlock2", "VitsHifiGanV2", "install_decoder", "ChannelsLastDecoder", "use_channels_last_decoder"]


class HifiGanResidualBlock2(nn.Module):
    """HiFi-GAN residual block type "2": ``x = x + conv_d(leaky_relu(x))`` for each dilation d.

    Input/output: ``torch.Tensor`` shape ``(batch, channels, frames)``, same dtype as the weights.
    Parameter names ``convs.{i}.weight/bias`` match Piper/VITS (``dec.resblocks.N.convs.i``).
    """

    def __init__(self, channels: int, kernel_size: int = 3, dilation=(1, 3), leaky_relu_slope: float = 0.1):
        super().__init__()
        self.leaky_relu_slope = leaky_relu_slope
        self.convs = nn.ModuleList(
            nn.Conv1d(channels, channels, kernel_size, stride=1, dilation=d, padding=(kernel_size * d - d) // 2)
            for d in dilation
        )

    def apply_weight_norm(self):
        for layer in self.convs:
            nn.utils.parametrizations.weight_norm(layer)

    def remove_weight_norm(self):
        for layer in self.convs:
            torch.nn.utils.parametrize.remove_parametrizations(layer, "weight")

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            residual = hidden_states
            hidden_states = nn.functional.leaky_relu(hidden_states, self.leaky_relu_slope)
            hidden_states = conv(hidden_states) + residual
        return hidden_states


class VitsHifiGanV2(VitsHifiGan):
    """``VitsHifiGan`` whose residual blocks follow ``config.resblock`` ("1" default, or "2").

    ``forward(spectrogram (batch, flow_size, frames), global_conditioning (batch, emb, 1) | None)``
    returns ``(batch, 1, frames * prod(upsample_rates))`` waveform in [-1, 1].
    """

    def __init__(self, config):
        super().__init__(config)
        if str(getattr(config, "resblock", "1")) == "2":
            self.resblocks = nn.ModuleList()
            for i in range(len(self.upsampler)):
                channels = config.upsample_initial_channel // (2 ** (i + 1))
                for k, d in zip(config.resblock_kernel_sizes, config.resblock_dilation_sizes):
                    self.resblocks.append(HifiGanResidualBlock2(channels, k, d, config.leaky_relu_slope))


def install_decoder(model) -> None:
    """Replace ``model.decoder`` by a ``VitsHifiGanV2`` when the config asks for resblock "2".

    Must be called before loading weights. Keeps dtype/device of the existing decoder.
    """
    if str(getattr(model.config, "resblock", "1")) != "2":
        return
    ref = next(model.decoder.parameters())
    model.decoder = VitsHifiGanV2(model.config).to(device=ref.device, dtype=ref.dtype)



def _conv1d_to_2d(module: nn.Module) -> None:
    """Replace every Conv1d / ConvTranspose1d below ``module`` by the equivalent (1, k) 2-D conv."""
    for name, child in list(module.named_children()):
        if isinstance(child, nn.Conv1d):
            new = nn.Conv2d(child.in_channels, child.out_channels, (1, child.kernel_size[0]), (1, child.stride[0]),
                            (0, child.padding[0]), (1, child.dilation[0]), child.groups, child.bias is not None)
        elif isinstance(child, nn.ConvTranspose1d):
            new = nn.ConvTranspose2d(child.in_channels, child.out_channels, (1, child.kernel_size[0]),
                                     (1, child.stride[0]), (0, child.padding[0]), (0, child.output_padding[0]),
                                     child.groups, child.bias is not None, (1, child.dilation[0]))
        else:
            _conv1d_to_2d(child)
            continue
        with torch.no_grad():
            new.weight.copy_(child.weight.detach().unsqueeze(2))
            if child.bias is not None:
                new.bias.copy_(child.bias.detach())
        new.to(device=child.weight.device, dtype=child.weight.dtype, memory_format=torch.channels_last)
        setattr(module, name, new)


class ChannelsLastDecoder(nn.Module):
    """A HiFi-GAN decoder run as (1, k) 2-D convolutions on channels-last ("NHWC") tensors.

    Same maths and same call signature as ``VitsHifiGan``: ``forward(spectrogram (batch, flow_size,
    frames), global_conditioning (batch, emb, 1) | None) -> (batch, 1, samples)``, in [-1, 1].
    Inference only. Two CPU speed-ups, measured in bench/bench_tts.py:

    * oneDNN runs NHWC convolutions without re-laying out every activation (as it does for
      Conv1d's NCW): decoder ~1.4x faster;
    * in-place activations / residual adds, and the average over the resblocks (``/ num_kernels``)
      folded into the next conv's weights (leaky ReLU is positively homogeneous): ~1.1x more.

    Output equals the eager decoder to ~1e-6. The eager 1-D decoder stays at ``.eager``.
    """

    def __init__(self, decoder: nn.Module):
        super().__init__()
        import copy

        object.__setattr__(self, "eager", decoder)  # not registered: no duplicate parameters
        inner = copy.deepcopy(decoder)
        _conv1d_to_2d(inner)
        self.num_kernels = inner.num_kernels
        self.slope = float(inner.config.leaky_relu_slope)
        with torch.no_grad():
            for up in list(inner.upsampler)[1:]:
                up.weight.div_(self.num_kernels)
            inner.conv_post.weight.div_(self.num_kernels)
        self.inner = inner

    def _resblock(self, block: nn.Module, x: torch.Tensor) -> torch.Tensor:
        if isinstance(block, HifiGanResidualBlock2):
            for conv in block.convs:
                x = conv(nn.functional.leaky_relu(x, self.slope)).add_(x)
            return x
        return block(x)

    def forward(self, spectrogram: torch.Tensor, global_conditioning: torch.Tensor | None = None) -> torch.Tensor:
        inner = self.inner
        x = inner.conv_pre(spectrogram.unsqueeze(2).contiguous(memory_format=torch.channels_last))
        if global_conditioning is not None:
            x = x + inner.cond(global_conditioning.unsqueeze(2))
        k = self.num_kernels
        for i, up in enumerate(inner.upsampler):
            x = up(nn.functional.leaky_relu_(x, self.slope))
            acc = self._resblock(inner.resblocks[i * k], x)
            for j in range(1, k):
                acc = acc.add_(self._resblock(inner.resblocks[i * k + j], x))
            x = acc  # the "/ num_kernels" lives in the next conv's weights
        x = inner.conv_post(nn.functional.leaky_relu_(x))  # default slope 0.01, as in VITS
        return torch.tanh_(x).squeeze(2)


def use_channels_last_decoder(model) -> bool:
    """Swap ``model.decoder`` for a ``ChannelsLastDecoder`` (CPU speed-up). Returns True if swapped."""
    if isinstance(model.decoder, ChannelsLastDecoder):
        return True
    model.decoder = ChannelsLastDecoder(model.decoder)
    return True
