"""Progress of a clone's training per stage (no Qt): each stage's step count and time left, from the
step times measured as the steps run, scaled by ``presets``' CPU cost of each stage."""
from __future__ import annotations

import time
from collections import deque

from speechstudio.progress import clock, roughly

#: What each stage is called in the window.
STAGE_NAMES = {"prepare": "Preparing your recordings", "warmup": "Warm-up: learning to hear your recordings",
               "discriminator": "Teaching the checker your voice", "train": "Training the voice"}


def _cost(stage: str, batch: int) -> float:
    from speechstudio.finetune.vits.presets import CPU_DISC_S, CPU_TRAIN_S, CPU_WARMUP_S

    a, b = {"warmup": CPU_WARMUP_S, "discriminator": CPU_DISC_S}.get(stage, CPU_TRAIN_S)
    return a + b * batch


class StageClock:
    """Feed it the trainer's events (:meth:`stage`, :meth:`step`, :meth:`evaluated`, :meth:`saved`);
    read :meth:`line` (any time, e.g. once a second). ``config``: the run's ``TrainConfig`` (steps,
    batch size, evaluation and checkpoint intervals); ``now``: a clock in seconds."""

    def __init__(self, config, now=time.monotonic) -> None:
        self.config, self.now = config, now
        self.name, self.first, self.last = "prepare", 1, int(config.steps)
        self.step_no = 0
        self.times: dict[str, deque] = {}
        self.check_s: list[float] = []   # evaluation lengths
        self.save_s: list[float] = []    # checkpoint + samples lengths
        self.doing = "getting ready"
        self.since = self.now()          # when the last event came

    def stage(self, name: str, steps: tuple = (), message: str = "") -> None:
        """A stage starts (``steps``: its first and last step) or has news (``message``)."""
        if steps or name == "prepare":
            self.name = name
        if steps:
            self.first, self.last = steps
        news = (message.splitlines() or [""])[0].rstrip(" .…")
        self.doing = ("reading your recordings" if name == "prepare" else
                      news if news and not steps else f"step {self.step_no + 1}")
        self.since = self.now()

    def step(self, stage: str, step: int, step_s: float) -> None:
        self.name, self.step_no = stage, step
        if step_s > 0:
            self.times.setdefault(stage, deque(maxlen=20)).append(step_s)
        self.doing = ("checking how close the voice is" if self._due(step, step, "eval_every") else
                      "saving the voice so far" if self._due(step, step, "checkpoint_every") else f"step {step + 1}")
        self.since = self.now()

    def evaluated(self) -> None:
        self.check_s.append(self.now() - self.since)
        self.doing = ("saving the voice so far" if self._due(self.step_no, self.step_no, "checkpoint_every")
                      else f"step {self.step_no + 1}")
        self.since = self.now()

    def saved(self) -> None:
        self.save_s.append(self.now() - self.since)
        self.doing = f"step {self.step_no + 1}"
        self.since = self.now()

    def _due(self, a: int, b: int, interval: str) -> int:
        """Evaluations (``interval="eval_every"``) or checkpoints (``"checkpoint_every"``) due at steps a..b."""
        n, every = int(self.config.steps), max(1, int(getattr(self.config, interval)))
        return sum(1 for s in range(max(a, 1), min(b, n) + 1) if s % every == 0 or s == n)

    def step_s(self) -> float | None:
        """Mean seconds of the running stage's recent steps (before its first: another stage's, scaled); None before."""
        b = int(self.config.batch_size)
        for stage in [self.name] + list(self.times):
            t = self.times.get(stage)
            if t:
                return sum(t) / len(t) * _cost(self.name, b) / _cost(stage, b)
        return None

    def stage_left_s(self) -> float | None:
        per = self.step_s()
        return None if per is None else per * (self.last - self.step_no)

    def run_left_s(self) -> float | None:
        """Seconds left in the run, None before the first measured step."""
        per = self.step_s()
        if per is None:
            return None
        b = int(self.config.batch_size)
        later = per * _cost("train", b) / _cost(self.name, b) * (int(self.config.steps) - self.last)
        mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
        n = int(self.config.steps)
        extra = (self._due(self.step_no + 1, n, "eval_every") * mean(self.check_s)
                 + self._due(self.step_no + 1, n, "checkpoint_every") * mean(self.save_s))
        return per * (self.last - self.step_no) + later + extra

    def stage_steps(self) -> tuple[int, int]:
        """``(done, of)`` steps of the running stage."""
        return max(0, self.step_no - self.first + 1), self.last - self.first + 1

    def line(self) -> str:
        """One line: the stage, its steps and time left, the run's time left, and (after 3 s without
        news) what it is doing and for how long."""
        name = STAGE_NAMES.get(self.name, self.name)
        if self.name == "prepare":
            text = name
        else:
            done, of = self.stage_steps()
            text = f"{name}: step {done} of {of}"
            left, run = self.stage_left_s(), self.run_left_s()
            if left is not None:
                text += f", {roughly(left)} left in this stage"
                if run is not None and roughly(run) != roughly(left):
                    text += f" (whole run: {roughly(run)})"
        busy = self.now() - self.since
        if busy >= 3:
            text += f" · {self.doing}… {clock(busy)}"
        return text

