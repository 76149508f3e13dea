"""``speechstudio finetune voice``: usage errors before any work, a run that is killed and resumed,
the saved clone speaking through ``speechstudio speak`` with a synthetic-speech tag."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import soundfile as sf

from speechstudio.cli import main

from test_finetune_vits import make_dataset
from tts_fixtures.tiny import make_tiny_vits

ROOT = Path(__file__).resolve().parents[1]
SHRUNK = ROOT / "tests" / "finetune_cli_shrunk.py"


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory) -> Path:
    return make_tiny_vits(tmp_path_factory.mktemp("tiny-vits"), stochastic=True)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    return make_dataset(tmp_path_factory.mktemp("data"))


def _err(capsys) -> str:
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize("argv, code, message", [
    (["--base", "no-such-voice", "--data", ".", "--out", "v1"], 2, "unknown voice 'no-such-voice'"),
    (["--base", "{base}", "--out", "v1"], 2, "--data DIR is needed"),
    (["--base", "{base}", "--data", "{tmp}/missing", "--out", "v1"], 2, "missing: no such file or folder"),
    (["--base", "{base}", "--data", "{data}", "--out", "v1", "--resume"], 2, "nothing to resume"),
    (["--base", "{base}", "--data", "{data}", "--out", "bad name!"], 2, "voice name 'bad name!' not allowed"),
    (["--base", "{base}", "--data", "{data}", "--out", "v1", "--preset", "huge"], 2, "invalid choice: 'huge'"),
])
def test_usage_errors_come_before_any_work(argv, code, message, tiny_base, prepared, tmp_path, home, capsys):
    argv = [a.format(base=tiny_base, data=prepared, tmp=tmp_path) for a in argv]
    if code == 2 and "invalid choice" in message:
        with pytest.raises(SystemExit) as exc:
            main(["finetune", "voice", *argv])
        assert exc.value.code == 2
    else:
        assert main(["finetune", "voice", *argv]) == code
    assert message in _err(capsys)
    assert not (home / "finetune" / "runs" / "v1").exists()  # nothing started


def test_base_that_is_not_a_vits_voice(whisper_dir, prepared, home, capsys):
    assert main(["finetune", "voice", "--base", str(whisper_dir), "--data", str(prepared), "--out", "v2"]) == 1
    err = _err(capsys)
    assert "not a VITS voice" in err and "only VITS voices can be cloned" in err


def test_killed_run_resumes_and_the_clone_speaks(tiny_base, prepared, home, tmp_path, capsys, monkeypatch):
    env = {**os.environ, "SPEECHSTUDIO_HOME": str(home), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT / "tests"),
           "OMP_NUM_THREADS": "1"}      # training beside the other xdist worker: one torch thread (conftest)
    args = ["finetune", "voice", "--base", str(tiny_base), "--data", str(prepared), "--out", "mine",
            "--steps", "8", "--batch-size", "2", "--checkpoint-every", "4", "--no-asr-check"]
    run_dir = home / "finetune" / "runs" / "mine"
    latest = run_dir / "checkpoints" / "latest.pt"
    proc = subprocess.Popen([sys.executable, str(SHRUNK), *args], env={**env, "SHRUNK_HOLD_AFTER_CHECKPOINT": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 240
    while not latest.is_file() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(0.5)  # the run holds after its first checkpoint (step 4 of 8)
    proc.send_signal(signal.SIGKILL)  # a power cut: no chance to save anything more
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, proc.stdout.read()[-2000:]
    assert latest.is_file() and not (home / "voices" / "mine").exists()

    # same command + --resume (the dataset is the run's), in this process: the CLI's own code with the same shrunk
    # trainer (finetune_cli_shrunk.py run as a module patches voice_run.train_config; monkeypatch restores it)
    import runpy

    import speechstudio.finetune.voice_run as voice_run

    monkeypatch.setattr(voice_run, "train_config", voice_run.train_config)
    monkeypatch.setattr(sys, "path", list(sys.path))  # and the folder it puts on sys.path
    runpy.run_path(str(SHRUNK))
    capsys.readouterr()
    assert main(args[:-1] + ["--resume"]) == 0
    again = capsys.readouterr()
    assert "step 8/8" in again.err + again.out
    assert "voice mine saved" in again.out
    # the voice is saved: the run keeps its best checkpoint only and says what that freed (issue 29)
    assert f"run folder {run_dir}: kept the best checkpoint, freed " in again.out
    names = sorted(p.name for p in latest.parent.iterdir())
    assert [n for n in names if not n.startswith("step_")] == ["best.pt"] and not (run_dir / "cache").exists()
    # ... and the judged steps, which the table lists and `finetune save --checkpoint step_N` takes (issue 45)
    assert "step_0.pt" in names and "<- recommended" in again.out and "--checkpoint step_N" in again.out
    # the saved voice records the pitch of the recordings and of the model, and is not shifted
    # (the tiny voice has no measurable pitch; from 1 semitone off it would be: test_pitch)
    import json

    meta = json.loads((home / "voices" / "mine" / "voice.json").read_text(encoding="utf-8"))
    facts = meta["training"]["pitch"]
    assert set(facts) == {"recordings_hz", "voice_hz", "semitones", "shifted"}
    assert facts["shifted"] is False and facts["semitones"] == 0 and meta.get("pitch_semitones", 0.0) == 0.0
    from speechstudio.finetune.pitch_match import PitchMatch

    # the tiny voice's noise has no pitch (frame-rate buzz is never measured as one): "not measured"
    assert facts["recordings_hz"] > 0 and facts["voice_hz"] is None
    assert PitchMatch(facts["recordings_hz"], facts["voice_hz"], 0.0, False).describe() in again.out
    assert "pitch: not measured (no voiced speech found), no pitch shift" in again.out
    log = (run_dir / "train.log").read_text()
    assert "resume:" in log

    out = tmp_path / "hello.wav"
    assert main(["speak", "hello there.", "--voice", "mine", "--out", str(out)]) == 0
    with sf.SoundFile(str(out)) as f:
        assert f.samplerate == 16000 and f.frames > 0 and f.frames % 16 == 0  # whole hops of the tiny voice
        assert "synthetic speech, cloned voice mine" in f.comment
    capsys.readouterr()
    assert main(["voices", "list"]) == 0          # in this process: the CLI's own code, no third start-up
    listed = capsys.readouterr().out
    assert "mine" in listed and "clone of" in listed


def test_interrupt_saves_a_checkpoint_and_says_how_to_resume(tiny_base, prepared, home):
    env = {**os.environ, "SPEECHSTUDIO_HOME": str(home), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT / "tests"),
           "OMP_NUM_THREADS": "1"}      # training beside the other xdist worker: one torch thread (conftest)
    args = ["finetune", "voice", "--base", str(tiny_base), "--data", str(prepared), "--out", "ctrlc",
            "--steps", "100000", "--batch-size", "2", "--checkpoint-every", "100000", "--no-asr-check"]
    # Ctrl+C is what is checked: no clone judge (the killed run above has it)
    proc = subprocess.Popen([sys.executable, str(SHRUNK), *args], env={**env, "SHRUNK_NO_JUDGE": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = home / "finetune" / "runs" / "ctrlc" / "train.log"
    deadline = time.monotonic() + 240
    # the first training stage has begun (with 100000 steps it is the 1000-step discriminator warm-up)
    while (not log.is_file() or "steps 1.." not in log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(0.2)  # a step under way (the handler is in place before the stage's "steps 1..")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "stopping after this step" in err and "--resume" in err
    assert (home / "finetune" / "runs" / "ctrlc" / "checkpoints" / "latest.pt").is_file()


@pytest.mark.parametrize("how", ["ctrl+c", "stop event"])
def test_stop_before_the_first_checkpoint_says_start_again(how, tiny_base, prepared, home, capsys, monkeypatch):
    """Stopped (SIGTERM / Ctrl+C) before checkpoints/latest.pt exists: no "--resume" advice, which would fail."""
    import speechstudio.finetune.voice_run as voice_run
    from speechstudio.finetune.vits.events import DoneEvent

    def train(plan, control=None):
        if how == "ctrl+c":
            raise KeyboardInterrupt
        yield DoneEvent(3, None, "stopped")

    monkeypatch.setattr(voice_run, "train", train)
    argv = ["finetune", "voice", "--base", str(tiny_base), "--data", str(prepared), "--out", "early", "--no-asr-check"]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "stopped before the first checkpoint; nothing to resume: run the same command again (without --resume)" in err
    assert "continue with" not in err and "checkpoint saved" not in err
    assert main(argv + ["--resume"]) == 2  # what the old advice led to
    assert "nothing to resume" in _err(capsys)


def test_failed_start_leaves_no_run_folder_and_clean_removes_old_ones(tiny_base, prepared, home, tmp_path, capsys,
                                                                       monkeypatch):
    import speechstudio.finetune.voice_run as voice_run

    empty = tmp_path / "empty"
    empty.mkdir()
    runs = home / "finetune" / "runs"
    assert main(["finetune", "voice", "--base", str(tiny_base), "--data", str(empty), "--out", "nodata",
                 "--no-asr-check"]) == 1
    assert "no audio files here" in _err(capsys)
    assert not (runs / "nodata").exists()
    # stopped before the first checkpoint: nothing kept either (the next start builds the dataset again)
    monkeypatch.setattr(voice_run, "train", lambda plan, control=None: iter([]))
    assert main(["finetune", "voice", "--base", str(tiny_base), "--data", str(prepared), "--out", "early",
                 "--no-asr-check"]) == 130
    assert not (runs / "early").exists()

    # such a folder left by an older version: `finetune clean` lists it and removes it
    (runs / "old" / "data").mkdir(parents=True)
    (runs / "old" / ".lock").write_text("")
    (runs / "old" / "data" / "x.wav").write_bytes(b"0" * 5000)
    capsys.readouterr()
    assert main(["finetune", "clean", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would go old" in out and "failed start" in out and (runs / "old").is_dir()
    assert main(["finetune", "clean"]) == 0
    out = capsys.readouterr().out
    assert "removed  old" in out and "1 of 1 run(s) removed" in out and not (runs / "old").exists()


def test_resume_keeps_the_runs_own_preset(tiny_base, prepared, home, capsys, monkeypatch):
    """A run started with --preset quick resumes with its own settings; --steps on resume changes the steps only."""
    import json

    import speechstudio.finetune.voice_run as voice_run
    from speechstudio.finetune.vits.events import DoneEvent

    run_dir = home / "finetune" / "runs" / "quick1"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "checkpoints" / "latest.pt").write_bytes(b"resume state")
    quick = voice_run.train_config("quick", "cpu", batch_size=2)
    (run_dir / "config.json").write_text(json.dumps({"train": quick.to_dict(), "dataset": {"path": str(prepared)}}))
    seen = []

    def train(plan, control=None):
        seen.append(plan.config)
        yield DoneEvent(7, None, "stopped")

    monkeypatch.setattr(voice_run, "train", train)
    argv = ["finetune", "voice", "--base", str(tiny_base), "--out", "quick1", "--resume", "--device", "cpu"]
    assert main(argv) == 130
    out = capsys.readouterr().out
    assert "training: the run's own settings, 600 steps, batch 2 x 1" in out and "checkpoint every 100 steps" in out
    assert seen[-1] == quick
    assert main(argv + ["--steps", "9"]) == 130
    assert "the run's own settings, 9 steps" in capsys.readouterr().out
    assert seen[-1].to_dict() == {**quick.to_dict(), "steps": 9}  # the intervals stay the run's (100)
    assert main(argv + ["--preset", "best"]) == 130  # a preset named again: its steps and intervals
    assert "preset best, 6000 steps, batch 2 x 1" in capsys.readouterr().out
    assert seen[-1].to_dict() == {**quick.to_dict(), "steps": 6000, "eval_every": 500, "checkpoint_every": 500}
