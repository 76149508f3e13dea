"""Issue 44: the Models page listed raw Hub names ("jonatasgrosman/wav2vec2-large-xlsr-53-german",
"Systran/faster-whisper-small") with technical descriptions ("CTranslate2 float16", "CTC, 16 kHz").
Now each model has a plain name and one plain line; the Hub name and the catalog's words are behind
Details (offscreen window, isolated home, Hub offline: the catalog rows and the installed models)."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import re  # noqa: E402

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from test_gui_support import fake_audio, select_model, win  # noqa: E402,F401 - fixtures

TECHNICAL = re.compile(r"/|CTranslate2|float16|\bCTC\b|\bkHz\b|LibriSpeech|LibriLight|XLSR|self-training|\bmulti\b")


def test_models_have_plain_names_and_lines_and_the_hub_name_is_behind_details(win, qtbot):
    page = win.show_page("Models")
    with qtbot.waitSignal(page.refreshed, timeout=60000):
        page.refresh()
    t = page.table
    rows = {page.models[r].name: [t.item(r, c).text() for c in (0, 4, 5)] for r in range(t.rowCount())}  # name,
    shown = list(rows.values())  # languages, what it is good for
    assert [s for s in shown if any(TECHNICAL.search(x) for x in s)] == []
    assert rows["whisper-tiny.en"] == ["Whisper tiny (English)", "English", "Fastest; good on clear speech"]
    assert rows["Systran/faster-whisper-small"] == ["Whisper small", "many",
                                                          "Slower; more accurate on hard recordings"]
    assert rows["jonatasgrosman/wav2vec2-large-xlsr-53-german"] == [
        "Wav2Vec2 German (Common Voice)", "German",
        "Slower, more accurate; no punctuation or capitals; can learn your voice"]
    assert rows["facebook/wav2vec2-base-960h"][0] == "Wav2Vec2 base (English)"
    assert len({cells[0] for cells in rows.values()}) == len(rows)  # every plain name is one model

    assert page.details.isVisible() and not page.details.body.isVisible()  # collapsed: no Hub name on the page
    select_model(page, "Systran/faster-whisper-small")
    page.details.button.click()
    assert page.details_label.isVisible()
    assert page.details_label.text() == ("Hub name: Systran/faster-whisper-small\n"
                                         "Name in the model lists: Systran/faster-whisper-small\n"
                                         "Engine: Whisper; languages: multi\n"
                                         "Whisper small, CTranslate2 float16 (multilingual)")
    select_model(page, "whisper-tiny.en")  # a package model: the Hub name it is also known by
    assert page.details_label.text().startswith("Hub name: Systran/faster-whisper-tiny.en\n"
                                                "Name in the model lists: whisper-tiny.en\n")
    assert "Folder: /" in page.details_label.text()


def test_removing_a_cloned_voice_asks_about_its_training_run(win, qtbot, home, monkeypatch):
    """Remove voice deleted the voice's training run (its checkpoints) without saying so. With a run, the
    user chooses: the voice alone, or the voice and the run."""
    import json
    import types

    runs = home / "finetune" / "runs"
    for name in ("keep", "drop"):
        (runs / name / "checkpoints").mkdir(parents=True)
        (runs / name / "config.json").write_text("{}")
        (home / "voices" / name).mkdir(parents=True)
        (home / "voices" / name / "voice.json").write_text(json.dumps({"cloned_from_run": str(runs / name)}))
    page = win.show_page("Models")
    asked, ran = [], []
    monkeypatch.setattr(page, "_run", lambda fn, arg, what: ran.append(what) or fn(arg))   # the I/O job, here
    for name, choice in (("keep", "voice"), ("drop", "voice and run")):
        monkeypatch.setattr(page, "_selected_voice", lambda name=name: types.SimpleNamespace(name=name, origin="store"))
        monkeypatch.setattr(page, "_ask_remove_voice", lambda n, run, choice=choice: asked.append((n, run)) or choice)
        page._remove_voice_selected()
    assert asked == [("keep", (runs / "keep").resolve()), ("drop", (runs / "drop").resolve())]
    assert ran == ["remove voice keep", "remove voice drop and its training run"]
    assert sorted(p.name for p in (home / "voices").iterdir()) == []
    assert sorted(p.name for p in runs.iterdir()) == ["keep"]
