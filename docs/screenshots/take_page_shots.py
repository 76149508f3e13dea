"""Screenshot every page of the real SpeechStudio window, light and dark, at one screen size.

Usage (Debian: apt-get install xvfb imagemagick libxcb-cursor0 ...), one run per size and theme:

    xvfb-run -a -s "-screen 0 1280x800x24" python docs/screenshots/take_page_shots.py 1280x800 light
    xvfb-run -a -s "-screen 0 1920x1080x24" python docs/screenshots/take_page_shots.py 1920x1080 dark

Writes ``pages-<size>-<theme>/NN-<page>.png`` next to this script (plus the Settings, About and
Keyboard-shortcuts dialogs). The window fills the screen (there is no window manager under Xvfb);
the screen is captured with ImageMagick's ``import -window root`` (Pillow's XCB grab where
ImageMagick is missing). Settings and data go to a temporary folder; the fake sound card stands in
for the microphone and speaker, under a real card's name ("Built-in Audio Analog Stereo"); Hugging
Face is offline (the Models page then says "needs network").
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SIZE = sys.argv[1] if len(sys.argv) > 1 else "1280x800"
THEME = sys.argv[2] if len(sys.argv) > 2 else "light"
REAL = ROOT.parent / "shared" / "realspeech" / "files"
TMP = Path(tempfile.mkdtemp(prefix="speechstudio-pageshots-"))
os.environ["SPEECHSTUDIO_HOME"] = str(TMP / "home")
os.environ["XDG_CONFIG_HOME"] = str(TMP / "config")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # fake_audio_backend: the file-fed sound card

from PySide6.QtWidgets import QApplication  # noqa: E402

from shot_support import ShotBackend, capture  # noqa: E402  (this folder)


def pump(seconds: float) -> None:
    end = time.time() + seconds
    while time.time() < end:
        QApplication.processEvents()
        time.sleep(0.01)


def main() -> int:
    from speechstudio.audio.backends import set_backend
    from speechstudio.gui import preferences
    from speechstudio.gui.main_window import PAGES, MainWindow

    out = HERE / f"pages-{SIZE}-{THEME}"
    out.mkdir(exist_ok=True)
    jfk = REAL / "whisper_jfk.flac"
    backend = ShotBackend(jfk if jfk.exists() else None, input_rate=48000, speed=1.0)
    set_backend(backend)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("SpeechStudio")
    preferences.save(preferences.Preferences(theme=THEME))  # what Settings shows
    preferences.apply_theme(THEME, app)
    win = MainWindow(audio_backend=backend)
    avail = app.primaryScreen().availableGeometry()
    win.move(avail.topLeft())
    win.resize(avail.size())
    win.show()
    pump(2.0)
    if REAL.is_dir():  # a few real recordings in the queue (probed, not transcribed)
        win.transcribe.add_paths(sorted(REAL.glob("*.flac"))[:3] + sorted(REAL.glob("*.wav"))[:3])
    win.speak.text.setPlainText("Welcome to SpeechStudio. Everything you hear is synthesized on this computer.")
    pump(3.0)
    end = time.time() + 30  # every queued file's duration probed (on the I/O worker)
    while win.transcribe._probe_jobs and time.time() < end:
        pump(0.1)

    def shot(name: str) -> None:
        pump(0.5)
        path = out / f"{name}.png"
        capture(path)
        print("wrote", path, f"window {win.frameGeometry().width()}x{win.frameGeometry().height()}", flush=True)

    for i, name in enumerate(PAGES):
        win.page_actions[i].trigger()
        if name == "Models":
            pump(3.0)
        wizard = {"Clone voice": win.clone, "Adapt recognition": win.adapt}.get(name)
        end = time.time() + 60  # the base voices / models are listed on a worker: shot them listed
        while wizard is not None and wizard.base_step._list_job is not None and time.time() < end:
            pump(0.1)
        shot(f"{i + 1:02d}-{name.lower().replace(' ', '-')}")

    win.show_page("Models")  # a long one-line error wraps; the window keeps its size
    url = "https://huggingface.co/api/models/facebook/wav2vec2-large-960h-lv60-self/revision/main/" + "x" * 300
    win.models.dl_label.setText(f"download failed: cannot reach {url}")
    shot("08-models-long-error")
    win.models.dl_label.setText("")

    dlg = win.open_settings()
    dlg.move(avail.center() - dlg.rect().center())
    shot("10-settings-dialog")
    dlg.reject()
    from speechstudio.gui.help_menu import ShortcutsDialog, show_about

    box = show_about(win)
    pump(0.3)
    box.move(avail.center() - box.rect().center())
    shot("11-about")
    box.close()
    sd = ShortcutsDialog(win)
    sd.open()
    sd.move(avail.center() - sd.rect().center())
    shot("12-keyboard-shortcuts")
    sd.close()
    win.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
