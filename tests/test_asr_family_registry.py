"""A new recogniser family is one module plus one registry line: a fake family registered here is
detected, listed (CLI and Models page), loaded, validated with the same answer by the CLI and the
GUI's worker, and run by the batch (CLI and the Transcribe page) without touching another file."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from speechstudio import cli
from speechstudio.asr import family
from speechstudio.asr.family import AsrCapabilities, AsrFamily, OptionCheck
from speechstudio.asr.types import Segment, TranscriptInfo, Word, as_blocks
from speechstudio.errors import UsageError


# ----------------------------------------------------------------------------- the "module"
class EchoRecognizer:
    """Says the text of its ``echo.json`` over the whole input."""

    engine = "echo"
    sample_rate = 16000
    device = "cpu"
    precision = "fp32"

    def __init__(self, path: Path, model_id: str) -> None:
        self.model_id = model_id
        self.text = json.loads((Path(path) / "echo.json").read_text())["says"]

    def transcribe(self, audio, *, language=None, task="transcribe", initial_prompt=None, hotwords=None,
                   duration_s=None):
        n = sum(b.size for b in as_blocks(audio))
        dur = round(n / self.sample_rate, 3)
        words = tuple(Word(dur * i / 2, dur * (i + 1) / 2, w) for i, w in enumerate(self.text.split()[:2]))
        return iter([Segment(0.0, dur, self.text, words)]), TranscriptInfo(dur, "en", self.model_id, self.engine)


class EchoFamily(AsrFamily):
    def detect(self, folder) -> bool:
        return "echo.json" in folder.names

    def load(self, path, model_id, **options):
        return EchoRecognizer(path, model_id)


ECHO = EchoFamily("echo", "Echo (test family)", AsrCapabilities(languages=("en",), casing=True))


# ----------------------------------------------------------------------------- fixtures
@pytest.fixture
def echo_family():
    family.register(ECHO)          # the "one line"
    yield ECHO
    family.unregister("echo")


@pytest.fixture
def echo_dir(tmp_path) -> Path:
    d = tmp_path / "echo-model"
    d.mkdir()
    (d / "echo.json").write_text(json.dumps({"says": "hello from the echo family"}))
    return d


@pytest.fixture
def wav(tmp_path) -> Path:
    p = tmp_path / "clip.wav"
    sf.write(p, np.zeros(16000 * 2, np.float32), 16000)
    return p


# ----------------------------------------------------------------------------- tests
def test_registered_family_is_detected_listed_and_loaded(echo_family, echo_dir, capsys):
    from speechstudio.asr.load import load_model
    from speechstudio.hub.detect import detect_engine
    from speechstudio.hub.inventory import list_models
    from speechstudio.hub.store import import_model

    assert [f.name for f in family.families()] == ["whisper", "wav2vec2", "echo"]
    assert detect_engine(echo_dir) == "echo"
    recognizer, message = load_model(str(echo_dir))
    assert isinstance(recognizer, EchoRecognizer)
    assert message.startswith(f"using {echo_dir} (echo, local dir) on cpu")
    import_model(echo_dir, "my-echo")
    rows = {m.name: m for m in list_models(include_catalog=False)}
    assert rows["my-echo"].engine == "echo" and rows["my-echo"].installed
    assert cli.main(["models", "list"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("my-echo"))
    assert "echo" in line.split()[1:3]


def test_unregistered_folder_is_refused_with_the_families_named(echo_dir):
    from speechstudio.errors import ModelNotFoundError
    from speechstudio.hub.detect import detect_engine

    with pytest.raises(ModelNotFoundError, match="no model file that a recogniser family reads .*Whisper"):
        detect_engine(echo_dir)


def test_cli_and_worker_give_the_same_refusal(echo_family, echo_dir, wav, tmp_path, capsys):
    from speechstudio.batch.request import TranscriptionRequest
    from speechstudio.worker.jobs import TranscribeBatchJob

    recognizer = EchoRecognizer(echo_dir, str(echo_dir))
    with pytest.raises(UsageError) as direct:
        family.check_options(recognizer, OptionCheck(task="translate"))
    assert str(direct.value) == (f"--task translate: {echo_dir} (Echo (test family)) cannot translate; use a "
                                 "multilingual Whisper model (e.g. --model whisper-base)")
    assert cli.main(["transcribe", str(wav), "--model", str(echo_dir), "--task", "translate",
                     "--output-dir", str(tmp_path / "out")]) == 2
    assert str(direct.value) in capsys.readouterr().err

    class Models:
        def has_recognizer(self, *a):
            return True

        def recognizer(self, *a):
            return recognizer, ""

    job = TranscribeBatchJob([], TranscriptionRequest(model=str(echo_dir), task="translate",
                                                    output_dir=str(tmp_path / "o")))
    with pytest.raises(UsageError) as worker:
        list(job.run(Models()))
    assert str(worker.value) == str(direct.value)
    with pytest.raises(UsageError, match="takes no prompt or custom vocabulary"):
        family.check_options(recognizer, OptionCheck(hotwords="Kubernetes"))
    with pytest.raises(UsageError, match="is an English-only model"):
        family.check_options(recognizer, OptionCheck(language="de"))
    assert family.check_options(recognizer, OptionCheck(language="en")) == []


def test_batch_runs_the_family(echo_family, echo_dir, wav, tmp_path):
    out = tmp_path / "out"
    assert cli.main(["transcribe", str(wav), "--model", str(echo_dir), "--output-dir", str(out), "--format", "txt,json"]) == 0
    assert (out / "clip.txt").read_text().strip() == "hello from the echo family"
    doc = json.loads((out / "clip.json").read_text())
    assert (doc["engine"], doc["model_id"], doc["audio_duration_s"]) == ("echo", str(echo_dir), 2.0)
    assert [w["text"] for w in doc["segments"][0]["words"]] == ["hello", "from"]


def test_models_page_and_transcribe_page_use_the_family(echo_family, echo_dir, tmp_path, qtbot, win, wav):
    page = win.models
    page.import_model(str(echo_dir))
    qtbot.waitUntil(lambda: any(m.name == "echo-model" for m in page.models), timeout=30000)
    row = next(i for i, m in enumerate(page.models) if m.name == "echo-model")
    assert page.models[row].engine == "echo"
    assert page.table.item(row, 1).text() == "Echo (test family)"
    dictate_models = [win.dictate.model_box.itemText(i) for i in range(win.dictate.model_box.count())]
    assert "echo-model" not in dictate_models          # the family does not stream
    tp = win.transcribe
    assert "echo-model" in [tp.model_box.itemText(i) for i in range(tp.model_box.count())]
    tp.model_box.setCurrentText("echo-model")
    tp.language_options.set_model("echo-model")
    assert not tp.language_options.vocabulary.isEnabled()   # the family takes no prompt
    tp.device_box.setCurrentText("cpu")
    for f, c in tp.format_checks.items():
        c.setChecked(f == "txt")
    tp.output_dir = str(tmp_path / "gui-out")
    tp.add_paths([wav])
    with qtbot.waitSignal(tp.queue_finished, timeout=60000):
        tp.start()
    assert (tmp_path / "gui-out" / "clip.txt").read_text().strip() == "hello from the echo family"


from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures
