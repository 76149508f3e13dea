"""The Dictate page's live transcript view: finished utterances and the current one's stable
words in the normal text colour, its still-changing tail in grey, and the latency label."""
from __future__ import annotations

from PySide6.QtGui import QTextCursor

from speechstudio.gui.wording import dictate

TAIL_COLOR = "#8a8a8a"


class LiveTranscriptView:
    """Mixed into ``DictatePage``: uses its ``view`` (QTextEdit), ``stable_fmt`` / ``tail_fmt``, ``latency_label``,
    ``backlog_s`` and the text state ``finished_text`` / ``stable_text`` / ``tail_text`` / ``_mark``."""

    def show_update(self, u) -> None:
        """Show a :class:`~speechstudio.asr.streaming.StreamUpdate`: replace the current utterance's
        stable text and tail; on ``final`` the utterance joins the finished text."""
        lag = max(0.0, u.audio_s - u.stable_s) + u.compute_s + (self.backlog_s if u.kind == "partial" else 0.0)
        self.latency_ms = lag * 1000.0
        self.latency_label.setText(dictate("latency", ms=self.latency_ms))
        if u.kind == "final":
            self.finish_utterance(u.stable_text)
        else:
            self.stable_text, self.tail_text = u.stable_text, u.tail_text
            self._render()
        self.transcript_changed.emit()
        self._update_buttons()

    def finish_utterance(self, piece: str) -> None:
        """The current utterance ends as ``piece`` (its stable words), joining the finished text; its tail goes."""
        self.finished_text = " ".join(p for p in (self.finished_text, piece) if p)
        self.stable_text, self.tail_text = "", ""
        self._render(final_piece=piece)

    def _render(self, final_piece: str | None = None) -> None:
        """Rewrite the document from ``_mark`` (the current utterance) to the end."""
        doc = self.view.document()
        cur = QTextCursor(doc)
        cur.setPosition(min(self._mark, doc.characterCount() - 1))
        cur.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cur.removeSelectedText()
        sep = " " if self._mark > 0 else ""
        if final_piece is not None:
            if final_piece:
                cur.insertText(sep + final_piece, self.stable_fmt)
            self._mark = doc.characterCount() - 1
        else:
            stable = sep + self.stable_text if self.stable_text else ""
            if stable:
                cur.insertText(stable, self.stable_fmt)
            if self.tail_text:
                if stable or sep:
                    cur.insertText(" ", self.stable_fmt)
                cur.insertText(self.tail_text, self.tail_fmt)
        self.view.moveCursor(QTextCursor.MoveOperation.End)
        self.view.ensureCursorVisible()

    def _new_utterance_block(self) -> None:
        """A new session continues the existing text (Clear empties it)."""
        self.stable_text, self.tail_text = "", ""
        self._mark = self.view.document().characterCount() - 1
