"""One VITS optimizer step (warm-up or GAN), validation, and the resumable training state.

GAN step order as Piper's ``lightning.py`` ``training_step``: G's losses against the current (frozen) D,
then D on the detached audio, both optimizers stepping after the last accumulated batch. Under DDP
(``finetune.parallel``) losses are averaged across processes, so a NaN anywhere stops all. Autocast
forwards, float32 master weights, spectrograms, MAS and losses; fp16 uses one ``GradScaler``."""
from __future__ import annotations

import contextlib
import json
import math
from dataclasses import fields

import torch
from torch import nn

from speechstudio.finetune.vits.config import ADAMW, WARMUP_LR, WARMUP_RAMP_STEPS, TrainConfig
from speechstudio.finetune.vits.discriminator import MultiPeriodDiscriminator
from speechstudio.finetune.vits.features import FeatureConfig, mel_spectrogram
from speechstudio.finetune.vits.losses import (C_MEL, discriminator_loss, feature_loss, generator_loss, kl_loss,
                                               mel_loss, stft_loss)
from speechstudio.finetune.vits.model import (ForwardOutput, align, encode_text, expand_prior, slice_segments,
                                              training_forward, warmup_parameter_prefixes)

STATE_FORMAT = "speechstudio-vits-train/1"


class NonFiniteLoss(RuntimeError):
    """A loss was NaN / inf (``names`` lists which); raised before any optimizer step."""

    def __init__(self, names: list[str]):
        super().__init__(", ".join(names))
        self.names = names


class GeneratorForward(nn.Module):
    """``model.training_forward`` as a module's ``forward`` (what DDP wraps). Returns the
    ``ForwardOutput`` fields as a tuple (DDP finds the tensors of a tuple)."""

    def __init__(self, model, segment_frames: int, gradient_checkpointing: bool):
        super().__init__()
        self.model = model
        self.segment_frames, self.gradient_checkpointing = segment_frames, gradient_checkpointing

    def forward(self, input_ids, input_mask, spec, spec_mask, speaker_ids=None, latents: str = "posterior",
                given_latents=None):
        out = training_forward(self.model, input_ids, input_mask, spec, spec_mask, self.segment_frames, speaker_ids,
                               self.gradient_checkpointing, latents, given_latents)
        return tuple(getattr(out, f.name) for f in fields(out))


class DiscriminatorPair(nn.Module):
    """D on the real and the (detached) generated audio in one ``forward`` (one DDP forward per
    backward): ``((real scores, real fmaps), (fake scores, fake fmaps))``."""

    def __init__(self, disc):
        super().__init__()
        self.disc = disc

    def forward(self, real, fake):
        return self.disc(real), self.disc(fake)


