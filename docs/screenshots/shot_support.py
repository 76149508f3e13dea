"""What the screenshot scripts share: the fake sound card under a real card's name, and the grab."""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

from fake_audio_backend import FakeBackend


class ShotBackend(FakeBackend):
    """The fake sound card under the names a real one has (the test names are not for show)."""

    def input_devices(self):
        return [replace(d, name="Built-in Audio Analog Stereo") for d in super().input_devices()]

    def output_devices(self):
        return [replace(d, name="Built-in Audio Analog Stereo") for d in super().output_devices()]


def capture(path: Path) -> None:
    """The whole X screen to ``path``: ImageMagick's ``import -window root``, or Pillow's XCB grab."""
    if shutil.which("import"):
        subprocess.run(["import", "-window", "root", str(path)], check=True)
    else:
        from PIL import ImageGrab

        ImageGrab.grab(xdisplay=os.environ.get("DISPLAY")).save(path)
