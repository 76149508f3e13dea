"""Issue 45 item 3, the trade shown: the Clone voice wizard's Train step plots how much each judged try
sounds like the speaker and how natural it sounds, marks the recommended one and lets the user pick
another; the Use step saves the chosen try, or its blend with the base voice (WiSE-FT). Issue 44: a
run opened again shows its name and its step count, not its folder.

A real run of the tiny transformers VITS voice on the tone dataset (tests/test_clone_stop.py), 4 steps,
judged at steps 0, 2 and 4 by a scripted judge (the base 0.60 / 4.4; try 1 0.66 / 4.1; try 2 0.75 / 3.0,
more than 0.6 below the base's naturalness), opened in the real window (offscreen)."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

import json  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

from speechstudio.finetune import closeness  # noqa: E402
from speechstudio.finetune.closeness import Closeness, PitchProfile  # noqa: E402

from test_finetune_vits import base, one_thread  # noqa: E402,F401 - fixtures: the tiny base voice, one torch thread
from test_gui_plain_runs import shown_texts, terms_in  # noqa: E402
from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures
from tts_fixtures.dataset import make_dataset, tiny_config  # noqa: E402

#: (similarity, naturalness) of the base voice (step 0) and the checks at steps 2 and 4
JUDGED = [(0.60, 4.40), (0.66, 4.10), (0.75, 3.00)]
NAME = "my-clone"


class ScriptedJudge:
    """``closeness.CloneJudge`` with the figures of ``JUDGED``, in the order the trainer asks."""

    def __init__(self, reference, sample_rate, hop_length=256):
        self.calls, self.base_similarity, self.mos = 0, None, None

    def judge(self, clips):
        sim, nat = JUDGED[self.calls]
        self.calls += 1
        return Closeness(sim, nat, PitchProfile(100.0, 90.0, 110.0, 3.5, 0.0, 86.13, 100), 105.0, self.base_similarity)


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory, base) -> Path:
    from speechstudio.finetune.vits.trainer import train_voice

    run = tmp_path_factory.mktemp("runs") / NAME
    data = make_dataset(tmp_path_factory.mktemp("data"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(closeness, "CloneJudge", ScriptedJudge)
        list(train_voice(run, data, base, tiny_config(steps=4, warmup_steps=1, disc_warmup_steps=1, eval_every=2,
                                                      checkpoint_every=100, judge_clone=True)))
    assert sorted(p.name for p in (run / "checkpoints").glob("step_*.pt")) == ["step_0.pt", "step_2.pt", "step_4.pt"]
    return run


@pytest.fixture
def opened(win, qtbot, home, base, judged_run):
    """The run copied into the window's data folder (its base voice installed) and opened again."""
    from speechstudio.worker.finetune_jobs import runs_dir

    store = home / "voices" / "tiny-base"
    store.mkdir(parents=True)
    (store / "voice.json").write_text(json.dumps({"kind": "transformers", "path": str(base), "source": "test"}),
                                      encoding="utf-8")
    shutil.copytree(judged_run, runs_dir() / NAME)
    win.resize(1280, 800)
    page = win.show_page("Clone voice")
    qtbot.waitUntil(lambda: page.base_step._list_job is None and bool(page.base_step.voices), timeout=30000)
    assert page.open_run(NAME)
    return page


def _training_facts(home, name) -> dict:
    return json.loads((home / "voices" / name / "voice.json").read_text(encoding="utf-8"))["training"]


def _plain(win) -> list[str]:
    return [f"{t!r} <- {terms_in(t)}" for t in shown_texts(win) if terms_in(t)]


