"""Transcript editing without Qt: ``TranscriptDocument.load(path)`` (:mod:`.document`), word timing kept
through edits, undo that survives a restart, find / replace."""
from speechstudio.transcript.document import TranscriptDocument  # noqa: F401 - the package's entry point
from speechstudio.transcript.model import TranscriptFileError  # noqa: F401
