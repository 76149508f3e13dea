"""``train_voice``: fine-tune a VITS voice on a prepared dataset, as a generator of events.

``VoiceTrainer`` runs ``prepare`` (token ids, cached features), then the stages of ``STAGES``: ``warmup``
(a Piper ``.onnx`` base: the new posterior encoder alone), ``discriminator`` (a fresh one alone), ``train``
(GAN). Evaluations every ``eval_every`` steps (``evaluate``: best checkpoint, clone judge, early stop),
``latest.pt`` with the full resume state every ``checkpoint_every``; ``control.stop`` or closing the
generator saves ``latest.pt``; ``resume=True`` continues bit for bit (same device and settings). Deviations
from VITS / Piper and several processes (``finetune.parallel``): docs/finetune_voice.md ("Train", "Several GPUs")."""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import time
from collections import deque
from pathlib import Path
from typing import Iterator

from speechstudio.audio.decode import load_audio
from speechstudio.errors import SpeechStudioError
from speechstudio.finetune import closeness, pitch_match
from speechstudio.finetune.base_format import base_format, base_source
from speechstudio.finetune.closeness import getting_closer, natural_enough, trade_stalled
from speechstudio.finetune.manifest import Manifest
from speechstudio.finetune.parallel import Parallel, training_precision
from speechstudio.finetune.recording import _write_wav
from speechstudio.finetune.run import (RunFolder, TrainingError, atomic_torch_save, capture_rng_state, restore_rng_state,
                                      seed_all)
from speechstudio.finetune.trade import row_of, write_trade
from speechstudio.finetune.vits.config import TrainConfig
from speechstudio.finetune.vits.conform import cached_conformed, conform_clips
from speechstudio.finetune.vits.data import BucketBatches, ClipDataset, collate, prepare_clips
from speechstudio.finetune.vits.events import (CheckpointEvent, DoneEvent, EvalEvent, SampleEvent, StageEvent,
                                               StepEvent, TrainControl)
from speechstudio.finetune.vits.features import FeatureConfig
from speechstudio.finetune.vits.trained import (base_info_for, load_checkpoint_state, load_trained_generator,
                                                shipped_base)
from speechstudio.finetune.vits.voice_rate import VoiceRate, choose_rate
from speechstudio.tts.piper_import import fold_weight_norm

__all__ = ["train_voice", "VoiceTrainer", "STAGES", "load_trained_generator", "TrainConfig", "TrainControl",
           "FIXED_SENTENCE", "overtraining_warning", "load_base"]

#: The sentence synthesised at every checkpoint (a pangram: every English letter).
FIXED_SENTENCE = "The quick brown fox jumps over the lazy dog."
#: fp16 steps in a row with a non-finite loss (skipped by the GradScaler) before giving up.
NONFINITE_LIMIT = 10
#: Recordings the clone judge makes the speaker embedding from, and texts it has the voice speak.
JUDGE_REFERENCE_CLIPS, JUDGE_TEXTS = 30, 4
#: The training stages in order: (name, ``VoiceTrainer`` attribute holding the stage's last step,
#: one optimizer step of ``step.VitsTraining`` on a list of accumulated batches, returning the losses).
STAGES = (("warmup", "warmup_end", lambda tr, group: tr.warmup_step(group)),
          ("discriminator", "disc_end", lambda tr, group: tr.train_step(group, generator=False)),
          ("train", "total", lambda tr, group: tr.train_step(group)))


def load_base(base):
    """The base (a ``VoiceRef``, a path or an HF id) as a ``VitsVoice`` on the CPU, fp32 (``base_format``)."""
    return base_format(base).load(getattr(base, "location", base), name=getattr(base, "name", None))


def closeness_advice(similarities: list[float], usable_minutes: float, changing: bool = True) -> str:
    """One sentence on what more steps or data would buy, from the judge's ``similarities`` since the voice
    started changing (step 0 first; the rule: ``closeness.getting_closer``) and the minutes of usable
    recordings; ``changing`` False while the voice does not train yet."""
    closer = getting_closer(similarities) if changing else "waiting"
    parts = {"waiting": ["the voice itself starts learning after this stage"],
             True: ["still getting closer: more steps should help"],
             False: ["no longer getting closer: more steps will not change much"]}.get(closer, [])
    if usable_minutes < 10:
        parts.append(f"more recordings would ({usable_minutes:.0f} min now; 15-30 min is better)")
    return "; ".join(parts)


