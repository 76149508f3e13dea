"""Issue 29, class 7 (GUI): the clone wizard's "Remove old runs…" button lists the earlier training
runs with their size and removes them after a confirmation."""
from __future__ import annotations

import pytest

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from test_finetune_leftovers import MB, _run, _runs  # noqa: E402
from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures


def test_clone_wizard_button_lists_and_removes_old_runs(win, qtbot, home):
    root = _runs(home)
    _run(root, "first", latest=2 * MB, best=MB, age_days=10)
    _run(root, "second", best=MB)
    page = win.show_page("Clone voice")
    step = page.base_step
    asked = []
    step.old_runs.confirm = lambda parent, text, details: asked.append((text, details)) or True
    with qtbot.waitSignal(step.old_runs.done, timeout=30000) as blk:
        step.clean_btn.click()
    assert blk.args == ["removed 2 run(s), freed 4 MB"]
    assert step.clean_note.text() == "removed 2 run(s), freed 4 MB"
    [(text, details)] = asked
    assert text == ("Remove 2 earlier training run(s) (4 MB)? Saved voices stay; a removed run cannot be continued.")
    assert details.splitlines() == ["first: 3 MB, 10 days old, resumable", "second: 1 MB, 0 days old, finished"]
    assert not any(root.iterdir())
    qtbot.waitUntil(lambda: step.run_box.count() == 0, timeout=30000)


def test_clone_start_that_fails_keeps_the_earlier_run_in_place(win, qtbot, home, monkeypatch, tmp_path):
    """A new run that cannot start (here: its settings are refused) leaves the earlier run where Resume finds it;
    it used to be renamed to NAME-<date> first."""
    from types import SimpleNamespace

    from speechstudio.gui import clone_train

    page = win.show_page("Clone voice")
    tr = page.train
    page.dataset_dir, page.base = tmp_path, SimpleNamespace(location=tmp_path, name="joe")
    run = tr.run_dir()
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "latest.pt").write_bytes(b"x")

    def refused(*args, **kwargs):
        raise ValueError("batch size 0 is not a batch")

    monkeypatch.setattr(clone_train, "FineTuneJob", refused)
    assert tr.start() is None
    assert tr.state.text() == "cannot start: batch size 0 is not a batch"
    assert tr.resumable() and [p.name for p in run.parent.iterdir()] == [run.name]
