"""GUIDE.md's layers: the core (everything below gui/, the worker.s job modules included) runs
without Qt, so the CLI, the library API and the tests of the core never load PySide6."""
import subprocess
import sys

import pytest

CORE = ["speechstudio.cli", "speechstudio.api", "speechstudio.worker.status", "speechstudio.worker.jobs",
        "speechstudio.worker.dictation", "speechstudio.worker.finetune_jobs", "speechstudio.worker.adapt_jobs",
        "speechstudio.finetune.voice_run", "speechstudio.finetune.ctc", "speechstudio.asr.live"]


@pytest.mark.parametrize("module", CORE)
def test_core_module_loads_without_qt(module):
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith('PySide6')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_each_name_means_one_thing():
    """Issue 13 item 5: "engine" is only a model family ("wav2vec2" | "whisper"), the Qt thread
    layer is ``speechstudio.worker`` (class ``Worker``), folder transcription is
    ``speechstudio.batch``, and loaded models are recognisers."""
    import importlib.util

    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from speechstudio.asr.whisper import WhisperRecognizer

    assert importlib.util.find_spec("speechstudio.engine") is None
    assert importlib.util.find_spec("speechstudio.jobs") is None
    assert importlib.util.find_spec("speechstudio.batch.run") is not None
    assert importlib.util.find_spec("speechstudio.worker.worker") is not None
    assert (Wav2Vec2Recognizer.engine, WhisperRecognizer.engine) == ("wav2vec2", "whisper")


def test_worker_threads_are_not_called_engines():
    """The Qt threads are workers in the code's prose too (issue 13 item 5 once found "compute
    engine", "I/O engine", "train engine" in gui/ and worker/ docstrings), and a recogniser object
    is not documented as ``engine``."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "speechstudio"
    worker_sense = re.compile(r"\b(compute|I/O|train|training|adapt|transcription) engine\b|\bthe engines\b"
                              r"|\bthe engine's (cancel|worker|Qt signals|cached)|\bengine(_name| job| worker)\b"
                              r"|``engine\.(model|precision|sample_rate)``")
    hits = [f"{p.relative_to(root)}:{n}: {line.strip()}"
            for sub in ("gui", "worker", "asr", "batch")
            for p in sorted((root / sub).glob("*.py"))
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if worker_sense.search(line)]
    assert hits == []
