"""Stop a clone's training at every stage, then save it as a voice and speak with it (issue 44: a
stopped run answered "not saved: .../checkpoints/best.pt: no best checkpoint in this run folder").

Tiny transformers VITS voice and tone dataset of tests/test_finetune_vits.py; 8 steps: warm-up 1-2,
discriminator 3-4, GAN 5-8, one evaluation at step 6."""
from pathlib import Path

import numpy as np
import pytest

from speechstudio.finetune.run import RunFolder
from speechstudio.finetune.vits.events import CheckpointEvent, DoneEvent, StageEvent, StepEvent
from speechstudio.finetune.vits.trainer import TrainControl, train_voice
from speechstudio.tts.voices import VoiceRef
from speechstudio.worker.finetune_jobs import SaveCloneJob

from test_finetune_vits import base, one_thread  # noqa: F401 - fixtures: the tiny base voice, one torch thread
from tts_fixtures.dataset import make_dataset, tiny_config


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    return make_dataset(tmp_path_factory.mktemp("data"))


CONFIG = dict(steps=8, warmup_steps=2, disc_warmup_steps=2, eval_every=6, checkpoint_every=100, judge_clone=False)


@pytest.mark.parametrize("stage, stop_at, best_step", [
    ("prepare", 0, 0),        # before the first step: the base's generator
    ("warmup", 1, 1),
    ("discriminator", 3, 3),
    ("train", 5, 5),          # GAN stage, before the first evaluation: the latest generator
    ("train", 7, 6),          # after it: the evaluated best, not the latest
])
def test_a_stopped_clone_saves_and_speaks(base, dataset, home, tmp_path, stage, stop_at, best_step):
    from speechstudio import api

    run = tmp_path / "run"
    control = TrainControl()
    events = []
    for ev in train_voice(run, dataset, base, tiny_config(**CONFIG), control=control):
        events.append(ev)
        if (isinstance(ev, StageEvent) and stop_at == 0) or (isinstance(ev, StepEvent) and ev.step == stop_at):
            control.stop.set()
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert (steps[-1].step, steps[-1].stage) == (stop_at, stage) if steps else stage == "prepare"
    done = events[-1]
    assert isinstance(done, DoneEvent) and (done.reason, done.step) == ("stopped", stop_at)
    assert done.best_path == run / "checkpoints" / "best.pt" and done.best_path.is_file()
    assert [e.step for e in events if isinstance(e, CheckpointEvent) and e.kind == "best"][-1] == best_step
    assert RunFolder(run).load_checkpoint("best")["step"] == best_step
    from speechstudio.gui.wizard_common import saved_step

    assert saved_step(run) == stop_at  # what the wizard says of the run when it is opened again

    job = SaveCloneJob(run, "stopped-clone", VoiceRef("tiny", "transformers", str(base), "path"), finished=False)
    statuses = [str(s) for s in job.run(None)]
    assert statuses == ["saving voice stopped-clone ..."]
    assert job.result.name == "stopped-clone" and job.freed == 0
    assert (run / "checkpoints" / "latest.pt").is_file()  # a stopped run can still be resumed
    audio = np.concatenate([c.audio for c in api.synthesize("Hello there.", voice="stopped-clone", device="cpu", seed=0)])
    assert audio.size > 1600 and np.isfinite(audio).all() and np.abs(audio).max() > 0


def test_a_run_stopped_before_best_checkpoints_existed_saves_its_latest(base, dataset, home, tmp_path):
    """Run folders stopped by an older version hold latest.pt only: Save uses it."""
    run = tmp_path / "run"
    control = TrainControl()
    for ev in train_voice(run, dataset, base, tiny_config(**CONFIG), control=control):
        if isinstance(ev, StepEvent) and ev.step == 2:
            control.stop.set()
    (run / "checkpoints" / "best.pt").unlink(missing_ok=True)
    job = SaveCloneJob(run, "old-stop", VoiceRef("tiny", "transformers", str(base), "path"), finished=False)
    list(job.run(None))
    assert job.result.name == "old-stop"
    assert (home / "voices" / "old-stop" / "voice.json").is_file()
