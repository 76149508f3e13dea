"""Issue 30: Save dialogs open in the user's Documents folder (else home), then where the user
saved last; never in the app's data folder or next to the source."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from PySide6.QtWidgets import QFileDialog  # noqa: E402

from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures

DIALOGS = {  # page attribute -> (the call that opens its Save dialog, the file name it proposes)
    "speak": (lambda w: w.speak._save_dialog(), "speech.wav"),
    "record": (lambda w: w.record._save_dialog(), "recording-"),
    "dictate": (lambda w: w.dictate._save_dialog(), "dictation-"),
}


@pytest.fixture
def asked(monkeypatch):
    seen = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: seen.append(a[2]) or ("", "")))
    return seen


@pytest.mark.parametrize("page", sorted(DIALOGS))
@pytest.mark.parametrize("documents", [True, False])
def test_save_dialogs_start_in_documents_or_home(win, qtbot, monkeypatch, tmp_path, asked, page, documents):
    monkeypatch.setenv("HOME", str(tmp_path))
    if documents:
        (tmp_path / "Documents").mkdir()
    open_dialog, name = DIALOGS[page]
    open_dialog(win)
    start = tmp_path / "Documents" if documents else tmp_path
    assert len(asked) == 1 and os.path.dirname(asked[0]) == str(start), asked
    assert os.path.basename(asked[0]).startswith(name)


def test_the_next_save_starts_where_the_last_one_went(win, qtbot, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    chosen = tmp_path / "podcasts"
    chosen.mkdir()
    seen = []

    def dialog(*a, **k):
        seen.append(a[2])
        return str(chosen / "take.wav"), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(dialog))
    monkeypatch.setattr(win.record, "save", lambda path, overwrite=False: path)
    win.record._save_dialog()
    monkeypatch.setattr(win.speak, "save", lambda path: 0)
    win.speak._save_dialog()
    assert os.path.dirname(seen[0]) == str(tmp_path) and os.path.dirname(seen[1]) == str(chosen)
