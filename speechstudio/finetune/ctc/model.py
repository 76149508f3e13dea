"""Load the base for CTC fine-tuning and run it: vocabulary choice, training config, decoding.

A base is anything ``AutoModelForCTC`` loads (Wav2Vec2, HuBERT, WavLM, ...), with its CTC head and
vocabulary or as a bare encoder, whose head (``lm_head``) then starts random over a character vocabulary
built from the data (transformers CTC example). Config as in ``run_speech_recognition_ctc.py``:
``ctc_loss_reduction="mean"``, ``ctc_zero_infinity=True``, ``pad_token_id`` = blank, ``vocab_size``;
SpecAugment stays as in the base config."""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from speechstudio.asr.family_ctc import FAMILY as CTC
from speechstudio.errors import ModelNotFoundError, UsageError
from speechstudio.hub.cache import cached_snapshot
from speechstudio.hub.catalog import canonical_id, looks_like_hf_id
from speechstudio.hub.resolve import resolve_model
from speechstudio.hub.store import imported_dir
from speechstudio.progress import quiet_transformers


@dataclass(frozen=True)
class Base:
    """A resolved base: ``path`` (model folder), ``model_id`` (what the user named), whether it has
    a CTC head with a tokenizer (``has_vocab``), and its ``model_type``."""

    path: Path
    model_id: str
    has_vocab: bool
    model_type: str


def resolve_base(spec: str) -> Base:
    """Resolve a base (store name, Hugging Face id, folder) through ``speechstudio.hub``. Raises
    ``ModelNotFoundError`` or ``UsageError`` (kind ``not_trainable``: Whisper, or not a CTC model / speech encoder),
    with ``value`` ``spec`` (the CLI adds ``--base``)."""
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import MODEL_FOR_CTC_MAPPING_NAMES

    quiet_transformers()
    try:
        resolved = resolve_model(spec)
        path, model_id = Path(resolved.path), resolved.model_id
    except ModelNotFoundError as exc:
        # The store resolves models it can transcribe with; a pretrained encoder without a CTC head
        # is refused there but is a valid base here (a download lands in the cache before the refusal).
        path, model_id = _encoder_folder(spec), spec
        if path is None:
            raise ModelNotFoundError(f"{spec}: {exc}", kind=exc.kind, value=spec) from None
    else:
        if resolved.engine != CTC.name:
            raise UsageError(f"{spec} is a {resolved.engine} model; CTC fine-tuning needs a Wav2Vec2-family "
                             "model (Wav2Vec2, HuBERT, Data2Vec-Audio, Wav2Vec2-Conformer, WavLM), with or without "
                             "a CTC head", kind="not_trainable", value=spec)
    try:
        config = AutoConfig.from_pretrained(path)
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"{spec}: {path} has no usable config.json ({str(exc).splitlines()[0][:160]})",
                         value=spec) from exc
    if config.model_type not in MODEL_FOR_CTC_MAPPING_NAMES:
        raise UsageError(f"{spec}: model_type {config.model_type!r} is not a CTC model or speech encoder "
                         f"that AutoModelForCTC can load (known: {', '.join(sorted(MODEL_FOR_CTC_MAPPING_NAMES))})",
                         kind="not_trainable", value=spec)
    if getattr(config, "model_type", "") == "wav2vec2-bert":
        raise UsageError(f"{spec}: Wav2Vec2-BERT takes filter-bank features, not raw audio; this trainer "
                         "handles raw-waveform encoders (Wav2Vec2, HuBERT, Data2Vec-Audio, Wav2Vec2-Conformer, WavLM)",
                         kind="not_trainable", value=spec)
    has_head = any(str(a).endswith("ForCTC") for a in (getattr(config, "architectures", None) or []))
    has_vocab = has_head and (path / "vocab.json").is_file()
    return Base(path, model_id, has_vocab, str(config.model_type))


def _encoder_folder(spec: str) -> Path | None:
    """A model folder for ``spec`` found without the ASR checks: a local folder, an imported
    model's folder or a Hugging Face cache snapshot; it must hold config.json and weights."""
    local = Path(spec).expanduser()
    if local.is_dir():
        found = local.resolve()
    else:
        found = imported_dir(spec)
        if found is None and looks_like_hf_id(canonical_id(spec)):
            found = cached_snapshot(canonical_id(spec))
    if found is None or not (Path(found) / "config.json").is_file():
        return None
    names = os.listdir(found)
    if not any(n.endswith(".safetensors") or (n.startswith("pytorch_model") and n.endswith(".bin")) for n in names):
        return None
    return Path(found)


def load_for_training(path: str | Path, *, vocab_size: int, pad_token_id: int, new_head: bool):
    """``AutoModelForCTC`` from ``path`` in FP32 with the training config; ``new_head``: a fresh CTC
    head of ``vocab_size`` outputs from the current torch RNG. Raises ``UsageError`` when not loadable
    as CTC."""
    import torch
    from transformers import AutoModelForCTC

    quiet_transformers()
    overrides = dict(ctc_loss_reduction="mean", ctc_zero_infinity=True, pad_token_id=pad_token_id,
                     vocab_size=vocab_size)
    try:
        model = AutoModelForCTC.from_pretrained(path, dtype=torch.float32, ignore_mismatched_sizes=new_head,
                                                **overrides)
    except (ValueError, OSError, KeyError) as exc:
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"{path}: cannot be loaded as a CTC model ({first})") from exc
    if model.config.vocab_size != vocab_size:
        raise UsageError(f"{path}: CTC head has {model.config.vocab_size} outputs, the tokenizer {vocab_size}")
    return model


def output_frames(model, n_input: int) -> int:
    """CTC frames for ``n_input`` samples (or feature frames), by the conv encoder's arithmetic (320
    samples = 20 ms per frame for Wav2Vec2 at 16 kHz)."""
    import torch

    return int(model._get_feat_extract_output_lengths(torch.tensor(int(n_input))))


def ctc_loss(model, logits, labels, input_lengths):
    """CTC loss of ``logits`` (B, T, V) against ``labels`` (B, L; -100 = padding), each clip over its own
    frames from ``input_lengths`` (B,) samples (why: docs/finetune_asr.md, "Differences from transformers'
    example"), else as transformers' ``*ForCTC.forward`` (blank = ``pad_token_id``, FP32 log-softmax, cuDNN off)."""
    import torch

    cfg = model.config
    frames = model._get_feat_extract_output_lengths(input_lengths.to(logits.device)).to(torch.long)
    frames = frames.clamp(max=logits.shape[1])
    mask = labels >= 0
    target_lengths = mask.sum(-1)
    targets = labels.masked_select(mask)
    log_probs = torch.nn.functional.log_softmax(logits.float(), dim=-1).transpose(0, 1)
    with torch.backends.cudnn.flags(enabled=False):
        return torch.nn.functional.ctc_loss(log_probs, targets, frames, target_lengths, blank=cfg.pad_token_id,
                                            reduction=cfg.ctc_loss_reduction, zero_infinity=cfg.ctc_zero_infinity)


def autocast(device: str, precision: str):
    """``torch.autocast`` for FP16/BF16 on ``device``, a no-op context for FP32."""
    import torch

    if precision == "fp32":
        return contextlib.nullcontext()
    dtype = torch.float16 if precision == "fp16" else torch.bfloat16
    return torch.autocast(device_type=device.split(":")[0], dtype=dtype)
