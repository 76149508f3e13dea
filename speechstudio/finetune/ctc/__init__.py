"""CTC fine-tuning of Wav2Vec2-family recognisers on a prepared dataset (Qt-free): ``train_ctc`` yields
``InfoEvent``, ``SanityEvent``, ``EvalEvent(base=True)``, ``StepEvent``..., ``EvalEvent``,
``CheckpointEvent``, ``DoneEvent``; ``register_model(done.best_dir, NAME)`` stores the result.

Recipe sources (``docs/finetune_asr.md``, "Recipe"): any ``AutoModelForCTC`` checkpoint, or a headless
encoder with a data-built vocabulary (transformers ``run_speech_recognition_ctc.py``: CTC settings,
``--freeze_feature_encoder``, ``--group_by_length``, the 20 s clip limit); feature encoder frozen and the
config's SpecAugment (wav2vec 2.0, Baevski et al. 2020, sec. 4 / appendix B); AdamW lr 1e-4, weight decay
0.005 (transformers blog "Fine-Tune Wav2Vec2 for English ASR"), 10 % linear warm-up then linear decay,
clipping 1.0 (Trainer defaults). Several GPUs: ``accelerate launch``; stop + resume is bit-identical only
on one process."""
from __future__ import annotations

__all__ = ["CTCConfig", "TrainControl", "CTCTrainingError", "train_ctc", "register_model", "InfoEvent",
           "SanityEvent", "StepEvent", "EvalEvent", "CheckpointEvent", "DoneEvent"]

from speechstudio.finetune.ctc.events import (CheckpointEvent, CTCConfig, CTCTrainingError, DoneEvent, EvalEvent,
                                              InfoEvent, SanityEvent, StepEvent, TrainControl)
from speechstudio.hub.store import import_model as register_model  # the exported folder into the model store


def train_ctc(*args, **kwargs):
    """See :func:`speechstudio.finetune.ctc.trainer.train_ctc` (imported lazily: torch)."""
    from speechstudio.finetune.ctc.trainer import train_ctc as _train

    return _train(*args, **kwargs)