def overtraining_warning(history: list[float], patience: int, best_step: int) -> str:
    """A warning when the last ``patience`` validation losses each rose over the one before
    (e.g. ``[1.0, 0.9, 0.95, 0.97, 0.99]`` with patience 3), else ``""``."""
    if len(history) <= patience or not all(history[-i] > history[-i - 1] for i in range(1, patience + 1)):
        return ""
    return (f"validation mel loss rose {patience} evaluations in a row ({history[-patience - 1]:.4f} -> "
            f"{history[-1]:.4f}): the voice may be over-training on your clips; the best checkpoint "
            f"(step {best_step}) is kept, stopping now loses nothing")


def train_voice(run_dir, dataset_dir, base, config: TrainConfig = TrainConfig(), resume: bool = False,
                control: TrainControl | None = None) -> Iterator[object]:
    """Fine-tune ``base`` on the dataset in ``dataset_dir``; yields events (``events`` module).

    ``run_dir``: created (``finetune.run.RunFolder``); ``base``: a Piper ``.onnx`` or ``.ckpt``, a
    transformers VITS folder / HF id, or a ``VoiceRef``; ``config``: ``TrainConfig``; ``resume``:
    continue from ``checkpoints/latest.pt`` (refused when base or dataset differ); ``control``:
    ``TrainControl``. Raises ``DatasetError``, ``ModelNotFoundError`` / ``PiperVoiceError`` (not a VITS
    voice), ``RunError``, ``TrainingError`` (fewer clips than a batch, out of GPU memory, non-finite
    loss), ``UsageError``."""
    yield from VoiceTrainer(run_dir, dataset_dir, base, config, resume, control).run()


