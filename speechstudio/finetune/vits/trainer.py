"""``train_voice``: fine-tune a VITS voice on a prepared dataset, as a generator of events.

Stages: ``prepare`` (token ids, cached features), ``warmup`` (Piper ``.onnx`` bases: the new posterior
encoder alone), ``discriminator`` (a fresh discriminator alone), ``train`` (GAN); why: ``config``. Every
``eval_every`` steps an ``EvalEvent`` (``best.pt`` on improvement; with the clone judge the base voice
is judged first and is the best until a step beats it, each judged step is kept as ``step_N.pt`` and a
row of ``RUN/closeness.json``, ``finetune.trade``; a step much less natural than the base is never the
best, ``closeness.natural_enough``; ``stop_early`` ends the run when ``closeness.trade_stalled``), every
``checkpoint_every`` steps
``latest.pt`` with the full resume state and samples. ``control.stop`` saves ``latest.pt`` (and
``best.pt`` from the latest generator when nothing was evaluated yet);
``resume=True`` continues bit for bit (same device and settings).

Deviations from VITS / Piper: the generator trains weight-norm-folded weights; lr decays per step
(``config``); G's losses use D before its update (Piper's order, ``step``); the warm-up also trains the
SDP's training-only flows; LayerDrop off. Several processes (``finetune.parallel``): each takes every
``world``-th batch of the same seeded order (W processes x accumulation A = one process with W x A);
process 0 alone builds the feature cache, writes files and evaluates; ``latest.pt`` holds every
process's RNG state."""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import random
import time
from collections import deque
from pathlib import Path
from typing import Iterator

from speechstudio.finetune.run import RunFolder, TrainingError, atomic_torch_save, capture_rng_state, restore_rng_state
from speechstudio.finetune.vits.config import TrainConfig, resolve_device, resolve_precision
from speechstudio.finetune.vits.events import (CheckpointEvent, DoneEvent, EvalEvent, SampleEvent, StageEvent,
                                               StepEvent, TrainControl)
from speechstudio.finetune.vits.trained import (BaseInfo, base_info_for, load_checkpoint_state, load_trained_generator,
                                                shipped_base)
from speechstudio.finetune.vits.voice_rate import VoiceRate, choose_rate
from speechstudio.finetune.closeness import natural_enough, trade_stalled
from speechstudio.finetune.trade import row_of, snapshot_path, write_trade

__all__ = ["train_voice", "load_trained_generator", "TrainConfig", "TrainControl", "TrainingError", "BaseInfo",
           "StageEvent", "StepEvent", "EvalEvent", "SampleEvent", "CheckpointEvent", "DoneEvent", "FIXED_SENTENCE",
           "overtraining_warning", "load_base"]

#: The sentence synthesised at every checkpoint (a pangram: every English letter).
FIXED_SENTENCE = "The quick brown fox jumps over the lazy dog."
#: fp16 steps in a row with a non-finite loss (skipped by the GradScaler) before giving up.
NONFINITE_LIMIT = 10


def _base_source(base) -> str:
    source = getattr(base, "location", base)  # a speechstudio.tts.voices.VoiceRef, or a path / HF id
    path = Path(os.fspath(source))
    return str(path.resolve()) if path.exists() else str(source)


def load_base(source: str):
    """The base as a ``VitsVoice`` (CPU, fp32): a Piper training checkpoint (``.ckpt``, with
    ``voice.piper_checkpoint``: ``piper_ckpt``) or whatever ``load_voice`` loads."""
    from speechstudio.finetune.vits.piper_ckpt import is_checkpoint_path, load_piper_checkpoint
    from speechstudio.tts.vits import load_voice

    if is_checkpoint_path(source):
        return load_piper_checkpoint(source)
    voice = load_voice(source, device="cpu", precision="fp32", optimize=False)
    if type(voice.model).__name__ != "VitsModel":  # pragma: no cover - load_voice only builds VitsModel
        raise TrainingError(f"{source}: not a VITS voice ({type(voice.model).__name__}); only VITS voices can "
                            "be cloned")
    return voice


