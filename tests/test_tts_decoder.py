"""CPU decoder pieces: polyphase upsampler, bucketed (zero-padded) decoding, bucket sizes."""
import numpy as np
import pytest
import torch
from torch import nn
from transformers import VitsConfig

from speechstudio.tts.bucketed import bucket
from speechstudio.tts.decoder import ChannelsLastDecoder, PolyphaseUpsample, VitsHifiGanV2


@pytest.mark.parametrize("c_in,c_out,stride,frames", [(64, 32, 8, 37), (32, 16, 4, 101), (16, 8, 2, 5)])
def test_polyphase_upsample_equals_transposed_conv(c_in, c_out, stride, frames):
    torch.manual_seed(0)
    conv = nn.ConvTranspose1d(c_in, c_out, 2 * stride, stride, padding=stride // 2).eval()
    assert PolyphaseUpsample.supports(conv)
    poly = PolyphaseUpsample(conv).eval()
    x = torch.randn(1, c_in, frames)
    with torch.inference_mode():
        want = conv(x)
        got = poly(x.unsqueeze(2).contiguous(memory_format=torch.channels_last))
    assert got.shape == (1, c_out, 1, frames * stride)
    assert got.is_contiguous(memory_format=torch.channels_last)  # a view, ready for the next conv
    torch.testing.assert_close(got.squeeze(2), want, atol=1e-5, rtol=1e-5)


def test_polyphase_refuses_other_geometry():
    assert not PolyphaseUpsample.supports(nn.ConvTranspose1d(8, 4, 11, 5, padding=3))  # odd stride
    assert not PolyphaseUpsample.supports(nn.ConvTranspose1d(8, 4, 12, 4, padding=4))  # kernel != 2 * stride
    assert not PolyphaseUpsample.supports(nn.ConvTranspose1d(8, 4, 8, 4, padding=2, bias=False))


@pytest.mark.parametrize("resblock", ["1", "2"])
def test_zero_padded_decoding_equals_unpadded(resblock):
    """A spectrogram padded to a bucket, decoded with valid_frames, == the unpadded decode."""
    torch.manual_seed(0)
    config = VitsConfig(flow_size=8, upsample_initial_channel=32, upsample_rates=[8, 4],
                        upsample_kernel_sizes=[16, 8], resblock_kernel_sizes=[3, 5],
                        resblock_dilation_sizes=[[1, 2], [2, 6]] if resblock == "2" else [[1, 3, 5], [1, 3, 5]],
                        speaker_embedding_size=0)
    config.resblock = resblock
    eager = VitsHifiGanV2(config).eval()
    fast = ChannelsLastDecoder(eager).eval()
    assert all(isinstance(up, PolyphaseUpsample) for up in fast.inner.upsampler)
    frames = 23
    spec = torch.randn(1, 8, frames)
    padded = nn.functional.pad(spec, (0, bucket(frames, 16) - frames))
    with torch.inference_mode():
        want = eager(spec)
        got = fast(padded, valid_frames=frames)
        unmasked = fast(padded)
    assert got.shape[-1] == 32 * 32
    torch.testing.assert_close(got[..., : frames * 32], want, atol=1e-5, rtol=1e-5)
    # Without the tail zeroing the padding leaks into the last samples: the mask is what makes it exact.
    assert (unmasked[..., : frames * 32] - want).abs().max() > 1e-3


def test_bucket():
    assert [bucket(n, 16) for n in (0, 1, 16, 17, 40)] == [16, 16, 16, 32, 48]
