"""Issue 29, class 7: voice fine-tune runs leave ~0.8 GB each (checkpoints, feature cache) that
nothing removed, not even ``voices remove``.

A run that can be resumed keeps everything; once its voice is saved the run keeps ``best.pt``
only and says how much it freed (``finetune voice``: tests/test_finetune_cli.py, the wizard:
tests/test_gui_clone.py); ``finetune clean`` and the clone wizard's button list and remove old runs;
``voices remove`` removes the voice's run.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from speechstudio.cli import main
from speechstudio.finetune import leftovers
from speechstudio.finetune.run import RunError
from speechstudio.finetune.voice_run import run_lock

MB = 1_000_000


def _run(root: Path, name: str, *, latest: int = 0, best: int = 0, cache: int = 0, age_days: float = 0.0,
         trainer: str = "vits") -> Path:
    """A run folder with files of the given sizes (bytes)."""
    run = root / name
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"trainer": trainer}))
    (run / "train.log").write_text("step 1\n")
    (run / "data").mkdir()
    (run / "data" / "manifest.json").write_text("{}")
    for rel, size in (("checkpoints/latest.pt", latest), ("checkpoints/best.pt", best), ("cache/clip0.pt", cache)):
        if size:
            (run / rel).parent.mkdir(exist_ok=True)
            (run / rel).write_bytes(b"\0" * size)
    if age_days:
        old = time.time() - age_days * 86400
        for p in [run, *run.rglob("*")]:
            os.utime(p, (old, old))
    return run


def _runs(home: Path) -> Path:
    return home / "finetune" / "runs"


@pytest.mark.parametrize("files, freed, left", [
    (dict(latest=3 * MB, best=MB, cache=2 * MB), 5 * MB, ["best.pt"]),      # finished: resume state and cache go
    (dict(latest=3 * MB, cache=2 * MB), 0, ["latest.pt"]),                 # no best.pt: its only checkpoint stays
    (dict(best=MB), 0, ["best.pt"]),                                      # trimmed already
], ids=["finished", "no-best", "trimmed"])
def test_trim_finished_keeps_the_best_checkpoint(tmp_path, files, freed, left):
    run = _run(tmp_path, "v", **files)
    (run / "checkpoints" / ".latest.pt.x1.part").write_bytes(b"\0" * (10 if freed else 0))
    assert leftovers.trim_finished(run) == freed + (10 if freed else 0)
    assert sorted(p.name for p in (run / "checkpoints").iterdir() if not p.name.startswith(".")) == left
    assert (run / "cache").exists() == (freed == 0 and "cache" in files)
    assert (run / "data" / "manifest.json").is_file() and (run / "train.log").is_file()


def test_runs_are_listed_with_their_state_and_a_run_in_use_is_not_removed(home):
    root = _runs(home)
    _run(root, "old", best=MB, age_days=40)
    _run(root, "paused", latest=2 * MB, best=MB, age_days=3)
    busy = _run(root, "busy", latest=MB)
    (root / "not-a-run").mkdir()
    with run_lock(busy):
        runs = leftovers.list_runs()
        assert [(r.name, r.state, r.size_bytes // MB) for r in runs] == [
            ("old", "finished", 1), ("paused", "resumable", 3), ("busy", "in use", 1)]
        assert round(runs[0].age_days()) == 40
        with pytest.raises(RunError, match="a training is running in it"):
            leftovers.remove_run(busy)
    with pytest.raises(RunError, match="not a run folder"):
        leftovers.remove_run(root / "not-a-run")
    assert leftovers.remove_run(busy) > MB and not busy.exists()


def test_finetune_clean_dry_run_then_older_than(home, capsys):
    root = _runs(home)
    _run(root, "old", latest=3 * MB, best=MB, age_days=40)
    _run(root, "new", best=MB, age_days=1)
    assert main(["finetune", "clean", "--older-than", "30", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "  would go old" in out and "  kept     new" in out
    assert out.strip().endswith(f"1 of 2 run(s) would be removed; would free 4 MB in {root}")
    assert (root / "old").is_dir()
    assert main(["finetune", "clean", "--older-than", "30"]) == 0
    out = capsys.readouterr().out
    assert "  removed  old" in out and out.strip().endswith(f"1 of 2 run(s) removed; freed 4 MB in {root}")
    assert not (root / "old").exists() and (root / "new").is_dir()
    assert main(["finetune", "clean"]) == 0                 # default: every run not in use
    assert not (root / "new").exists()
    assert main(["finetune", "clean"]) == 0
    assert capsys.readouterr().out.strip().endswith(f"no training runs in {root}")
    assert main(["finetune", "clean", "--older-than", "-1"]) == 2


def _store_voice(home: Path, name: str, run: Path | None) -> Path:
    d = home / "voices" / name
    d.mkdir(parents=True)
    (d / f"{name}.onnx").write_bytes(b"onnx")
    (d / "voice.json").write_text(json.dumps({"kind": "piper", "file": f"{name}.onnx", "synthetic": True,
                                              "base": "joe", "cloned_from_run": str(run) if run else None}))
    return d


def test_voices_remove_removes_the_voice_and_its_run(home, tmp_path, capsys):
    root = _runs(home)
    run = _run(root, "mine", best=2 * MB)
    other = _run(root, "other", best=MB)
    outside = _run(tmp_path, "elsewhere", best=MB)           # a run folder outside the data dir is never removed
    _store_voice(home, "mine", run)
    _store_voice(home, "far", outside)
    assert main(["voices", "remove", "mine"]) == 0
    assert capsys.readouterr().out.strip() == f"removed voice mine and its training run {run.resolve()} (2 MB)"
    assert not run.exists() and not (home / "voices" / "mine").exists() and other.is_dir()
    assert main(["voices", "remove", "far"]) == 0
    assert capsys.readouterr().out.strip() == "removed voice far"
    assert outside.is_dir()
    # two voices saved from one run (a checkpoint and a blend): the run stays until the last one goes
    _store_voice(home, "take1", other)
    _store_voice(home, "take2", other)
    assert main(["voices", "remove", "take1"]) == 0
    assert capsys.readouterr().out.strip() == "removed voice take1" and other.is_dir()
    assert main(["voices", "remove", "take2"]) == 0
    assert capsys.readouterr().out.strip() == f"removed voice take2 and its training run {other.resolve()} (1 MB)"

