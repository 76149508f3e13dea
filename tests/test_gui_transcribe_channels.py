"""Transcribe page, Channels (issue 44: a stereo interview with one person per channel lost the right
channel's words in the window; the CLI had ``--channels split``): by default (auto) each channel of
a two-person recording is transcribed on its own and labelled Left / Right."""
from __future__ import annotations

import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

import numpy as np  # noqa: E402
import soundfile as sf  # noqa: E402

from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures

RATE = 16000


def _clip(path) -> np.ndarray:
    import soxr

    audio, rate = sf.read(str(path), dtype="float32", always_2d=True)
    return soxr.resample(audio.mean(axis=1), rate, RATE).astype(np.float32)


def test_a_two_person_stereo_file_is_split_by_default(win, qtbot, realspeech, whisper_dir, tmp_path):
    left_clip = _clip(realspeech / "deepspeech_LDC93S1_8k.wav")       # "She had your dark suit in greasy wash water ..."
    right_clip = _clip(realspeech / "speechbrain_spk1_snt1.wav")      # "The child almost hurt the small dog."
    n = int(0.5 * RATE) + len(left_clip) + int(0.5 * RATE) + len(right_clip) + int(0.5 * RATE)
    left, right = np.zeros(n, np.float32), np.zeros(n, np.float32)
    a = int(0.5 * RATE)
    left[a:a + len(left_clip)] = left_clip
    b = a + len(left_clip) + int(0.5 * RATE)
    right[b:b + len(right_clip)] = right_clip
    path = tmp_path / "interview.wav"
    sf.write(path, np.stack([left + 0.1 * right, right + 0.1 * left], axis=1), RATE)   # -20 dB bleed

    page = win.show_page("Transcribe")
    assert page.channels_box.currentData() == "auto" and page.options().channels == "auto"
    page.model_box.setCurrentText(str(whisper_dir))
    page.device_box.setCurrentText("cpu")
    for f, c in page.format_checks.items():
        c.setChecked(f == "json")
    page.add_paths([path])
    with qtbot.waitSignal(page.queue_finished, timeout=120000):
        page.start()
    doc = json.loads((tmp_path / "interview.json").read_text(encoding="utf-8"))
    assert [s["name"] for s in doc["speakers"]] == ["Left", "Right"]
    by_side = {side: " ".join(s["text"] for s in doc["segments"] if s["speaker"] == side).lower()
               for side in ("Left", "Right")}
    assert "greasy wash" in by_side["Left"] and "small dog" in by_side["Right"], by_side
    page.channels_box.setCurrentIndex(page.channels_box.findData("split"))
    assert page.options().channels == "split"
