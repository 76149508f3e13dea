"""Disk space left by fine-tuning runs: trim a finished run, list and remove old runs.

A run folder (``finetune.run.RunFolder``) holds ``checkpoints/latest.pt`` (the full resume state, ~0.5 GB
for a Piper medium voice), ``cache/`` (features, up to a few hundred MB) and ``checkpoints/best.pt`` (the
generator, ~0.1 GB). Once its voice is saved, :func:`trim_finished` removes ``RESUME_ONLY``;
:func:`list_runs` / :func:`remove_run` serve ``finetune clean`` and the wizard; :func:`remove_voice_and_run`
removes a voice with its run. A run whose ``.lock`` another process holds is never touched. Qt-free."""
from __future__ import annotations

import contextlib
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from speechstudio.disk import dir_size_bytes
from speechstudio.finetune.run import RunError
from speechstudio.finetune.voice_run import run_lock, runs_dir
from speechstudio.tts.voices import VoiceRef, read_voice_meta, remove_voice, voices_dir

#: What only resuming a run needs (relative to the run folder).
RESUME_ONLY = ("checkpoints/latest.pt", "cache")


def _modified(path: Path) -> float:
    """Newest mtime of ``path`` and everything under it (links not followed)."""
    times = [path.stat().st_mtime]
    for p in path.rglob("*"):
        with contextlib.suppress(OSError):  # removed meanwhile
            times.append(p.lstat().st_mtime)
    return max(times)


def _remove(path: Path) -> int:
    size = dir_size_bytes(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    else:
        return 0
    return size


def trim_finished(run_dir: Path) -> int:
    """After a run finished: remove ``RESUME_ONLY`` (and stray ``*.part`` temp files), keep
    ``checkpoints/best.pt``. Returns the bytes freed (0 when there is no ``best.pt``: then nothing
    is removed, the run's only checkpoint is ``latest.pt``). Raises ``RunError`` when a file
    cannot be removed."""
    run_dir = Path(run_dir)
    if not (run_dir / "checkpoints" / "best.pt").is_file():
        return 0
    try:
        parts = (run_dir / "checkpoints").glob(".*.part")  # temp files of an interrupted write
        return sum(_remove(p) for p in [*(run_dir / rel for rel in RESUME_ONLY), *parts])
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot remove the resume state ({exc.strerror or exc})") from exc


@dataclass(frozen=True)
class RunSummary:
    """One run folder: ``name`` (the folder's name: the voice or model it trains), ``size_bytes``,
    ``modified`` (epoch seconds of the newest file, or the folder), ``state``: ``"resumable"``
    (``latest.pt``), ``"finished"`` (``best.pt`` only), ``"in use"`` (another process trains in it)
    or ``"no checkpoint"``."""

    path: Path
    name: str
    size_bytes: int
    modified: float
    state: str

    def age_days(self, now: float | None = None) -> float:
        return max(0.0, ((now or time.time()) - self.modified) / 86400.0)


def _in_use(run_dir: Path) -> bool:
    """True when another process holds the run's ``.lock`` (it is training there)."""
    lock = run_dir / ".lock"
    if not lock.exists():
        return False
    try:
        with run_lock(run_dir):
            return False
    except RunError:
        return True


def _state(run_dir: Path) -> str:
    if _in_use(run_dir):
        return "in use"
    if (run_dir / "checkpoints" / "latest.pt").is_file():
        return "resumable"
    return "finished" if (run_dir / "checkpoints" / "best.pt").is_file() else "no checkpoint"


def has_checkpoint(run_dir: Path) -> bool:
    return any((run_dir / "checkpoints" / f"{kind}.pt").is_file() for kind in ("latest", "best"))


def list_runs(root: Path | None = None, unstarted: bool = False) -> list[RunSummary]:
    """The run folders under ``root`` (default ``<data dir>/finetune/runs``), oldest first. A folder without
    ``config.json`` is not a run and is left out; with ``unstarted``, one without a checkpoint either (a start
    that failed before training, left by versions that kept it) is listed as ``failed start`` or ``in use``."""
    root = Path(root) if root is not None else runs_dir()
    if not root.is_dir():
        return []
    runs = [RunSummary(p, p.name, dir_size_bytes(p), _modified(p), _state(p))
            for p in sorted(root.iterdir()) if p.is_dir() and (p / "config.json").is_file()]
    runs += [RunSummary(p, p.name, dir_size_bytes(p), _modified(p), "in use" if _in_use(p) else "failed start")
             for p in sorted(root.iterdir()) if unstarted and p.is_dir() and not p.is_symlink()
             and not (p / "config.json").is_file() and not has_checkpoint(p)]
    return sorted(runs, key=lambda r: r.modified)


def remove_run(run_dir: Path) -> int:
    """Remove a whole run folder; returns the bytes freed. Raises ``RunError`` when another
    process is training in it, when it is not a run folder, or when it cannot be removed."""
    run_dir = Path(run_dir)
    if not (run_dir / "config.json").is_file():
        raise RunError(f"{run_dir}: not a run folder (config.json missing)")
    if _in_use(run_dir):
        raise RunError(f"{run_dir}: a training is running in it; stop it first")
    try:
        return _remove(run_dir)
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot remove it ({exc.strerror or exc})") from exc


def _cloned_from(voice_dir: Path) -> Path | None:
    """The run folder ``voice.json`` names (``"cloned_from_run"``), resolved; None when it names none."""
    meta = read_voice_meta(Path(voice_dir) / "voice.json")
    run = meta.get("cloned_from_run") if isinstance(meta, dict) else None
    return Path(run).resolve() if isinstance(run, str) and run else None


def run_of_voice(voice_dir: Path) -> Path | None:
    """The run folder a stored voice was trained in when it still exists under ``<data dir>/finetune/runs``
    (a folder elsewhere is never removed) and no other stored voice was saved from it, else None."""
    run = _cloned_from(voice_dir)
    if run is None or run.parent != runs_dir().resolve() or not (run / "config.json").is_file():
        return None
    voice_dir = Path(voice_dir).resolve()
    others = (d for d in voices_dir().iterdir() if d.is_dir() and d.resolve() != voice_dir)
    return None if any(_cloned_from(d) == run for d in others) else run


def remove_voice_and_run(name: str) -> tuple[VoiceRef, Path | None, int]:
    """Remove the store voice ``name`` (``tts.voices.remove_voice``) and the run folder it was
    trained in (:func:`run_of_voice`): nothing else uses it. Returns ``(voice, run, bytes)``: the
    removed run folder and the bytes it freed, ``(voice, None, 0)`` when there was none or another
    training is using it now (that folder stays). Raises what ``remove_voice`` raises."""
    run = run_of_voice(voices_dir() / name)
    ref = remove_voice(name)
    if run is None:
        return ref, None, 0
    try:
        return ref, run, remove_run(run)
    except RunError:  # a new training of that name runs there now: its folder stays
        return ref, None, 0
