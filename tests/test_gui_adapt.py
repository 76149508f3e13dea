"""Adapt recognition page, end to end on the real window (offscreen, fake sound card, isolated home):
pick an installed CTC model (a tiny Wav2Vec2ForCTC from a config), import and check a small LJSpeech
folder of real recordings at 16 kHz, train a few steps (sanity pass, base WER first, live curves),
compare base vs adapted on the held-out clip, register the model and find it in the Transcribe and
Dictate pickers; a base that is not a CTC model is refused with the library's message; a run stopped
in one window is resumed in another.

``ADAPT_SHOTS=DIR`` saves a screenshot of each step into DIR (for looking at the layout)."""
from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from test_gui_clone import CLIPS, _wait_job, ljspeech  # noqa: E402
from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures

#: a few steps: evaluation at steps 2 and 4, a 2-step sanity pass (tests/test_finetune_ctc.py's sizes)
STEPS, BATCH, EVAL_EVERY = 4, 2, 2


def _shot(widget, name: str) -> None:
    folder = os.environ.get("ADAPT_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        widget.window().grab().save(str(Path(folder) / f"{name}.png"))


@pytest.fixture
def tiny_ctc(home, tiny_w2v_dir) -> str:
    """The tiny Wav2Vec2ForCTC imported into the (temporary) model store as "tiny-ctc"."""
    from speechstudio.hub.store import import_model

    return import_model(tiny_w2v_dir, "tiny-ctc").model_id


def _open(win, qtbot):
    page = win.show_page("Adapt recognition")
    qtbot.waitUntil(lambda: page.base_step._list_job is None, timeout=30000)
    return page


def _choose(page, qtbot, spec: str) -> None:
    page.base_step.choose(spec)
    qtbot.waitUntil(lambda: page.base_step._describe_job is None, timeout=30000)


def _train_options(tr, max_steps: int = STEPS) -> None:
    tr.steps_spin.setValue(max_steps)
    tr.batch_spin.setValue(BATCH)
    tr.eval_spin.setValue(EVAL_EVERY)
    tr.lr_box.setCurrentText("1e-3")
    tr.device_box.setCurrentText("cpu")
    tr.extra_config = {"sanity_steps": 2}


def test_adapt_wizard_dataset_train_compare_register(win, qtbot, home, tiny_ctc, tiny_w2v_dir, realspeech, tmp_path):
    from transformers import Wav2Vec2ForCTC

    from speechstudio.finetune.manifest import Manifest
    from speechstudio.hub.store import imported_dir

    page = _open(win, qtbot)
    # 1. base model: the installed CTC model, described from its files
    items = [page.base_step.model_box.itemData(i) for i in range(page.base_step.model_box.count())]
    assert items == ["tiny-ctc"]  # the package Whisper model is not a CTC base
    _choose(page, qtbot, tiny_ctc)
    about = page.base_step.about.toolTip()  # the field's words; the page says it plainly (issue 30)
    assert page.base_step.about.text().startswith("Wav2Vec2 speech recogniser (")
    assert page.base_step.about.text().endswith(" parameters). It keeps its alphabet of 32 characters (upper case).")
    assert about.startswith("Wav2Vec2 (wav2vec2), ") and "16000 Hz" in about
    assert "keeps its CTC vocabulary of 32 tokens (upper case)" in about
    n_params = sum(p.numel() for p in Wav2Vec2ForCTC.from_pretrained(tiny_w2v_dir).parameters())
    assert page.base_info.params_exact and page.base_info.n_params == n_params and f"{n_params:,} parameters" in about
    page.base_step.name_edit.setText("my-words")
    assert page.next_btn.isEnabled()
    _shot(page, "1-base")
    page.next()
    assert page.index == 1

    # 2. dataset: the clone wizard's builder at 16 kHz; the Record tab has no consent sentence
    ds = page.dataset
    rec = ds.recorder
    assert rec.name_edit.isHidden() and rec.index == 1 and rec.position.text().startswith("prompt 1 of ")
    assert rec.folder == home / "finetune" / "recordings" / "my-words"
    _shot(page, "2-dataset-record")
    ds.tabs.setCurrentIndex(1)
    ds.folder_edit.setText(str(ljspeech(tmp_path / "lj", realspeech)))
    ds.asr_check.setChecked(False)
    status, manifest = _wait_job(qtbot, page.compute, ds.check(), timeout=60000)
    assert status == "done", manifest
    assert manifest.sample_rate == 16000 and len(manifest.usable()) == len(CLIPS)
    assert page.dataset_dir == home / "finetune" / "datasets" / "my-words"
    assert ds.warning.text().startswith("0.") and "10–20 minutes" in ds.warning.text()
    _shot(page, "2-dataset")
    page.next()
    assert page.index == 2

    # 3. train: the sanity pass in words, the base WER first, live curves, then the finished run
    tr = page.train
    _train_options(tr)
    assert tr.plan.text() == ("4 recordings to learn from, 1 held back to check progress; 4 training steps (2 per "
                              "pass over your recordings)")
    assert tr.plan.toolTip() == "2 steps per epoch of 2 clips; WER / CER on the 1 held out"
    assert not page.next_btn.isEnabled() and page.why.text() == "train first (until the first evaluation)"
    job = tr.start()
    assert job is not None, tr.state.text()
    assert not tr.start_btn.isEnabled() and tr.stop_btn.isEnabled() and not tr.batch_spin.isEnabled()
    status, done = _wait_job(qtbot, page.trainer, job, timeout=120000)
    assert status == "done", done
    assert (done.reason, done.step) == ("finished", STEPS)
    # the tiny random model writes gibberish after 2 practice steps: a warning, never "passed" in green (issue 30)
    assert tr.sanity.ok and tr.verdict.level == "warning", (tr.sanity.sample_ref, tr.sanity.sample_hyp)
    assert tr.sanity_label.text().startswith("Quick check: after a few practice steps the model still writes gibberish")
    assert tr.sanity_label.toolTip().startswith("4 training clips, 1 held back for checks")
    assert "vocabulary: 32 tokens from the base (upper case)" in tr.sanity_label.toolTip()
    base = tr.base_eval
    # plain words on the main view, the field's names one hover away (issue 30)
    assert base.base and tr.figures.text().startswith(
        f"Base model: words wrong {100 * base.wer:.1f} %, letters wrong {100 * base.cer:.1f} % (on 1 held-back clip)")
    assert "WER" not in tr.figures.text() and "CER" not in tr.figures.text()
    assert f"base model: WER {base.wer:.3f}, CER {base.cer:.3f} on 1 validation clips" in tr.figures.toolTip()
    history = tr.curves.history
    assert history["loss"][0] == [1, 2, 3, 4] and all(v > 0 for v in history["loss"][1])
    assert history["wer"][0] == [0, 2, 4] and history["wer"][1][0] == base.wer
    assert tr.progress.value() == STEPS and tr.state.text().startswith("finished at step 4: best ")
    assert tr.state.text() == (f"finished at step 4: best {100 * done.best_wer:.1f} % words wrong "
                               f"(base model {100 * base.wer:.1f} %)")
    assert tr.state.toolTip() == f"best WER {done.best_wer:.3f}"  # above 1 for a model that writes gibberish
    assert tr.resumable() and not tr.resume_btn.isEnabled()  # a finished run has nothing to resume (issue 30)
    tr.curves.draw()
    assert set(tr.curves.curves) == {"loss", "wer", "cer"}
    _shot(page, "3-train")
    assert page.next_btn.isEnabled()

    # 4. evaluate (base vs adapted through the transcription engine) and register
    use = page.use
    with qtbot.waitSignal(use.compared, timeout=60000) as blk:
        page.next()
    c = blk.args[0]
    best_step = json.loads((tr.run_dir() / "model.json").read_text())["step"]
    assert (c.split, c.n_clips, c.step) == ("validation", 1, best_step)
    [(clip_id, ref, base_text, adapted_text)] = c.rows
    assert ref == dict(zip((f"clip{i}" for i in range(len(CLIPS))), (t for _, t in CLIPS)))[clip_id]
    assert use.examples.rowCount() == 1 and use.examples.item(0, 0).text() == ref
    assert use.examples.item(0, 1).text() == base_text and use.examples.item(0, 2).text() == adapted_text
    assert use.figures.item(0, 0).text() == f"{100 * c.base_wer:.1f} %"
    assert use.figures.item(1, 1).text() == f"{100 * c.cer:.1f} %"
    assert use.figures.horizontalHeaderItem(0).text() == "Words wrong"           # the field's name one hover away
    assert use.figures.horizontalHeaderItem(0).toolTip().startswith("Word error rate (WER)")
    assert use.summary.text().startswith("On 1 validation clip (words and letters heard wrong: lower is better).")
    assert use.name_edit.text() == "my-words" and not use.transcribe_btn.isEnabled()
    with qtbot.waitSignal(page.model_saved, timeout=60000) as blk:
        use.save()
    assert blk.args == ["my-words"]
    assert (imported_dir("my-words") / "model.safetensors").is_file()
    assert "now in the Transcribe and Dictate model lists" in use.info.text()

    def listed(box):
        return [box.itemText(i) for i in range(box.count())]

    qtbot.waitUntil(lambda: "my-words" in listed(win.transcribe.model_box)
                    and "my-words" in listed(win.dictate.model_box), timeout=30000)
    _shot(page, "4-use")
    use.transcribe_btn.click()
    assert win.current_page() is win.transcribe and win.transcribe.model_box.currentText() == "my-words"
    assert Manifest.load(page.dataset_dir).sample_rate == 16000


def test_a_base_that_is_not_a_ctc_model_is_refused_with_the_message(win, qtbot, tmp_path):
    bert = tmp_path / "bert"
    bert.mkdir()
    (bert / "config.json").write_text(json.dumps({"model_type": "bert", "architectures": ["BertModel"]}))
    (bert / "model.safetensors").write_bytes(b"")
    page = _open(win, qtbot)
    assert page.base_step.model_box.count() == 0
    assert page.base_step.about.text().startswith("No model that can learn your voice is installed")
    _choose(page, qtbot, str(bert))
    # plain words on the step (issue 30), the library's message on hover
    assert page.base_step.about.text() == (f"{bert} cannot learn your voice here: choose a speech recogniser of the "
                                           "Wav2Vec2 kind (Wav2Vec2, HuBERT, WavLM, Data2Vec-Audio or "
                                           "Wav2Vec2-Conformer). Hover for the reason.")
    message = page.base_step.about.toolTip()
    assert message.startswith(f"{bert}: model_type 'bert' is not a CTC model or speech encoder that AutoModelForCTC "
                              "can load (known: ")
    assert "wav2vec2" in message and page.base_info is None
    assert not page.next_btn.isEnabled()
    assert page.why.text() == "this base model cannot be fine-tuned (the reason is shown under it)"
    assert win.status_label.text() == "this base model cannot be fine-tuned: see step 1"
    _shot(page, "1-base-refused")
    # every button, box and check box of the wizard has an accessible name (screen readers)
    from PySide6.QtWidgets import QCheckBox, QComboBox, QPushButton, QSpinBox

    widgets = [w for cls in (QPushButton, QComboBox, QCheckBox, QSpinBox) for w in page.findChildren(cls)]
    assert len(widgets) >= 35  # the search found the steps' widgets
    assert [w.text() if hasattr(w, "text") else w for w in widgets if not w.accessibleName()] == []


@pytest.fixture
def tiny_encoder(tmp_path) -> Path:
    """A random-weight wav2vec2 ENCODER without a CTC head (like facebook/wav2vec2-base), no dropout
    and no SpecAugment (tests/test_finetune_ctc.py's ``encoder``)."""
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2FeatureExtractor, Wav2Vec2Model

    path = tmp_path / "tiny-encoder"
    cfg = Wav2Vec2Config(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                         conv_dim=(32,) * 7, num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2,
                         hidden_dropout=0.0, activation_dropout=0.0, attention_dropout=0.0, feat_proj_dropout=0.0,
                         final_dropout=0.0, layerdrop=0.0, mask_time_prob=0.0)
    torch.manual_seed(0)
    Wav2Vec2Model(cfg).save_pretrained(path)
    Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000, padding_value=0.0, do_normalize=True,
                             return_attention_mask=False).save_pretrained(path)
    return path