def _dataset_identity(manifest, dataset_dir: Path) -> dict:
    clips = sorted((c.id, c.text, c.audio) for c in manifest.usable())
    digest = hashlib.sha1(json.dumps(clips, ensure_ascii=False).encode()).hexdigest()[:16]
    return {"path": str(Path(dataset_dir).resolve()), "sample_rate": manifest.sample_rate, "clips": len(clips),
            "digest": digest}


def _write_wav(path: Path, wav, sample_rate: int) -> Path:
    import soundfile as sf

    from speechstudio.atomic import atomic_path

    with atomic_path(path) as tmp:
        sf.write(tmp, wav, sample_rate, subtype="PCM_16", format="WAV")
    return path


def _speak(tr, voice, texts, seed: int, speaking_rate: float | None = None) -> list[tuple]:
    """(tag, float32 audio at the voice's rate) of ``texts`` ((tag, sentence) pairs) spoken by the
    model being trained (eval mode, voice defaults, RNG forked and seeded; ``speaking_rate`` default:
    the saved voice's, ``model.config``); unsayable texts skipped."""
    import numpy as np
    import torch

    from speechstudio.errors import SpeechStudioError

    model, out_clips = tr.model, []
    model.eval()
    try:
        with torch.random.fork_rng(devices=tr.cuda_devices()):
            for tag, text in texts:
                try:
                    ids = voice.text_to_ids(text)
                except SpeechStudioError:
                    continue
                torch.manual_seed(seed)
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


def _samples(tr, voice, texts, step: int, folder: Path, seed: int) -> list[Path]:
    """Synthesise ``texts`` ((tag, sentence) pairs) into ``folder/step_N_TAG.wav`` (:func:`_speak`)."""
    folder.mkdir(parents=True, exist_ok=True)
    return [_write_wav(folder / f"step_{step}_{tag}.wav", wav, int(tr.model.config.sampling_rate))
            for tag, wav in _speak(tr, voice, texts, seed)]


#: Recordings the clone judge makes the speaker embedding from, and texts it has the voice speak.
JUDGE_REFERENCE_CLIPS, JUDGE_TEXTS = 30, 4


def _clone_judge(clips, voice, rate: int, log):
    """(``CloneJudge``, texts) for ``TrainConfig.judge_clone``, or (None, []) with the reason logged.
    ``rate``: Hz of the model's samples and of the cached recordings (``FeatureConfig.decode_rate``)."""
    import torch

    from speechstudio.finetune.closeness import CloneJudge

    items = (clips.val + clips.train)
    texts = [(f"judge{i}", c.text) for i, c in enumerate(items[:JUDGE_TEXTS])]
    try:
        reference = [torch.load(c.cache_path, weights_only=True)["wav"].float().numpy() / 32767.0
                     for c in clips.train[:JUDGE_REFERENCE_CLIPS]]
        return CloneJudge(reference, rate, voice.hop_length), texts
    except (ImportError, OSError, RuntimeError, ValueError) as exc:
        log(f"how close the clone is will not be measured ({exc}); the best checkpoint is the lowest validation loss")
        return None, []


def _judge_base(tr, voice, judge, texts, seed: int, rate) -> tuple:
    """``Closeness`` of (the run's starting voice, the base voice as it ships): the base at the model's
    rate (``VoiceRate``: the speaker's pitch) and at its own rate and tempo (the same when equal)."""
    start = judge.judge([w for _t, w in _speak(tr, voice, texts, seed)])
    if rate.model_rate == rate.base_rate:
        return start, start
    shipped = _speak(tr, voice, texts, seed, speaking_rate=float(tr.model.speaking_rate))  # the base's own tempo
    return start, judge.judge([w for _t, w in shipped], rate.base_rate)


def closeness_advice(history: list[dict], usable_minutes: float, changing: bool = True) -> str:
    """One sentence on what more steps or data would buy, from the judge's ``history`` and the minutes
    of usable recordings; ``changing`` False while the voice does not train yet."""
    parts = []
    if not changing:
        parts.append("the voice itself starts learning after this stage")
    elif len(history) >= 2:
        gain = history[-1]["similarity"] - history[-2]["similarity"]
        parts.append("still getting closer: more steps should help" if gain > 0.01 else
                     "no longer getting closer: more steps will not change much")
    if usable_minutes < 10:
        parts.append(f"more recordings would ({usable_minutes:.0f} min now; 15-30 min is better)")
    return "; ".join(parts)