class VoiceTrainer:
    """One run of :func:`train_voice`: ``__init__`` loads the base and decides the stages (no file
    written), :meth:`run` yields the events. ``warmup_end`` / ``disc_end`` / ``total``: the last step of
    each stage of ``STAGES``."""

    def __init__(self, run_dir, dataset_dir, base, config: TrainConfig, resume: bool, control: TrainControl | None):
        from speechstudio.finetune.vits.model import prepare_for_training

        self.config, self.resume, self.control = config, resume, control or TrainControl()
        self.rf, self.dataset_dir = RunFolder(run_dir), Path(dataset_dir)
        self.manifest = Manifest.load(self.dataset_dir)
        self.par = Parallel(config.device)
        self.device = self.par.device
        self.precision = training_precision(config.precision, self.device)
        self.source = base_source(base)
        self.voice = voice = load_base(self.source)
        self.format = base_format(voice)
        model = voice.model
        self.fc = FeatureConfig.for_model(model.config)
        self.speaker = 0 if model.config.num_speakers > 1 else None  # a multi-speaker base: its first voice
        self.info = base_info_for(voice, self.source, self.speaker)
        clips = sorted((c.id, c.text, c.audio) for c in self.manifest.usable())  # the dataset's identity
        digest = hashlib.sha1(json.dumps(clips, ensure_ascii=False).encode()).hexdigest()[:16]
        self.run_config = {"trainer": "vits", "train": config.to_dict(), "features": self.fc.to_dict(),
                           "base": {"source": self.source, "kind": voice.kind, "name": voice.name,
                                    "speaker": self.speaker},
                           "dataset": {"path": str(self.dataset_dir.resolve()),
                                       "sample_rate": self.manifest.sample_rate, "clips": len(clips), "digest": digest}}
        seed_all(config.seed)  # the same on every process: fresh parts start equal (DDP also broadcasts them)
        self.has_posterior = self.format.has_posterior()
        self.notes = prepare_for_training(model, fresh_posterior=not self.has_posterior)
        self.disc, notes = self.format.training_parts(voice)
        self.notes = notes + self.notes
        by_rate = config.pitch_by_rate and not self.has_posterior
        self.rate = self._voice_rate() if by_rate else VoiceRate(voice.sample_rate, voice.sample_rate)
        if self.rate.model_rate != self.rate.base_rate:
            self.fc = dataclasses.replace(self.fc, audio_rate=self.rate.model_rate)
            model.config.sampling_rate = self.rate.model_rate  # checkpoints and the saved voice carry it
            model.config.speaking_rate = float(model.config.speaking_rate) / self.rate.factor  # the base's tempo
            self.run_config["features"] = self.fc.to_dict()
        if by_rate:
            self.run_config["voice_rate"] = {"model_rate": self.rate.model_rate, "recordings_hz": self.rate.recordings_hz,
                                             "base_hz": self.rate.base_hz}
        self.warmup_end = config.warmup_for(self.has_posterior)
        self.disc_end = self.warmup_end + config.disc_warmup_for(self.has_posterior,
                                                                 fresh_discriminator=self.disc is None)
        self.total = int(config.steps)
        self.stats = {"best_val": None, "best_step": 0, "val_history": [], "last_val": float("nan")}
        self.step0: dict = {}  # step_0.pt's generator tensors, for the judged steps' deltas
        self.stage = self.writer = self.judge = None
        self.judge_texts: list = []
        self.saved_step = -1
        self.times: deque = deque(maxlen=20)
        self.log = lambda message: None

    def _voice_rate(self) -> VoiceRate:
        """The rate the clone trains and speaks at (``voice_rate``): on resume the run's own, else from
        the median F0 of the recordings and of the base voice (``pitch_match``; RNG untouched)."""
        import torch

        voice, model = self.voice, self.voice.model
        if self.resume and self.rf.config_path.is_file():
            kept = self.rf.read_config().get("voice_rate") or {}
            return VoiceRate(int(voice.sample_rate), int(kept.get("model_rate") or voice.sample_rate),
                             kept.get("recordings_hz"), kept.get("base_hz"))
        was_training = model.training
        with torch.random.fork_rng():
            m = pitch_match.measure_pitch_match(model, voice, self.dataset_dir, seed=self.config.seed, shift=False)
        model.train(was_training)
        return choose_rate(voice.sample_rate, m.recordings_hz, m.voice_hz)

    # ------------------------------------------------------------------ prepare
    def prepare(self) -> Iterator[object]:
        """Stage ``prepare``: cache the clips, start the run folder, build the training state (restored
        on resume), the loaders and the clone judge, and judge the base voice."""
        import torch

        from speechstudio.finetune.vits.step import VitsTraining

        config, par, rf, manifest, voice = self.config, self.par, self.rf, self.manifest, self.voice
        yield StageEvent("prepare", f"reading {len(manifest.usable())} clips; features are cached in {rf.cache_dir}")

        prepare_all = functools.partial(prepare_clips, manifest, self.dataset_dir, voice, self.fc, rf.cache_dir,
                                        config.val_count)
        # process 0 fills the feature cache first; the others then read it
        clips = par.on_main(prepare_all, "preparing the clips")
        self.clips = clips = clips if par.main else prepare_all()
        lines = [f"{len(clips.train)} training clips, {len(clips.val)} validation clips"]
        if config.pitch_by_rate and not self.has_posterior:
            lines.append(self.rate.describe())
        lines += [f"skipped {cid}: {why}" for cid, why in clips.skipped] + clips.warnings[:20] + self.notes
        if manifest.sample_rate != voice.sample_rate:
            lines.append(f"clips are {manifest.sample_rate} Hz, the voice {voice.sample_rate} Hz: resampled"
                         + (f"; they hold nothing above {manifest.sample_rate // 2} Hz, so the clone may sound "
                            "muffled" if manifest.sample_rate < voice.sample_rate else ""))
        yield StageEvent("prepare", "\n".join(lines))
        if len(clips.train) < config.batch_size:
            raise TrainingError(f"{self.dataset_dir}: {len(clips.train)} usable training clips, fewer than one batch "
                                f"of {config.batch_size}: add recordings or use --batch-size {max(1, len(clips.train))}")
        # config.json is written only now: a start refused above leaves no run behind, and a refused
        # resume keeps the settings the run was trained with.
        par.on_main(lambda: rf.start(self.run_config, self.resume), "starting the run")
        if par.main:
            self.log = rf.log
        self.log(f"{'resume' if self.resume else 'start'}: base {self.source} ({voice.kind}), dataset "
                 f"{self.dataset_dir}, device {self.device}" + (f" x {par.world} processes" if par.world > 1 else "")
                 + f", {self.precision}, config {json.dumps(config.to_dict())}")
        self.log("\n".join(lines))

        self.tr = tr = VitsTraining(voice.model, config, self.fc, self.device, self.precision, speaker=self.speaker,
                                    parallel=par, discriminator=self.disc)
        state = None
        if self.resume:
            state = rf.load_checkpoint("latest", map_location=self.device)
            tr.load_state_dict(state)
            self.stats.update(state.get("trainer", {}))
            if "best_score" not in self.stats and self.stats["best_val"] is not None and not config.judge_clone:
                self.stats["best_score"] = -self.stats["best_val"]  # saved before scores: best was the lowest loss
            self.saved_step = tr.step
        self.collate = functools.partial(collate, hop_length=self.fc.hop_length, min_frames=tr.segment_frames)
        self.batches = iter(self._loader(clips.train))
        val_set = ClipDataset(clips.val)
        self.val_batches = [self.collate([val_set[j] for j in range(i, min(i + config.batch_size, len(val_set)))])
                            for i in range(0, len(val_set), config.batch_size)]
        self.texts = [("fox", FIXED_SENTENCE), ("val" if clips.val else "train", (clips.val or clips.train)[0].text)]
        if config.judge_clone and par.main:
            with torch.random.fork_rng(devices=tr.cuda_devices()):  # the scorers' model inits draw random numbers
                self._clone_judge()
        if self.judge is not None:
            self._judge_base()
        # last: everything above may draw random numbers
        if self.resume:
            ranks = state.get("rng_ranks") or []
            restore_rng_state(ranks[par.rank] if len(ranks) == par.world else state["rng"])
            if len(ranks) != par.world and par.rank:  # saved by another number of processes (or on close)
                seed_all(config.seed, par.rank, tr.step)
        elif par.rank:
            seed_all(config.seed, par.rank, 0)  # each process its own slices / noise; process 0 as one alone
        self.writer = rf.tensorboard(purge_step=tr.step + 1 if self.resume else None) if par.main else None

    def _loader(self, items):
        import torch

        c, par = self.config, self.par
        return torch.utils.data.DataLoader(
            ClipDataset(items), collate_fn=self.collate,
            batch_sampler=BucketBatches([i.frames for i in items], c.batch_size, c.seed, self.tr.batches_seen,
                                        par.world, par.rank),
            pin_memory=self.device.startswith("cuda"), generator=torch.Generator())

    # ------------------------------------------------------------------ the voice speaking
    def speak(self, texts, speaking_rate: float | None = None) -> list[tuple]:
        """(tag, float32 audio at the model's rate) of ``texts`` ((tag, sentence) pairs) spoken by the
        model being trained (eval mode, voice defaults, RNG forked and seeded with ``config.seed``;
        ``speaking_rate`` default: the saved voice's, ``model.config``); unsayable texts skipped."""
        import numpy as np
        import torch

        tr, voice, model, out_clips = self.tr, self.voice, self.tr.model, []
        model.eval()
        try:
            with torch.random.fork_rng(devices=tr.cuda_devices()):
                for tag, text in texts:
                    try:
                        ids = voice.text_to_ids(text)
                    except SpeechStudioError:
                        continue
                    torch.manual_seed(self.config.seed)
                    x = torch.tensor([ids], dtype=torch.long, device=tr.device)
                    with torch.no_grad(), tr.autocast():
                        out = model(input_ids=x, speaker_id=tr.speaker,
                                    speaking_rate=float(speaking_rate or model.config.speaking_rate))
                    wav = out.waveform[0, : int(out.sequence_lengths[0])].float().cpu().numpy()
                    out_clips.append((tag, np.clip(wav, -1, 1).astype(np.float32)))
        finally:
            voice.warnings.clear()
            model.train()
        return out_clips

    def samples(self) -> list[Path]:
        """``self.texts`` spoken into ``samples/step_N_TAG.wav`` (16-bit PCM at the model's rate)."""
        rate, step = self.tr.model.config.sampling_rate, self.tr.step
        return [_write_wav(self.rf.samples_dir / f"step_{step}_{tag}.wav", wav, rate)
                for tag, wav in self.speak(self.texts)]

    # ------------------------------------------------------------------ the clone judge
    def _clone_judge(self) -> None:
        """``self.judge`` (a ``CloneJudge`` on the first training recordings at ``fc.decode_rate``) and
        its texts, or None with the reason logged."""
        import torch

        clips = self.clips
        texts = [(f"judge{i}", c.text) for i, c in enumerate((clips.val + clips.train)[:JUDGE_TEXTS])]
        try:
            reference = [torch.load(c.cache_path, weights_only=True)["wav"].float().numpy() / 32767.0
                         for c in clips.train[:JUDGE_REFERENCE_CLIPS]]
            self.judge, self.judge_texts = closeness.CloneJudge(reference, self.fc.decode_rate, self.voice.hop_length), texts
        except (ImportError, OSError, RuntimeError, ValueError) as exc:
            self.log(f"how close the clone is will not be measured ({exc}); the best checkpoint is the lowest "
                     "validation loss")

    def _judge_base(self) -> None:
        """Judge the base voice before any step: at the model's rate (the speaker's pitch) and as it ships
        (its own rate and tempo); the best of them is the best checkpoint until a step beats it."""
        stats, judge = self.stats, self.judge
        if "base_similarity" not in stats:  # not on resume: the run's model is still the base now
            c0 = shipped = judge.judge([w for _t, w in self.speak(self.judge_texts)])
            if self.rate.model_rate != self.rate.base_rate:
                own = self.speak(self.judge_texts, speaking_rate=float(self.tr.model.speaking_rate))
                shipped = judge.judge([w for _t, w in own], self.rate.base_rate)
            stats["base_similarity"], stats["base_naturalness"] = shipped.similarity, shipped.naturalness
            stats["closeness"] = [row_of(0, c0)]
            stats["best_score"], stats["best_step"] = c0.score, 0
            if shipped is not c0:
                stats["closeness"].insert(0, row_of(0, shipped, "base"))
                if shipped.score > c0.score:
                    stats["best_score"], stats["best_checkpoint"] = shipped.score, "base"
            self.snapshot()
            self.log(f"base voice at your pitch: {c0.describe()}"
                     + (f"; as it ships: {shipped.describe()}" if shipped is not c0 else ""))
        judge.base_similarity = stats["base_similarity"]

    # ------------------------------------------------------------------ checkpoints
    def generator_state(self) -> dict:
        tr = self.tr
        return {"format": "speechstudio-vits-generator/1", "step": tr.step, "generator": tr.model.state_dict(),
                "model_config": json.dumps(tr.model.config.to_dict()), "base": {**self.info.to_dict(), "step": tr.step},
                "val_mel_loss": float(self.stats["last_val"]), "checkpoint": f"step_{tr.step}"}

    def snapshot(self) -> Path:
        """``step_N.pt`` (past step 0 only the tensors that changed since ``step_0.pt``,
        ``trained.load_checkpoint_state``), ``best.pt`` when this step is the best (at step 0 maybe the
        base voice as it ships, ``trained.shipped_base``) and the trade table."""
        import torch

        rf, step, step0, stats = self.rf, self.tr.step, self.step0, self.stats
        state = self.generator_state()
        if step == 0:
            step0.update({k: v.detach().cpu().clone() for k, v in state["generator"].items()})  # training moves them
            path = atomic_torch_save(state, rf.checkpoint_path("step_0"))
        else:
            if not step0:  # resumed: read once
                step0.update(load_checkpoint_state(rf.path, "step_0")["generator"])
            changed = {k: v for k, v in state["generator"].items() if k not in step0 or not torch.equal(v.cpu(), step0[k])}
            path = atomic_torch_save(dict(state, generator=changed, delta_of="step_0"), rf.checkpoint_path(f"step_{step}"))
        if stats["best_step"] == step:
            best = shipped_base(state) if stats.get("best_checkpoint") == "base" else state
            atomic_torch_save(best, rf.checkpoint_path("best"))
        write_trade(rf.path, stats.get("base_naturalness"), stats["closeness"])
        return path

    def save(self, kind: str, rngs: list | None = None) -> Path:
        """``latest.pt`` (the full resume state; ``rngs``: every process's RNG state, ``par.gather``;
        None: this process's only) or ``best.pt`` (the generator)."""
        if kind != "latest":
            return atomic_torch_save(self.generator_state(), self.rf.checkpoint_path("best"))
        extra = {"base": {**self.info.to_dict(), "step": self.tr.step}, "val_mel_loss": float(self.stats["last_val"])}
        rngs = rngs or [capture_rng_state()]
        extra.update({"trainer": self.stats, "world": self.par.world}, **({"rng_ranks": rngs} if len(rngs) > 1 else {}))
        return self.rf.save_checkpoint(self.tr.state_dict(rngs[0], extra), kind)

    def oom_error(self, what: str) -> TrainingError:
        import torch

        torch.cuda.empty_cache()
        bs, ga = self.config.batch_size, self.config.grad_accum
        hint = "the run can be resumed with --resume" if self.rf.checkpoint_path("latest").is_file() else "start it again"
        return TrainingError(f"out of GPU memory at batch size {bs} ({what}): try --batch-size {max(1, bs // 2)} "
                             f"--grad-accum {ga * 2} (or --gradient-checkpointing); {hint}")

    # ------------------------------------------------------------------ stages
    def enter_stage(self, stage: str, end: int) -> Iterator[object]:
        """The events of a stage's start; before the first stage that trains the decoder on the prior
        (``freeze_prior``, no trained posterior encoder), the clips are pitch-conformed (``conform``)."""
        config, tr, step = self.config, self.tr, self.tr.step
        if stage != "warmup" and not self.has_posterior and config.freeze_prior and not tr.conformed:
            yield StageEvent(stage, "matching your recordings' pitch to the base voice's intonation "
                                    f"({len(self.clips.train)} clips) ...")
            # process 0 writes the conformed clips first; the others then read them
            done = self.par.on_main(self._conform, "pitch-conforming the clips")
            conformed, note = done if self.par.main else self._conform()
            self.log(note)
            yield StageEvent(stage, note)
            if conformed is not None:
                self.batches = iter(self._loader(conformed))
                tr.conformed = True
        msg = {"warmup": f"warm-up: fitting the new posterior encoder to the frozen decoder, steps "
                         f"{step + 1}..{self.warmup_end}",
               "discriminator": f"discriminator: learning to tell your recordings from the voice's rendering of "
                                f"them before it judges the voice, steps {step + 1}..{self.disc_end}",
               "train": f"training generator + discriminator, steps {step + 1}..{self.total} ({self.device}, "
                        f"{self.precision}, batch {config.batch_size} x {config.grad_accum}"
                        + ("; text encoder, flow, duration predictor and posterior encoder kept as they are"
                           if config.freeze_prior else "") + ")"}[stage]
        self.log(msg)
        yield StageEvent(stage, msg, (step + 1, end))

    def _conform(self) -> tuple:
        """``(conformed clips, log note)`` by ``conform.conform_clips`` with the base's own decoder (loaded
        afresh; not when the run's cache holds them all), or ``(None, reason)`` when there is no pitch to match."""
        import torch

        tr, config = self.tr, self.config
        cached = cached_conformed(tr.model, self.clips.train, self.rf.cache_dir, seed=config.seed)
        if cached is not None:  # a resumed run: conformed before, so the base is not loaded again
            return cached[0], cached[1].describe(self.rate.factor)
        try:
            # the training RNG stream must not see this (building the base model draws its init): a
            # resumed run then continues exactly as an uninterrupted one
            with torch.random.fork_rng(devices=tr.cuda_devices()):
                base = load_base(self.source).model
                fold_weight_norm(base)
                g = None
                if self.speaker is not None:
                    with torch.no_grad():
                        g = tr.model.embed_speaker(torch.tensor([self.speaker], device=tr.device)).unsqueeze(-1)
                items, stats = conform_clips(tr.model, base.decoder.to(tr.device), self.clips.train, self.fc,
                                             self.rf.cache_dir, seed=config.seed, speaker_embedding=g)
        except ValueError as exc:  # nothing voiced to measure: train on the recordings as they are
            return None, f"pitch matching skipped ({exc}); the decoder trains on the recordings as they are"
        return items, stats.describe(self.rate.factor)

    # ------------------------------------------------------------------ evaluation
    def evaluate(self) -> tuple:
        """Process 0: validation mel loss, the clone judge's closeness, best.pt when the best score
        (closeness, else the lowest mel loss) improved, log + TensorBoard. Returns ``(EvalEvent, best.pt's path
        when this step is the best, else None)``."""
        tr, stats, config, judge, step = self.tr, self.stats, self.config, self.judge, self.tr.step
        val, recon = tr.evaluate(self.val_batches)
        history = stats["val_history"] = stats["val_history"] + [val]
        stats["last_val"] = val
        stats["best_val"] = val if stats["best_val"] is None else min(stats["best_val"], val)
        close, text = None, ""
        if judge is not None:
            c = judge.judge([w for _t, w in self.speak(self.judge_texts)])
            close, base_mos = c.to_dict(), stats.get("base_naturalness")
            stats["closeness"] = stats.get("closeness", []) + [row_of(step, c)]
            since = [r["similarity"] for r in stats["closeness"]  # step 0 at the run's rate, then trained steps
                     if r.get("checkpoint") != "base" and (r["step"] == 0 or r["step"] > self.disc_end)]
            advice = closeness_advice(since, self.manifest.total_s / 60,
                                      changing=self.stage not in ("warmup", "discriminator"))
            text = c.describe() + (f". {advice[0].upper()}{advice[1:]}" if advice else "")
            score = c.score
            eligible = natural_enough(c.naturalness, base_mos)  # much less natural than the base: never the best
            if not eligible:
                text += (f". Much less natural than the base voice ({c.naturalness:.1f} vs {base_mos:.1f}): "
                         "not recommended")
            trained = [r for r in stats["closeness"] if r["step"] > self.disc_end]
            if self.stage == "train" and trade_stalled(trained, base_mos):
                stats["early_stop"] = step
        else:
            score, eligible = -val, True
        best = eligible and (stats.get("best_score") is None or score > stats["best_score"])
        if best:
            stats["best_score"], stats["best_step"], stats["best_checkpoint"] = score, step, f"step_{step}"
        warn = overtraining_warning(history, config.patience, stats["best_step"]) if judge is None else ""
        self.log(f"eval step {step}: val mel {val:.4f} (recon {recon:.4f}){' best' if best else ''}"
                 + (f"; {warn}" if warn else "") + (f"; {text}" if text else ""))
        if self.writer is not None:
            self.writer.add_scalar("val/mel", val, step)
            self.writer.add_scalar("val/recon_mel", recon, step)
            if close is not None:
                self.writer.add_scalar("clone/similarity", close["similarity"], step)
                if close["naturalness"] is not None:
                    self.writer.add_scalar("clone/naturalness", close["naturalness"], step)
        if judge is not None:
            self.snapshot()  # writes best.pt too when this step is the best
        path = (self.rf.checkpoint_path("best") if judge is not None else self.save("best")) if best else None
        return EvalEvent(step, val, best, warn, close, text), path

    def eval_events(self, oom) -> Iterator[object]:
        try:
            result = self.par.on_main(self.evaluate, "the evaluation")
        except oom:
            raise self.oom_error("validation") from None
        if result is None:  # not process 0
            return
        event, path = result
        step = event.step
        yield event
        if event.best:
            yield CheckpointEvent(step, path, "best")
        if self.stats.get("early_stop") == step:
            msg = (f"stopping early at step {step}: the voice has become much less natural than the base and no "
                   f"closer to yours; the best checkpoint (step {self.stats['best_step']}) is kept")
            self.log(msg)
            yield StageEvent("train", msg)

    def checkpoint_events(self) -> Iterator[object]:
        """``latest.pt`` (and ``best.pt`` without validation clips), then the samples."""
        import torch

        par, tr = self.par, self.tr
        rngs = par.gather(capture_rng_state())
        paths = par.on_main(lambda: (self.save("latest", rngs), None if self.val_batches else self.save("best")),
                            "writing the checkpoint")
        self.saved_step = tr.step
        if par.main:
            self.log(f"checkpoint latest at step {tr.step}")
            yield CheckpointEvent(tr.step, paths[0], "latest")
            if paths[1] is not None:  # nothing to validate on: the latest generator is the best we know
                yield CheckpointEvent(tr.step, paths[1], "best")
        paths = par.on_main(self.samples, "synthesising the samples")
        if par.main:
            if self.writer is not None:
                for p in paths:
                    self.writer.add_audio(f"samples/{p.stem.split('_', 2)[-1]}",
                                          torch.from_numpy(load_audio(p, self.fc.decode_rate)),
                                          tr.step, self.fc.decode_rate)
                self.writer.flush()
            yield SampleEvent(tr.step, paths)

    # ------------------------------------------------------------------ the run
    def pause(self) -> None:
        control = self.control
        if control.pause.is_set() and not control.stop.is_set():
            self.log(f"paused at step {self.tr.step}")
            while control.pause.is_set() and not control.stop.is_set():
                time.sleep(0.1)
            self.times.clear()

    def one_step(self, method, oom) -> dict:
        """One optimizer step of a stage's ``method`` (``STAGES``) on ``grad_accum`` batches; losses."""
        from speechstudio.finetune.vits.step import NonFiniteLoss

        config, tr = self.config, self.tr
        group = [next(self.batches) for _ in range(config.grad_accum)]
        tr.batches_seen += config.grad_accum * self.par.world
        try:
            losses = method(tr, group)
        except oom:
            raise self.oom_error(f"step {tr.step + 1}") from None
        except NonFiniteLoss as exc:
            raise TrainingError(f"loss became NaN / inf at step {tr.step + 1} ({exc}); the last checkpoint "
                                f"(step {max(self.saved_step, 0)}) is kept: try a lower --lr, or fp32") from None
        if tr.nonfinite_streak >= NONFINITE_LIMIT:
            raise TrainingError(f"loss NaN / inf for {NONFINITE_LIMIT} fp16 steps in a row up to step {tr.step} "
                                f"({', '.join(tr.last_nonfinite)}): try --precision fp32 or bf16, or a lower --lr")
        return losses

    def run(self) -> Iterator[object]:
        import torch

        yield from self.prepare()
        tr, par, config, total = self.tr, self.par, self.config, self.total
        oom = getattr(torch, "OutOfMemoryError", torch.cuda.OutOfMemoryError)
        try:
            while tr.step < total:
                self.pause()
                if par.any(self.control.stop.is_set()):
                    break
                # the STAGES row that optimizer step tr.step + 1 belongs to
                stage, end, method = next(row for row in STAGES if tr.step < getattr(self, row[1]) or row[0] == "train")
                if stage != self.stage:
                    self.stage = stage
                    yield from self.enter_stage(stage, getattr(self, end))
                t0 = time.perf_counter()
                losses = self.one_step(method, oom)
                self.times.append(time.perf_counter() - t0)
                sps = len(self.times) / sum(self.times)
                lr = tr.opt_g.param_groups[0]["lr"]
                if self.writer is not None:
                    for k, v in losses.items():
                        self.writer.add_scalar(f"{stage}/{k}", v, tr.step)
                    self.writer.add_scalar("lr", lr, tr.step)
                if tr.step % 10 == 0 or tr.step == total:
                    self.log(f"step {tr.step} {stage} " + " ".join(f"{k} {v:.4f}" for k, v in losses.items()))
                yield StepEvent(tr.step, total, dict(losses), sps, (total - tr.step) / sps, lr, stage, self.times[-1])
                if self.val_batches and (tr.step % config.eval_every == 0 or tr.step == total):
                    yield from self.eval_events(oom)
                    if par.any(self.stats.get("early_stop") == tr.step):
                        break  # the run ends here: latest.pt below, reason "finished"
                if tr.step % config.checkpoint_every == 0 or tr.step == total:
                    yield from self.checkpoint_events()
        except GeneratorExit:
            if tr.step != self.saved_step and par.main:  # no collective here: the other processes may be gone
                self.save("latest")
                self.log(f"closed at step {tr.step}; checkpoint latest saved")
            if par.main and not self.rf.checkpoint_path("best").is_file():
                self.save("best")  # nothing judged yet: the latest generator is the best there is
            raise
        finally:
            if self.writer is not None:
                self.writer.close()
        yield from self.finish()

    def finish(self) -> Iterator[object]:
        """``latest.pt`` unless just written, ``best.pt`` if nothing was judged, then ``DoneEvent``."""
        par, tr = self.par, self.tr
        reason = "finished" if tr.step >= self.total or self.stats.get("early_stop") == tr.step else "stopped"
        if tr.step != self.saved_step:
            rngs = par.gather(capture_rng_state())
            path = par.on_main(lambda: self.save("latest", rngs), "writing the checkpoint")
            if par.main:
                yield CheckpointEvent(tr.step, path, "latest")
        best_path = self.rf.checkpoint_path("best")
        if par.any(not best_path.is_file()):  # stopped before the first evaluation: the latest generator is the best
            path = par.on_main(lambda: self.save("best"), "writing the checkpoint")
            if par.main:
                yield CheckpointEvent(tr.step, path, "best")
        self.log(f"{reason} at step {tr.step}")
        yield DoneEvent(tr.step, best_path if best_path.is_file() else None, reason)
