"""Clone voice page, end to end on the real window (offscreen, fake sound card, isolated home):
record takes through the fake microphone, import a small LJSpeech folder of real recordings,
check it, fix a text and drop a clip, train a tiny VITS base voice for 5 steps, save the result
as a voice (it shows on the Speak page), try it and export it as a Piper voice."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

import json
import re
from pathlib import Path

import numpy as np
import soundfile as sf

from conftest import torch_threads
from test_gui_support import win  # noqa: F401 - fixture

#: Short English recordings of ../shared/realspeech with their reference texts (manifest.tsv).
CLIPS = (("pocketsphinx_cards_005.wav", "eight of spades four of clubs seven of hearts"),
         ("deepspeech_LDC93S1_8k.wav", "She had your dark suit in greasy wash water all year."),
         ("speechbrain_spk1_snt1.wav", "The child almost hurt the small dog."),
         ("pyroomacoustics_cmu_arctic_us_aew_a0001.wav", "Author of the danger trail, Philip Steels, etc."),
         ("speechbrain_LJ050-0131.wav", "unless a system is established for the frequent formal review of "
                                        "activities thereunder."))
MIC_FILE = "pocketsphinx_sense_and_sensibility_0870.wav"  # 7.1 s, 16 kHz


@pytest.fixture
def fake_audio(realspeech):
    """The fake sound card; its microphone plays a real 7 s recording (16 kHz), then silence."""
    from fake_audio_backend import FakeBackend
    from speechstudio.audio.backends import set_backend

    backend = FakeBackend(realspeech / MIC_FILE, input_rate=16000, speed=20.0)
    set_backend(backend)
    yield backend
    set_backend(None)


@pytest.fixture(scope="module")
def tiny_vits_dir(tmp_path_factory) -> Path:
    """A tiny transformers VITS voice (16 kHz), made once for the module."""
    from tts_fixtures.tiny import make_tiny_vits

    return make_tiny_vits(tmp_path_factory.mktemp("voices") / "tiny-vits")


@pytest.fixture
def tiny_base(home, tiny_vits_dir):
    """The tiny voice registered in the (temporary) voice store as "tiny-base"."""
    store = home / "voices" / "tiny-base"
    store.mkdir(parents=True)
    (store / "voice.json").write_text(json.dumps({"kind": "transformers", "path": str(tiny_vits_dir),
                                                  "source": "test tiny voice"}), encoding="utf-8")
    return "tiny-base"


def ljspeech(folder: Path, realspeech: Path) -> Path:
    """An LJSpeech folder (metadata.csv + wavs/) made of ``CLIPS``."""
    (folder / "wavs").mkdir(parents=True)
    lines = []
    for i, (name, text) in enumerate(CLIPS):
        audio, rate = sf.read(str(realspeech / name), dtype="float32")
        sf.write(str(folder / "wavs" / f"clip{i}.wav"), audio, rate, subtype="PCM_16")
        lines.append(f"clip{i}|{text}")
    (folder / "metadata.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def one_speaker(folder: Path) -> tuple[Path, list[str]]:
    """An LJSpeech folder of 5 clips of one real speaker (../shared/voices/matthes) and their
    texts: a clone's dataset passes the speaker check (``ljspeech`` holds 5 different people)."""
    from test_clone_closeness import _matthes

    (folder / "wavs").mkdir(parents=True)
    rows = _matthes(5)
    for i, (_ident, _text, path) in enumerate(rows):
        audio, rate = sf.read(str(path), dtype="float32")
        sf.write(str(folder / "wavs" / f"clip{i}.wav"), audio, rate, subtype="PCM_16")
    (folder / "metadata.csv").write_text("".join(f"clip{i}|{t}\n" for i, (_x, t, _p) in enumerate(rows)),
                                         encoding="utf-8")
    return folder, [t for _x, t, _p in rows]