def _seed_all(seed: int, rank: int = 0, step: int = 0) -> None:
    """Seed Python's, numpy's and torch's global RNGs for process ``rank`` from ``step`` on."""
    import numpy as np
    import torch

    value = seed if (rank, step) == (0, 0) else hash((seed, rank, step)) & 0x7FFF_FFFF
    random.seed(value)
    np.random.seed(value % 2**32)
    torch.manual_seed(value)


def overtraining_warning(history: list[float], patience: int, best_step: int) -> str:
    """A warning when the last ``patience`` validation losses each rose over the one before
    (e.g. ``[1.0, 0.9, 0.95, 0.97, 0.99]`` with patience 3), else ``""``."""
    if len(history) <= patience or not all(history[-i] > history[-i - 1] for i in range(1, patience + 1)):
        return ""
    return (f"validation mel loss rose {patience} evaluations in a row ({history[-patience - 1]:.4f} -> "
            f"{history[-1]:.4f}): the voice may be over-training on your clips; the best checkpoint "
            f"(step {best_step}) is kept, stopping now loses nothing")


def _conform(tr, source: str, items: list, fc, cache_dir: Path, config: TrainConfig, speaker):
    """``(conformed items, log note)`` by ``conform.conform_clips`` with the base's own decoder (loaded
    afresh), or ``(None, reason)`` when there is no pitch to match."""
    import torch

    from speechstudio.finetune.vits.conform import conform_clips
    from speechstudio.tts.piper_import import fold_weight_norm

    try:
        # the training RNG stream must not see this (building the base model draws its init): a
        # resumed run then continues exactly as an uninterrupted one
        with torch.random.fork_rng(devices=tr.cuda_devices()):
            base = load_base(source).model
            fold_weight_norm(base)
            g = None
            if speaker is not None:
                with torch.no_grad():
                    g = tr.model.embed_speaker(torch.tensor([speaker], device=tr.device)).unsqueeze(-1)
            items, stats = conform_clips(tr.model, base.decoder.to(tr.device), items, fc, cache_dir, seed=config.seed,
                                         noise_scale=float(getattr(tr.model, "noise_scale", 0.667)),
                                         speaker_embedding=g, mas_backend=config.mas_backend)
    except ValueError as exc:  # nothing voiced to measure: train on the recordings as they are
        return None, f"pitch matching skipped ({exc}); the decoder trains on the recordings as they are"
    return items, stats.describe()


def _voice_rate(rf, resume: bool, voice, model, dataset_dir: Path, config: TrainConfig) -> VoiceRate:
    """The rate the clone trains and speaks at (``voice_rate``): on resume the run's own, else
    from the median F0 of the recordings and of the base voice (``pitch_match``; RNG untouched)."""
    import torch

    from speechstudio.finetune.pitch_match import measure_pitch_match

    if resume and rf.config_path.is_file():
        old = rf.read_config()
        kept = old.get("voice_rate") or {}
        return VoiceRate(int(voice.sample_rate), int(kept.get("model_rate") or voice.sample_rate),
                         kept.get("recordings_hz"), kept.get("base_hz"))
    was_training = model.training
    with torch.random.fork_rng():
        m = measure_pitch_match(model, voice, dataset_dir, seed=config.seed, shift=False)
    model.train(was_training)
    return choose_rate(voice.sample_rate, m.recordings_hz, m.voice_hz)


