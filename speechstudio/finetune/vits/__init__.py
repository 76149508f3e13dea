"""VITS voice fine-tuning ("clone my voice"), Qt-free.

Modules, one idea each:

* ``mas``           monotonic alignment search (VITS' Cython ``maximum_path`` as numba / torch)
* ``discriminator`` HiFi-GAN multi-period + scale discriminator (VITS ``MultiPeriodDiscriminator``)
* ``losses``        mel L1, KL, LSGAN, feature matching, their weights and sources
* ``features``      linear magnitude spectrogram + log-mel exactly as VITS / Piper compute them
* ``model``         the training forward of transformers' ``VitsModel`` (posterior, flow, MAS, slice)
* ``data``          clips -> token ids + cached features, collate, seeded length-bucketed batches
* ``config``        ``TrainConfig`` and device / precision resolution
* ``events``        the small frozen event dataclasses the trainer yields, ``TrainControl``
* ``step``          one optimizer step (warm-up or GAN), evaluation, the resumable training state
* ``trainer``       ``train_voice`` (the loop; re-exports the public names below)
* ``trained``       ``BaseInfo`` and ``load_trained_generator`` (what the exporter saves)
* ``presets``       quick / standard / best presets and a time / memory ``estimate``
* ``piper_ckpt``    Piper training checkpoints (``.ckpt``: full VITS + discriminator) as bases

Public API (``from speechstudio.finetune.vits.trainer import ...``): ``train_voice``,
``TrainConfig``, ``TrainControl``, ``load_trained_generator``, ``BaseInfo``, ``TrainingError``
and the events; ``presets.preset`` / ``presets.estimate``; ``finetune.run.RunFolder``.

Heavy imports (torch, transformers) happen inside functions or in the submodules, never here.
"""
