"""Pitch-conformed targets: what the decoder of a Piper base learns a new voice from.

The problem (docs/finetune_voice.md, "Pitch"): a Piper ``.onnx`` base has no posterior encoder in
its decoder's latent space, so its decoder fine-tunes on the *text's prior* latents aligned to
each recording ("ground-truth aligned", as HiFi-GAN fine-tunes on Tacotron 2 mels). Those latents
carry the base voice's intonation (the pitch of the base's synthesis is linearly readable from
them: R^2 0.80), while the recording has the speaker's own, unrelated contour. A decoder asked to
turn contour A into contour B, differently for every clip, learns neither: it averages, and a
HiFi-GAN decoder that lost its pitch rendering emits one pulse per latent frame (the 86 Hz
"frame-rate buzz" of every earlier clone, DistillMOS 1.6-1.7 on a real speaker).

The fix here removes the contradiction from the data instead of asking the decoder to resolve
it. For each training clip, once, after the warm-up has fitted the posterior encoder:

1. the clip's alignment (MAS on the posterior mean, as validation aligns) and prior latents
   (the text's prior expanded along it, ``noise_scale`` noise from a per-clip seed, reverse flow):
   exactly what the decoder is then trained on;
2. the *base* decoder renders those latents, and Praat reads the contour it speaks with;
3. the recording is resynthesised with that contour (Praat PSOLA, ``tts.pitch.impose_contour``:
   the speaker's formants, voice quality and timing stay; only the contour changes).

The decoder then learns latents -> the speaker's timbre at the pitch the latents carry: a
consistent mapping, learnt in a few hundred steps. The clone reaches the speaker's pitch through
its sample rate (``voice_rate``). Moving the contour into the speaker's log-F0 range instead (the
linear F0 transform of voice conversion, Toda et al. 2007) scored lower (docs/finetune_voice.md,
run F) and was removed. What the clone does not get is the speaker's own intonation pattern,
which needs a prior trained on much more speech.

Frames Praat reads at the decoder's frame rate (``sample_rate / hop``: the buzz) are left out of
the contours and the statistics (``finetune.closeness.FRAME_RATE_TOLERANCE``).

Cost: one decoder pass, two Praat analyses and one PSOLA per clip (~1-2 s per clip on
2 CPU cores); cached in ``RUN/cache/conformed`` (a resumed run reuses it).
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

__all__ = ["ConformStats", "conform_clips", "CONFORM_VERSION"]

CONFORM_VERSION = "conform-v2"


@dataclass(frozen=True)
class ConformStats:
    """Log-F0 statistics (natural log of Hz, over voiced frames that are not frame-rate buzz) of
    the base decoder's renders (``base_*``) and of the recordings (``speaker_*``); ``clips``:
    conformed clips."""

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

    def describe(self) -> str:
        shift = 12 * (self.speaker_mean - self.base_mean) / math.log(2)
        return (f"pitch: your recordings {self.speaker_hz:.0f} Hz, the base voice {self.base_hz:.0f} Hz "
                f"({shift:+.1f} semitones, range x{self.speaker_sd / max(self.base_sd, 1e-6):.2f}): "
                f"the decoder learns your timbre from {self.clips} clips moved to the base's pitch and "
                "intonation (the voice keeps the base's pitch)")


def _without_buzz(times: np.ndarray, f0: np.ndarray, frame_rate: float) -> tuple[np.ndarray, np.ndarray]:
    from speechstudio.finetune.closeness import FRAME_RATE_TOLERANCE

    keep = np.abs(f0 / frame_rate - 1.0) >= FRAME_RATE_TOLERANCE
    return times[keep], f0[keep]


def _prior_latent(model, ids, spec, g, noise_scale: float, generator, mas_backend: str):
    """(flow, t_y) prior latents of one clip aligned to its recording (module notes, step 1)."""
    import torch

    from speechstudio.finetune.vits.model import align, encode_text, expand_prior

    input_ids = ids[None]
    input_mask = torch.ones_like(input_ids, dtype=torch.float32)
    _h, m_p, logs_p, x_mask = encode_text(model, input_ids, input_mask)
    z_mask = torch.ones(1, 1, spec.shape[-1])
    _z, m_q, _logs_q = model.posterior_encoder(spec[None], z_mask, g)
    attn = align(model.flow(m_q * z_mask, z_mask, g, reverse=False), m_p, logs_p, x_mask, z_mask, mas_backend)
    m_f, logs_f = expand_prior(attn, m_p.float(), logs_p.float())
    eps = torch.randn(m_f.shape, generator=generator)
    z_p = (m_f + eps * torch.exp(logs_f) * noise_scale) * z_mask
    return (model.flow(z_p, z_mask, g, reverse=True) * z_mask)[0]


def _key(item, seed: int, noise_scale: float) -> str:
    raw = f"{item.cache_path.name}|{seed}|{noise_scale}|{CONFORM_VERSION}"
    return hashlib.sha1(raw.encode()).hexdigest()[:16]


def _save(data: dict, path: Path) -> None:
    import torch

    from speechstudio.atomic import atomic_write_bytes

    buf = io.BytesIO()
    torch.save(data, buf)
    atomic_write_bytes(path, buf.getvalue())


def conform_clips(model, base_decoder, items: list, fc, cache_dir: str | os.PathLike, *, seed: int,
                  noise_scale: float = 0.667, speaker_embedding=None, mas_backend: str = "auto",
                  progress: Callable[[int, int], None] | None = None) -> tuple[list, ConformStats]:
    """Pitch-conformed copies of the training ``items`` (``data.ClipItem``; module notes).

    ``model``: the training ``VitsModel`` after the warm-up (text encoder, flow and posterior
    encoder give the alignment and the latents; not changed; any device, run on the CPU copy's
    device); ``base_decoder``: the base voice's own decoder (not fine-tuned); ``fc``:
    ``FeatureConfig``; ``cache_dir``: where ``conformed/KEY.pt`` files go (reused when present);
    ``seed``: of each clip's noise draw; ``speaker_embedding``: the (1, gin, 1) embedding of a
    multi-speaker base's speaker, else None. The recordings take the base's pitch: the decoder then
    learns only the timbre.

    Returns (items, stats): each new item's cache holds ``wav`` (int16, conformed), ``spec`` (the
    recording's own linear spectrogram, float16: alignment and KL stay those of the recording),
    ``mel`` (float16, conformed) and ``latent`` (float16 (flow, frames): the decoder's input).
    Raises ``ValueError`` when neither the renders nor the recordings have a voiced frame.
    """
    import torch

    from speechstudio.finetune.vits.features import linear_spectrogram, linear_to_mel
    from speechstudio.tts.pitch import impose_contour, pitch_contour

    folder = Path(cache_dir) / "conformed"
    folder.mkdir(parents=True, exist_ok=True)
    stats_path = folder / f"stats-{seed}-{noise_scale}-{CONFORM_VERSION}.json"
    rate, frame_rate = fc.sample_rate, fc.sample_rate / fc.hop_length
    keys = [_key(item, seed, noise_scale) for item in items]
    paths = [folder / f"{key}.pt" for key in keys]
    new_items = [replace(item, cache_path=p) for item, p in zip(items, paths)]
    if stats_path.is_file() and all(p.is_file() for p in paths):
        return new_items, ConformStats(**json.loads(stats_path.read_text()))

    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    base_decoder.eval()
    renders, base_logs, speaker_logs = [], [], []
    total = 2 * len(items)
    try:
        with torch.no_grad():
            for n, (item, key) in enumerate(zip(items, keys)):
                data = torch.load(item.cache_path, weights_only=True)
                gen = torch.Generator().manual_seed(int(key[:8], 16))
                ids = torch.tensor(item.token_ids, dtype=torch.long, device=device)
                z = _prior_latent(model, ids, data["spec"].float().to(device), speaker_embedding, noise_scale, gen,
                                  mas_backend).cpu()
                wav_b = base_decoder(z[None].to(next(base_decoder.parameters()).device), speaker_embedding)
                tb, fb = _without_buzz(*pitch_contour(wav_b.reshape(-1).float().cpu().numpy(), rate), frame_rate)
                real = data["wav"].float().numpy() / 32767.0
                _ts, fs = _without_buzz(*pitch_contour(real, rate), frame_rate)
                speaker_logs.append(np.log(fs))
                base_logs.append(np.log(fb))
                renders.append((z, tb, fb))
                if progress is not None:
                    progress(n + 1, total)
        b, s = np.concatenate(base_logs), np.concatenate(speaker_logs)
        if not len(b) or not len(s):
            raise ValueError("no voiced frame in the base voice's renders or in the recordings: cannot match pitch")
        stats = ConformStats(float(b.mean()), float(b.std()), float(s.mean()), float(s.std()), len(items))
        for n, (item, (z, tb, fb), path) in enumerate(zip(items, renders, paths)):
            if not path.is_file():
                data = torch.load(item.cache_path, weights_only=True)
                real = data["wav"].float().numpy() / 32767.0
                wav = torch.from_numpy(impose_contour(real, rate, tb, fb) if len(fb) else real)
                mel = linear_to_mel(linear_spectrogram(wav.float(), fc), fc)[..., : data["spec"].shape[-1]]
                _save({"wav": torch.round(wav.clamp(-1, 1) * 32767).to(torch.int16), "spec": data["spec"],
                       "mel": mel.half(), "latent": z.half()}, path)
            if progress is not None:
                progress(len(items) + n + 1, total)
        stats_path.write_text(json.dumps(asdict(stats)))
        return new_items, stats
    finally:
        model.train(was_training)
