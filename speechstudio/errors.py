"""User-facing errors: ``SpeechStudioError`` subclasses whose message names the thing and the reason in
one line (the CLI prints it without a traceback unless ``--debug``; the batch runner records it and goes
on)."""


class SpeechStudioError(Exception):
    """Base class: the message is one readable line meant for the user."""


class AudioDecodeError(SpeechStudioError):
    """A file could not be decoded as audio (empty, not audio, no audio stream, corrupt)."""


class ModelNotFoundError(SpeechStudioError):
    """A model name / id / directory could not be resolved to a usable model."""


class OfflineError(SpeechStudioError):
    """A download was needed but the network (or the Hugging Face Hub) is unreachable."""


class UsageError(SpeechStudioError):
    """The user asked for something inconsistent (bad option value); CLI exit status 2."""
