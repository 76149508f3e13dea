"""Clips -> CTC training items, length-grouped batches and padded tensors.

Audio is read per batch (``finetune.build.decode_native``; soxr when the dataset's rate differs from the feature
extractor's), so hours of data do not sit in memory. Batches group clips of similar length as
transformers' ``get_length_grouped_indices`` does (mega-batches of 50 batches sorted by length, the
longest batch first so an out-of-memory error shows at the first step)."""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from speechstudio.finetune.manifest import Clip, DatasetError

MEGA_BATCHES = 50  # transformers get_length_grouped_indices: mega-batch = 50 batches


@dataclass(frozen=True)
class Item:
    """One usable clip: ``path`` absolute, ``rate`` its sample rate (Hz), ``n_samples`` at the
    feature extractor's rate, ``text`` as written, ``target`` normalised, ``labels`` token ids."""

    clip_id: str
    path: Path
    rate: int
    n_samples: int
    text: str
    target: str
    labels: tuple[int, ...]


def prepare_items(clips: Sequence[Clip], root: Path, targets: Mapping[str, str],
                  encode: Callable[[str], list[int]], sample_rate: int, max_clip_s: float,
                  output_frames: Callable[[int], int], min_frames: int = 1) -> tuple[list[Item], list[tuple[str, str]]]:
    """Check each clip and turn it into an ``Item``; returns ``(items, refused)``.

    Refused (``(clip id, reason)``): unreadable or multi-channel audio, empty text, longer than
    ``max_clip_s`` seconds, fewer model output frames (``output_frames(n_samples)``) than
    ``min_frames`` (SpecAugment's mask length) or than the CTC alignment of its text needs.
    """
    import soundfile as sf

    items: list[Item] = []
    refused: list[tuple[str, str]] = []
    for clip in clips:
        path = Path(root) / clip.audio
        try:
            info = sf.info(str(path))
        except Exception as exc:  # soundfile raises RuntimeError / LibsndfileError / OSError
            refused.append((clip.id, f"{clip.audio}: unreadable ({str(exc).strip().splitlines()[0][:120]})"))
            continue
        if info.channels != 1:
            refused.append((clip.id, f"{clip.audio}: {info.channels} channels, expected mono"))
            continue
        n = int(round(info.frames * sample_rate / info.samplerate))
        seconds = n / sample_rate
        target = targets[clip.id]
        labels = tuple(encode(target))
        if not labels:
            refused.append((clip.id, "empty text after normalisation"))
        elif seconds > max_clip_s:
            refused.append((clip.id, f"{seconds:.1f} s is longer than the {max_clip_s:g} s limit "
                                     "(split it into shorter clips, or raise max_clip_s if memory allows)"))
        # CTC needs a frame per label plus a blank between equal neighbours
        elif output_frames(n) < max(min_frames, len(labels) + sum(a == b for a, b in zip(labels, labels[1:]))):
            refused.append((clip.id, f"{seconds:.2f} s gives {output_frames(n)} model frames, too few for "
                                     f"its {len(labels)}-character text (text longer than the audio?)"))
        else:
            items.append(Item(clip.id, path, int(info.samplerate), n, clip.text, target, labels))
    return items, refused


def read_clip(item: Item, sample_rate: int) -> np.ndarray:
    """The clip's audio: ``np.ndarray[float32]`` shape (n_samples,), mono at ``sample_rate`` Hz,
    range [-1, 1]. Raises ``DatasetError`` naming the file when it cannot be read."""
    from speechstudio.errors import AudioDecodeError
    from speechstudio.finetune.build import decode_native
    from speechstudio.finetune.check import resample

    try:
        audio, rate, _warnings = decode_native(Path(item.path))
    except AudioDecodeError as exc:
        raise DatasetError(f"{item.path}: cannot read audio ({exc})") from exc
    return resample(audio, rate, sample_rate)


def plan_epoch(lengths: Sequence[int], batch_size: int, seed: int, epoch: int, world: int = 1,
               rank: int = 0) -> list[list[int]]:
    """Length-grouped batches of item indices for one epoch, this process's share.

    Deterministic in ``(seed, epoch)``, so a resumed run replays the same order. With several
    processes (DDP) the batch list is cut to a multiple of ``world`` and rank ``r`` takes batches
    ``r, r + world, ...`` (every process does the same number of steps).
    """
    n = len(lengths)
    rng = random.Random(f"{seed}:{epoch}")
    order = list(range(n))
    rng.shuffle(order)
    mega = batch_size * MEGA_BATCHES
    batches: list[list[int]] = []
    for start in range(0, n, mega):
        group = sorted(order[start:start + mega], key=lambda i: -lengths[i])
        batches.extend(group[k:k + batch_size] for k in range(0, len(group), batch_size))
    rng.shuffle(batches)
    longest = max(range(len(batches)), key=lambda b: max(lengths[i] for i in batches[b]))
    batches[0], batches[longest] = batches[longest], batches[0]
    return batches[:(len(batches) // world) * world][rank::world]  # every process the same number of batches


def steps_per_epoch(n_items: int, batch_size: int, grad_accum: int, world: int = 1) -> int:
    """Optimizer steps in one epoch of :func:`plan_epoch` (its batches per process / ``grad_accum``)."""
    mega = batch_size * MEGA_BATCHES
    batches = (n_items // mega) * MEGA_BATCHES + math.ceil((n_items % mega) / batch_size)
    return max(1, math.ceil((batches // world) / grad_accum))


class Collator:
    """Items -> model inputs: ``{"input_values" | "input_features": float32 (B, T...),
    "attention_mask": int (B, T) when the feature extractor asks for one, "labels": int64 (B, L)
    padded with -100 (ignored by the CTC loss)}``, plus ``"input_lengths"`` (samples per clip)."""

    def __init__(self, feature_extractor) -> None:
        self.fe = feature_extractor
        self.rate = int(feature_extractor.sampling_rate)
        self.name = feature_extractor.model_input_names[0]
        self.with_mask = bool(getattr(feature_extractor, "return_attention_mask", False))

    def __call__(self, items: Sequence[Item]) -> dict:
        import torch

        feats = [self.fe(read_clip(it, self.rate), sampling_rate=self.rate)[self.name][0] for it in items]
        batch = self.fe.pad([{self.name: f} for f in feats], padding=True, return_tensors="pt",
                            return_attention_mask=True)
        out = {self.name: batch[self.name].float()}
        if self.with_mask:
            out["attention_mask"] = batch["attention_mask"]
        labels = torch.nn.utils.rnn.pad_sequence([torch.tensor(it.labels, dtype=torch.long) for it in items],
                                                 batch_first=True, padding_value=-100)
        out.update(labels=labels, input_lengths=batch["attention_mask"].sum(-1))
        return out

    def on(self, device: str, items: Sequence[Item]) -> tuple[dict, object, object]:
        """``(model inputs on device, labels on device, input_lengths on the CPU)`` of ``items``."""
        batch = self(items)
        lengths, labels = batch.pop("input_lengths"), batch.pop("labels").to(device)
        return {k: v.to(device, non_blocking=True) for k, v in batch.items()}, labels, lengths
