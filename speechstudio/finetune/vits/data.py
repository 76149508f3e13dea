"""Clips of a prepared dataset (``finetune.manifest.Manifest``) as VITS training batches.

``prepare_clips`` turns text into ids with the base voice's front end and audio into cached features;
``ClipDataset`` + ``collate`` pad them; ``BucketBatches`` gives seeded, length-bucketed batches where
batch ``k`` is a pure function of (seed, k), as VITS' ``DistributedBucketSampler`` groups lengths."""
from __future__ import annotations

import hashlib
import io
import random
from dataclasses import dataclass, field
from pathlib import Path

from speechstudio.atomic import atomic_write_bytes, write_reason
from speechstudio.audio.decode import load_audio
from speechstudio.errors import SpeechStudioError
from speechstudio.finetune.run import RunError
from speechstudio.finetune.vits.features import linear_spectrogram, linear_to_mel


@dataclass(frozen=True)
class ClipItem:
    """One usable clip: ``token_ids`` of its text, ``frames`` = samples // hop, cached features."""

    id: str
    text: str
    token_ids: tuple[int, ...]
    frames: int
    cache_path: Path


@dataclass
class PreparedClips:
    """Training and validation clips, and (clip id, reason) for every clip left out."""

    train: list[ClipItem] = field(default_factory=list)
    val: list[ClipItem] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _compute_features(audio: Path, fc, path: Path) -> int:
    """Decode ``audio`` at ``fc.decode_rate``, compute spec + mel, save atomically; return frames."""
    import torch

    wav = torch.from_numpy(load_audio(audio, fc.decode_rate)).float().clamp(-1, 1)
    frames = wav.numel() // fc.hop_length
    if frames == 0:
        return 0
    wav = wav[: frames * fc.hop_length]
    spec = linear_spectrogram(wav, fc)
    mel = linear_to_mel(spec, fc)
    save_features({"wav": torch.round(wav * 32767).to(torch.int16), "spec": spec.half(), "mel": mel.half()}, path)
    return frames


def save_features(data: dict, path: Path) -> None:
    """``torch.save(data)`` to ``path`` atomically, serialised in memory first (a full disk then raises
    ``OSError(ENOSPC)`` on write). Raises ``RunError`` naming the cache folder: not the clip's fault, so
    the run stops rather than skip every clip."""
    import torch

    buf = io.BytesIO()
    torch.save(data, buf)
    try:
        atomic_write_bytes(path, buf.getvalue())
    except OSError as exc:
        why = write_reason(exc)
        raise RunError(f"{path.parent}: could not write the feature cache ({why})") from exc


def prepare_clips(manifest, dataset_dir, voice, fc, cache_dir, val_count: int | None = None) -> PreparedClips:
    """Token ids + cached features for the usable clips of ``manifest``.

    ``voice``: the loaded base (``VitsVoice``); ``fc``: its ``FeatureConfig``; ``cache_dir``:
    ``ID-HASH.pt`` files (float16 spec / mel, int16 audio). Validation split: ``Manifest.split``.
    Clips the voice cannot say, unreadable audio, or fewer frames than tokens (MAS needs frames >=
    tokens) go to ``skipped``; nothing is raised for a bad clip."""
    import torch

    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    out = PreparedClips()
    train, val = manifest.split(val_count)
    val_ids = {c.id for c in val}
    for clip in sorted(train + val, key=lambda c: c.id):
        voice.warnings.clear()
        try:
            ids = voice.text_to_ids(clip.text)
        except SpeechStudioError as exc:
            out.skipped.append((clip.id, f"text the voice cannot say ({exc})"))
            continue
        out.warnings.extend(f"{clip.id}: {w}" for w in voice.warnings)
        voice.warnings.clear()
        audio = manifest.path_of(clip, dataset_dir)
        try:
            st = audio.stat()  # the cache key: the clip, its file's size and time, the feature settings
            key = f"{clip.id}|{audio.resolve()}|{st.st_size}|{st.st_mtime_ns}|{sorted(fc.to_dict().items())}|v1"
            safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in clip.id)[:60]
            path = cache_dir / f"{safe}-{hashlib.sha1(key.encode()).hexdigest()[:12]}.pt"
            frames = (int(torch.load(path, weights_only=True)["spec"].shape[-1]) if path.is_file()
                      else _compute_features(audio, fc, path))
        except RunError:
            raise
        except (SpeechStudioError, OSError, RuntimeError, ValueError) as exc:
            out.skipped.append((clip.id, f"audio unreadable ({type(exc).__name__}: {str(exc)[:80]})"))
            continue
        if frames < len(ids):
            out.skipped.append((clip.id, f"audio too short for its text ({frames} frames for {len(ids)} symbols)"))
            continue
        item = ClipItem(clip.id, clip.text, tuple(int(i) for i in ids), frames, path)
        (out.val if clip.id in val_ids else out.train).append(item)
    return out


