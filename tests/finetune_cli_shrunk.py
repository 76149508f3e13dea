"""``python tests/finetune_cli_shrunk.py ARGS`` = ``speechstudio ARGS`` with the VITS trainer shrunk
for tests (1/16 of VITS' discriminator, 512-sample slices, no warm-up, a high lr): the CLI's own
code runs unchanged, in a process a test can kill. ``SHRUNK_HOLD_AFTER_CHECKPOINT=1``: wait 120 s
after writing ``latest.pt`` (a kill then always lands mid-run, however fast the machine).
``SHRUNK_NO_JUDGE=1``: no clone judge (its two models loaded and the base voice judged before step 1)."""
import os
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import speechstudio.finetune.voice_run as voice_run  # noqa: E402

_preset = voice_run.train_config


def _small(*args, **kwargs):
    config = replace(_preset(*args, **kwargs), segment_size=512, discriminator_width=1 / 16, warmup_steps=0, lr=2e-3,
                     generator_lr=None)
    return replace(config, judge_clone=False) if os.environ.get("SHRUNK_NO_JUDGE") else config


voice_run.train_config = _small

if os.environ.get("SHRUNK_HOLD_AFTER_CHECKPOINT"):
    # A test that kills the run mid-way sets this: after the first checkpoint the run waits (as a
    # slow real run would between checkpoints), so the kill lands before it could finish.
    import time

    from speechstudio.finetune.run import RunFolder

    _save = RunFolder.save_checkpoint

    def _save_then_hold(self, state, kind):
        path = _save(self, state, kind)
        if kind == "latest":
            time.sleep(120)
        return path

    RunFolder.save_checkpoint = _save_then_hold

if __name__ == "__main__":
    from speechstudio.cli import main

    sys.exit(main(sys.argv[1:]))