def test_train_step_plots_the_tries_marks_the_recommended_and_saves_the_one_picked(opened, win, qtbot, home):
    page = opened
    tr = page.train
    view = tr.trade_view
    # issue 44: the reopened run by its name and its step count (its folder only in the tooltip)
    assert tr.state.text() == f"the saved run {NAME}: 4 of 4 steps trained; Next saves it, Start trains a new one"
    assert (tr.progress.value(), tr.progress.maximum()) == (4, 4) and tr.state.toolTip().endswith(NAME)
    assert [(step, p.name) for step, p in tr.sample_table.samples] == [(4, "step_4_fox.wav"), (4, "step_4_val.wav")]

    assert tr.views.currentWidget() is view and view.isVisible()
    x, y = view.plot.curves["similarity"].getData()
    assert list(x) == [0, 2, 4] and list(y) == pytest.approx([0.60, 0.66, 0.75])
    x, y = view.plot.curves["naturalness"].getData()
    assert list(x) == [0, 2, 4] and list(y) == pytest.approx([4.40, 4.10, 3.00])
    assert view.plot.floor_line.value() == pytest.approx(3.8)  # the base's 4.4 less 0.6
    for key, value in (("similarity", 0.66), ("naturalness", 4.10)):  # the star: try 1, the ring: the same
        assert [list(a) for a in view.plot.recommended[key].getData()] == [[2], [pytest.approx(value)]]
        assert [list(a) for a in view.plot.chosen[key].getData()] == [[2], [pytest.approx(value)]]
    table = [[view.table.item(r, c).text() for c in range(5)] for r in range(view.table.rowCount())]
    assert table == [["Base voice", "0", "0.60", "4.4", ""],
                     ["Try 1", "2", "0.66", "4.1", "recommended"],
                     ["Try 2", "4", "0.75", "3.0", "much less natural"]]
    assert view.summary.text() == ("Recommended: Try 1, the one most like you that still sounds about as natural as "
                                   "the base voice. Pick another row or point to save that one instead.")
    assert _plain(win) == []
    # listen before choosing: the sample the trainer spoke at that step (kept at each save: step 4 here)
    plays = [view.table.cellWidget(r, 5) for r in range(3)]
    assert [b.isEnabled() for b in plays] == [False, False, True] and plays[2].accessibleName() == "Play Try 2"
    plays[2].click()
    qtbot.waitUntil(lambda: len(win.audio.backend.played_audio()) > 0, timeout=10000)
    assert tr.trade_view.checkpoint() == "step_2"  # listening does not choose

    view.table.selectRow(2)  # the user picks the most similar try, below the floor
    assert tr.trade_view.checkpoint() == "step_4"
    assert [list(a) for a in view.plot.chosen["similarity"].getData()] == [[4], [pytest.approx(0.75)]]
    assert view.summary.text() == ("Recommended: Try 1, the one most like you that still sounds about as natural as "
                                   "the base voice. You chose Try 2: it sounds much less natural than the base voice "
                                   "(3.0 against 4.4). It is saved only because you chose it.")
    page.next()
    use = page.use
    assert use.choice.text() == "Try 2, your choice; Back shows how each try sounds"
    assert use.blend_check.isEnabled() and not use.blend_check.isChecked()
    assert _plain(win) == []
    use.name_edit.setText("picked")
    with qtbot.waitSignal(page.voice_saved, timeout=60000):
        use.save()
    facts = _training_facts(home, "picked")
    assert facts["checkpoint"] == "step_4" and facts["step"] == 4
    assert facts["closeness"]["similarity"] == pytest.approx(0.75) and facts["closeness"]["naturalness"] == 3.0
    assert use.info.text().startswith("saved as voice picked (Try 2, your choice): choose it on the Speak page")

    use.blend_check.setChecked(True)  # the same try, 30 % of the way from the base voice
    assert use.choice.text() == ("Try 2, your choice, blended with the base voice (30 % of the try); "
                                 "Back shows how each try sounds")
    use.name_edit.setText("blended")
    with qtbot.waitSignal(page.voice_saved, timeout=60000):
        use.save()
    assert _training_facts(home, "blended")["checkpoint"] == "blend_0.3_step_4"


def test_the_recommended_try_is_saved_unless_another_is_picked_and_the_base_cannot_be_blended(opened, qtbot, home):
    page = opened
    view = page.train.trade_view
    page.next()
    assert page.use.choice.text() == "Try 1, recommended; Back shows how each try sounds"
    page.use.name_edit.setText("recommended")
    with qtbot.waitSignal(page.voice_saved, timeout=60000):
        page.use.save()
    assert _training_facts(home, "recommended")["checkpoint"] == "step_2"
    page.back()
    view.plot.clicked.emit(0)  # a click on the base voice's point
    assert page.train.trade_view.checkpoint() == "step_0" and view.table.selectedIndexes()[0].row() == 0
    page.next()
    assert page.use.choice.text() == "Base voice, your choice; Back shows how each try sounds"
    assert not page.use.blend_check.isEnabled() and page.use.blend() is None


def test_with_nothing_natural_enough_nothing_is_chosen_for_the_user(qtbot):
    """A trade whose tries all fell under the floor (no base row: judged by an older run): no try is
    chosen, so the Use step saves the trainer's best unless the user picks one."""
    from speechstudio.finetune.trade import Trade, TradeRow
    from speechstudio.gui.clone_trade import TradeView

    view = TradeView()
    qtbot.addWidget(view)
    view.set_trade(Trade(4.4, [TradeRow(300, 0.64, 3.1, None, None, 0.60, "step_300"),
                               TradeRow(600, 0.66, 1.7, None, None, 0.48, "step_600")]))
    assert view.chosen is None and view.checkpoint() is None and view.table.selectedIndexes() == []
    assert [view.table.item(r, 4).text() for r in range(2)] == ["much less natural"] * 2
    assert view.summary.text() == ("No try sounds natural enough to recommend: each is much less natural than the "
                                   "base voice. Pick one to save anyway, or blend it with the base voice on the next "
                                   "step.")
    view.table.selectRow(1)
    assert view.checkpoint() == "step_600" and view.chosen_name() == "Try 2"