class ClipDataset:
    """Map-style dataset: item -> ``ids`` long (t_x,), ``spec`` (bins, frames), ``mel`` (n_mels,
    frames), ``wav`` (frames * hop,) in [-1, 1], and ``latent`` (flow, frames) for pitch-conformed
    clips; float32."""

    def __init__(self, items: list[ClipItem]):
        self.items = list(items)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> dict:
        import torch

        item = self.items[i]
        data = torch.load(item.cache_path, weights_only=True)
        out = {"ids": torch.tensor(item.token_ids, dtype=torch.long), "spec": data["spec"].float(),
               "mel": data["mel"].float(), "wav": data["wav"].float() / 32767.0}
        if "latent" in data:
            out["latent"] = data["latent"].float()
        return out


def collate(batch: list[dict], hop_length: int, min_frames: int = 1) -> dict:
    """Pad ``ClipDataset`` items: ``input_ids`` (b, t_x) long, ``input_mask`` (b, t_x), ``spec`` (b,
    bins, t_y), ``mel`` (b, n_mels, t_y), ``spec_mask`` (b, t_y), ``wav`` (b, 1, t_y * hop), [``latent``
    (b, flow, t_y)]; t_y >= ``min_frames``."""
    import torch
    import torch.nn.functional as F

    t_x = max(len(x["ids"]) for x in batch)
    t_y = max(max(x["spec"].shape[-1] for x in batch), min_frames)

    def padded(key: str, length: int):  # each item's last axis zero-padded to ``length``, stacked
        return torch.stack([F.pad(x[key], (0, length - x[key].shape[-1])) for x in batch])

    def mask(key: str, length: int):
        return (torch.arange(length) < torch.tensor([[x[key].shape[-1]] for x in batch])).float()

    out = {"input_ids": padded("ids", t_x), "input_mask": mask("ids", t_x), "spec": padded("spec", t_y),
           "mel": padded("mel", t_y), "spec_mask": mask("spec", t_y), "wav": padded("wav", t_y * hop_length)[:, None]}
    if "latent" in batch[0]:
        out["latent"] = padded("latent", t_y)
    return out


class BucketBatches:
    """Endless, seeded, length-bucketed batches of indices, resumable at any batch number.

    Per epoch e (``random.Random(f"{seed}:{e}")``): sort by length with +-10 % jitter, cut into full
    runs of ``batch_size``, shuffle the runs; ceil(n / batch_size) batches per epoch. From ``start``,
    process ``rank`` of ``world`` yields ``start + rank``, ``start + rank + world``, ..."""

    def __init__(self, lengths: list[int], batch_size: int, seed: int, start: int = 0, world: int = 1,
                 rank: int = 0):
        if len(lengths) < batch_size:
            raise ValueError("fewer clips than one batch")
        if not 0 <= rank < world:
            raise ValueError(f"rank {rank} outside 0..{world - 1}")
        self.lengths, self.batch_size, self.seed = list(lengths), int(batch_size), int(seed)
        self.start, self.world, self.rank = int(start), int(world), int(rank)

    def epoch_batches(self, epoch: int) -> list[list[int]]:
        rng = random.Random(f"{self.seed}:{epoch}")
        keyed = [(length * (1.0 + 0.2 * (rng.random() - 0.5)), i) for i, length in enumerate(self.lengths)]
        order = [i for _, i in sorted(keyed)]
        bs = self.batch_size
        batches = [order[j: j + bs] for j in range(0, len(order) - bs + 1, bs)]
        if len(order) % bs:
            batches.append(order[-bs:])
        rng.shuffle(batches)
        return batches

    def __iter__(self):
        k = self.start + self.rank
        epoch, cached = None, None
        while True:
            e, j = divmod(k, -(-len(self.lengths) // self.batch_size))
            if e != epoch:
                epoch, cached = e, self.epoch_batches(e)
            yield cached[j]
            k += self.world