def train_voice(run_dir, dataset_dir, base, config: TrainConfig = TrainConfig(), resume: bool = False,
                control: TrainControl | None = None) -> Iterator[object]:
    """Fine-tune ``base`` on the dataset in ``dataset_dir``; yields events (``events`` module).

    ``run_dir``: created (``finetune.run.RunFolder``); ``base``: a Piper ``.onnx`` or ``.ckpt``, a
    transformers VITS folder / HF id, or a ``VoiceRef``; ``config``: ``TrainConfig``; ``resume``:
    continue from ``checkpoints/latest.pt`` (refused when base or dataset differ); ``control``:
    ``TrainControl``. Raises ``DatasetError``, ``ModelNotFoundError`` / ``PiperVoiceError`` (not a VITS
    voice), ``RunError``, ``TrainingError`` (fewer clips than a batch, out of GPU memory, non-finite
    loss), ``UsageError``."""
    import torch

    from speechstudio.finetune.manifest import Manifest
    from speechstudio.finetune.parallel import Parallel
    from speechstudio.finetune.vits.data import BucketBatches, ClipDataset, collate, prepare_clips
    from speechstudio.finetune.vits.features import FeatureConfig
    from speechstudio.finetune.vits.model import prepare_for_training
    from speechstudio.finetune.vits.step import NonFiniteLoss, VitsTraining

    control = control or TrainControl()
    rf, dataset_dir = RunFolder(run_dir), Path(dataset_dir)
    manifest = Manifest.load(dataset_dir)
    par = Parallel(config.device, resolve=resolve_device)
    device = par.device
    precision = resolve_precision(config.precision, device)
    source = _base_source(base)
    voice = load_base(source)
    model = voice.model
    fc = FeatureConfig.for_model(model.config)
    speaker = (0 if config.speaker is None else int(config.speaker)) if model.config.num_speakers > 1 else None
    if speaker is not None and not 0 <= speaker < model.config.num_speakers:
        from speechstudio.errors import UsageError

        raise UsageError(f"voice {voice.name} has no speaker {speaker} (valid ids: 0..{model.config.num_speakers - 1})")
    info = base_info_for(voice, source, speaker)
    run_config = {"trainer": "vits", "train": config.to_dict(), "features": fc.to_dict(),
                  "base": {"source": source, "kind": voice.kind, "name": voice.name, "speaker": speaker},
                  "dataset": _dataset_identity(manifest, dataset_dir)}
    _seed_all(config.seed)  # the same on every process: fresh parts start equal (DDP also broadcasts them)
    ckpt = getattr(voice, "piper_checkpoint", None)  # a Piper training checkpoint: the full VITS (piper_ckpt)
    has_posterior = voice.kind != "piper" or ckpt is not None
    notes = prepare_for_training(model, fresh_posterior=not has_posterior)
    disc = None
    if ckpt is not None:
        from speechstudio.finetune.vits.piper_ckpt import build_discriminator

        disc = build_discriminator(ckpt)
        notes = [f"base: {ckpt.describe()}: posterior encoder "
                 + ("and discriminator " if disc is not None else "") + "from the checkpoint, no warm-up"] \
            + ckpt.notes + notes
    rate = _voice_rate(rf, resume, voice, model, dataset_dir, config) if config.pitch_by_rate and not has_posterior \
        else VoiceRate(voice.sample_rate, voice.sample_rate)
    if rate.model_rate != rate.base_rate:
        fc = dataclasses.replace(fc, audio_rate=rate.model_rate)
        model.config.sampling_rate = rate.model_rate  # checkpoints and the saved voice carry it
        model.config.speaking_rate = float(model.config.speaking_rate) / rate.factor  # the base's tempo in seconds
        run_config["features"] = fc.to_dict()
    if config.pitch_by_rate and not has_posterior:
        run_config["voice_rate"] = {"model_rate": rate.model_rate, "recordings_hz": rate.recordings_hz,
                                    "base_hz": rate.base_hz}
    warmup = config.warmup_for(has_posterior)
    disc_end = warmup + config.disc_warmup_for(has_posterior, fresh_discriminator=disc is None)
    total = int(config.steps)

    yield StageEvent("prepare", f"reading {len(manifest.usable())} clips; features are cached in {rf.cache_dir}")
    # process 0 fills the feature cache first; the others then read it
    clips = par.on_main(lambda: prepare_clips(manifest, dataset_dir, voice, fc, rf.cache_dir, config.val_count),
                        "preparing the clips")
    if not par.main:
        clips = prepare_clips(manifest, dataset_dir, voice, fc, rf.cache_dir, config.val_count)
    lines = [f"{len(clips.train)} training clips, {len(clips.val)} validation clips"]
    if config.pitch_by_rate and not has_posterior:
        lines.append(rate.describe())
    lines += [f"skipped {cid}: {why}" for cid, why in clips.skipped] + clips.warnings[:20] + notes
    if manifest.sample_rate != voice.sample_rate:
        lines.append(f"clips are {manifest.sample_rate} Hz, the voice {voice.sample_rate} Hz: resampled"
                     + (f"; they hold nothing above {manifest.sample_rate // 2} Hz, so the clone may sound muffled"
                        if manifest.sample_rate < voice.sample_rate else ""))
    yield StageEvent("prepare", "\n".join(lines))
    if len(clips.train) < config.batch_size:
        raise TrainingError(f"{dataset_dir}: {len(clips.train)} usable training clips, fewer than one batch of "
                            f"{config.batch_size}: add recordings or use --batch-size {max(1, len(clips.train))}")
    # config.json is written only now: a start refused above leaves no run behind, and a refused
    # resume keeps the settings the run was trained with.
    par.on_main(lambda: rf.start(run_config, resume), "starting the run")
    log = rf.log if par.main else (lambda message: None)
    log(f"{'resume' if resume else 'start'}: base {source} ({voice.kind}), dataset {dataset_dir}, device {device}"
        + (f" x {par.world} processes" if par.world > 1 else "") + f", {precision}, config {json.dumps(config.to_dict())}")
    log("\n".join(lines))

    tr = VitsTraining(model, config, fc, device, precision, speaker=speaker, parallel=par, discriminator=disc)
    stats = {"best_val": None, "best_step": 0, "val_history": [], "last_val": float("nan")}
    if resume:
        state = rf.load_checkpoint("latest", map_location=device)
        tr.load_state_dict(state)
        stats.update(state.get("trainer", {}))
        if "best_score" not in stats and stats["best_val"] is not None and not config.judge_clone:
            stats["best_score"] = -stats["best_val"]  # a run saved before scores: best was the lowest loss
    hop, seg = fc.hop_length, tr.segment_frames
    collate_fn = functools.partial(collate, hop_length=hop, min_frames=seg)

    def _loader(items):
        return torch.utils.data.DataLoader(
            ClipDataset(items), collate_fn=collate_fn, num_workers=config.num_workers,
            batch_sampler=BucketBatches([c.frames for c in items], config.batch_size, config.seed, tr.batches_seen,
                                        par.world, par.rank),
            pin_memory=device.startswith("cuda"), generator=torch.Generator(), persistent_workers=config.num_workers > 0)

    loader = _loader(clips.train)
    batches = iter(loader)
    val_set = ClipDataset(clips.val)
    val_batches = [collate_fn([val_set[j] for j in range(i, min(i + config.batch_size, len(val_set)))])
                   for i in range(0, len(val_set), config.batch_size)]
    texts = [("fox", FIXED_SENTENCE)] + [("val" if clips.val else "train", (clips.val or clips.train)[0].text)]
    with torch.random.fork_rng(devices=tr.cuda_devices()):  # the scorers' model inits draw random numbers
        judge, judge_texts = _clone_judge(clips, voice, fc.decode_rate, log) if config.judge_clone and par.main else (None, [])

    def generator_state() -> dict:
        return {"format": "speechstudio-vits-generator/1", "step": tr.step, "generator": tr.model.state_dict(),
                "model_config": json.dumps(tr.model.config.to_dict()), "base": {**info.to_dict(), "step": tr.step},
                "val_mel_loss": float(stats["last_val"]), "checkpoint": f"step_{tr.step}"}

    step0: dict = {}

    def snapshot() -> Path:
        """``step_N.pt`` (the table's checkpoints: past step 0 only the tensors that changed since
        ``step_0.pt``, ``trained.load_checkpoint_state``) and ``best.pt`` when this step is the best (at
        step 0 maybe the base voice as it ships, ``trained.shipped_base``)."""
        state = generator_state()
        if tr.step == 0:
            step0.update({k: v.detach().cpu().clone() for k, v in state["generator"].items()})  # a copy: training moves them
            path = atomic_torch_save(state, snapshot_path(rf.path, 0))
        else:
            if not step0:  # resumed: read once
                step0.update(load_checkpoint_state(rf.path, "step_0")["generator"])
            changed = {k: v for k, v in state["generator"].items() if k not in step0 or not torch.equal(v.cpu(), step0[k])}
            path = atomic_torch_save(dict(state, generator=changed, delta_of="step_0"), snapshot_path(rf.path, tr.step))
        if stats["best_step"] == tr.step:
            best = shipped_base(state) if stats.get("best_checkpoint") == "base" else state
            atomic_torch_save(best, rf.checkpoint_path("best"))
        write_trade(rf.path, stats.get("base_naturalness"), stats["closeness"])
        return path

    if judge is not None:
        if "base_similarity" not in stats:  # the base voice, before any step (the run's model is still the base)
            c0, shipped = _judge_base(tr, voice, judge, judge_texts, config.seed, rate)
            stats["base_similarity"], stats["base_naturalness"] = shipped.similarity, shipped.naturalness
            stats["closeness"] = [row_of(0, c0)]
            # the base is the best until a step beats it: as it ships, or at the speaker's pitch if that scores higher
            stats["best_score"], stats["best_step"] = c0.score, 0
            if shipped is not c0:
                stats["closeness"].insert(0, row_of(0, shipped, "base"))
                if shipped.score > c0.score:
                    stats["best_score"], stats["best_checkpoint"] = shipped.score, "base"
            snapshot()
            log(f"base voice at your pitch: {c0.describe()}"
                + (f"; as it ships: {shipped.describe()}" if shipped is not c0 else ""))
        judge.base_similarity = stats["base_similarity"]
    # last: everything above may draw random numbers
    if resume:
        ranks = state.get("rng_ranks") or []
        restore_rng_state(ranks[par.rank] if len(ranks) == par.world else state["rng"])
        if len(ranks) != par.world and par.rank:  # saved by another number of processes (or on close)
            _seed_all(config.seed, par.rank, tr.step)
        del state
    elif par.rank:
        _seed_all(config.seed, par.rank, 0)  # each process its own slices / noise; process 0 as one alone
    writer = rf.tensorboard(purge_step=tr.step + 1 if resume else None) if par.main else None
    oom = getattr(torch, "OutOfMemoryError", torch.cuda.OutOfMemoryError)

    def save(kind: str, rngs: list | None = None) -> Path:
        """``rngs``: every process's RNG state (``par.gather``); None: this process's only."""
        extra = {"base": {**info.to_dict(), "step": tr.step}, "val_mel_loss": float(stats["last_val"])}
        if kind == "latest":
            rngs = rngs or [capture_rng_state()]
            extra.update({"trainer": stats, "world": par.world}, **({"rng_ranks": rngs} if len(rngs) > 1 else {}))
            return rf.save_checkpoint(tr.state_dict(rngs[0], extra), kind)
        return atomic_torch_save(generator_state(), rf.checkpoint_path("best"))

    def oom_error(what: str) -> TrainingError:
        torch.cuda.empty_cache()
        bs, ga = config.batch_size, config.grad_accum
        hint = ("the run can be resumed with --resume" if rf.checkpoint_path("latest").is_file()
                else "start it again")
        return TrainingError(f"out of GPU memory at batch size {bs} ({what}): try --batch-size {max(1, bs // 2)} "
                             f"--grad-accum {ga * 2} (or --gradient-checkpointing); {hint}")

    def evaluate() -> tuple:
        """Process 0: validation mel loss, history, the clone judge's closeness, best.pt when the
        best score (closeness, else the lowest mel loss) improved, log + TensorBoard."""
        val, recon = tr.evaluate(val_batches)
        history = stats["val_history"] = stats["val_history"] + [val]
        lowest = stats["best_val"] is None or val < stats["best_val"]
        stats["last_val"] = val
        if lowest:
            stats["best_val"] = val
        close, text = None, ""
        if judge is not None:
            c = judge.judge([w for _t, w in _speak(tr, voice, judge_texts, config.seed)])
            close = c.to_dict()
            base_mos = stats.get("base_naturalness")
            stats["closeness"] = stats.get("closeness", []) + [row_of(tr.step, c)]
            advice = closeness_advice(stats["closeness"], manifest.total_s / 60,
                                      changing=stage not in ("warmup", "discriminator"))
            text = c.describe() + (f". {advice[0].upper()}{advice[1:]}" if advice else "")
            score = c.score
            # the guard (issue 45): a checkpoint much less natural than the base is never the best
            eligible = natural_enough(c.naturalness, base_mos)
            if not eligible:
                text += (f". Much less natural than the base voice ({c.naturalness:.1f} vs {base_mos:.1f}): "
                         "not recommended")
            trained = [r for r in stats["closeness"] if r["step"] > disc_end]
            if config.stop_early and stage == "train" and trade_stalled(trained, base_mos):
                stats["early_stop"] = tr.step
        else:
            score, eligible = -val, True
        best = eligible and (stats.get("best_score") is None or score > stats["best_score"])
        if best:
            stats["best_score"], stats["best_step"], stats["best_checkpoint"] = score, tr.step, f"step_{tr.step}"
        warn = overtraining_warning(history, config.patience, stats["best_step"]) if judge is None else ""
        log(f"eval step {tr.step}: val mel {val:.4f} (recon {recon:.4f}){' best' if best else ''}"
            + (f"; {warn}" if warn else "") + (f"; {text}" if text else ""))
        if writer is not None:
            writer.add_scalar("val/mel", val, tr.step)
            writer.add_scalar("val/recon_mel", recon, tr.step)
            if close is not None:
                writer.add_scalar("clone/similarity", close["similarity"], tr.step)
                if close["naturalness"] is not None:
                    writer.add_scalar("clone/naturalness", close["naturalness"], tr.step)
        if judge is not None:
            path = snapshot()
            return val, recon, best, warn, rf.checkpoint_path("best") if best else path, close, text
        return val, recon, best, warn, save("best") if best else None, close, text

    saved_step = tr.step if resume else -1
    stage = None
    times: deque = deque(maxlen=20)
    try:
        while tr.step < total:
            if control.pause.is_set() and not control.stop.is_set():
                log(f"paused at step {tr.step}")
                while control.pause.is_set() and not control.stop.is_set():
                    time.sleep(0.1)
                times.clear()
            if par.any(control.stop.is_set()):
                break
            now_stage = "warmup" if tr.step < warmup else "discriminator" if tr.step < disc_end else "train"
            if now_stage != stage:
                stage = now_stage
                if (stage != "warmup" and config.pitch_conform and not has_posterior and config.freeze_prior
                        and not tr.conformed):
                    yield StageEvent(stage, "matching your recordings' pitch to the base voice's intonation "
                                            f"({len(clips.train)} clips) ...")
                    # process 0 writes the conformed clips first; the others then read them
                    done = par.on_main(lambda: _conform(tr, source, clips.train, fc, rf.cache_dir, config, speaker),
                                       "pitch-conforming the clips")
                    conformed, note = done if par.main else _conform(tr, source, clips.train, fc, rf.cache_dir,
                                                                     config, speaker)
                    log(note)
                    yield StageEvent(stage, note)
                    if conformed is not None:
                        loader = _loader(conformed)
                        batches = iter(loader)
                        tr.conformed = True
                msg = {"warmup": f"warm-up: fitting the new posterior encoder to the frozen decoder, steps "
                                 f"{tr.step + 1}..{warmup}",
                       "discriminator": f"discriminator: learning to tell your recordings from the voice's "
                                        f"rendering of them before it judges the voice, steps {tr.step + 1}..{disc_end}",
                       "train": f"training generator + discriminator, steps {tr.step + 1}..{total} ({device}, "
                                f"{precision}, batch {config.batch_size} x {config.grad_accum}"
                                + ("; text encoder, flow, duration predictor and posterior encoder kept as they are"
                                   if config.freeze_prior and config.freeze_text_encoder else "") + ")"}[stage]
                log(msg)
                last = {"warmup": warmup, "discriminator": disc_end}.get(stage, total)
                yield StageEvent(stage, msg, (tr.step + 1, last))
            t0 = time.perf_counter()
            group = [next(batches) for _ in range(config.grad_accum)]
            tr.batches_seen += config.grad_accum * par.world
            try:
                losses = (tr.train_step(group) if stage == "train" else
                          tr.train_step(group, generator=False) if stage == "discriminator" else
                          tr.warmup_step(group))
            except oom:
                raise oom_error(f"step {tr.step + 1}") from None
            except NonFiniteLoss as exc:
                raise TrainingError(f"loss became NaN / inf at step {tr.step + 1} ({exc}); the last checkpoint "
                                    f"(step {max(saved_step, 0)}) is kept: try a lower --lr, or fp32") from None
            if tr.nonfinite_streak >= NONFINITE_LIMIT:
                raise TrainingError(f"loss NaN / inf for {NONFINITE_LIMIT} fp16 steps in a row up to step {tr.step} "
                                    f"({', '.join(tr.last_nonfinite)}): try --precision fp32 or bf16, or a lower --lr")
            times.append(time.perf_counter() - t0)
            sps = len(times) / sum(times)
            lr = tr.opt_g.param_groups[0]["lr"]
            if writer is not None:
                for k, v in losses.items():
                    writer.add_scalar(f"{stage}/{k}", v, tr.step)
                writer.add_scalar("lr", lr, tr.step)
            if tr.step % 10 == 0 or tr.step == total:
                log(f"step {tr.step} {stage} " + " ".join(f"{k} {v:.4f}" for k, v in losses.items()))
            yield StepEvent(tr.step, total, dict(losses), sps, (total - tr.step) / sps, lr, stage, times[-1])

            if val_batches and (tr.step % config.eval_every == 0 or tr.step == total):
                try:
                    result = par.on_main(evaluate, "the evaluation")
                except oom:
                    raise oom_error("validation") from None
                if result is not None:  # process 0
                    val, recon, best, warn, path, close, text = result
                    yield EvalEvent(tr.step, val, best, warn, recon, close, text)
                    if best:
                        yield CheckpointEvent(tr.step, path, "best")
                    if stats.get("early_stop") == tr.step:
                        msg = (f"stopping early at step {tr.step}: the voice has become much less natural than "
                               f"the base and no closer to yours; the best checkpoint (step {stats['best_step']}) "
                               "is kept")
                        log(msg)
                        yield StageEvent("train", msg)
                if par.any(stats.get("early_stop") == tr.step):
                    break  # the run ends here: latest.pt below, reason "finished"
            if tr.step % config.checkpoint_every == 0 or tr.step == total:
                rngs = par.gather(capture_rng_state())
                paths = par.on_main(lambda: (save("latest", rngs), None if val_batches else save("best")),
                                    "writing the checkpoint")
                saved_step = tr.step
                if par.main:
                    log(f"checkpoint latest at step {tr.step}")
                    yield CheckpointEvent(tr.step, paths[0], "latest")
                    if paths[1] is not None:  # nothing to validate on: the latest generator is the best we know
                        yield CheckpointEvent(tr.step, paths[1], "best")
                paths = par.on_main(lambda: _samples(tr, voice, texts, tr.step, rf.samples_dir, config.seed),
                                    "synthesising the samples")
                if par.main:
                    if writer is not None:
                        import soundfile as sf

                        for p in paths:
                            writer.add_audio(f"samples/{p.stem.split('_', 2)[-1]}",
                                             torch.from_numpy(sf.read(p)[0]), tr.step, fc.decode_rate)
                        writer.flush()
                    yield SampleEvent(tr.step, paths)
    except GeneratorExit:
        if tr.step != saved_step and par.main:  # no collective here: the other processes may be gone
            save("latest")
            log(f"closed at step {tr.step}; checkpoint latest saved")
        if par.main and not rf.checkpoint_path("best").is_file():
            save("best")  # nothing judged yet: the latest generator is the best there is
        raise
    finally:
        if writer is not None:
            writer.close()
    reason = "finished" if tr.step >= total or stats.get("early_stop") == tr.step else "stopped"
    if tr.step != saved_step:
        rngs = par.gather(capture_rng_state())
        path = par.on_main(lambda: save("latest", rngs), "writing the checkpoint")
        if par.main:
            yield CheckpointEvent(tr.step, path, "latest")
    best_path = rf.checkpoint_path("best")
    if par.any(not best_path.is_file()):  # stopped before the first evaluation: the latest generator is the best there is
        path = par.on_main(lambda: save("best"), "writing the checkpoint")
        if par.main:
            yield CheckpointEvent(tr.step, path, "best")
    log(f"{reason} at step {tr.step}")
    yield DoneEvent(tr.step, best_path if best_path.is_file() else None, reason)
