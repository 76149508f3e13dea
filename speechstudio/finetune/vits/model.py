"""The training forward of transformers' ``VitsModel`` (which refuses ``labels``), after
jaywalnut310/vits ``SynthesizerTrn.forward`` (Kim et al. 2021) as ylacombe/finetune-hf-vits does:
posterior, flow, MAS, duration loss, random slice of ``segment_frames`` into the decoder."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from speechstudio.finetune.vits.mas import maximum_path
from speechstudio.tts.piper_import import fold_weight_norm

#: WaveNet layers of VITS' posterior encoder (``models.SynthesizerTrn``: ``PosteriorEncoder(...,
#: 5, 1, 16)``: kernel 5, dilation 1, 16 layers; Piper the same).
POSTERIOR_LAYERS = 16


@dataclass
class ForwardOutput:
    """One training forward (b, latent frames t_y, tokens t_x): ``waveform`` (b, 1, segment_frames *
    hop), ``ids_slice`` (b,), ``loss_dur``, ``z_p`` / ``logs_q`` / ``m_p`` / ``logs_p`` (b, flow, t_y),
    ``z_mask`` (b, 1, t_y)."""

    waveform: torch.Tensor
    ids_slice: torch.Tensor
    loss_dur: torch.Tensor
    z_p: torch.Tensor
    logs_q: torch.Tensor
    m_p: torch.Tensor
    logs_p: torch.Tensor
    z_mask: torch.Tensor


def slice_segments(x: torch.Tensor, ids_str: torch.Tensor, segment_size: int) -> torch.Tensor:
    """``x[i, :, ids_str[i] : ids_str[i] + segment_size]`` for each i (VITS ``commons``);
    ``x`` must be at least ``ids_str.max() + segment_size`` long on its last axis."""
    idx = ids_str.view(-1, 1, 1) + torch.arange(segment_size, device=x.device).view(1, 1, -1)
    return torch.gather(x, 2, idx.expand(x.size(0), x.size(1), segment_size))


def rand_slice_segments(x: torch.Tensor, lengths: torch.Tensor, segment_size: int):
    """Random slices of ``segment_size`` frames within each item's length (VITS ``commons``;
    the start is 0 when an item is shorter than the segment). Uses torch's global RNG."""
    ids_str_max = (lengths - segment_size + 1).clamp_min(1)
    ids_str = (torch.rand(x.size(0), device=x.device) * ids_str_max).long()
    return slice_segments(x, ids_str, segment_size), ids_str


def encode_text(model, input_ids, input_mask):
    """Text encoder: (hidden (b, h, t_x), m_p (b, flow, t_x), logs_p (b, flow, t_x), x_mask (b, 1, t_x))."""
    dtype = model.text_encoder.embed_tokens.weight.dtype
    out = model.text_encoder(input_ids=input_ids, padding_mask=input_mask.unsqueeze(-1).to(dtype),
                             attention_mask=input_mask, return_dict=True)
    x_mask = input_mask.unsqueeze(1).to(dtype)
    return (out.last_hidden_state.transpose(1, 2), out.prior_means.transpose(1, 2),
            out.prior_log_variances.transpose(1, 2), x_mask)


def align(z_p, m_p, logs_p, x_mask, z_mask):
    """MAS on the float32 log-likelihood of ``z_p`` (b, d, t_y) under N(m_p, exp(logs_p)) (b, d, t_x),
    no gradient (VITS ``neg_cent``). Returns ``attn`` (b, 1, t_y, t_x) float32."""
    with torch.no_grad(), torch.autocast(z_p.device.type, enabled=False):
        z_p, m_p, logs_p = z_p.float(), m_p.float(), logs_p.float()
        s_p_sq_r = torch.exp(-2 * logs_p)
        neg_cent1 = torch.sum(-0.5 * math.log(2 * math.pi) - logs_p, [1], keepdim=True)
        neg_cent2 = torch.matmul(-0.5 * (z_p ** 2).transpose(1, 2), s_p_sq_r)
        neg_cent3 = torch.matmul(z_p.transpose(1, 2), m_p * s_p_sq_r)
        neg_cent4 = torch.sum(-0.5 * (m_p ** 2) * s_p_sq_r, [1], keepdim=True)
        neg_cent = neg_cent1 + neg_cent2 + neg_cent3 + neg_cent4
        attn_mask = torch.unsqueeze(x_mask.float(), 2) * torch.unsqueeze(z_mask.float(), -1)
        return maximum_path(neg_cent, attn_mask.squeeze(1)).unsqueeze(1)


def expand_prior(attn, m_p, logs_p):
    """Token stats (b, d, t_x) -> frame stats (b, d, t_y) along the alignment ``attn``."""
    a = attn.squeeze(1).to(m_p.dtype)
    return (torch.matmul(a, m_p.transpose(1, 2)).transpose(1, 2),
            torch.matmul(a, logs_p.transpose(1, 2)).transpose(1, 2))


def duration_loss(model, hidden, x_mask, w, g):
    """Duration loss for durations ``w`` (b, 1, t_x) in frames (VITS ``l_length`` summed)."""
    if model.config.use_stochastic_duration_prediction:
        nll = model.duration_predictor(hidden, x_mask, g, durations=w, reverse=False)
        return torch.sum(nll.float() / torch.sum(x_mask))
    logw_ = torch.log(w + 1e-6) * x_mask
    logw = model.duration_predictor(hidden, x_mask, g)
    return torch.sum(torch.sum((logw.float() - logw_.float()) ** 2, [1, 2]) / torch.sum(x_mask))


