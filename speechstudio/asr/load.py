"""Pick and load an ASR engine for a model spec (name, HF id, folder) or the default model."""
from __future__ import annotations

from speechstudio.errors import ModelNotFoundError


def load_engine(spec: str | None = None, *, device: str = "auto", precision: str = "auto",
                batch_size: int | None = None, chunk_s: float | None = None, stride_s: float | None = None,
                allow_download: bool = True, progress: bool = True):
    """Resolve ``spec`` through the model store and load the matching engine.

    ``spec=None`` takes the default model (facebook/wav2vec2-base-960h when cached or downloadable,
    else the installed Whisper tiny.en). A folder the hub detects as a CTC checkpoint (engine
    ``"wav2vec2"``: Wav2Vec2, HuBERT, Data2Vec-Audio, Wav2Vec2-Conformer...) loads the CTC engine
    :class:`~speechstudio.asr.wav2vec2.Wav2Vec2Engine`. Returns ``(engine, message)`` where
    ``message`` says which model is used (and, for CTC, its family) and why. Raises :class:`~speechstudio.errors.ModelNotFoundError`,
    :class:`~speechstudio.errors.OfflineError` or :class:`~speechstudio.errors.UsageError`.
    """
    from speechstudio.hub.resolve import default_asr_model, resolve_model

    if spec:
        resolved = resolve_model(spec, allow_download=allow_download, progress=progress)
        why = f"using {resolved.model_id} ({resolved.engine}, {resolved.source})"
    else:
        resolved, reason = default_asr_model(allow_download=allow_download, progress=progress)
        why = f"default model ({resolved.engine}): {reason}"
    if resolved.engine == "wav2vec2":
        from speechstudio.asr.wav2vec2 import DEFAULT_CHUNK_S, Wav2Vec2Engine

        engine = Wav2Vec2Engine(resolved.path, resolved.model_id, device=device, precision=precision,
                                chunk_s=chunk_s or DEFAULT_CHUNK_S, stride_s=stride_s, batch_size=batch_size)
        if spec:
            why = f"using {resolved.model_id} ({engine.family_name} CTC, {resolved.source})"
    elif resolved.engine == "whisper":
        from speechstudio.asr.whisper import WhisperEngine

        engine = WhisperEngine(resolved.path, resolved.model_id, device=device, precision=precision,
                               batch_size=batch_size)
    else:
        raise ModelNotFoundError(f"{resolved.path}: unknown engine {resolved.engine!r}")
    return engine, f"{why} on {engine.device} ({engine.precision})"
