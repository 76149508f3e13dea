"""SpeechStudio: offline speech work on the user's GPU or CPU. ``segments, info =
speechstudio.transcribe("talk.mp3")``; ``speechstudio.synthesize("Hello.", voice=...)`` (:mod:`.api`).
Names load on first access, so ``--help`` and the GUI start fast."""
import importlib
import os
import warnings

__version__ = "0.1.0"

# onnxruntime (1.32: Piper voices, Silero VAD) keeps a device id and a telemetry store under ~/.cache/Microsoft and
# sends it when online: nothing of ours leaves the machine. Read when its first session is made; a user may set it.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

__all__ = ["Recognizer", "Segment", "SpeechChunk", "TranscriptInfo", "Word", "load", "synthesize", "transcribe",
           "__version__"]

_LAZY = {
    "transcribe": ("speechstudio.api", "transcribe"),
    "synthesize": ("speechstudio.api", "synthesize"),
    "load": ("speechstudio.api", "load"),
    "Segment": ("speechstudio.asr.types", "Segment"),
    "Word": ("speechstudio.asr.types", "Word"),
    "TranscriptInfo": ("speechstudio.asr.types", "TranscriptInfo"),
    "Recognizer": ("speechstudio.asr.types", "Recognizer"),
    "SpeechChunk": ("speechstudio.tts.stream", "SpeechChunk"),
}
# Old names kept importable for library users, with a DeprecationWarning: {old: new}.
_RENAMED = {"AudioChunk": "SpeechChunk"}


def __getattr__(name: str):
    if name in _RENAMED:
        warnings.warn(f"speechstudio.{name} is now speechstudio.{_RENAMED[name]}", DeprecationWarning, stacklevel=2)
        return __getattr__(_RENAMED[name])
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'speechstudio' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_LAZY))