def _torch_threads_of_a_new_thread() -> int:
    """torch's intra-op thread count as a thread started now (e.g. a training worker) sees it."""
    import threading

    import torch

    got = []
    t = threading.Thread(target=lambda: got.append(torch.get_num_threads()))
    t.start()
    t.join()
    return got[0]


@pytest.fixture
def two_torch_threads():
    """torch at 2 threads during the test (the suite runs one per xdist worker): a count that silero-vad's
    import left at 1 then shows."""
    with torch_threads(2):
        yield


def _wait_job(qtbot, worker, job_id, timeout=60000):
    """Wait for ``job_id`` to finish on ``engine``; returns ``(status, result)``."""
    got = {}

    def on_finished(jid, status, result):
        if jid == job_id:
            got["r"] = (status, result)

    worker.job_finished.connect(on_finished)
    try:
        qtbot.waitUntil(lambda: "r" in got, timeout=timeout)
    finally:
        worker.job_finished.disconnect(on_finished)
    return got["r"]


def test_record_takes_then_check_them_with_whisper(win, qtbot, home, whisper_dir, tiny_base, realspeech,
                                                     two_torch_threads):
    page = win.show_page("Clone voice")
    qtbot.waitUntil(lambda: page.base_step._list_job is None and bool(page.base_step.voices), timeout=30000)
    assert page.base_step.select(tiny_base) and page.sample_rate() == 16000
    page.base_step.name_edit.setText("my-clone")
    page.next()
    assert page.index == 1
    rec = page.dataset.recorder
    rec.name_edit.setText("Ann Tester")
    rec.load_session()
    assert rec.index == 0 and rec.prompt.text() == "I, Ann Tester, record my own voice to make a synthetic voice."
    for _take in range(2):  # the consent sentence, then prompt 1
        rec.record()
        assert rec.stop_btn.isEnabled() and not rec.rec_btn.isEnabled()
        qtbot.waitUntil(lambda: rec.recorder.duration_s > 3.0, timeout=20000)
        assert rec.meter.value() > -60  # the meter followed the speech
        rec.stop()
        assert "saved take" in rec.note.text()
        rec.next()
    folder = home / "finetune" / "recordings" / "my-clone"
    assert (folder / "consent.wav").is_file() and (folder / "consent.txt").is_file()
    meta = (folder / "metadata.csv").read_text(encoding="utf-8").splitlines()
    assert meta == [f"take0001|{rec.script[1]}"]
    audio, rate = sf.read(str(folder / "wavs" / "take0001.wav"))
    assert rate == 16000 and len(audio) / rate > 3.0
    assert rec.count.text() == "1 take + consent"
    assert rec.index == 2
    # back to the recorded prompt: it can be played and re-recorded
    rec.previous()
    assert rec.rec_btn.text() == "Re-&record" and rec.play_btn.isEnabled()
    rec.play()
    qtbot.waitUntil(lambda: len(win.audio.backend.played_audio()) > rate, timeout=20000)
    # a new session with the same name resumes after the last take
    rec.load_session()
    assert rec.index == 2
    # check the takes: the microphone said another sentence than prompt 1, Whisper hears it
    ds = page.dataset
    assert ds.tabs.currentIndex() == 0 and ds.source() == folder
    assert ds.asr_check.isChecked()
    threads = _torch_threads_of_a_new_thread()
    status, manifest = _wait_job(qtbot, page.compute, ds.check(), timeout=90000)
    assert status == "done", manifest
    assert _torch_threads_of_a_new_thread() == threads
    [clip] = manifest.clips  # the consent take is kept beside the dataset, not trained on
    assert clip.id == "take0001" and "asr_mismatch" in clip.flags and clip.cer > 0.5
    assert "dashwood" in clip.asr_text.lower()
    table = ds.clips.table
    assert "the words heard differ from the text" in table.item(0, 3).text() and "dashwood" in table.item(0, 5).text().lower()
    assert ds.report.flag_counts["asr_mismatch"] == 1
    # a long recording: cut into sentence clips at Whisper's word times, texts from the recogniser
    ds.tabs.setCurrentIndex(2)
    ds.long_edit.setText(str(realspeech / "whisper_jfk.flac"))
    status, manifest = _wait_job(qtbot, page.compute, ds.check(), timeout=90000)
    assert status == "done", manifest
    assert manifest.clips and all(c.source.startswith("whisper_jfk.flac ") for c in manifest.clips)
    assert "country" in " ".join(c.text for c in manifest.clips).lower()
    assert ds.clips.table.rowCount() == len(manifest.clips)


