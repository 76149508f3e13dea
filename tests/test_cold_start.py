"""Cold start (issue 43): ``speechstudio transcribe`` with a Whisper model loads what the job needs
and nothing else: no PyTorch, no transformers, no Qt (the Whisper path runs on CTranslate2), and no
other subcommand's code (speech synthesis, fine-tuning, dictation, the window)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import realspeech_file

PROBE = """
import json, runpy, sys
sys.argv = ["speechstudio"] + sys.argv[1:]
try:
    runpy.run_module("speechstudio", run_name="__main__")
except SystemExit as e:
    code = e.code
heavy = ("torch", "transformers", "PySide6", "speechstudio.tts", "speechstudio.finetune", "speechstudio.gui",
         "speechstudio.dictation", "speechstudio.doctor")
print(json.dumps({"exit": code, "loaded": sorted(m for m in heavy if m in sys.modules)}))
"""


def test_transcribing_with_whisper_imports_no_torch_qt_or_other_subcommands(whisper_dir, tmp_path, home):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-c", PROBE, "transcribe", str(realspeech_file("whisper_jfk.flac")),
                           "--model", str(whisper_dir), "--language", "en", "--output-dir", str(out),
                           "--format", "txt", "--quiet"],
                          capture_output=True, text=True, env=dict(os.environ), timeout=300)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {"exit": 0, "loaded": []}, done.stderr[-2000:]
    assert "ask not what your country can do for you" in (out / "whisper_jfk.txt").read_text().lower()


def test_choosing_among_audio_tracks_imports_no_torch(whisper_dir, tmp_path, home):
    """A file with several audio tracks: the track with speech is found by Silero VAD on ONNX Runtime
    (audio.vad.default_spans), not through the silero_vad package, which imports torch."""
    import numpy as np

    from media_builder import make_video
    from speechstudio.audio.decode import load_audio

    speech = load_audio(realspeech_file("whisper_jfk.flac"), 16000)
    film = make_video(tmp_path / "film.mkv", [dict(audio=np.zeros(16000 * 3, np.float32), language="eng", default=True),
                                              dict(audio=speech, language="fre")], video_s=12.0)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-c", PROBE, "transcribe", str(film), "--model", str(whisper_dir),
                           "--language", "en", "--output-dir", str(out), "--format", "txt", "--quiet"],
                          capture_output=True, text=True, env=dict(os.environ), timeout=300)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {"exit": 0, "loaded": []}, done.stderr[-2000:]
    assert "ask not what your country can do for you" in (out / "film.txt").read_text().lower()
