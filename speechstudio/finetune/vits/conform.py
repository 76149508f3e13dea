"""Pitch-conformed targets for the decoder of a Piper base: each clip's prior latents (MAS on the posterior
mean, per-clip seeded noise) rendered by the *base* decoder, and the recording resynthesised on that Praat
contour (PSOLA, ``tts.pitch.impose_contour``), frame-rate frames left out; cached in ``RUN/cache/conformed``.
Why: docs/finetune_voice.md, "pitch-conformed targets" and "Pitch"."""
from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from speechstudio.finetune.closeness import FRAME_RATE_TOLERANCE
from speechstudio.finetune.vits.data import save_features
from speechstudio.finetune.vits.features import linear_spectrogram, linear_to_mel
from speechstudio.tts.pitch import impose_contour, pitch_contour

CONFORM_VERSION = "conform-v2"


@dataclass(frozen=True)
class ConformStats:
    """Log-F0 statistics (natural log of Hz, voiced non-buzz frames) of the base decoder's renders
    (``base_*``) and the recordings (``speaker_*``); ``clips``: conformed clips."""

    base_mean: float
    base_sd: float
    speaker_mean: float
    speaker_sd: float
    clips: int

    @property
    def base_hz(self) -> float:
        return math.exp(self.base_mean)

    @property
    def speaker_hz(self) -> float:
        return math.exp(self.speaker_mean)

    def describe(self, rate_factor: float = 1.0) -> str:
        """One line for the run log. ``rate_factor``: the clone's model rate / the base's (``voice_rate``): the
        stats were measured at the base's rate on recordings decoded at the model's, so the recordings' pitch is
        ``speaker_hz x rate_factor`` and the clone speaks at ``base_hz x rate_factor`` (the same figures as
        ``VoiceRate.describe``)."""
        speaker_hz = self.speaker_hz * rate_factor
        shift = 12 * math.log2(speaker_hz / self.base_hz)
        head = (f"pitch: your recordings {speaker_hz:.0f} Hz, the base voice {self.base_hz:.0f} Hz "
                f"({shift:+.1f} semitones, range x{self.speaker_sd / max(self.base_sd, 1e-6):.2f}): ")
        if abs(rate_factor - 1.0) < 1e-9:
            return head + (f"the decoder learns your timbre from {self.clips} clips moved to the base's pitch and "
                           "intonation (the voice keeps the base's pitch)")
        st = 12 * math.log2(rate_factor)
        return head + (f"the decoder learns your timbre from {self.clips} clips moved to the base's intonation; at its "
                       f"sample rate the voice speaks {abs(st):.1f} semitones {'higher' if st > 0 else 'lower'} than "
                       f"the base ({self.base_hz * rate_factor:.0f} Hz)")


def _without_buzz(times: np.ndarray, f0: np.ndarray, frame_rate: float) -> tuple[np.ndarray, np.ndarray]:
    keep = np.abs(f0 / frame_rate - 1.0) >= FRAME_RATE_TOLERANCE
    return times[keep], f0[keep]


def _prior_latent(model, ids, spec, g, generator):
    """(flow, t_y) prior latents of one clip aligned to its recording (module notes, step 1)."""
    import torch

    from speechstudio.finetune.vits.model import encode_text, prior_latents

    input_ids = ids[None]
    _h, m_p, logs_p, x_mask = encode_text(model, input_ids, torch.ones_like(input_ids, dtype=torch.float32))
    z_mask = torch.ones(1, 1, spec.shape[-1], device=spec.device)
    _z, m_q, _logs_q = model.posterior_encoder(spec[None], z_mask, g)
    return prior_latents(model, m_q, z_mask, m_p, logs_p, x_mask, g, generator)[0]


def _cache_layout(model, items: list, cache_dir, seed: int) -> tuple:
    """``(folder, stats file, per-item keys, per-item cache files)`` of ``conform_clips``' cache."""
    folder = Path(cache_dir) / "conformed"
    noise_scale = float(getattr(model, "noise_scale", 0.667))
    keys = [hashlib.sha1(f"{item.cache_path.name}|{seed}|{noise_scale}|{CONFORM_VERSION}".encode()).hexdigest()[:16]
            for item in items]
    return (folder, folder / f"stats-{seed}-{noise_scale}-{CONFORM_VERSION}.json", keys,
            [folder / f"{key}.pt" for key in keys])