def test_clone_wizard_import_check_train_save_export(win, qtbot, tiny_base, realspeech, tmp_path, two_torch_threads):
    from speechstudio.tts.voices import list_voices

    src, texts = one_speaker(tmp_path / "dataset-lj")
    page = win.show_page("Clone voice")
    # 1. base voice: the tiny transformers voice; what it lacks, its license
    qtbot.waitUntil(lambda: page.base_step._list_job is None and bool(page.base_step.voices), timeout=30000)
    assert page.base_step.select(tiny_base)
    assert page.sample_rate() == 16000
    assert "The part that judges the voice during training starts fresh" in page.base_step.about.text()
    assert "missing for training: discriminator" in page.base_step.about.toolTip()  # the field's words
    assert "license" in page.base_step.about.text()
    page.base_step.name_edit.setText("my-clone")
    assert page.next_btn.isEnabled()
    page.next()
    assert page.index == 1 and not page.next_btn.isEnabled()

    # 2. dataset: import the folder, check it (no ASR here: quick), fix a text, drop a clip
    ds = page.dataset
    ds.tabs.setCurrentIndex(1)
    ds.folder_edit.setText(str(src))
    ds.asr_check.setChecked(False)
    threads = _torch_threads_of_a_new_thread()
    job = ds.check()
    status, manifest = _wait_job(qtbot, page.compute, job, timeout=60000)
    assert status == "done", manifest
    assert _torch_threads_of_a_new_thread() == threads  # silero-vad's import set it to 1; put back
    assert len(manifest.clips) == 5 and manifest.sample_rate == 16000
    assert ds.clips.table.rowCount() == 5
    assert ds.clips.table.item(0, 2).text() == texts[0]
    assert not any("other_speaker" in c.flags for c in manifest.clips)  # one voice: the speaker check passes
    assert ds.warning.isVisible()  # far under 5 minutes
    assert "usable clips" in ds.info.text()
    assert int(sum(ds.report.histogram[i][2] for i in range(len(ds.report.histogram)))) == 5
    ds.clips.table.item(1, 2).setText("She had your dark suit in greasy wash water all year long.")
    ds.clips.table.selectRow(0)
    played = len(win.audio.backend.played_audio())
    ds.clips.play_btn.click()
    qtbot.waitUntil(lambda: len(win.audio.backend.played_audio()) > played + 16000, timeout=20000)
    ds.clips.table.selectRow(4)
    ds.clips.toggle_drop_selected()
    assert ds.clips.drop_btn.text() == "Un&drop clip"
    from speechstudio.finetune.manifest import Manifest

    saved = Manifest.load(page.dataset_dir)
    assert saved.clips[1].text == "She had your dark suit in greasy wash water all year long."
    assert saved.clips[4].dropped and len(saved.usable()) == 4
    assert page.next_btn.isEnabled()
    page.next()
    assert page.index == 2

    # 3. train: 3 steps (paused before the first one, then resumed), then 2 more from the saved run
    tr = page.train
    assert tr.steps_spin.text() == "preset" and tr.batch_spin.text() == "preset"
    tr.device_box.setCurrentText("cpu")
    qtbot.waitUntil(lambda: tr._est_job is None, timeout=30000)
    assert re.match(r"(about \d+(\.5)? (minute|hour|day)s?|less than a minute) on this computer's processor "
                    r"\(\d+ steps\)", tr.estimate.text()), tr.estimate.text()
    assert re.match(r"\d+ steps of \d+ clips on cpu", tr.estimate.toolTip()), tr.estimate.toolTip()
    tr.steps_spin.setValue(3)
    tr.batch_spin.setValue(2)
    # a discriminator and training slices sized for the tiny voice (tests/test_finetune_vits.py's)
    tr.extra_config = {"segment_size": 512, "discriminator_width": 1 / 16, "precision": "fp32"}
    assert not tr.prosody_check.isChecked() and tr._overrides()["freeze_prior"] is True  # timbre only by default
    tr.prosody_check.setChecked(True)
    assert tr._overrides()["freeze_prior"] is False
    tr.prosody_check.setChecked(False)
    job = tr.start()
    assert job is not None, tr.state.text()
    tr.pause()
    assert "paused" in tr.state.text() and tr.resume_btn.isEnabled() and not tr.pause_btn.isEnabled()
    assert not page.next_btn.isEnabled() and tr.stop_btn.isEnabled() and not tr.start_btn.isEnabled()
    qtbot.wait(300)
    assert tr.step == 0  # held before the first step
    tr.resume()
    status, done = _wait_job(qtbot, page.trainer, job, timeout=120000)
    assert status == "done", done
    assert done.reason == "finished" and done.step == 3
    assert tr.resumable() and not tr.resume_btn.isEnabled()  # finished: nothing to resume (issue 30)...
    tr.steps_spin.setValue(5)
    assert tr.resume_btn.isEnabled()  # ...until more steps are asked for
    job = tr.resume()  # nothing running: continues the run folder from checkpoints/latest.pt
    status, done = _wait_job(qtbot, page.trainer, job, timeout=120000)
    assert status == "done", done
    assert done.reason == "finished" and done.step == 5
    assert tr.progress.value() == 5 and tr.progress.maximum() == 5
    assert "finished at step 5" in tr.state.text()
    history = tr.curves.history
    assert {"mel", "kl", "dur", "gen", "disc"} <= set(history)
    assert history["mel"][0] == [1, 2, 3, 4, 5]  # the curves go on across the resume
    assert history["val_mel"][0] == [3, 5]
    samples = tr.sample_table.samples
    assert [s for s, _ in samples] == [3, 3, 5, 5] and all(p.is_file() for _, p in samples)
    assert tr.sample_table.rowCount() == 4
    assert page.next_btn.isEnabled()
    page.next()
    assert page.index == 3

    # 4. save, try, export
    use = page.use
    assert use.name_edit.text() == "my-clone"
    assert use.license.text()
    with qtbot.waitSignal(page.status_message, timeout=60000, check_params_cb=lambda m: "saved" in m) as saved:
        with qtbot.waitSignal(page.voice_saved, timeout=60000) as blk:
            use.save()
    assert blk.args == ["my-clone"]
    assert re.fullmatch(r"voice my-clone saved; freed \d+ (kB|MB) of training files \(the run keeps the best "
                        r"version\)", saved.args[0]), saved.args
    assert "my-clone" in [v.name for v in list_voices()]
    first, pitch_line = use.info.text().split("\n")  # the pitch matching measured at save time
    assert first.startswith("saved as voice my-clone") and pitch_line.startswith("pitch: ")
    qtbot.waitUntil(lambda: "my-clone" in [win.speak.voice_box.itemText(i)
                                            for i in range(win.speak.voice_box.count())], timeout=30000)
    with qtbot.waitSignal(use.tried, timeout=60000) as blk:
        use.try_voice()
    assert blk.args == ["done"]
    out = tmp_path / "export"
    with qtbot.waitSignal(use.exported, timeout=120000):
        use.export_to(out)
    assert (out / "my-clone.onnx").is_file() and (out / "my-clone.onnx.json").is_file()
    assert json.loads((out / "my-clone.onnx.json").read_text(encoding="utf-8"))["audio"]["sample_rate"] == 16000
    use.speak_btn.click()
    assert win.current_page() is win.speak and win.speak.voice_box.currentText() == "my-clone"

    # after a restart: the run is listed and can be opened where it stopped
    from speechstudio.gui.main_window import MainWindow

    w2 = MainWindow(audio_backend=win.audio.backend, start_monitor=False)
    qtbot.addWidget(w2)
    try:
        w2.show()
        page2 = w2.show_page("Clone voice")
        qtbot.waitUntil(lambda: page2.base_step._list_job is None and bool(page2.base_step.voices), timeout=30000)
        assert [page2.base_step.run_box.itemText(i) for i in range(page2.base_step.run_box.count())] == ["my-clone"]
        assert page2.open_run("my-clone")
        assert page2.index == 2 and page2.base.name == tiny_base
        assert page2.dataset_dir == page.dataset_dir and len(page2.manifest().usable()) == 4
        # the voice was saved: the run kept its best checkpoint (issue 29: ~0.8 GB per run was left) and the
        # judged steps another checkpoint can be saved from (issue 45)
        run = page2.train.run_dir()
        names = sorted(p.name for p in (run / "checkpoints").iterdir())
        assert [n for n in names if not n.startswith("step_")] == ["best.pt"] and not (run / "cache").exists()
        assert "step_0.pt" in names
        assert page2.train.steps_spin.value() == 5 and not page2.train.resume_btn.isEnabled()
        assert page2.train.has_model() and page2.next_btn.isEnabled()
    finally:
        w2.shutdown()


