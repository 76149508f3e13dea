"""A training run folder: layout, config, atomic checkpoints, RNG state, logs (any trainer).

::

    RUN_DIR/
      config.json            what was asked for: {"train": ..., "base": ..., "dataset": ..., ...}
      checkpoints/latest.pt  full resume state (written atomically: temp + fsync + os.replace)
      checkpoints/best.pt    what gets exported (written atomically)
      samples/               audio / text written at checkpoints
      cache/                 features computed once (trainer-specific)
      tb/                    TensorBoard event files (torch.utils.tensorboard.SummaryWriter)
      train.log              plain-text log, one timestamped line per event

Only ``best`` and ``latest`` are kept. A checkpoint is a dict of tensors, numbers, strings, lists
and dicts only, so it loads with ``torch.load(weights_only=True)`` (no pickled code runs when a
run folder from elsewhere is opened). A failed write (disk full, permissions) raises ``RunError``
and leaves the previous checkpoint of that kind as it was.
"""
from __future__ import annotations

import json
import os
import random
import re
import time
from pathlib import Path

from speechstudio.atomic import atomic_path, atomic_write_json, write_reason
from speechstudio.errors import SpeechStudioError


class RunError(SpeechStudioError):
    """A run folder cannot be created, resumed, read or written; the message says which file."""


class TrainingError(SpeechStudioError):
    """Training cannot go on (out of GPU memory, too few clips, a non-finite loss, a base that
    cannot be trained); the message says why and what to try."""


def atomic_torch_save(obj, path: str | os.PathLike) -> Path:
    """``torch.save(obj)`` to ``path`` atomically (:func:`speechstudio.atomic.atomic_path`). On any
    error ``path`` keeps its old content, and an ``OSError`` becomes ``RunError`` (disk full is named
    as such)."""
    import torch

    path = Path(path)
    try:
        with atomic_path(path) as tmp, open(tmp, "wb") as f:
            torch.save(obj, f)
    except OSError as exc:
        why = write_reason(exc)
        kept = "the previous checkpoint is kept" if path.exists() else "nothing was written"
        raise RunError(f"{path}: could not write the checkpoint ({why}); {kept}") from exc
    return path


