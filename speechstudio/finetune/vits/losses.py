"""VITS training losses and their weights.

Generator objective (VITS, Kim et al. 2021, sec. 2.5, eq. 8; jaywalnut310/vits ``train.py``) ``L_G =
L_adv + L_fm + c_mel * L_mel + L_dur + c_kl * L_kl``; discriminator LSGAN (Mao et al. 2017). All in
float32, outside autocast. Weights: ``C_MEL`` 45 (HiFi-GAN sec. 2.3; VITS ``configs/ljs_base.json``;
Piper ``lightning.py``), every other term 1 (VITS, Piper; ``feature_loss`` carries HiFi-GAN's lambda_fm 2)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


#: Weight of the mel L1 in the generator's objective (module notes).
C_MEL = 45.0


def feature_loss(fmap_r, fmap_g) -> torch.Tensor:
    """Feature matching: sum over discriminators and layers of mean |D_l(y) - D_l(G(z))|, times 2 (VITS
    ``losses.feature_loss``). ``fmap_r`` (detached) / ``fmap_g``: per discriminator, per layer tensors;
    returns a float32 scalar."""
    return sum(torch.mean(torch.abs(rl.float().detach() - gl.float()))
               for dr, dg in zip(fmap_r, fmap_g) for rl, gl in zip(dr, dg)) * 2


def discriminator_loss(real_scores, fake_scores) -> torch.Tensor:
    """LSGAN: sum over discriminators of mean (1 - D(y))^2 + mean D(G(z))^2, a float32 scalar (VITS
    ``losses.discriminator_loss``)."""
    loss = 0.0
    for dr, dg in zip(real_scores, fake_scores):
        loss = loss + torch.mean((1 - dr.float()) ** 2) + torch.mean(dg.float() ** 2)
    return loss


def generator_loss(fake_scores) -> torch.Tensor:
    """LSGAN generator loss: sum over discriminators of mean (1 - D(G(z)))^2 (float32 scalar)."""
    return sum(torch.mean((1 - dg.float()) ** 2) for dg in fake_scores)


def kl_loss(z_p, logs_q, m_p, logs_p, z_mask) -> torch.Tensor:
    """KL(q(z|x) || p(z|c)) per valid latent frame (VITS sec. 2.2, eq. 5): ``z_p``, ``logs_q``, ``m_p``,
    ``logs_p`` (batch, flow_size, frames), ``z_mask`` (batch, 1, frames); summed, divided by valid
    frames."""
    z_p, logs_q, m_p, logs_p, z_mask = (t.float() for t in (z_p, logs_q, m_p, logs_p, z_mask))
    kl = logs_p - logs_q - 0.5 + 0.5 * ((z_p - m_p) ** 2) * torch.exp(-2.0 * logs_p)
    return torch.sum(kl * z_mask) / torch.sum(z_mask)


#: (n_fft, hop, window) of the multi-resolution STFT loss: Parallel WaveGAN (Yamamoto et al. 2020,
#: sec. 2.3 / table 1: 1024/120/600, 2048/240/1200, 512/50/240 at 24 kHz).
STFT_RESOLUTIONS = ((1024, 120, 600), (2048, 240, 1200), (512, 50, 240))


def stft_loss(y: torch.Tensor, y_hat: torch.Tensor, resolutions=STFT_RESOLUTIONS) -> torch.Tensor:
    """Multi-resolution STFT loss (Parallel WaveGAN, Yamamoto et al. 2020, eq. 1-4): spectral
    convergence plus mean log-magnitude L1, averaged over resolutions; the 2048-point one resolves
    harmonics. ``y``, ``y_hat``: (batch, 1, samples) or (batch, samples); float32 scalar."""
    y, y_hat = y.float().reshape(y.shape[0], -1), y_hat.float().reshape(y_hat.shape[0], -1)
    # resolutions longer than the slice are left out (tiny test voices train on 512-sample slices)
    resolutions = [r for r in resolutions if r[0] <= y.shape[-1]] or [(y.shape[-1] // 2 * 2, max(1, y.shape[-1] // 8),
                                                                        y.shape[-1] // 2 * 2)]
    total = 0.0
    for n_fft, hop, win in resolutions:
        window = torch.hann_window(win, device=y.device)
        mags = [torch.stft(x, n_fft, hop, win, window, return_complex=True).abs().clamp_min(1e-7) for x in (y, y_hat)]
        sc = torch.linalg.norm(mags[0] - mags[1]) / torch.linalg.norm(mags[0])
        total = total + sc + F.l1_loss(torch.log(mags[0]), torch.log(mags[1]))
    return total / len(resolutions)


def mel_loss(mel_real: torch.Tensor, mel_fake: torch.Tensor) -> torch.Tensor:
    """L1 between log-mel spectrograms (batch, n_mels, frames), unweighted (VITS ``F.l1_loss``)."""
    return F.l1_loss(mel_real.float(), mel_fake.float())
