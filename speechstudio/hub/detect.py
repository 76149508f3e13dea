"""Tell which ASR engine a model directory is for, from its files (no weights are loaded).

- **wav2vec2** (the CTC engine): a transformers checkpoint whose ``config.json`` has the
  ``model_type`` of a raw-waveform CTC family (Wav2Vec2, HuBERT, Data2Vec-Audio,
  Wav2Vec2-Conformer, WavLM, UniSpeech(-SAT), SEW(-D)) or an ``architectures`` entry ending in
  ``ForCTC``, with its weights (``*.safetensors`` or ``pytorch_model*.bin``). A checkpoint of such
  a family whose ``architectures`` name no ``*ForCTC`` class (a pre-trained base: ``HubertModel``,
  ``Wav2Vec2ForPreTraining``) and the CTC models the engine cannot feed (filter-bank input:
  Wav2Vec2-BERT, Parakeet CTC; see ``OTHER_CTC_MODEL_TYPES``) are refused with the reason.
- **whisper**: a CTranslate2 Whisper directory for faster-whisper: ``model.bin`` plus
  ``config.json`` / ``vocabulary.*`` / ``tokenizer.json``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from speechstudio.errors import ModelNotFoundError

#: transformers ``model_type`` values whose ``*ForCTC`` heads our CTC engine can run: the
#: raw-waveform models with a conv feature encoder in transformers' ``MODEL_FOR_CTC_MAPPING_NAMES``
#: (kept in step with it by tests/test_ctc_families.py).
WAV2VEC2_MODEL_TYPES = frozenset(
    {
        "wav2vec2",
        "wav2vec2-conformer",
        "hubert",
        "wavlm",
        "data2vec-audio",
        "unispeech",
        "unispeech-sat",
        "sew",
        "sew-d",
    }
)

_FILTERBANK = "reads filter-bank features, not the raw waveform the CTC engine feeds"

#: Other ``AutoModelForCTC`` model types (``_`` written as ``-``) and why the CTC engine cannot run them.
OTHER_CTC_MODEL_TYPES = {
    "wav2vec2-bert": _FILTERBANK,
    "mctct": _FILTERBANK,
    "parakeet-ctc": _FILTERBANK,
    "lasr-ctc": _FILTERBANK,
    "granite-speech5-ctc": _FILTERBANK,
    "omniasr-ctc": "keeps its encoder settings in audio_config, which the CTC engine does not read",
}

_CT2_TOKENIZER_FILES = ("config.json", "vocabulary.txt", "vocabulary.json", "tokenizer.json")


def _has_transformers_weights(path: Path) -> bool:
    names = os.listdir(path)
    return any(
        n.endswith(".safetensors")
        or n == "model.safetensors.index.json"
        or (n.startswith("pytorch_model") and (n.endswith(".bin") or n.endswith(".bin.index.json")))
        for n in names
    )


def detect_engine(path: str | os.PathLike[str]) -> str:
    """Return the ASR engine for the model directory ``path``.

    Args:
        path: a model directory.

    Returns:
        ``"wav2vec2"`` (transformers CTC checkpoint) or ``"whisper"`` (CTranslate2 Whisper dir).

    Raises:
        ModelNotFoundError: ``path`` is missing, not a directory, or not a model SpeechStudio can
            run; the message names the directory and the reason.
    """
    p = Path(path)
    if not p.exists():
        raise ModelNotFoundError(f"model directory {p} does not exist")
    if not p.is_dir():
        raise ModelNotFoundError(f"{p} is a file, not a model directory (give the folder that holds it)")
    try:
        names = set(os.listdir(p))
    except OSError as exc:
        raise ModelNotFoundError(f"cannot read model directory {p}: {exc.strerror or exc}") from exc

    if "model.bin" in names and any(n in names for n in _CT2_TOKENIZER_FILES):
        return "whisper"

    if "config.json" not in names:
        if "model.bin" in names:
            raise ModelNotFoundError(
                f"{p} has model.bin but no config.json, vocabulary.txt or tokenizer.json; "
                "it is not a complete CTranslate2 Whisper model"
            )
        raise ModelNotFoundError(
            f"{p} is not a supported ASR model: no config.json (Wav2Vec2 CTC) or model.bin (faster-whisper)"
        )
    try:
        with open(p / "config.json", encoding="utf-8") as fh:
            config = json.load(fh)
    except (OSError, ValueError) as exc:
        raise ModelNotFoundError(f"{p}: config.json cannot be read as JSON ({exc})") from exc
    if not isinstance(config, dict):
        raise ModelNotFoundError(f"{p}: config.json is not a JSON object")

    model_type = str(config.get("model_type", "")).lower().replace("_", "-")
    architectures = config.get("architectures") or []
    if not isinstance(architectures, list):
        architectures = []
    has_ctc_head = any(isinstance(a, str) and a.endswith("ForCTC") for a in architectures)
    if model_type in OTHER_CTC_MODEL_TYPES:
        raise ModelNotFoundError(
            f"{p} is a {model_type} CTC model that {OTHER_CTC_MODEL_TYPES[model_type]}; SpeechStudio's "
            "CTC engine runs Wav2Vec2, HuBERT, Data2Vec-Audio, Wav2Vec2-Conformer, WavLM, UniSpeech or SEW checkpoints"
        )
    if model_type in WAV2VEC2_MODEL_TYPES and architectures and not has_ctc_head:
        raise ModelNotFoundError(
            f"{p} is a {model_type} checkpoint without a CTC head (architectures {architectures}); "
            "a pre-trained base must be fine-tuned for CTC before it can transcribe"
        )
    if model_type in WAV2VEC2_MODEL_TYPES or has_ctc_head:
        if not _has_transformers_weights(p):
            raise ModelNotFoundError(
                f"{p} has a {model_type or 'CTC'} config.json but no weights "
                "(model.safetensors or pytorch_model.bin)"
            )
        return "wav2vec2"
    if model_type == "vits":
        raise ModelNotFoundError(f"{p} is a VITS text-to-speech voice, not a speech-recognition model")
    if model_type == "whisper":
        raise ModelNotFoundError(
            f"{p} is a transformers Whisper checkpoint; faster-whisper needs the CTranslate2 "
            "conversion (ct2-transformers-converter) or a Systran/faster-whisper-* model"
        )
    kind = f"model_type {model_type!r}" if model_type else "no model_type"
    arch = f", architectures {architectures}" if architectures else ""
    raise ModelNotFoundError(
        f"{p} is not a supported ASR model ({kind}{arch}): expected a *ForCTC checkpoint (Wav2Vec2, "
        "HuBERT, Data2Vec-Audio, Wav2Vec2-Conformer...) or a CTranslate2 Whisper directory"
    )