def test_training_view_shows_curves_samples_and_the_overtraining_warning(win, qtbot, tmp_path):
    """The train step fed the trainer's events by hand (no training): curves, ETA, samples with
    Play buttons, and the over-training warning text of the trainer, shown prominently."""
    from types import SimpleNamespace

    from speechstudio.finetune.vits.config import TrainConfig
    from speechstudio.finetune.vits.events import DoneEvent, EvalEvent, SampleEvent, StageEvent, StepEvent

    page = win.show_page("Clone voice")
    page.go(2)
    tr = page.train
    tr.job_id = -1  # events of a (pretend) running job
    tr.job = SimpleNamespace(config=TrainConfig(steps=10, eval_every=100, checkpoint_every=100, batch_size=2),
                             paused=False, stopping=False)
    tr._on_progress(-1, StageEvent("train", "training generator + discriminator, steps 1..10 (cpu, fp32)", (1, 10)))
    assert tr.state.text() == "Training the voice…" and "discriminator" in tr.state.toolTip()
    for step in range(1, 7):
        tr._on_progress(-1, StepEvent(step, 10, {"mel": 1.0 / step, "kl": 2.0, "dur": 0.5, "gen": 3.0, "disc": 2.5,
                                                 "fm": 1.5, "total_g": 40.0}, 2.0, (10 - step) / 2.0, 2e-4,
                                      "train", 0.5))
    assert tr.progress.value() == 6 and tr.progress.maximum() == 10
    # plain words on the page, the stage's own steps and the time left from measured steps (issue 44)
    assert tr.speed.text() == "Training the voice: step 6 of 10, less than a minute left in this stage"
    assert tr.speed.toolTip() == "2.00 steps/s, learning rate 2.00e-04"  # the expert figures one hover away
    warn = ("validation mel loss rose 3 evaluations in a row (0.5000 -> 0.8000): the voice may be over-training "
            "on your clips; the best checkpoint (step 2) is kept")
    for step, val, text in ((2, 0.5, ""), (3, 0.6, ""), (4, 0.7, ""), (5, 0.8, warn)):
        tr._on_progress(-1, EvalEvent(step, val, step == 2, text))
    assert not tr.warning.isHidden()
    assert tr.warning.text() == ("⚠ The voice stopped improving: it got further from your recordings 3 checks in a "
                                 "row. The best version so far (step 2) is kept. You can stop now: the next step "
                                 "uses the best version.")
    assert tr.warning.toolTip() == warn
    assert tr.best_step == 2
    wav = tmp_path / "step_5_fox.wav"
    sf.write(str(wav), np.zeros(1600, np.float32), 16000)
    tr._on_progress(-1, SampleEvent(5, [wav]))
    btn = tr.sample_table.cellWidget(0, 2)
    assert btn.accessibleName() == "Play sample step_5_fox of step 5"
    btn.click()
    qtbot.waitUntil(lambda: len(win.audio.backend.played_audio()) >= 1600, timeout=10000)
    tr.curves.draw()
    assert set(tr.curves.curves) == {"mel", "kl", "dur", "gen", "disc", "fm", "val_mel"}  # not total_g
    x, y = tr.curves.curves["val_mel"].getData()
    assert list(x) == [2, 3, 4, 5] and list(y) == [0.5, 0.6, 0.7, 0.8]
    tr._on_progress(-1, DoneEvent(6, None, "stopped"))
    tr._on_finished(-1, "done", None)
    assert tr.state.text() == "stopped at step 6; the best version (step 2) is kept: Next saves it, Resume goes on"
    assert tr.has_model()
    # stopped before the first step: nothing to save (Next once saved the base voice under the clone's name)
    tr.done = DoneEvent(0, None, "stopped")
    assert not tr.has_model() and tr.ready() == (False, tr.UNTRAINED)


