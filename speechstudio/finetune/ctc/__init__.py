"""CTC fine-tuning of Wav2Vec2-family recognisers on a prepared dataset (Qt-free).

Public API::

    from speechstudio.finetune.ctc import CTCConfig, TrainControl, train_ctc, register_model
    for event in train_ctc(run_dir, dataset_dir, "facebook/wav2vec2-base-960h", CTCConfig(epochs=20)):
        ...   # InfoEvent, SanityEvent, EvalEvent(base=True), StepEvent..., EvalEvent, CheckpointEvent, DoneEvent
    register_model(done.best_dir, "my-asr")

Recipe sources (details: ``docs/finetune_asr.md``, "Recipe"): any ``AutoModelForCTC`` checkpoint or a
headless encoder with a data-built vocabulary (transformers
``examples/pytorch/speech-recognition/run_speech_recognition_ctc.py``, which also gives the CTC
settings, ``--freeze_feature_encoder``, ``--group_by_length`` and the 20 s clip limit); the feature
encoder frozen and SpecAugment from the model config (wav2vec 2.0, Baevski et al. 2020, sec. 4 /
appendix B); AdamW lr 1e-4, weight decay 0.005 (transformers blog "Fine-Tune Wav2Vec2 for English ASR"),
10 % linear warm-up then linear decay, clipping 1.0 (Trainer defaults). Several GPUs: ``accelerate
launch --multi_gpu ... -m speechstudio finetune asr``; a stop + resume is bit-identical only on one
process."""
from __future__ import annotations

__all__ = ["CTCConfig", "TrainControl", "CTCTrainingError", "train_ctc", "register_model", "InfoEvent",
           "SanityEvent", "StepEvent", "EvalEvent", "CheckpointEvent", "DoneEvent"]

from speechstudio.finetune.ctc.events import (CheckpointEvent, CTCConfig, CTCTrainingError, DoneEvent, EvalEvent,
                                              InfoEvent, SanityEvent, StepEvent, TrainControl)


def train_ctc(*args, **kwargs):
    """See :func:`speechstudio.finetune.ctc.trainer.train_ctc` (imported lazily: torch)."""
    from speechstudio.finetune.ctc.trainer import train_ctc as _train

    return _train(*args, **kwargs)


def register_model(model_dir, name: str, *, replace: bool = False):
    """Copy the exported model folder into the model store as ``name`` (``replace`` an existing one once
    the copy is complete); returns the ``ResolvedModel``. Raises ``UsageError`` (bad or taken name),
    ``ModelNotFoundError``."""
    from speechstudio.hub.store import import_model

    return import_model(model_dir, name, replace=replace)
