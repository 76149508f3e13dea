"""Screenshot every page and wizard step of the real SpeechStudio window without a display server
(Qt's offscreen platform, ``QWidget.grab()``): the window's contents, no title bar.

Usage, one run per size and theme (issue 30: retaken after the wording and layout pass):

    python docs/screenshots/take_offscreen_shots.py 1280x800 light
    python docs/screenshots/take_offscreen_shots.py 1920x1080 dark

Writes ``pages-<size>-<theme>/NN-<page>[-step-K].png`` next to this script, plus the Settings and
Check-my-setup dialogs, and ``01-transcribe-player.png``: JFK's "ask not" transcribed on the CPU
(Whisper tiny.en), its transcript open in the editor, playing at 1.5x with the word said lit up
over the waveform. Settings and data go to a temporary folder; the fake sound card stands in
for the microphone and speaker under a real card's name; Hugging Face is offline.
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
W, H = (int(v) for v in SIZE.split("x"))
REAL = ROOT.parent / "shared" / "realspeech" / "files"
TMP = Path(tempfile.mkdtemp(prefix="speechstudio-offscreen-shots-"))
os.environ["SPEECHSTUDIO_HOME"] = str(TMP / "home")
os.environ["XDG_CONFIG_HOME"] = str(TMP / "config")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
screen = TMP / "screen.json"
screen.write_text('{"synthesizedScreens": false, "screens": [{"name": "S", "x": 0, "y": 0, '
                  f'"width": {W}, "height": {H}, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}}]}}')
os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={screen}"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # fake_audio_backend: the file-fed sound card

from PySide6.QtWidgets import QApplication  # noqa: E402

from shot_support import ShotBackend  # noqa: E402  (this folder)


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
    preferences.save(preferences.Preferences(theme=THEME))
    preferences.apply_theme(THEME, app)
    win = MainWindow(audio_backend=backend, start_monitor=False)
    win.move(0, 0)
    win.resize(W, H)
    win.show()
    pump(2.0)
    if REAL.is_dir():  # a few real recordings in the queue (probed, not transcribed)
        win.transcribe.add_paths(sorted(REAL.glob("*.flac"))[:3] + sorted(REAL.glob("*.wav"))[:3])
    win.speak.text.setPlainText("Welcome to SpeechStudio. Everything you hear is synthesized on this computer.")
    end = time.time() + 30
    while win.transcribe._probe_jobs and time.time() < end:
        pump(0.1)

    def shot(widget, name: str) -> None:
        pump(0.4)
        path = out / f"{name}.png"
        widget.grab().save(str(path))
        print("wrote", path, f"{widget.width()}x{widget.height()}", flush=True)

    for i, name in enumerate(PAGES):
        win.page_actions[i].trigger()
        slug = f"{i + 1:02d}-{name.lower().replace(' ', '-')}"
        if name == "Models":
            with_models = time.time() + 30
            pump(1.0)
            while win.models._list_job is not None and time.time() < with_models:
                pump(0.1)
        wizard = {"Clone voice": win.clone, "Adapt recognition": win.adapt}.get(name)
        if wizard is None:
            shot(win, slug)
            continue
        end = time.time() + 60
        while wizard.base_step._list_job is not None and time.time() < end:
            pump(0.1)
        for step in range(4):
            wizard.go(step)
            shot(win, slug if step == 0 else f"{slug}-step-{step + 1}")
        wizard.go(0)

    transcript_player_shot(win, shot)
    dlg = win.open_settings()
    shot(dlg, "10-settings-dialog")
    dlg.reject()
    from speechstudio.gui.doctor_dialog import DoctorDialog

    doc = DoctorDialog(win, network=False)
    doc.show()
    doc.start()
    end = time.time() + 60
    while doc.running and time.time() < end:
        pump(0.1)
    shot(doc, "13-check-my-setup")
    doc.close()
    win.shutdown()
    return 0


def transcript_player_shot(win, shot) -> None:
    """The Transcribe page with JFK's transcript open in the editor, the player at 1.5x."""
    import shutil

    import speechstudio
    from speechstudio.batch.export import write_transcript
    from speechstudio.batch.run import InputItem
    from speechstudio.gui.transcript_view import QueueRow

    src = REAL / "whisper_jfk.flac"
    if not src.exists():
        print("no", src, "- transcript player shot skipped", flush=True)
        return
    folder = TMP / "recordings"
    folder.mkdir(exist_ok=True)
    wav = folder / src.name
    shutil.copy(src, wav)
    segments, info = speechstudio.transcribe(wav, device="cpu", allow_download=False)
    outs = tuple(write_transcript(wav.with_suffix(f".{f}"), segments, info, f) for f in ("json", "srt"))
    win.page_actions[0].trigger()
    page = win.transcribe
    view = page.transcript
    # the queue's own JFK row, as if transcribed (its outputs in the temporary folder, not in ../shared)
    i = next((k for k, r in enumerate(page.rows) if r.item.path.name == src.name), None)
    if i is None:
        page.rows.append(QueueRow(InputItem(wav)))
        page.table.insertRow(len(page.rows) - 1)
        i = len(page.rows) - 1
    row = page.rows[i]
    row.status, row.outputs, row.segments, row.info, row.progress = "done", outs, list(segments), info, 1.0
    row.duration_s = info.duration_s
    page.table.refresh(i, row)
    page._update_summary()  # "1 done, 5 queued"
    page.table.selectRow(i)
    pump(0.3)
    view.edit_btn.click()
    ed = view.editor
    end = time.time() + 30
    while ed.seek_bar.waveform.peaks is None and time.time() < end:
        pump(0.1)
    ed.speed_box.setCurrentIndex(ed.speed_box.findData(1.5))
    ed.text.place_cursor(0, 0)
    ed.toggle_play()
    end = time.time() + 10
    while (view.player.position_s < 4.0 or ed._said is None) and time.time() < end:
        pump(0.02)
    shot(win, "01-transcribe-player")
    print("said", ed._said, "at", round(view.player.position_s, 2), "s", flush=True)
    ed.toggle_play()
    view.edit_btn.click()


if __name__ == "__main__":
    sys.exit(main())