def cached_conformed(model, items: list, cache_dir: str | os.PathLike, *,
                     seed: int) -> tuple[list, ConformStats] | None:
    """``conform_clips``' result when its cache already holds every item and the stats (a resumed run), else
    ``None``: the caller then needs no base decoder."""
    _folder, stats_path, _keys, paths = _cache_layout(model, items, cache_dir, seed)
    if not (stats_path.is_file() and all(p.is_file() for p in paths)):
        return None
    return ([replace(item, cache_path=p) for item, p in zip(items, paths)],
            ConformStats(**json.loads(stats_path.read_text())))


def conform_clips(model, base_decoder, items: list, fc, cache_dir: str | os.PathLike, *, seed: int,
                  speaker_embedding=None) -> tuple[list, ConformStats]:
    """Pitch-conformed copies of the training ``items`` (``data.ClipItem``).

    ``model``: the training ``VitsModel`` after the warm-up (not changed); ``base_decoder``: the base's
    own decoder; ``cache_dir``: ``conformed/KEY.pt`` files (reused); ``seed``: per-clip noise (at the
    model's ``noise_scale``); ``speaker_embedding``: (1, gin, 1) or None. Returns ``(items, stats)``; each item's cache holds
    ``wav`` (int16, conformed), ``spec`` (the recording's, float16), ``mel`` (float16, conformed) and
    ``latent`` (float16 (flow, frames)). Raises ``ValueError`` when nothing is voiced."""
    import torch

    cached = cached_conformed(model, items, cache_dir, seed=seed)
    if cached is not None:
        return cached
    folder, stats_path, keys, paths = _cache_layout(model, items, cache_dir, seed)
    folder.mkdir(parents=True, exist_ok=True)
    rate, frame_rate = fc.sample_rate, fc.sample_rate / fc.hop_length

    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    base_decoder.eval()
    renders, base_logs, speaker_logs = [], [], []
    try:
        with torch.no_grad():
            for item, key in zip(items, keys):
                data = torch.load(item.cache_path, weights_only=True)
                gen = torch.Generator().manual_seed(int(key[:8], 16))
                ids = torch.tensor(item.token_ids, dtype=torch.long, device=device)
                z = _prior_latent(model, ids, data["spec"].float().to(device), speaker_embedding, gen).cpu()
                wav_b = base_decoder(z[None].to(next(base_decoder.parameters()).device), speaker_embedding)
                tb, fb = _without_buzz(*pitch_contour(wav_b.reshape(-1).float().cpu().numpy(), rate), frame_rate)
                real = data["wav"].float().numpy() / 32767.0
                _ts, fs = _without_buzz(*pitch_contour(real, rate), frame_rate)
                speaker_logs.append(np.log(fs))
                base_logs.append(np.log(fb))
                renders.append((z, tb, fb))
        b, s = np.concatenate(base_logs), np.concatenate(speaker_logs)
        if not len(b) or not len(s):
            raise ValueError("no voiced frame in the base voice's renders or in the recordings: cannot match pitch")
        stats = ConformStats(float(b.mean()), float(b.std()), float(s.mean()), float(s.std()), len(items))
        for item, (z, tb, fb), path in zip(items, renders, paths):
            if not path.is_file():
                data = torch.load(item.cache_path, weights_only=True)
                real = data["wav"].float().numpy() / 32767.0
                wav = torch.from_numpy(impose_contour(real, rate, tb, fb) if len(fb) else real)
                mel = linear_to_mel(linear_spectrogram(wav.float(), fc), fc)[..., : data["spec"].shape[-1]]
                save_features({"wav": torch.round(wav.clamp(-1, 1) * 32767).to(torch.int16), "spec": data["spec"],
                       "mel": mel.half(), "latent": z.half()}, path)
        stats_path.write_text(json.dumps(asdict(stats)))
        return [replace(item, cache_path=p) for item, p in zip(items, paths)], stats
    finally:
        model.train(was_training)