def test_wizard_is_keyboard_usable(win, qtbot):
    """Alt+N / Alt+K move between steps; each step gets the focus on its first control; every
    button and combo box of the page has an accessible name."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QCheckBox, QComboBox, QPushButton

    page = win.show_page("Clone voice")
    qtbot.waitUntil(lambda: page.base_step._list_job is None and bool(page.base_step.voices), timeout=30000)
    with qtbot.waitActive(win):
        win.activateWindow()
    page.base_step.voice_box.setFocus()
    qtbot.keyClick(page.base_step.voice_box, Qt.Key.Key_N, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: page.index == 1, timeout=2000)  # a mnemonic clicks after a short animation
    assert page.dataset.tabs.hasFocus()
    assert page.why.text() == "check a dataset first" and not page.next_btn.isEnabled()
    qtbot.keyClick(page.dataset.tabs, Qt.Key.Key_K, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: page.index == 0, timeout=2000)
    assert page.base_step.voice_box.hasFocus()
    widgets = page.findChildren(QPushButton) + page.findChildren(QComboBox) + page.findChildren(QCheckBox)
    assert len(widgets) > 25
    assert [w.text() if hasattr(w, "text") else w for w in widgets if not w.accessibleName()] == []


def test_clone_wizard_flags_clips_of_other_people(win, qtbot, tiny_base, realspeech, tmp_path):
    """Five recordings of five different people as one voice's dataset: the check says which
    clips sound like another speaker and leaves them out, in the table and in the warning."""
    page = win.show_page("Clone voice")
    qtbot.waitUntil(lambda: page.base_step._list_job is None and bool(page.base_step.voices), timeout=30000)
    assert page.base_step.select(tiny_base)
    page.base_step.name_edit.setText("mixed")
    page.next()
    ds = page.dataset
    ds.tabs.setCurrentIndex(1)
    ds.folder_edit.setText(str(ljspeech(tmp_path / "five-people", realspeech)))
    ds.asr_check.setChecked(False)
    status, manifest = _wait_job(qtbot, page.compute, ds.check(), timeout=60000)
    assert status == "done", manifest
    flagged = [i for i, c in enumerate(manifest.clips) if "other_speaker" in c.flags]
    assert flagged and len(manifest.usable()) == 5 - len(flagged)
    for i in flagged:
        assert "may be another person" in ds.clips.table.item(i, 3).text()
        assert "another speaker" in ds.clips.table.item(i, 3).toolTip()
    assert "sound like another speaker than the rest: left out of training" in ds.warning.text()


def test_base_without_posterior_encoder_gets_the_warm_up_note_and_estimate(win, monkeypatch):
    """What a base voice lacks (``BaseVoiceInfo.lacks``), not its file format, picks step 1's note
    and the estimate's warm-up stage (``has_posterior``, the last argument of ``_estimate``)."""
    from types import SimpleNamespace

    from speechstudio.finetune.voice_run import BaseVoiceInfo
    from speechstudio.gui.clone_page import plain_base_note

    page = win.show_page("Clone voice")
    tr = page.train
    jobs = []
    monkeypatch.setattr(tr, "worker", SimpleNamespace(submit=lambda job: jobs.append(job) or None))
    monkeypatch.setattr(page, "manifest", lambda: SimpleNamespace(usable=lambda: [1, 2, 3], total_s=12.0))
    cases = [(BaseVoiceInfo("joe", "piper", 22050, ("posterior encoder", "discriminator"), "MIT", ""),
              "training first teaches it to listen to your recordings (a short warm-up)", False),
             (BaseVoiceInfo("mms", "transformers", 16000, ("discriminator",), "MIT", ""),
              "The part that judges the voice during training starts fresh", True),
             (BaseVoiceInfo("joe-ckpt", "piper-ckpt", 22050, (), "MIT", ""),
              "It holds everything training needs", True)]
    for info, note, has_posterior in cases:
        assert note in plain_base_note(info)
        page.base, page.base_info = SimpleNamespace(name=info.name, kind=info.kind), info
        tr.refresh_estimate()
        assert jobs[-1].args[-1] is has_posterior, info.kind
    page.base = page.base_info = None
    tr.refresh_estimate()
    assert len(jobs) == 4 and jobs[-1].args[-1] is True


