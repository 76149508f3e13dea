"""What a CTC checkpoint's config says: family, frame rate (``frame_len = prod(conv_stride)``, wav2vec 2.0
sec. 2) and whether our recogniser runs it (raw-waveform conv encoders; filter-bank models refused)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

#: Display names of the raw-waveform CTC families (transformers ``model_type`` -> name).
FAMILY_NAMES = {"wav2vec2": "Wav2Vec2", "hubert": "HuBERT", "data2vec-audio": "Data2Vec-Audio",
                "wav2vec2-conformer": "Wav2Vec2-Conformer", "wavlm": "WavLM", "unispeech": "UniSpeech",
                "unispeech-sat": "UniSpeech-SAT", "sew": "SEW", "sew-d": "SEW-D"}

# Why a well-known non-CTC model_type cannot run here, for the error message.
_NOT_CTC_HINTS = {
    "whisper": "a Whisper encoder-decoder; give the Whisper engine its CTranslate2 (faster-whisper) "
               "conversion instead",
    "vits": "a VITS text-to-speech voice, not a speech recogniser",
    "speecht5": "a SpeechT5 encoder-decoder, not a CTC model",
    "fastspeech2_conformer": "a FastSpeech2 text-to-speech model, not a speech recogniser",
    "seamless_m4t": "a SeamlessM4T encoder-decoder, not a CTC model",
}

SUPPORTED = "Wav2Vec2, HuBERT, Data2Vec-Audio, Wav2Vec2-Conformer, WavLM, UniSpeech(-SAT) or SEW(-D) *ForCTC"


@dataclass(frozen=True)
class FrameGeometry:
    """CTC frame arithmetic in samples at ``sample_rate`` Hz: ``frame_len`` (hop), ``receptive_field``."""

    frame_len: int
    receptive_field: int
    sample_rate: int = 16000

    @property
    def seconds_per_frame(self) -> float:
        """Frame hop in seconds (0.02 for the standard stack at 16 kHz)."""
        return self.frame_len / self.sample_rate


def frame_geometry(conv_kernel: Sequence[int], conv_stride: Sequence[int], sample_rate: int = 16000) -> FrameGeometry:
    """:class:`FrameGeometry` of a conv stack; ``ValueError`` for empty, unequal or non-positive lists."""
    kernels, strides = [int(k) for k in conv_kernel], [int(s) for s in conv_stride]
    if not kernels or len(kernels) != len(strides) or min(kernels + strides) < 1:
        raise ValueError(f"conv_kernel {list(conv_kernel)} and conv_stride {list(conv_stride)} must be "
                         "non-empty lists of positive integers of the same length")
    rf = 1
    for k, s in reversed(list(zip(kernels, strides))):
        rf = (rf - 1) * s + k
    return FrameGeometry(math.prod(strides), rf, int(sample_rate))


def family_name(model_type: str) -> str:
    """Display name for a transformers ``model_type`` (``"hubert"`` -> ``"HuBERT"``)."""
    return FAMILY_NAMES.get(model_type, model_type)


def ctc_config_problem(config) -> str | None:
    """Why the CTC recogniser cannot run this ``PretrainedConfig`` (one sentence), or ``None``: not an
    ``AutoModelForCTC`` model, filter-bank input, no conv encoder, adapter layers or no ``*ForCTC`` head."""
    import transformers
    from transformers.models.auto.modeling_auto import MODEL_FOR_CTC_MAPPING_NAMES

    model_type = str(getattr(config, "model_type", "") or "")
    if model_type not in MODEL_FOR_CTC_MAPPING_NAMES:
        hint = _NOT_CTC_HINTS.get(model_type, "AutoModelForCTC has no class for it")
        return f"model_type {model_type!r} is not a CTC speech-recognition model ({hint}); expected a {SUPPORTED} checkpoint"
    cls = getattr(transformers, MODEL_FOR_CTC_MAPPING_NAMES[model_type], None)
    if cls is not None and getattr(cls, "main_input_name", "input_values") != "input_values":
        return (f"{cls.__name__} reads {cls.main_input_name} (filter-bank features), not the raw waveform "
                f"the CTC engine feeds; expected a {SUPPORTED} checkpoint")
    kernel, stride = getattr(config, "conv_kernel", None), getattr(config, "conv_stride", None)
    if not kernel or not stride:
        return f"model_type {model_type!r} has no convolutional feature encoder (conv_kernel / conv_stride in config.json)"
    try:
        frame_geometry(kernel, stride)
    except ValueError as e:
        return f"config.json: {e}"
    if getattr(config, "add_adapter", False):
        return ("config.json has add_adapter=true: adapter layers change the CTC frame rate, "
                "which the CTC engine does not support")
    archs = [a for a in (getattr(config, "architectures", None) or []) if isinstance(a, str)]
    if archs and not any(a.endswith("ForCTC") for a in archs):
        return (f"the checkpoint is a {', '.join(archs)} without a CTC head (no *ForCTC in architectures); "
                "a pre-trained base must be fine-tuned for CTC first")
    return None