class VitsTraining:
    """Generator (``prepare_for_training``-ed ``VitsModel``), discriminator, optimizers and scaler.
    ``step``: optimizer steps done; ``batches_seen``: data order position; ``discriminator``: one to
    start from, or None for a fresh one of ``config.discriminator_width``."""

    def __init__(self, model, config: TrainConfig, fc: FeatureConfig, device: str, precision: str,
                 speaker: int | None = None, parallel=None, discriminator=None):
        self.config, self.fc, self.device, self.precision = config, fc, device, precision
        self.model = model.to(device=device, dtype=torch.float32).train()
        if discriminator is None:
            discriminator = MultiPeriodDiscriminator(width=config.discriminator_width)
        self.disc = discriminator.to(device=device, dtype=torch.float32).train()
        self.opt_g = torch.optim.AdamW(self.model.parameters(), lr=config.lr, **ADAMW)
        self.opt_d = torch.optim.AdamW(self.disc.parameters(), lr=config.lr, **ADAMW)
        self.scaler = torch.amp.GradScaler("cuda", enabled=precision == "fp16")
        self.amp_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
        self.segment_frames = max(1, config.segment_size // fc.hop_length)
        self.speaker = speaker if model.config.num_speakers > 1 else None
        self.step = self.batches_seen = 0
        self.stage = None
        self.conformed = False  # True once the batches carry pitch-conformed clips (conform.py)
        self.nonfinite_streak = 0
        self.last_nonfinite: list[str] = []
        self.warmup_prefixes = warmup_parameter_prefixes(model)
        self.par = parallel if parallel is not None and parallel.world > 1 else None
        self.gen = GeneratorForward(self.model, self.segment_frames, config.gradient_checkpointing)
        self.gen_ddp = self.gen  # wrapped by set_stage
        self.disc_pair = self._wrap(DiscriminatorPair(self.disc), find_unused_parameters=False)

    # ------------------------------------------------------------------ helpers
    def _wrap(self, module, find_unused_parameters: bool):
        return module if self.par is None else self.par.wrap(module, find_unused_parameters=find_unused_parameters)

    def _no_sync(self, skip: bool):
        """No gradient all-reduce for this micro-batch (not the last of an accumulation)."""
        stack = contextlib.ExitStack()
        if self.par is not None:
            for module in (self.gen_ddp, self.disc_pair):
                stack.enter_context(self.par.no_sync(module, skip))
        return stack

    def autocast(self):
        return torch.autocast(torch.device(self.device).type, dtype=self.amp_dtype or torch.float32,
                              enabled=self.amp_dtype is not None)

    def cuda_devices(self) -> list[int]:
        """CUDA device indices whose RNG ``torch.random.fork_rng`` must save (none on the CPU)."""
        if not self.device.startswith("cuda"):
            return []
        index = torch.device(self.device).index
        return [torch.cuda.current_device() if index is None else index]

    def trains(self, name: str, stage: str) -> bool:
        """Whether generator parameter ``name`` trains in ``stage``: ``"warmup"`` only
        ``warmup_parameter_prefixes``; ``"train"`` all but the text encoder (and, with
        ``config.freeze_prior``, the prior)."""
        if stage == "warmup":
            return name.startswith(self.warmup_prefixes)
        frozen = ("text_encoder.",) + (("flow.", "duration_predictor.", "posterior_encoder.")
                                        if self.config.freeze_prior else ())
        return not name.startswith(frozen)

    def latents(self, stage: str) -> str:
        """What the decoder is fed in ``stage``: ``"prior"`` (GAN stage with ``freeze_prior``),
        ``"given"`` (pitch-conformed clips with fixed latents), ``"posterior"`` (VITS) otherwise."""
        if stage == "train" and self.config.freeze_prior:
            return "given" if self.conformed else "prior"
        return "posterior"

    def set_stage(self, stage: str) -> None:
        """Set which generator parameters train (:meth:`trains`) for ``stage``: ``"warmup"`` or ``"train"``."""
        if stage == self.stage:
            return
        for name, p in self.model.named_parameters():
            p.requires_grad_(self.trains(name, stage))
        self.stage = stage
        self.gen_ddp = None  # the previous wrapper (if any) goes before the new one registers its hooks
        self.gen_ddp = self._wrap(self.gen, find_unused_parameters=True)

    def lr_at(self, step: int, stage: str, part: str = "generator") -> float:
        """Learning rate of 0-based ``step`` in ``stage`` for ``part`` (``"generator"`` |
        ``"discriminator"``), times ``lr_gamma ** step``; pure, so a resumed run uses the same rates."""
        c = self.config
        if part == "discriminator":
            base = c.lr
        elif stage == "warmup":
            base = WARMUP_LR * min(1.0, (step + 1) / WARMUP_RAMP_STEPS)
        else:
            base = c.lr if c.generator_lr is None else c.generator_lr
        return float(base * c.lr_gamma ** step)

    def _to_device(self, batch: dict) -> dict:
        return {k: v.to(self.device, non_blocking=True) for k, v in batch.items()}

    def _speaker_ids(self, batch: dict):
        if self.speaker is None:
            return None
        return torch.full((batch["input_ids"].shape[0],), int(self.speaker), dtype=torch.long, device=self.device)

    def _forward(self, batch: dict):
        with self.autocast():
            out = ForwardOutput(*self.gen_ddp(batch["input_ids"], batch["input_mask"], batch["spec"],
                                              batch["spec_mask"], self._speaker_ids(batch), self.latents(self.stage),
                                              batch.get("latent")))
        y_mel = slice_segments(batch["mel"], out.ids_slice, self.segment_frames)
        y_hat_mel = mel_spectrogram(out.waveform.squeeze(1).float(), self.fc)
        return out, y_mel, y_hat_mel

    def _accumulate(self, batches: list[dict], losses, optimizers) -> dict:
        """One optimizer step of ``optimizers`` over ``len(batches)`` accumulated micro-batches:
        ``losses(batch, k)`` runs the forward and backward of one and returns its named losses. Returns
        them as floats averaged over batches and processes; a non-finite one goes to :meth:`_check`."""
        k, sums = len(batches), {}
        for i, batch in enumerate(batches):
            with self._no_sync(i < k - 1):
                values = losses(self._to_device(batch), k)
            for name, v in values.items():
                sums[name] = sums.get(name, 0.0) + float(v.detach() if torch.is_tensor(v) else v) / k
        sums = sums if self.par is None else self.par.mean_dict(sums)
        self._check(sums)
        for opt in optimizers:
            lr = self.lr_at(self.step, self.stage, "generator" if opt is self.opt_g else "discriminator")
            for group in opt.param_groups:
                group["lr"] = lr
            self.scaler.step(opt)
        self.scaler.update()
        self.opt_g.zero_grad(set_to_none=True)
        self.opt_d.zero_grad(set_to_none=True)
        self.step += 1
        return sums

    def _check(self, values: dict) -> None:
        """Non-finite loss: raise ``NonFiniteLoss`` before any update, or with a GradScaler let it skip
        the step; ``nonfinite_streak`` counts such steps in a row."""
        bad = [k for k, v in values.items() if not math.isfinite(v)]
        if not bad:
            self.nonfinite_streak = 0
            return
        if not self.scaler.is_enabled():
            self.opt_g.zero_grad(set_to_none=True)
            self.opt_d.zero_grad(set_to_none=True)
            raise NonFiniteLoss(bad)
        self.nonfinite_streak += 1
        self.last_nonfinite = bad

    def _real_audio(self, batch: dict, out) -> torch.Tensor:
        hop = self.fc.hop_length
        return slice_segments(batch["wav"], out.ids_slice * hop, self.segment_frames * hop)

    # ------------------------------------------------------------------ steps
    def warmup_step(self, batches: list[dict]) -> dict:
        """One optimizer step of the posterior encoder (and SDP training-only flows) on ``len(batches)``
        accumulated batches: mel L1 + KL (+ duration NLL) + STFT loss. Returns unweighted float losses."""
        self.set_stage("warmup")
        sdp_trains = self.model.config.use_stochastic_duration_prediction

        def losses(batch, k):
            out, y_mel, y_hat_mel = self._forward(batch)
            l_mel = mel_loss(y_mel, y_hat_mel)
            l_kl = kl_loss(out.z_p, out.logs_q, out.m_p, out.logs_p, out.z_mask)
            total = C_MEL * l_mel + l_kl + (out.loss_dur if sdp_trains else 0.0)
            if self.config.stft_weight:
                total = total + self.config.stft_weight * stft_loss(self._real_audio(batch, out), out.waveform)
            self.scaler.scale(total / k).backward()
            return {"mel": l_mel, "kl": l_kl, "dur": out.loss_dur, "total_g": total}
        return self._accumulate(batches, losses, [self.opt_g])  # D not yet in play

    def train_step(self, batches: list[dict], generator: bool = True) -> dict:
        """One GAN optimizer step on ``len(batches)`` accumulated batches; returns unweighted float
        losses (``mel kl dur gen fm disc total_g``). ``generator`` False: the discriminator steps alone
        (``mel disc``)."""
        self.set_stage("train")

        def losses(batch, k):
            out, y_mel, y_hat_mel = self._forward(batch)
            y, y_hat = self._real_audio(batch, out), out.waveform
            # D's gradient-carrying passes (real, detached fake) in one forward; no optimizer
            # step comes between them and D's backward, so this is the order-free equivalent
            # of D(y) now and D(y_hat.detach()) after G's backward
            with self.autocast():
                (real_scores, real_fmaps), (fake_scores_d, _) = self.disc_pair(y, y_hat.detach())
            self.disc.requires_grad_(False)
            with self.autocast():
                fake_scores, fake_fmaps = self.disc(y_hat)
            self.disc.requires_grad_(True)
            l_mel = mel_loss(y_mel, y_hat_mel)
            l_kl = kl_loss(out.z_p, out.logs_q, out.m_p, out.logs_p, out.z_mask)
            l_fm = feature_loss(real_fmaps, fake_fmaps)
            l_gen = generator_loss(fake_scores)
            total_g = l_gen + l_fm + C_MEL * l_mel + out.loss_dur + l_kl
            if self.config.stft_weight:
                total_g = total_g + self.config.stft_weight * stft_loss(y, y_hat)
            self.scaler.scale(total_g / k).backward()
            l_disc = discriminator_loss(real_scores, fake_scores_d)
            self.scaler.scale(l_disc / k).backward()
            return {"mel": l_mel, "kl": l_kl, "dur": out.loss_dur, "gen": l_gen, "fm": l_fm, "disc": l_disc,
                    "total_g": total_g}

        def discriminator_losses(batch, k):
            with torch.no_grad():
                out, y_mel, y_hat_mel = self._forward(batch)
            with self.autocast():
                (real_scores, _), (fake_scores_d, _) = self.disc_pair(self._real_audio(batch, out),
                                                                      out.waveform.detach())
            l_disc = discriminator_loss(real_scores, fake_scores_d)
            self.scaler.scale(l_disc / k).backward()
            return {"mel": mel_loss(y_mel, y_hat_mel), "disc": l_disc}
        if not generator:
            return self._accumulate(batches, discriminator_losses, [self.opt_d])
        return self._accumulate(batches, losses, [self.opt_g, self.opt_d])

    # ------------------------------------------------------------------ validation
    @torch.no_grad()
    def evaluate(self, batches) -> tuple[float, float]:
        """Validation without noise: ``(val_mel, recon_mel)``, mean absolute log-mel differences from
        the text with MAS durations and from the posterior mean. Uses a forked RNG."""
        model = self.model
        model.eval()
        errors, count = [0.0, 0.0], 0.0
        with torch.random.fork_rng(devices=self.cuda_devices()):
            for batch in batches:
                batch = self._to_device(batch)
                with self.autocast():
                    sid = self._speaker_ids(batch)
                    g = model.embed_speaker(sid).unsqueeze(-1) if sid is not None else None
                    _h, m_p, logs_p, x_mask = encode_text(model, batch["input_ids"], batch["input_mask"])
                    z_mask = batch["spec_mask"].unsqueeze(1)
                    _z, m_q, _logs_q = model.posterior_encoder(batch["spec"], z_mask, g)
                    z_p = model.flow(m_q, z_mask, g, reverse=False)
                    attn = align(z_p, m_p, logs_p, x_mask, z_mask)
                    m_frames, _ = expand_prior(attn, m_p.float(), logs_p.float())
                    z_hat = model.flow(m_frames.to(m_q.dtype), z_mask, g, reverse=True) * z_mask
                    wav = model.decoder(z_hat, g)
                    wav_r = model.decoder(m_q * z_mask, g)
                mask = z_mask.float()
                n_mels = batch["mel"].shape[1]
                for i, out_wav in enumerate((wav, wav_r)):
                    mel = mel_spectrogram(out_wav.squeeze(1).float(), self.fc)[..., : mask.shape[-1]]
                    errors[i] += float((torch.abs(mel - batch["mel"]) * mask).sum())
                count += float(mask.sum()) * n_mels
        model.train()
        return errors[0] / max(count, 1.0), errors[1] / max(count, 1.0)

    # ------------------------------------------------------------------ state
    def state_dict(self, rng: dict, extra: dict) -> dict:
        """Full resume state (tensors / numbers / strings only; ``run.RunFolder.save_checkpoint``)."""
        return {"format": STATE_FORMAT, "step": self.step, "batches_seen": self.batches_seen,
                "generator": self.model.state_dict(), "discriminator": self.disc.state_dict(),
                "opt_g": self.opt_g.state_dict(), "opt_d": self.opt_d.state_dict(),
                "scaler": self.scaler.state_dict(), "rng": rng,
                "model_config": json.dumps(self.model.config.to_dict()), **extra}

    def load_state_dict(self, state: dict) -> None:
        """Restore weights, optimizers, scaler and counters (not the RNG: the caller
        restores it last, after everything that draws random numbers has been built)."""
        self.model.load_state_dict(state["generator"])
        self.disc.load_state_dict(state["discriminator"])
        self.opt_g.load_state_dict(state["opt_g"])
        self.opt_d.load_state_dict(state["opt_d"])
        if state.get("scaler"):
            self.scaler.load_state_dict(state["scaler"])
        self.step = int(state["step"])
        self.batches_seen = int(state["batches_seen"])
