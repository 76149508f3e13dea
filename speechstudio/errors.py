"""User-facing errors: ``SpeechStudioError`` subclasses whose message names the thing and the reason in
one line (the CLI prints it without a traceback unless ``--debug``; the batch runner records it and goes
on). Each error carries a :data:`KINDS` kind and the offending value, so an interface words the cause
its own way (the GUI: ``speechstudio.gui.wording.SENTENCES``) instead of reading the message."""
from __future__ import annotations

import errno

#: the causes an interface may word itself; "error" is any other
KINDS = ("error", "usage", "not_audio", "not_found", "not_downloaded", "offline", "no_network",
         "optional_part", "no_sound_device", "gpu_monitor", "out_of_memory", "permission", "disk_full",
         "not_trainable", "no_gpu")

#: third-party exception classes (by name, anywhere in the class's MRO) -> kind; no import needed
_FOREIGN = (("OutOfMemoryError", "out_of_memory"), ("OfflineModeIsEnabled", "offline"),
            ("LocalEntryNotFoundError", "not_downloaded"), ("NVMLError", "gpu_monitor"),
            ("PortAudioError", "no_sound_device"))


class SpeechStudioError(Exception):
    """Base class: the message is one readable line meant for the user; ``kind`` (one of :data:`KINDS`)
    names the cause, ``value`` the offending value (a path, an option's value) or None."""

    kind = "error"

    def __init__(self, message: str = "", *, kind: str | None = None, value=None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind
        self.value = value


class AudioDecodeError(SpeechStudioError):
    """A file could not be decoded as audio (empty, not audio, no audio stream, corrupt)."""

    kind = "not_audio"


class ModelNotFoundError(SpeechStudioError):
    """A model name / id / directory could not be resolved to a usable model (kind ``not_downloaded``
    when it is known but not in the cache)."""

    kind = "not_found"


class OfflineError(SpeechStudioError):
    """A download was needed but the network (or the Hugging Face Hub) is unreachable (kind ``offline``
    when downloads are switched off)."""

    kind = "no_network"


class UsageError(SpeechStudioError):
    """The user asked for something inconsistent (bad option value); CLI exit status 2."""

    kind = "usage"


class UnknownModelError(ModelNotFoundError, UsageError):
    """A model name that is neither installed, in the catalog, a Hugging Face id nor an existing folder: a usage
    error (CLI exit status 2), kind ``not_found``."""


#: a parent process that sets this variable gets a failed command's kind on its last line, after ERROR_KIND_LINE
ERROR_KIND_ENV, ERROR_KIND_LINE = "SPEECHSTUDIO_ERROR_KIND", "speechstudio: error kind: "


def kind_of(error: BaseException) -> str:
    """The :data:`KINDS` kind of any exception: ours say it, the standard library's and known
    third-party ones (PyTorch, huggingface_hub, pynvml, sounddevice) by class; else ``"error"``."""
    if isinstance(error, SpeechStudioError):
        return error.kind
    if isinstance(error, ModuleNotFoundError):
        return "optional_part"
    if isinstance(error, MemoryError):
        return "out_of_memory"
    if isinstance(error, PermissionError):
        return "permission"
    if isinstance(error, OSError) and error.errno == errno.ENOSPC:
        return "disk_full"
    names = [c.__name__ for c in type(error).__mro__]
    return next((kind for name, kind in _FOREIGN if name in names), "error")


class ErrorLine(str):
    """A failed job's one-line message (the worker's ``"failed"`` result) that keeps its error's
    :func:`kind_of` and its ``message`` without a class name."""

    kind = "error"
    message = ""

    @classmethod
    def of(cls, error: BaseException, line: str | None = None) -> ErrorLine:
        text = str(error).splitlines()[0] if str(error) else ""
        out = cls(text if line is None else line)
        out.kind, out.message = kind_of(error), text
        return out
