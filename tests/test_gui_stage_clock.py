"""The clone's progress line (gui.stage_clock): each stage's own steps, time left from measured step
times, and what runs between steps once nothing came for 3 s (issue 44: the bar stood at "step 5 of
10, 0:33 left" for 5 minutes)."""
import pytest

from speechstudio.finetune.vits.config import TrainConfig
from speechstudio.finetune.vits.presets import CPU_DISC_S, CPU_TRAIN_S
from speechstudio.gui.stage_clock import StageClock
from speechstudio.progress import roughly


class FakeTime:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_stage_steps_time_left_and_what_runs_between_steps():
    now = FakeTime()
    clock = StageClock(TrainConfig(steps=10, batch_size=2, eval_every=5, checkpoint_every=5), now=now)
    clock.stage("prepare", (), "8 training clips, 1 validation clips")
    assert clock.line() == "Preparing your recordings"
    now.t += 12
    assert clock.line() == "Preparing your recordings · reading your recordings… 0:12"

    clock.stage("discriminator", (1, 4), "discriminator: learning to tell ..., steps 1..4")
    for step in (1, 2):
        now.t += 1.0
        clock.step("discriminator", step, 1.0)
    assert clock.stage_steps() == (2, 4) and clock.stage_left_s() == pytest.approx(2.0)
    gan_per_disc = (CPU_TRAIN_S[0] + CPU_TRAIN_S[1] * 2) / (CPU_DISC_S[0] + CPU_DISC_S[1] * 2)
    assert clock.run_left_s() == pytest.approx(2.0 + 6 * gan_per_disc)  # 6 GAN steps, no check measured yet
    assert clock.line() == "Teaching the checker your voice: step 2 of 4, less than a minute left in this stage"
    now.t += 11  # step 3 takes long: said, with its time
    assert clock.line().endswith(" · step 3… 0:11")

    clock.stage("train", (5, 10), "training generator + discriminator, steps 5..10")
    assert clock.step_s() == pytest.approx(gan_per_disc)  # before its first step: the last stage's, scaled
    now.t += 2.0
    clock.step("train", 5, 2.0)
    assert clock.doing == "checking how close the voice is"
    now.t += 4.0
    clock.evaluated()
    assert clock.doing == "saving the voice so far"
    now.t += 3.0
    clock.saved()
    assert clock.doing == "step 6" and clock.stage_steps() == (1, 6)
    # 5 GAN steps of 2 s, then the check (4 s) and the save (3 s) at step 10
    assert clock.run_left_s() == pytest.approx(5 * 2.0 + 4.0 + 3.0)
    assert clock.line() == "Training the voice: step 1 of 6, less than a minute left in this stage"


@pytest.mark.parametrize("seconds, said", [
    (None, "an unknown time"), (float("inf"), "an unknown time"), (0, "less than a minute"),
    (59.9, "less than a minute"), (60, "about 1 minute"), (89, "about 1 minute"), (90, "about 2 minutes"),
    (569, "about 9 minutes"), (570, "about 10 minutes"), (1200, "about 20 minutes"), (3449, "about 55 minutes"),
    (3450, "about 1 hour"), (4499, "about 1 hour"), (4500, "about 1.5 hours"), (5399, "about 1.5 hours"),
    (2 * 3600 + 10, "about 2 hours"), (35099, "about 9.5 hours"), (35100, "about 10 hours"),
    (170999, "about 47 hours"), (171000, "about 2 days"),
])
def test_estimates_are_said_as_people_say_them(seconds, said):
    """One rounding for every estimate shown (was "about 1:29:59" for 5399 s: a false precision)."""
    assert roughly(seconds) == said


def test_the_progress_line_says_the_time_left_roughly():
    now = FakeTime()
    clock = StageClock(TrainConfig(steps=10, batch_size=2, eval_every=5, checkpoint_every=5), now=now)
    clock.stage("discriminator", (1, 4), "discriminator: learning to tell ..., steps 1..4")
    for step in (1, 2):
        now.t += 30.0
        clock.step("discriminator", step, 30.0)
    assert clock.run_left_s() == pytest.approx(434.0, abs=0.1)   # 60 s, then 6 GAN steps of 62 s
    assert clock.line() == ("Teaching the checker your voice: step 2 of 4, about 1 minute left in this stage "
                            "(whole run: about 7 minutes)")
