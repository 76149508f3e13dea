"""Tell which recogniser family a model directory is for, from its files (no weights are loaded).

Each family in :mod:`speechstudio.asr.family`'s registry says whether a folder is one of its models
(:meth:`~speechstudio.asr.family.AsrFamily.detect`); see :mod:`speechstudio.asr.family_ctc` and
:mod:`speechstudio.asr.family_whisper` for what each accepts and refuses.
"""
from __future__ import annotations

import os

from speechstudio.asr.family import detect


def detect_engine(path: str | os.PathLike[str]) -> str:
    """Return the recogniser family (registry name: ``"wav2vec2"``, ``"whisper"``...) of the model
    directory ``path``.

    Raises:
        ModelNotFoundError: ``path`` is missing, not a directory, or not a model SpeechStudio can
            run; the message names the directory and the reason.
    """
    return detect(path)


__all__ = ["detect_engine"]