def test_stop_then_resume_in_another_window_continues_the_run(win, qtbot, home, tiny_encoder, realspeech, tmp_path):
    """An encoder without a CTC head (folder), stopped in one window, resumed in another (as after
    a restart: the CLI's run folder), then compared: the base cannot transcribe."""
    from speechstudio.finetune.build import build_dataset
    from speechstudio.gui.main_window import MainWindow

    dataset = home / "finetune" / "datasets" / "resumed"
    manifest = build_dataset(ljspeech(tmp_path / "lj", realspeech), dataset, 16000)
    page = _open(win, qtbot)
    _choose(page, qtbot, str(tiny_encoder))
    assert page.base_step.about.text().endswith("It has no alphabet yet: one is built from your texts.")
    assert page.base_step.about.toolTip().startswith("Wav2Vec2 (wav2vec2), ")
    assert page.base_step.about.toolTip().endswith("has no CTC head: a character vocabulary is built from your texts "
                                                   "and a new head trained.")
    page.base_step.name_edit.setText("resumed")
    page.dataset.set_manifest(manifest, dataset)
    page.go(2)
    tr = page.train
    _train_options(tr)
    job = tr.start()
    tr.pause()  # held before the first step (after the sanity pass and the base evaluation)
    assert tr.resume_btn.isEnabled() and not tr.pause_btn.isEnabled()
    qtbot.waitUntil(lambda: tr.base_eval is not None, timeout=60000)
    qtbot.wait(300)
    assert tr.step == 0 and tr.state.text() == "paused at step 0"
    tr.stop()  # ends after the step in progress: step 1, with a checkpoint
    status, done = _wait_job(qtbot, page.trainer, job, timeout=60000)
    assert status == "done" and (done.reason, done.step) == ("stopped", 1)
    assert tr.run_dir() == home / "finetune" / "runs" / "resumed"  # speechstudio finetune asr --out resumed's
    assert tr.sanity.vocab_source == "data"
    assert tr.state.text().endswith("; Resume continues it") and tr.resume_btn.isEnabled()
    assert not page.next_btn.isEnabled()  # no evaluation yet: nothing to compare

    w2 = MainWindow(audio_backend=win.audio.backend, start_monitor=False)
    qtbot.addWidget(w2)
    try:
        w2.show()
        page2 = _open(w2, qtbot)
        runs = page2.base_step.run_box
        assert [runs.itemText(i) for i in range(runs.count())] == ["resumed"]
        assert page2.open_run("resumed")
        tr2 = page2.train
        assert page2.index == 2 and page2.dataset_dir == dataset and page2.base_spec == str(tiny_encoder)
        assert (tr2.steps_spin.value(), tr2.batch_spin.value(), tr2.eval_spin.value()) == (STEPS, BATCH, EVAL_EVERY)
        assert tr2.resume_btn.isEnabled() and "Resume continues it" in tr2.state.text()
        tr2.extra_config = {"sanity_steps": 2}
        job = tr2.resume()
        status, done = _wait_job(qtbot, page2.trainer, job, timeout=120000)
        assert status == "done", done
        assert (done.reason, done.step) == ("finished", STEPS)
        assert "resumed from step 1" in tr2.messages
        assert tr2.curves.history["loss"][0] == [2, 3, 4] and tr2.sanity is None  # no new sanity pass
        assert tr2.curves.history["wer"][0] == [2, 4]
        assert tr2.progress.value() == STEPS and page2.next_btn.isEnabled()
        with qtbot.waitSignal(page2.use.compared, timeout=60000) as blk:
            page2.next()
        c = blk.args[0]
        assert c.base_wer is None and c.base_cer is None and c.n_clips == 1
        assert page2.use.figures.item(0, 0).text() == "—" and page2.use.figures.item(1, 0).text() == f"{100 * c.wer:.1f} %"
        assert page2.use.examples.item(0, 1).text() == "(no CTC head: cannot transcribe)"
        # the tiny random-weight model writes nothing: that verdict comes first (issue 29 item 6)
        assert c.empty == c.n_clips == 1
        assert page2.use.summary.text().endswith("The adapted model writes nothing at all on these clips: it does not "
                                                 "recognise speech yet. Train longer or add recordings before using it.")
    finally:
        w2.shutdown()


def test_evaluate_step_before_any_training_says_train_first(win, qtbot):
    """The screenshots showed "comparison failed: /tmp/.../finetune/runs/my-asr: not a run folder
    (config.json missing)" on step 4 when nothing was trained: it now says what to do, plainly."""
    win.show_page("Adapt recognition")
    wiz = win.adapt
    wiz.go(3)
    assert wiz.use._compare_job is None
    assert wiz.use.info.text() == ("Nothing to compare yet: train “my-asr” first (step 3, Train), then its results "
                                   "show here.")
    assert not wiz.use.save_btn.isEnabled()
