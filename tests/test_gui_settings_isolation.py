"""Issue 15: a test run never reads or writes the user's real settings, data or caches."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from test_gui_support import fake_audio  # noqa: E402,F401 - fixture


def _snapshot(path: Path) -> tuple:
    """(exists, mtime_ns, sha256) of a file; a missing file is (False, None, None)."""
    if not path.exists():
        return (False, None, None)
    return (True, path.stat().st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())


def test_every_test_has_its_own_temporary_home(isolated_root, tmp_path_factory):
    home = Path(os.environ["SPEECHSTUDIO_HOME"])
    assert home.is_dir() and home.is_relative_to(tmp_path_factory.getbasetemp())
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        assert Path(os.environ[var]).is_relative_to(isolated_root)


def test_settings_file_is_in_the_temporary_home(real_settings_path):
    from speechstudio.gui.common import settings

    path = Path(settings().fileName())
    assert path == Path(os.environ["SPEECHSTUDIO_HOME"]) / "settings.ini"
    assert path != real_settings_path


def test_without_speechstudio_home_settings_go_to_the_temporary_xdg_config(monkeypatch, isolated_root, qapp):
    from speechstudio.gui.common import settings

    monkeypatch.delenv("SPEECHSTUDIO_HOME")
    path = Path(settings().fileName())
    assert path == isolated_root / "config" / "SpeechStudio" / "SpeechStudio.ini"


def test_the_window_writes_only_the_temporary_settings(qtbot, fake_audio, real_settings_path):  # noqa: F811
    from speechstudio.gui.main_window import MainWindow

    before = _snapshot(real_settings_path)
    w = MainWindow(audio_backend=fake_audio, start_monitor=False)
    qtbot.addWidget(w)
    try:
        w.show_page("Models")
        w.save_settings()
    finally:
        w.shutdown()
    ini = Path(os.environ["SPEECHSTUDIO_HOME"]) / "settings.ini"
    text = ini.read_text()
    assert "page=4" in text and "[window]" in text
    assert _snapshot(real_settings_path) == before