def test_a_taken_voice_name_is_said_as_it_is_typed(win, qtbot):
    """Break test: a name already taken was found out only when Save had loaded, blended and measured the
    voice (about a minute). Now the Base step warns under the name (a store voice: Save may replace it) or
    refuses it beside Next (a package voice's or the base voice's name), and Save is off until Replace is ticked."""
    from speechstudio.tts.voices import voices_dir

    (voices_dir() / "old-voice").mkdir(parents=True)
    page = win.show_page("Clone voice")
    base = page.base_step
    qtbot.waitUntil(lambda: base._list_job is None and bool(base.voices), timeout=30000)
    package = next(ref.name for ref, _info in base.voices if ref.origin == "package")
    base.name_edit.setText("old-voice")
    assert base.name_note.isVisible() and base.name_note.text().startswith("a voice named old-voice already exists")
    assert page.next_btn.isEnabled()  # a warning: continuing an earlier run of that name stays possible
    base.name_edit.setText(package)
    assert not page.next_btn.isEnabled() and page.why.text().endswith("choose another name"), page.why.text()
    base.name_edit.setText("new-voice")
    assert (base.name_note.isVisible(), page.next_btn.isEnabled()) == (False, True)
    use = page.use
    use.name_edit.setText("old-voice")
    assert not use.save_btn.isEnabled() and use.info.text().startswith("a voice named old-voice already exists")
    assert use.save() is None  # refused at once, nothing submitted
    use.replace_check.setChecked(True)
    assert use.save_btn.isEnabled() and use.info.text() == ""
    use.replace_check.setChecked(False)
    use.name_edit.setText("new-voice")
    assert use.save_btn.isEnabled() and use.info.text() == ""


def test_training_progress_reads_steps_trained_not_step_0_of_1(win, qtbot):
    """Break test: stopped before its first step the bar read "step 0 / 1" (no step count known: the bar's
    maximum of 1). It reads "not started", "no steps trained yet", then "3 of 10 steps trained"."""
    from speechstudio.finetune.vits.events import DoneEvent

    page = win.show_page("Clone voice")
    tr = page.train
    assert tr.progress.text() == "not started"
    tr.job_id = -1  # events of a (pretend) running job that stops before its first step
    tr._on_progress(-1, DoneEvent(0, None, "stopped"))
    tr._on_finished(-1, "done", None)
    assert tr.progress.text() == "no steps trained yet"
    tr._show_step(3, 10)
    assert tr.progress.text() == "3 of 10 steps trained"
    tr._show_step(3, 10, (1, 8))
    assert tr.progress.text() == "this stage: 1 of 8 steps (run: 3 of 10 steps trained)"
