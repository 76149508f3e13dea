"""Transcript editing without Qt: ``TranscriptDocument.load(path)`` (:mod:`.document`), word timing kept
through edits, undo that survives a restart, find / replace."""
from speechstudio.transcript.document import TranscriptDocument
from speechstudio.transcript.model import Segment, TranscriptFileError
from speechstudio.transcript.search import Match
from speechstudio.transcript.words import Word
