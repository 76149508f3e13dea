"""HiFi-GAN decoder with residual block type "1" or "2" (Piper's x_low / low / medium voices; VITS
``modules.ResBlock2``, Kong et al. 2020 V2/V3) built from a ``VitsConfig``, and the channels-last CPU decoder."""
from __future__ import annotations

import copy

import torch
from torch import nn
from transformers.models.vits.modeling_vits import VitsHifiGan


class HifiGanResidualBlock2(nn.Module):
    """HiFi-GAN residual block type "2": ``x = x + conv_d(leaky_relu(x))`` per dilation d; ``(batch,
    channels, frames)`` in and out; parameters ``convs.{i}`` as in Piper/VITS."""

    def __init__(self, channels: int, kernel_size: int = 3, dilation=(1, 3), leaky_relu_slope: float = 0.1):
        super().__init__()
        self.leaky_relu_slope = leaky_relu_slope
        self.convs = nn.ModuleList(
            nn.Conv1d(channels, channels, kernel_size, stride=1, dilation=d, padding=(kernel_size * d - d) // 2)
            for d in dilation
        )

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            residual = hidden_states
            hidden_states = nn.functional.leaky_relu(hidden_states, self.leaky_relu_slope)
            hidden_states = conv(hidden_states) + residual
        return hidden_states


class VitsHifiGanV2(VitsHifiGan):
    """``VitsHifiGan`` with residual blocks per ``config.resblock``: ``forward(spectrogram (batch,
    flow_size, frames), global_conditioning (batch, emb, 1) | None)`` -> ``(batch, 1, frames *
    prod(upsample_rates))`` in [-1, 1]."""

    def __init__(self, config):
        super().__init__(config)
        if str(getattr(config, "resblock", "1")) == "2":
            self.resblocks = nn.ModuleList()
            for i in range(len(self.upsampler)):
                channels = config.upsample_initial_channel // (2 ** (i + 1))
                for k, d in zip(config.resblock_kernel_sizes, config.resblock_dilation_sizes):
                    self.resblocks.append(HifiGanResidualBlock2(channels, k, d, config.leaky_relu_slope))


def install_decoder(model) -> None:
    """Replace ``model.decoder`` by a ``VitsHifiGanV2`` (same dtype/device) when the config asks for
    resblock "2"; call before loading weights."""
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


class PolyphaseUpsample(nn.Module):
    """A ``ConvTranspose`` upsampler (stride ``s``, kernel ``2s``, padding ``s/2``) as one (1, 2) conv with
    ``s * C_out`` outputs (polyphase), equal to ~1e-6: ``(batch, C_in, 1, T)`` -> ``(batch, C_out, 1, T * s)``
    channels-last. ``supports(conv)``: whether a transposed conv has that geometry."""

    def __init__(self, conv: nn.Module):
        super().__init__()
        s = conv.stride[-1]
        weight = conv.weight.detach().reshape(conv.in_channels, conv.out_channels, -1)  # (C_in, C_out, 2s)
        h = s // 2
        # Output frame o of the (1, 2) conv sees input frames (o - 1, o). Its channel groups:
        # phases h..s-1 of output frame o - 1, then phases 0..h-1 of output frame o; flattening
        # (frame, group) gives output sample index + h, undone by a slice in forward().
        taps = [torch.stack([weight[:, :, p + h], weight[:, :, p - h]], -1) for p in range(h, s)]
        taps += [torch.stack([weight[:, :, p + h + s], weight[:, :, p + h]], -1) for p in range(h)]
        self.stride, self.out_channels = s, conv.out_channels
        self.conv = nn.Conv2d(conv.in_channels, s * conv.out_channels, (1, 2), padding=(0, 1))
        with torch.no_grad():
            self.conv.weight.copy_(torch.cat(taps, 1).permute(1, 0, 2).unsqueeze(2))
            self.conv.bias.copy_(conv.bias.detach().repeat(s))
        self.conv.to(device=weight.device, dtype=weight.dtype, memory_format=torch.channels_last)

    @staticmethod
    def supports(conv: nn.Module) -> bool:
        s, k = conv.stride[-1], conv.kernel_size[-1]
        return (isinstance(conv, (nn.ConvTranspose1d, nn.ConvTranspose2d)) and conv.bias is not None
                and k == 2 * s and s % 2 == 0 and conv.padding[-1] == s // 2 and conv.groups == 1
                and conv.dilation[-1] == 1 and conv.output_padding[-1] == 0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = self.stride
        z = self.conv(x)  # (N, s * C_out, 1, T + 1), channels-last
        n, _, _, frames = z.shape
        flat = z.permute(0, 2, 3, 1).reshape(n, 1, frames * s, self.out_channels)
        return flat[:, :, s // 2: s // 2 + (frames - 1) * s, :].permute(0, 3, 1, 2)


def _zero_tail(x: torch.Tensor, valid: int | None) -> torch.Tensor:
    """Zero ``x[..., valid:]`` in place (the padding of a bucketed input; see ``forward``)."""
    if valid is not None and valid < x.shape[-1]:
        x[..., valid:] = 0
    return x


class ChannelsLastDecoder(nn.Module):
    """A HiFi-GAN decoder as (1, k) 2-D convolutions on channels-last tensors (inference):
    ``(batch, flow_size, frames)`` -> ``(batch, 1, samples)``, equal to ``.eager`` to ~1e-5 (docs/tts.md,
    Performance). ``valid_frames``: bucket padding re-zeroed before every conv, so the first
    ``valid_frames * hop`` samples equal the unpadded output."""

    def __init__(self, decoder: nn.Module):
        super().__init__()

        object.__setattr__(self, "eager", decoder)  # not registered: no duplicate parameters
        inner = copy.deepcopy(decoder)
        _conv1d_to_2d(inner)
        self.num_kernels = inner.num_kernels
        self.slope = float(inner.config.leaky_relu_slope)
        with torch.no_grad():
            for up in list(inner.upsampler)[1:]:
                up.weight.div_(self.num_kernels)
            inner.conv_post.weight.div_(self.num_kernels)
        for i, up in enumerate(inner.upsampler):
            if PolyphaseUpsample.supports(up):
                inner.upsampler[i] = PolyphaseUpsample(up)
        self.strides = [int(up.stride[-1]) for up in decoder.upsampler]
        self.inner = inner

    def _resblock(self, block: nn.Module, x: torch.Tensor, valid: int | None) -> torch.Tensor:
        if isinstance(block, HifiGanResidualBlock2):
            for conv in block.convs:
                x = _zero_tail(conv(nn.functional.leaky_relu(x, self.slope)).add_(x), valid)
            return x
        if valid is None:
            return block(x)
        for conv1, conv2 in zip(block.convs1, block.convs2):
            h = _zero_tail(conv1(nn.functional.leaky_relu(x, block.leaky_relu_slope)), valid)
            x = _zero_tail(conv2(nn.functional.leaky_relu_(h, block.leaky_relu_slope)).add_(x), valid)
        return x

    def forward(self, spectrogram: torch.Tensor, global_conditioning: torch.Tensor | None = None,
                valid_frames: int | None = None) -> torch.Tensor:
        inner = self.inner
        valid = valid_frames
        x = inner.conv_pre(spectrogram.unsqueeze(2).contiguous(memory_format=torch.channels_last))
        if global_conditioning is not None:
            x = x + inner.cond(global_conditioning.unsqueeze(2))
        _zero_tail(x, valid)
        k = self.num_kernels
        for i, up in enumerate(inner.upsampler):
            x = up(nn.functional.leaky_relu_(x, self.slope))
            valid = None if valid is None else valid * self.strides[i]
            _zero_tail(x, valid)
            acc = self._resblock(inner.resblocks[i * k], x, valid)
            for j in range(1, k):
                acc = acc.add_(self._resblock(inner.resblocks[i * k + j], x, valid))
            x = acc  # the "/ num_kernels" lives in the next conv's weights
        x = inner.conv_post(nn.functional.leaky_relu_(x))  # default slope 0.01, as in VITS
        return torch.tanh_(x).squeeze(2)
