"""Training features as VITS / Piper compute them (jaywalnut310/vits and OHF-Voice/piper1-gpl
``mel_processing.py``).

Linear magnitude spectrogram (reflect-pad (n_fft - hop) / 2, Hann ``torch.stft``, ``center=False``,
``sqrt(re^2 + im^2 + 1e-6)``; frames = samples // hop) and log-mel (Slaney filterbank times it,
``log(clamp(x, 1e-5))``). Piper medium / VITS LJSpeech: 22050 Hz, n_fft = win = 1024, hop 256, 80 mels,
fmax sr / 2; MMS-TTS 16 kHz. The hop must equal prod(config.upsample_rates)."""
from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass

from speechstudio.audio.mel import mel_filter_bank


@dataclass(frozen=True)
class FeatureConfig:
    """STFT / mel settings (rates and fmin / fmax in Hz, sizes in samples). ``audio_rate``: the rate
    recordings are decoded at before being treated as output at ``sample_rate`` (None: ``sample_rate``;
    see ``voice_rate``)."""

    sample_rate: int
    n_fft: int = 1024
    hop_length: int = 256
    win_length: int = 1024
    n_mels: int = 80
    fmin: float = 0.0
    fmax: float | None = None
    audio_rate: int | None = None

    @classmethod
    def for_model(cls, config) -> "FeatureConfig":
        """Settings for a ``VitsConfig``: n_fft = 2 (spectrogram_bins - 1), hop = prod(upsample_rates),
        80 mels (n_fft / 4 below n_fft 512), fmin 0, fmax None."""
        n_fft = 2 * (int(config.spectrogram_bins) - 1)
        hop = int(math.prod(config.upsample_rates))
        return cls(int(config.sampling_rate), n_fft, hop, n_fft, 80 if n_fft >= 512 else max(2, n_fft // 4), 0.0, None)

    @property
    def decode_rate(self) -> int:
        """Hz the recordings are decoded at (``audio_rate`` or ``sample_rate``)."""
        return int(self.audio_rate or self.sample_rate)

    def to_dict(self) -> dict:
        d = asdict(self)
        if d["audio_rate"] is None:  # cache keys and run configs of runs without it stay the same
            del d["audio_rate"]
        return d


@functools.cache
def _window(win_length: int, device, dtype):
    import torch

    return torch.hann_window(win_length, device=device, dtype=dtype)


@functools.cache
def _mel_basis(fc: FeatureConfig, device, dtype):
    import torch

    basis = mel_filter_bank(fc.sample_rate, fc.n_fft, fc.n_mels, fc.fmin, fc.fmax).T.copy()
    return torch.from_numpy(basis).to(device=device, dtype=dtype)


def linear_spectrogram(wav, fc: FeatureConfig):
    """VITS ``spectrogram_torch``: ``wav`` float32 (batch, samples) or (samples,) in [-1, 1] -> float32
    (batch, n_fft / 2 + 1, samples // hop), batch axis as given. Always float32 (cuFFT has no bf16)."""
    import torch
    import torch.nn.functional as F

    squeeze = wav.dim() == 1
    y = (wav.unsqueeze(0) if squeeze else wav).float()
    pad = (fc.n_fft - fc.hop_length) // 2
    with torch.autocast(y.device.type, enabled=False):
        y = F.pad(y.unsqueeze(1), (pad, pad), mode="reflect").squeeze(1)
        spec = torch.stft(y, fc.n_fft, hop_length=fc.hop_length, win_length=fc.win_length,
                          window=_window(fc.win_length, y.device, y.dtype), center=False, normalized=False, onesided=True,
                          return_complex=True)
        spec = torch.sqrt(spec.real.pow(2) + spec.imag.pow(2) + 1e-6)
    return spec[0] if squeeze else spec


def linear_to_mel(spec, fc: FeatureConfig):
    """Log-mel from a linear spectrogram (VITS ``spec_to_mel_torch``): (..., bins, frames) ->
    float32 (..., n_mels, frames), natural log, floor log(1e-5)."""
    import torch

    with torch.autocast(spec.device.type, enabled=False):
        spec = spec.float()
        mel = torch.matmul(_mel_basis(fc, spec.device, spec.dtype), spec)
        return torch.log(torch.clamp(mel, min=1e-5))


def mel_spectrogram(wav, fc: FeatureConfig):
    """Log-mel of a waveform (VITS ``mel_spectrogram_torch``): ``wav`` (batch, samples) float, Hz
    = ``fc.sample_rate`` -> float32 (batch, n_mels, samples // hop)."""
    return linear_to_mel(linear_spectrogram(wav, fc), fc)
