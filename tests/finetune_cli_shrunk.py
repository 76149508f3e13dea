"""``python tests/finetune_cli_shrunk.py ARGS`` = ``speechstudio ARGS`` with the VITS trainer shrunk
for tests (1/16 of VITS' discriminator, 512-sample slices, no warm-up, a high lr): the CLI's own
code runs unchanged, in a process a test can kill."""
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import speechstudio.finetune.voice_run as voice_run  # noqa: E402

_preset = voice_run.train_config


def _small(*args, **kwargs):
    return replace(_preset(*args, **kwargs), segment_size=512, discriminator_width=1 / 16, warmup_steps=0, lr=2e-3)


voice_run.train_config = _small

if __name__ == "__main__":
    from speechstudio.cli import main

    sys.exit(main(sys.argv[1:]))
