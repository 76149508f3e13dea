"""``speechstudio finetune voice --multi-gpu`` under ``accelerate launch`` (DDP), on the CPU (gloo).

One launch of 2 processes runs this file as a script (``_worker``): the real CLI three times on
the tiny VITS voice of ``test_finetune_vits`` (shrunk trainer as in ``finetune_cli_shrunk.py``,
plus a 1-step warm-up and a 1-step decoder stage, so the generator is re-wrapped at each stage
change, and the torch MAS):

A: 4 steps, checkpoint every 2, the voice saved; B: the same run stopped at step 2 by a signal
that only process 1 receives (the stop must be agreed), then ``--resume`` to step 4. Each process
dumps its in-memory generator + discriminator and the events it saw; the test compares them.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def launched(tmp_path_factory):
    from test_finetune_vits import make_dataset
    from tts_fixtures.tiny import make_tiny_vits

    tmp = tmp_path_factory.mktemp("ddp")
    base = make_tiny_vits(tmp / "base", stochastic=True)
    data = make_dataset(tmp / "data")
    env = {**os.environ, "SPEECHSTUDIO_HOME": str(tmp / "home"), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": str(ROOT / "tests")}
    env.pop("WORLD_SIZE", None)
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
           "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
           "--main_process_port", str(_free_port()), str(Path(__file__).resolve()), str(tmp), str(base), str(data)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-3000:])
    dumps = {(tag, r): torch.load(tmp / f"{tag}-rank{r}.pt", weights_only=True) for tag in "ab" for r in (0, 1)}
    return tmp, dumps, proc.stdout + proc.stderr


def _same(x: dict, y: dict) -> list[str]:
    return [f"{part}.{k}" for part in ("generator", "discriminator") for k in x[part]
            if not torch.equal(x[part][k], y[part][k])]


def test_both_processes_keep_identical_weights_and_losses_are_finite(launched):
    tmp, dumps, _ = launched
    a0, a1 = dumps["a", 0], dumps["a", 1]
    assert a0["rc"] == a1["rc"] == 0
    assert a0["steps"] == [(1, "warmup"), (2, "train"), (3, "train"), (4, "train")]  # re-wrapped per stage
    assert all(np.isfinite(v) for loss in a0["losses"] + a1["losses"] for v in loss.values())
    assert a0["losses"] == a1["losses"]  # every process logs the mean over the processes
    assert _same(a0, a1) == []  # gradients averaged: the weights never drift apart
    # they did train (the other process's different batches included) and match the checkpoint
    state = torch.load(tmp / "a" / "latest-before-trim.pt", weights_only=True)   # saving the voice trims the run
    assert state["step"] == 4 and state["world"] == 2 and len(state["rng_ranks"]) == 2
    assert state["batches_seen"] == 8  # 2 processes x 4 steps x 1 batch, one shared order
    assert _same(a0, state) == []
    from speechstudio.tts.family import load_voice

    before = load_voice(tmp / "base", device="cpu", precision="fp32", optimize=False).model.state_dict()
    assert any(not torch.equal(before[k], a0["generator"][k]) for k in before if k.startswith("decoder."))


def test_only_process_0_writes_and_speaks(launched):
    tmp, dumps, output = launched
    writes = {"CheckpointEvent", "EvalEvent", "SampleEvent"}
    assert writes <= set(dumps["a", 0]["events"]) and not writes & set(dumps["a", 1]["events"])
    # latest.pt was written (once), then the saved voice's run kept its best checkpoint and the judged steps
    # (issue 29 item 7; issue 45: `finetune save --checkpoint step_N` can still take another)
    assert (tmp / "a" / "latest-before-trim.pt").is_file()
    kept = sorted(p.name for p in (tmp / "a" / "checkpoints").iterdir())
    assert kept[0] == "best.pt" and "step_0.pt" in kept and all(re.fullmatch(r"step_\d+\.pt", n) for n in kept[1:])
    assert len(list((tmp / "a" / "tb").iterdir())) == 1
    log = (tmp / "a" / "train.log").read_text()
    assert log.count("checkpoint latest at step 2") == 1 and "x 2 processes" in log
    assert output.count("voice clone-a saved") == 1 and output.count("checkpoint (latest) at step 2:") == 2  # a, b
    assert (tmp / "home" / "voices" / "clone-a").is_dir() and (tmp / "home" / "voices" / "clone-b").is_dir()


def test_a_stop_on_one_process_stops_both_and_resume_is_exact(launched):
    _, dumps, output = launched
    assert dumps["b", 0]["stopped"] == dumps["b", 1]["stopped"] == (130, 2)  # only process 1 got the signal
    assert "continue with: accelerate launch --multi_gpu --num_processes 2 -m speechstudio finetune voice" in output
    for r in (0, 1):
        b = dumps["b", r]
        assert b["rc"] == 0 and [s for s, _ in b["steps"]] == [3, 4]
        assert _same(dumps["a", r], b) == []  # per-process RNG states in latest.pt: bit for bit


def test_multi_gpu_without_a_launcher_shows_the_command(home, tmp_path, monkeypatch, capsys):
    from speechstudio.cli import main

    monkeypatch.delenv("WORLD_SIZE", raising=False)
    argv = ["finetune", "voice", "--base", "en_US-joe-medium", "--data", str(tmp_path / "my data"), "--out", "me",
            "--steps", "50", "--multi-gpu"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "WORLD_SIZE is not set" in err
    assert (f"accelerate launch --multi_gpu --num_processes 2 -m speechstudio finetune voice --base en_US-joe-medium "
            f"--data '{tmp_path / 'my data'}' --out me --steps 50 --multi-gpu") in err
    assert not (home / "finetune").exists()


# ----------------------------------------------------------------------------- the launched script
def _worker(tmp: Path, base: str, data: str) -> None:
    import signal
    from dataclasses import replace

    sys.path.insert(0, str(ROOT))
    torch.set_num_threads(1)
    from speechstudio.finetune import voice_run
    from speechstudio.cli import main
    from speechstudio.finetune.vits import step as vits_step
    from speechstudio.finetune.vits.events import StepEvent

    rank = int(os.environ["RANK"])
    preset, train, init = voice_run.train_config, voice_run.train, vits_step.VitsTraining.__init__
    trainings, events = [], []
    stop_at = [None]

    def small(*args, **kwargs):  # tests/finetune_cli_shrunk.py's trainer, 1 warm-up step, no discriminator warm-up
        return replace(preset(*args, **kwargs), segment_size=512, discriminator_width=1 / 16, warmup_steps=1,
                       disc_warmup_steps=0, lr=2e-3, generator_lr=None)

    def seen_train(p, control=None):
        for ev in train(p, control):
            events.append(ev)
            yield ev
            if isinstance(ev, StepEvent) and ev.step == stop_at[0] and rank == 1:
                os.kill(os.getpid(), signal.SIGINT)  # Ctrl+C reaching one process only

    def capture_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        trainings.append(self)

    voice_run.train_config, voice_run.train, vits_step.VitsTraining.__init__ = small, seen_train, capture_init
    from speechstudio.finetune import leftovers

    trim = leftovers.trim_finished

    def keep_latest(run_dir):  # the test reads the checkpoint that saving the voice trims away
        latest = Path(run_dir) / "checkpoints" / "latest.pt"
        if latest.is_file():
            shutil.copy(latest, Path(run_dir) / "latest-before-trim.pt")
        return trim(run_dir)

    leftovers.trim_finished = keep_latest

    def run(tag: str, *extra: str) -> int:
        events.clear()
        return main(["finetune", "voice", "--base", base, "--out", f"clone-{tag}", "--run-dir", str(tmp / tag),
                     "--batch-size", "2", "--checkpoint-every", "2", "--device", "cpu", "--quiet", "--multi-gpu",
                     *extra])

    def dump(tag: str, rc: int, **more) -> None:
        tr = trainings[-1]
        steps = [e for e in events if isinstance(e, StepEvent)]
        torch.save({"generator": tr.model.state_dict(), "discriminator": tr.disc.state_dict(), "rc": rc,
                    "steps": [(e.step, e.stage) for e in steps], "losses": [dict(e.losses) for e in steps],
                    "events": sorted({type(e).__name__ for e in events}), **more}, tmp / f"{tag}-rank{rank}.pt")

    dump("a", run("a", "--data", data, "--steps", "4"))
    stop_at[0] = 2
    rc = run("b", "--data", data, "--steps", "4")
    stopped = (rc, trainings[-1].step)
    stop_at[0] = None
    dump("b", run("b", "--resume"), stopped=stopped)


if __name__ == "__main__":
    _worker(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
