"""Shared helpers for the GUI tests (offscreen Qt, fake sound card, isolated settings).

Kept in a ``test_gui*`` module so the GUI tests need no change to ``tests/conftest.py``; pytest
collects it but it holds no tests.
"""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

import numpy as np
import pytest


def write_tone(path, seconds: float, rate: int = 16000, freq: float = 220.0, noise: float = 0.02, seed: int = 0):
    """A short WAV with a tone and a little noise (float32 mono -> 16-bit PCM)."""
    import soundfile as sf

    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * rate)) / rate
    audio = 0.3 * np.sin(2 * np.pi * freq * t) + noise * rng.standard_normal(len(t))
    sf.write(str(path), audio.astype(np.float32), rate, subtype="PCM_16")
    return path


def select_model(page, name: str) -> None:
    """Select model ``name``'s row on the Models page."""
    page.table.selectRow(next(i for i, m in enumerate(page.models) if m.name == name))


@pytest.fixture
def fake_audio():
    from fake_audio_backend import FakeBackend
    from speechstudio.audio.backends import set_backend

    backend = FakeBackend(speed=20.0)
    set_backend(backend)
    yield backend
    set_backend(None)


@pytest.fixture
def win(qtbot, home, fake_audio):
    """The real main window on the fake sound card, monitor off (tests drive it by hand)."""
    from speechstudio.gui.main_window import MainWindow

    w = MainWindow(audio_backend=fake_audio, start_monitor=False)
    qtbot.addWidget(w)
    w.show()
    w.mel  # build the mel view now (the app does it 0.4 s after start-up) so tests time the steady state
    yield w
    w.shutdown()


#: A two-segment transcript of a 5 s recording (one low-probability word, "wrold"), shared by the
#: transcript editor and player tests.
from speechstudio.asr.types import Segment, TranscriptInfo, Word  # noqa: E402

INFO = TranscriptInfo(5.0, "en", "whisper-tiny.en", "whisper")
SEGMENTS = [Segment(0.0, 2.2, "Hello wrold again", (Word(0.1, 0.5, "Hello", 0.9), Word(0.6, 1.0, "wrold", 0.3),
                                                    Word(1.2, 1.8, "again", 0.8))),
            Segment(2.5, 4.0, "second part here", (Word(2.5, 3.0, "second"), Word(3.1, 3.5, "part"),
                                                   Word(3.6, 4.0, "here")))]
