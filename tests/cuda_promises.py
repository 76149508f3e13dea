"""Fixtures of the GPU promise tests ``tests/test_cuda_*.py`` (``python -m pytest -m cuda -rs``;
``bench/device_run.sh``); each of those modules imports the fixtures it uses from here.

Every such module carries ``pytestmark = cuda_marks()`` (marker ``cuda`` + a skip with the reason
when torch sees no CUDA GPU), so on a CPU machine nothing below is built.

* ``english_speech``: the real English recordings of ``../shared/realspeech`` (the list
  ``bench/_common.ENGLISH``, 9 files, 61.6 s) at 16 kHz with their reference transcripts
  (``manifest.tsv``), and the same files joined with 0.3 s pauses (``bench/_common.speech_16k``).
* ``ctc_finetuned``: a CTC model with real (learnt) weights, fine-tuned on CUDA in FP32 by the
  product's trainer (``finetune.ctc.train_ctc``, what ``speechstudio finetune asr`` runs) on six
  words spoken by the Piper joe voice (``tests/test_finetune_ctc.py``: same data, encoder and
  recipe, which reach WER 0 within 300 steps).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from test_finetune_ctc import LEARN, WORDS, encoder, words  # noqa: E402,F401  (fixtures re-used here)

SKIP_REASON = "needs an NVIDIA GPU (CUDA): run bench/device_run.sh on a GPU machine"


def cuda_marks() -> list:
    """``pytestmark`` of every module here: the ``cuda`` marker and the skip without CUDA."""
    import torch

    return [pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason=SKIP_REASON)]


@dataclass(frozen=True)
class EnglishSpeech:
    """``clips``: ``[(file name, np.ndarray[float32] (n,) 16 kHz, reference transcript)]``;
    ``joined``: all clips joined with 0.3 s of silence (``np.ndarray[float32]``, 16 kHz)."""

    clips: list
    joined: np.ndarray


@pytest.fixture(scope="session")
def english_speech() -> EnglishSpeech:
    import _common
    from conftest import realspeech_file, realspeech_rows

    from speechstudio.audio.decode import load_audio

    folder = realspeech_file()
    refs = {r["filename"]: r["reference_transcript"] for r in realspeech_rows()}
    clips = [(name, load_audio(folder / name, 16000), refs[name]) for name in _common.ENGLISH]
    return EnglishSpeech(clips, _common.speech_16k())


@pytest.fixture(scope="module")
def ctc_finetuned(tmp_path_factory, words, encoder) -> Path:
    """The best checkpoint folder of a CUDA FP32 fine-tune (see the module notes); asserts the
    run learnt the words (WER 0 on them), so the precision checks compare a model that works."""
    from speechstudio.finetune.ctc import DoneEvent, train_ctc

    run_dir = tmp_path_factory.mktemp("cuda-runs") / "words"
    events = list(train_ctc(run_dir, words, str(encoder), replace(LEARN, device="cuda", precision="fp32")))
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.best_wer == 0.0, done
    return done.best_dir


def words_clips(words_dir: Path) -> list[tuple[str, np.ndarray]]:
    """``[(word, np.ndarray[float32] 16 kHz)]`` of the ``words`` dataset, in ``WORDS`` order."""
    import soundfile as sf

    return [(w, sf.read(words_dir / "clips" / f"w{i}.wav", dtype="float32")[0]) for i, w in enumerate(WORDS)]