def prior_latents(model, m_q, z_mask, m_p, logs_p, x_mask, g=None, generator=None):
    """Prior ``m_p`` / ``logs_p`` (b, flow, t_x) expanded along the MAS alignment of the posterior *mean*
    ``m_q`` (b, flow, t_y; no sampling noise, as validation aligns), sampled at the model's ``noise_scale``
    (``generator``: None for torch's global RNG), through the reverse flow: (b, flow, t_y), no gradient
    (Kong et al. 2020, teacher forcing)."""
    with torch.no_grad():
        attn = align(model.flow(m_q * z_mask, z_mask, g, reverse=False), m_p, logs_p, x_mask, z_mask)
        m_f, logs_f = expand_prior(attn, m_p.float(), logs_p.float())
        noise = float(getattr(model, "noise_scale", 0.667))
        where = m_f.device if generator is None else generator.device      # a seeded CPU generator: CPU noise
        eps = torch.randn(m_f.shape, generator=generator, dtype=m_f.dtype, device=where).to(m_f.device)
        z_p = ((m_f + eps * torch.exp(logs_f) * noise) * z_mask).to(m_p.dtype)
        return model.flow(z_p, z_mask.to(m_p.dtype), g, reverse=True) * z_mask


def training_forward(model, input_ids, input_mask, spec, spec_mask, segment_frames: int, speaker_ids=None,
                     gradient_checkpointing: bool = False, latents: str = "posterior",
                     given_latents=None) -> ForwardOutput:
    """One VITS training forward: ``input_ids`` (b, t_x), ``input_mask``, ``spec`` (b, bins, t_y),
    ``spec_mask`` (b, t_y), ``speaker_ids`` (b,); ``latents``: ``"posterior"``, ``"prior"`` or
    ``"given"`` (``given_latents``). Uses torch's global RNG."""
    multi = model.config.num_speakers > 1 and speaker_ids is not None
    g = model.embed_speaker(speaker_ids).unsqueeze(-1) if multi else None
    hidden, m_p, logs_p, x_mask = encode_text(model, input_ids, input_mask)
    z_mask = spec_mask.unsqueeze(1).to(spec.dtype)
    z, m_q, logs_q = model.posterior_encoder(spec, z_mask, g)
    z_p = model.flow(z, z_mask, g, reverse=False)
    attn = align(z_p, m_p, logs_p, x_mask, z_mask)
    w = attn.sum(2)
    loss_dur = duration_loss(model, hidden, x_mask, w.to(hidden.dtype), g)
    if latents == "given":
        source = given_latents.to(z.dtype) * z_mask
    elif latents == "prior":
        source = prior_latents(model, m_q, z_mask, m_p, logs_p, x_mask, g)
    else:
        source = z
    m_p, logs_p = expand_prior(attn, m_p, logs_p)
    z_slice, ids_slice = rand_slice_segments(source, spec_mask.sum(1).long(), segment_frames)
    if gradient_checkpointing and torch.is_grad_enabled():
        from torch.utils.checkpoint import checkpoint

        waveform = checkpoint(model.decoder, z_slice, g, use_reentrant=False)
    else:
        waveform = model.decoder(z_slice, g)
    return ForwardOutput(waveform, ids_slice, loss_dur, z_p, logs_q, m_p, logs_p, z_mask)


def _reset_like_vits(module) -> None:
    """PyTorch default init (as VITS' modules get) + VITS' zero-init of flow output layers."""
    from transformers.models.vits.modeling_vits import VitsConvFlow, VitsElementwiseAffine

    for m in module.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
        if isinstance(m, VitsConvFlow):  # VITS modules.ConvFlow: proj zero-initialised
            torch.nn.init.zeros_(m.conv_proj.weight)
            torch.nn.init.zeros_(m.conv_proj.bias)
        if isinstance(m, VitsElementwiseAffine):  # VITS ElementwiseAffine: m, logs = 0
            torch.nn.init.zeros_(m.translate)
            torch.nn.init.zeros_(m.log_scale)


def warmup_parameter_prefixes(model) -> tuple[str, ...]:
    """Parameter-name prefixes the warm-up trains: the posterior encoder and the SDP's training-only
    flows (absent from a Piper ``.onnx``)."""
    prefixes = ["posterior_encoder."]
    if model.config.use_stochastic_duration_prediction:
        prefixes += ["duration_predictor.post_", "duration_predictor.flows.1."]
    return tuple(prefixes)


def prepare_for_training(model, fresh_posterior: bool) -> list[str]:
    """Make an inference-loaded ``VitsModel`` trainable in place; returns log notes. LayerDrop off;
    ``fresh_posterior``: new posterior encoder and SDP flows; weight norm folded."""
    notes = []
    model.config.layerdrop = 0.0
    model.text_encoder.encoder.layerdrop = 0.0
    if fresh_posterior:
        from transformers.models.vits.modeling_vits import VitsPosteriorEncoder

        ref = next(model.parameters())
        model.config.posterior_encoder_num_wavenet_layers = POSTERIOR_LAYERS
        model.posterior_encoder = VitsPosteriorEncoder(model.config).to(device=ref.device, dtype=ref.dtype)
        notes.append(f"new posterior encoder ({POSTERIOR_LAYERS} WaveNet layers, as VITS)")
        if model.config.use_stochastic_duration_prediction:
            dp = model.duration_predictor
            for part in (dp.post_conv_pre, dp.post_conv_proj, dp.post_conv_dds, dp.post_flows, dp.flows[1]):
                _reset_like_vits(part)
            notes.append("new training-only flows of the stochastic duration predictor")
    fold_weight_norm(model)
    return notes
