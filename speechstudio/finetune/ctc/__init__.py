"""CTC fine-tuning of Wav2Vec2-family recognisers on a prepared dataset (Qt-free).

Public API::

    from speechstudio.finetune.ctc import CTCConfig, TrainControl, train_ctc, register_model
    for event in train_ctc(run_dir, dataset_dir, "facebook/wav2vec2-base-960h", CTCConfig(epochs=20)):
        ...   # InfoEvent, SanityEvent, EvalEvent(base=True), StepEvent..., EvalEvent, CheckpointEvent, DoneEvent
    register_model(done.best_dir, "my-asr")       # then: speechstudio transcribe --model my-asr file.wav

CLI: ``speechstudio finetune asr --base MODEL --data DIR --out NAME`` (``finetune.ctc.cli``).

Recipe and where each number comes from:

- Model: any checkpoint ``AutoModelForCTC`` loads (Wav2Vec2, HuBERT, Data2Vec-Audio,
  Wav2Vec2-Conformer, WavLM...), keeping its vocabulary, or a pretrained encoder without a CTC
  head with a character vocabulary built from the data (``vocab.py``; transformers
  ``examples/pytorch/speech-recognition/run_speech_recognition_ctc.py``).
- Loss: CTC (Graves et al., 2006) with the pad token as blank, ``ctc_loss_reduction="mean"``,
  ``ctc_zero_infinity=True`` (the example's settings).
- The convolutional feature encoder is frozen (wav2vec 2.0, Baevski et al. 2020, sec. 4 /
  appendix B: "the feature encoder is not trained during fine-tuning"; the example's
  ``--freeze_feature_encoder``). SpecAugment-style masking of the encoder features follows the
  model config (``mask_time_prob`` 0.05, ``mask_time_length`` 10 in wav2vec2-base's config;
  the paper's sec. 4), applied by the model in train mode.
- AdamW, peak lr 1e-4 (transformers blog "Fine-Tune Wav2Vec2 for English ASR with 🤗
  Transformers": wav2vec2-base on TIMIT, lr 1e-4, warm-up, 30 epochs; the example README uses
  3e-4 for XLSR-53 on Common Voice), linear warm-up over 10 % of the steps (the paper's
  tri-stage schedule warms up over the first 10 %) then linear decay (transformers Trainer's
  default schedule); weight decay 0.005 (the blog), gradient clipping at 1.0 (Trainer default).
- Mixed precision: BF16 autocast on GPUs that have it, else FP16 autocast + ``GradScaler``;
  gradient accumulation; optional gradient checkpointing; batches grouped by length (the
  example's ``--group_by_length``); clips over 20 s refused (the example's
  ``max_duration_in_seconds``).
- Evaluation: greedy CTC decoding, WER and CER (jiwer) on the held-out split after
  ``metrics.normalize_text``, base model first; early stopping after ``patience`` evaluations
  without a better WER; best + latest checkpoints; TensorBoard in ``RUN/tb``.

Several GPUs (DDP)::

    accelerate launch --multi_gpu --num_processes N -m speechstudio finetune asr --base ... --data ... --out NAME

Each process takes every N-th length-grouped batch; rank 0 evaluates and saves. A stop + resume
is bit-identical only on one process (the other ranks' RNG states are not saved).
"""
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
    """Import the exported model folder into the model store under ``name`` (a copy under
    ``<data dir>/models/NAME``), so ``speechstudio models list`` shows it and ``transcribe`` /
    ``dictate --model NAME`` use it. ``replace``: an existing model of that name is replaced once the
    copy is complete (``atomic.atomic_folder``).
    Returns the ``ResolvedModel``. Raises ``UsageError`` (bad / taken name), ``ModelNotFoundError``."""
    from speechstudio.hub.store import import_model

    return import_model(model_dir, name, replace=replace)
