"""Transcript editing without Qt: an editable transcript backed by our JSON file, word timing kept
through edits, an undo history that survives a restart, find/replace, export.

``TranscriptDocument.load(path)`` is the entry point (:mod:`.document`)."""
from speechstudio.transcript.document import TranscriptDocument
from speechstudio.transcript.model import Segment, TranscriptFileError
from speechstudio.transcript.search import Match
from speechstudio.transcript.words import Word

__all__ = ["Match", "Segment", "TranscriptDocument", "TranscriptFileError", "Word"]
