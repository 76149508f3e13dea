"""VITS inference for one utterance on CPU with tokens and frames padded to buckets, so oneDNN reuses its
kernels; the valid part equals ``VitsModel.forward`` (~1e-6). Noise from the caller's ``torch.Generator``,
controls as arguments: threads share one model without a lock. Figures: docs/tts.md, Performance."""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from speechstudio.errors import UsageError

#: Token sequences are padded to a multiple of this many ids.
TOKEN_BUCKET = 8
#: Latent frames are padded to a multiple of this (8 x 256 samples = 93 ms at 22.05 kHz; bucket
#: sizes measured: docs/tts.md, Performance).
FRAME_BUCKET = 8


def bucket(n: int, step: int) -> int:
    """``n`` rounded up to a multiple of ``step`` (at least ``step``)."""
    return max(step, -(-int(n) // step) * step)


def synthesize_bucketed(model, input_ids: torch.Tensor, speaker_id: int | None, noise_scale: float,
                        noise_w: float, length_scale: float, generator: torch.Generator | None = None,
                        max_frames: int | None = None) -> torch.Tensor:
    """Waveform ``torch.float32 (frames * hop,)`` in [-1, 1] for ``input_ids`` ``(1, T)`` on a ``VitsModel``
    with a ``ChannelsLastDecoder``, under ``torch.inference_mode()``; noise from ``generator``. Raises
    ``UsageError`` over ``max_frames`` (before allocating), ``ValueError`` for a bad speaker id."""
    config = model.config
    hop = int(np.prod(config.upsample_rates))
    n_tokens = int(input_ids.shape[1])
    padded_tokens = bucket(n_tokens, TOKEN_BUCKET)
    dtype = model.text_encoder.embed_tokens.weight.dtype
    device = input_ids.device
    ids = nn.functional.pad(input_ids, (0, padded_tokens - n_tokens), value=int(config.pad_token_id or 0))
    attention_mask = torch.zeros((1, padded_tokens), dtype=torch.long, device=device)
    attention_mask[:, :n_tokens] = 1
    token_mask = attention_mask.unsqueeze(-1).to(dtype)  # (1, T, 1)

    speaker_embeddings = None
    if config.num_speakers > 1 and speaker_id is not None:
        if not 0 <= int(speaker_id) < config.num_speakers:
            raise ValueError(f"Set `speaker_id` in the range 0-{config.num_speakers - 1}.")
        speaker_embeddings = model.embed_speaker(torch.tensor([int(speaker_id)], device=device)).unsqueeze(-1)

    encoded = model.text_encoder(input_ids=ids, padding_mask=token_mask, attention_mask=attention_mask)
    hidden = encoded.last_hidden_state.transpose(1, 2)
    token_mask = token_mask.transpose(1, 2)  # (1, 1, T)
    if config.use_stochastic_duration_prediction:
        log_duration = _stochastic_log_duration(model.duration_predictor, hidden, token_mask, speaker_embeddings,
                                                noise_w, generator)
    else:
        log_duration = model.duration_predictor(hidden, token_mask, speaker_embeddings)
    duration = torch.ceil(torch.exp(log_duration) * token_mask * length_scale)[0, 0, :n_tokens]  # (T,)
    total = float(duration.sum())
    if max_frames is not None and not total <= max_frames:  # also catches inf / NaN durations
        raise UsageError(f"this sentence would be {total * hop / config.sampling_rate:.0f} s of audio (limit "
                         f"{max_frames * hop / config.sampling_rate:.0f} s): lower noise_w / length_scale")
    frames = max(1, int(total))
    padded_frames = bucket(frames, FRAME_BUCKET)

    # Monotonic expansion: frame f takes token i where cum[i-1] <= f < cum[i] (the attention path
    # of VitsModel.forward, as a gather instead of a (frames x tokens) matmul).
    cum = torch.cumsum(duration, 0)
    token_of_frame = torch.searchsorted(cum, torch.arange(frames, device=device, dtype=cum.dtype), right=True)
    inside = (token_of_frame < n_tokens).to(dtype).unsqueeze(1)  # all durations 0: one silent frame
    token_of_frame = token_of_frame.clamp_(max=n_tokens - 1)
    prior_means, prior_log_var = (  # (1, flow, padded_frames), zero past the frames
        nn.functional.pad((p[0, :n_tokens].index_select(0, token_of_frame) * inside).T[None], (0, padded_frames - frames))
        for p in (encoded.prior_means, encoded.prior_log_variances))
    frame_mask = torch.zeros((1, 1, padded_frames), dtype=dtype, device=device)
    frame_mask[..., :frames] = 1

    noise = torch.randn(prior_means.shape, generator=generator, dtype=dtype, device=device)
    prior_latents = prior_means + noise * torch.exp(prior_log_var) * noise_scale
    latents = model.flow(prior_latents, frame_mask, speaker_embeddings, reverse=True)
    spectrogram = latents * frame_mask
    waveform = model.decoder(spectrogram, speaker_embeddings, valid_frames=frames)
    return waveform.reshape(-1)[: frames * hop]


def _stochastic_log_duration(dp, hidden: torch.Tensor, mask: torch.Tensor, speaker_embeddings, noise_w: float,
                             generator: torch.Generator | None) -> torch.Tensor:
    """Reverse ``VitsStochasticDurationPredictor`` with noise from ``generator``: ``hidden (1, H, T)``,
    ``mask (1, 1, T)`` -> log durations ``(1, 1, T)`` (skips the "useless vflow", VITS sec. 2.2.2)."""
    h = dp.conv_pre(hidden)
    if speaker_embeddings is not None:
        h = h + dp.cond(speaker_embeddings)
    h = dp.conv_dds(h, mask)
    h = dp.conv_proj(h) * mask
    flows = list(reversed(dp.flows))
    flows = flows[:-2] + [flows[-1]]
    latents = torch.randn((1, 2, hidden.shape[2]), generator=generator, dtype=hidden.dtype,
                          device=hidden.device) * noise_w
    for flow in flows:
        latents = torch.flip(latents, [1])
        latents, _ = flow(latents, mask, global_conditioning=h, reverse=True)
    return latents[:, :1]