def capture_rng_state() -> dict:
    """Python ``random``, numpy's global, torch CPU and (if initialised) CUDA RNG states, as
    tensors / lists (loadable with ``weights_only=True``)."""
    import numpy as np
    import torch

    py = random.getstate()
    np_state = np.random.get_state()
    state = {
        "python": [py[0], list(py[1]), py[2]],
        "numpy": [np_state[0], torch.from_numpy(np_state[1].astype(np.int64)), int(np_state[2]), int(np_state[3]),
                  float(np_state[4])],
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng_state(state: dict) -> None:
    """Inverse of ``capture_rng_state`` (CUDA states only if CUDA is initialised here too)."""
    import numpy as np
    import torch

    v, internal, gauss = state["python"]
    random.setstate((v, tuple(internal), gauss))
    name, keys, pos, has_gauss, cached = state["numpy"]
    np.random.set_state((name, keys.numpy().astype(np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


class RunFolder:
    """Paths and files of one run folder (see the module docstring)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.config_path = self.path / "config.json"
        self.checkpoints_dir = self.path / "checkpoints"
        self.samples_dir = self.path / "samples"
        self.cache_dir = self.path / "cache"
        self.tb_dir = self.path / "tb"
        self.log_path = self.path / "train.log"

    def checkpoint_path(self, kind: str) -> Path:
        """``checkpoints/latest.pt``, ``checkpoints/best.pt`` or ``checkpoints/step_N.pt`` (a step the
        clone judge kept, ``finetune.trade``)."""
        if kind not in ("latest", "best") and not re.fullmatch(r"step_\d+", kind):
            raise ValueError(f"checkpoint kind must be 'latest', 'best' or 'step_N', not {kind!r}")
        return self.checkpoints_dir / f"{kind}.pt"

    # ------------------------------------------------------------------ config
    def read_config(self) -> dict:
        try:
            return json.loads(self.config_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise RunError(f"{self.path}: not a run folder (config.json missing)") from None
        except (OSError, ValueError) as exc:
            raise RunError(f"{self.config_path}: unreadable ({type(exc).__name__}: {exc})") from exc

    def ctc_dataset(self) -> Path:
        """The prepared dataset a recognition (CTC) run was started on (``config.json`` ``"dataset"``), which a
        resume trains on. Raises ``RunError`` (no run, unreadable, not a CTC run)."""
        cfg = self.read_config()
        if not isinstance(cfg, dict) or not isinstance(cfg.get("dataset"), str):
            raise RunError(f"{self.config_path}: not a recognition (CTC) run")
        return Path(cfg["dataset"])

    def check_start(self, resume: bool, instead: str = "run folder") -> None:
        """``RunError`` unless the folder holds ``checkpoints/latest.pt`` exactly when ``resume``."""
        if resume and not self.checkpoint_path("latest").is_file():
            raise RunError(f"{self.path}: nothing to resume (no checkpoints/latest.pt); start without --resume")
        if not resume and self.checkpoint_path("latest").is_file():
            raise RunError(f"{self.path}: already holds a run (checkpoints/latest.pt); resume it (--resume) "
                           f"or choose another {instead}")

    def start(self, config: dict, resume: bool, identity: tuple[str, ...] = ("base", "dataset")) -> dict:
        """Create the folder for a new run, or check it for a resume; write ``config.json``.

        New run: refused (``RunError``) when the folder already holds a checkpoint. Resume:
        needs ``checkpoints/latest.pt``; the values under ``identity`` keys (base model, dataset)
        must equal the stored ones, else ``RunError`` names the difference. Other values (steps,
        batch size, ...) may change on resume; the previous ones are kept under ``"history"``.
        Returns the config as written.
        """
        self.check_start(resume)
        if resume:
            old = self.read_config()
            for key in identity:
                if old.get(key) != config.get(key):
                    raise RunError(f"{self.path}: cannot resume: this run was trained with {key} "
                                   f"{json.dumps(old.get(key))}, not {json.dumps(config.get(key))}")
            history = list(old.get("history", []))
            prev = {k: v for k, v in old.items() if k != "history"}
            if prev != config:
                history.append(prev)
            config = {**config, "history": history}
        self.path.mkdir(parents=True, exist_ok=True)
        self.checkpoints_dir.mkdir(exist_ok=True)
        atomic_write_json(self.config_path, config)
        return config

    # ------------------------------------------------------------------ checkpoints
    def save_checkpoint(self, state: dict, kind: str) -> Path:
        """Write ``state`` as ``checkpoints/<kind>.pt`` atomically (``atomic_torch_save``)."""
        return atomic_torch_save(state, self.checkpoint_path(kind))

    def load_checkpoint(self, kind: str = "latest", map_location="cpu") -> dict:
        """Read a checkpoint (``weights_only=True``). Raises ``RunError`` when missing / corrupt."""
        import torch

        path = self.checkpoint_path(kind)
        if not path.is_file():
            judged = " (the table lists the judged steps)" if kind.startswith("step_") else ""
            raise RunError(f"{path}: no {kind} checkpoint in this run folder{judged}")
        try:
            return torch.load(path, map_location=map_location, weights_only=True)
        except Exception as exc:  # noqa: BLE001 - zip / unpickling errors of a damaged file
            raise RunError(f"{path}: unreadable checkpoint ({type(exc).__name__}: {str(exc)[:120]})") from exc

    # ------------------------------------------------------------------ logs
    def log(self, message: str) -> None:
        """Append ``message`` (one line per line) to ``train.log`` with a local timestamp."""
        self.path.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        with open(self.log_path, "a", encoding="utf-8") as f:
            for line in str(message).splitlines() or [""]:
                f.write(f"{stamp} {line}\n")

    def tensorboard(self, purge_step: int | None = None):
        """A ``torch.utils.tensorboard.SummaryWriter`` on ``tb/`` (``purge_step``: drop events at
        or after that step left by an interrupted run)."""
        from torch.utils.tensorboard import SummaryWriter

        return SummaryWriter(log_dir=str(self.tb_dir), purge_step=purge_step)


def seed_all(seed: int, rank: int = 0, step: int = 0) -> None:
    """Seed Python's ``random``, NumPy's global RNG (SpecAugment masks) and torch's for process ``rank`` from
    ``step`` on (rank 0 at step 0: ``seed`` itself, so two runs with one seed start equal)."""
    import numpy as np
    import torch

    value = seed if (rank, step) == (0, 0) else hash((seed, rank, step)) & 0x7FFF_FFFF
    random.seed(value)
    np.random.seed(value % 2**32)
    torch.manual_seed(value)
