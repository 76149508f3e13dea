"""The transcript editor: one line per segment, typed edits keeping word timing, split / merge,
speakers, find / replace, undo / redo, export and a following player; saved atomically."""
from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import QComboBox, QInputDialog, QLabel, QLineEdit, QPlainTextEdit, QWidget

from speechstudio.audio.tempo import SPEEDS
from speechstudio.batch.export import FORMATS, write_transcript
from speechstudio.diarize.library import save_voice
from speechstudio.errors import SpeechStudioError
from speechstudio.gui.common import (bare, buddy_label, button, combo, flow, hrow, named, note_label, refill,
                                     speaker_colour, vbox)
from speechstudio.gui.devices import allow
from speechstudio.gui.save_places import ask_save_path
from speechstudio.gui.seek_bar import SeekBar
from speechstudio.gui.segment_text import SegmentTextEdit
from speechstudio.gui.transcript_find import FindBar
from speechstudio.gui.wording import plain_error
from speechstudio.transcript import TranscriptDocument
from speechstudio.transcript.timefmt import format_time, parse_time

#: Words the recogniser was less sure of than this get a wavy underline (probability in [0, 1]).
LOW_CONFIDENCE = 0.5
AUTOSAVE_MS = 1000
FOLLOW_MS = 40


class TranscriptEditor(QWidget):
    """Signals: ``changed()`` after each edit, undo or redo (re-read ``document.segments``), ``status_message(str)``."""

    changed = Signal()
    status_message = Signal(str)
    shortcut_scope = "transcript editor"  # where its keys work, in Help > Keyboard shortcuts
    voice_saved = Signal(str)        # a message once "Remember voice" is done (from its thread)
    split_found = Signal(str, object, object)  # speaker, segment spans, voice 0/1 of each ("Split speaker")
    saved = Signal(object)           # the .json path, after each save of the edits

    def __init__(self, player=None, parent=None) -> None:
        super().__init__(parent)
        self.document: TranscriptDocument | None = None
        self.player = player
        self._loading = False
        self._chars = 0  # the text's length at the last cursor move (typing changes it)
        self._unsure: list[tuple[int, int, int]] = []
        self._said: tuple[int, int, int] | None = None
        self._names: list[str] = []
        self._build()
        self._autosave = QTimer(self, singleShot=True, interval=AUTOSAVE_MS, timeout=self.flush)
        self._follow = QTimer(self, interval=FOLLOW_MS, timeout=self._follow_player)
        self._follow.start()
        self._update_actions()

    def _build(self) -> None:
        self.play_btn = button("Play", "Play from the cursor", "Play from the cursor / pause (Ctrl+Space)",
                               self.toggle_play)
        self.undo_btn = button("Undo", "Undo", "Undo (Ctrl+Z)", self.undo)
        self.redo_btn = button("Redo", "Redo", "Redo (Ctrl+Shift+Z)", self.redo)
        self.split_btn = button("Split", "Split segment at the cursor",
                                "Split the segment at the cursor (Enter in the text does the same)", self.split_at_cursor)
        self.merge_btn = button("Merge with next", "Merge with the next segment",
                                "Merge this segment with the next one (Ctrl+M; Backspace at a line's start too)",
                                self.merge_with_next)
        self.seek_bar = SeekBar()  # jump in the recording; the highlighted word follows
        self.seek_bar.seeked.connect(self._seek_to)
        self.segment_label = named(QLabel("Segment –"), "Segment under the cursor")
        self.start_edit, self.end_edit = QLineEdit(), QLineEdit()
        for e, n in ((self.start_edit, "Segment start"), (self.end_edit, "Segment end")):
            named(e, n, f"{n} (m:ss.sss or seconds); Enter applies")
            e.setFixedWidth(self.fontMetrics().horizontalAdvance("0:00:00.000") + 24)   # never cut to "352"
            e.editingFinished.connect(self._apply_times)
        self.save_btn = button("Save", "Save the transcript", "Save into the .json transcript (Ctrl+S); edits are also "
                               "saved a second after you stop typing", self.flush)
        self.export_box = combo("Export the edited transcript as", FORMATS, current="srt")
        self.export_btn = button("Export…", "Export the edited transcript",
                                 "Write the edited transcript as the chosen format", self._export_dialog)
        # rows that wrap in a narrow window (1024 px: the page scrolled sideways), each group kept on one line
        tools = flow([self.play_btn, self.undo_btn, self.redo_btn, self.split_btn, self.merge_btn],
                     [self.segment_label, self.start_edit, QLabel("–"), self.end_edit],
                     [self.save_btn, self.export_box, self.export_btn])
        # 0.5x-2x, pitch kept (speechstudio.audio.tempo); the text and the bar stay in the file's time
        self.speed_box = combo("Playback speed", [(f"{s:g}×", s) for s in SPEEDS],
                               "Listen faster or slower; voices keep their pitch and the text still follows",
                               current=1.0)
        self.speed_box.currentIndexChanged.connect(lambda _i: self._set_speed(float(self.speed_box.currentData())))
        self.speed_label = buddy_label("Speed", self.speed_box)
        down = Qt.AlignmentFlag.AlignBottom  # on the slider's line
        seek = hrow((self.seek_bar, 1), (self.speed_label, 0, down), (self.speed_box, 0, down), stretch=False)

        self.speaker_box = combo("Speaker of the segment or of the selected words", tip="Choose or type who says this "
                                 "segment (or only the selected words: the segment is split around them); Enter "
                                 "applies", editable=True)
        self.speaker_box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.speaker_box.setMinimumContentsLength(14)
        self.speaker_box.activated.connect(lambda _i: self.assign_speaker(self.speaker_box.currentText()))
        self.speaker_box.lineEdit().returnPressed.connect(lambda: self.assign_speaker(self.speaker_box.currentText()))
        self.rename_btn = button("Rename speaker…", "Rename this speaker everywhere", "Rename this speaker in the "
                                 "whole transcript; a name already used merges the two", self._rename_dialog)
        self.remember_btn = button("Remember voice", "Remember this speaker's voice", "Save this speaker's voice under "
                                   "their name: later transcripts with speaker labels name them automatically",
                                   self.remember_voice)
        self.split_speaker_btn = button("Split speaker", "Split this speaker in two by voice", "Two people were heard "
                                        "as one: their segments are listened to again and the other voice's get a "
                                        "speaker of their own", self.split_speaker)
        self.count_label = named(QLabel(), "How many speakers")
        speakers = flow([QLabel("Speaker"), self.speaker_box], [self.rename_btn, self.split_speaker_btn,
                                                                 self.remember_btn], self.count_label)
        self.voice_saved.connect(self.status_message)
        self.split_found.connect(self._apply_split)

        self.find_bar = FindBar(self)

        self.text = SegmentTextEdit(self._gutter_times, self.undo, self.redo, speaker=self._gutter_speaker)
        self.text.setAccessibleName("Transcript text, one segment per line")
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.document().contentsChanged.connect(self._on_text_changed)
        self.text.cursorPositionChanged.connect(self._on_cursor_moved)
        self._marks_timer = QTimer(self, singleShot=True, interval=50, timeout=self._refresh_marks)
        self.text.verticalScrollBar().valueChanged.connect(lambda _v: self._marks_timer.start())
        self.unsure_note = note_label("Unsure words", "Words with a wavy orange underline: the recogniser was not "
                                      "sure of them. Listen to them and fix them if needed.")
        self.unsure_note.hide()  # shown once such words are on screen
        bare(vbox(self, tools, seek, speakers, self.find_bar, (self.text, 1), self.unsure_note))
        self._show_player()

        ctx = Qt.ShortcutContext.WidgetWithChildrenShortcut
        fb = self.find_bar
        for keys, slot, what in (
                (QKeySequence.StandardKey.Save, self.flush, "Save the transcript"),
                (QKeySequence.StandardKey.Find, fb.focus_find, "Find"),
                (QKeySequence("Ctrl+H"), fb.replace_edit.setFocus, "Replace"),
                (QKeySequence("F3"), fb.find_next, "Find next"),
                (QKeySequence("Shift+F3"), lambda: fb.find_next(True), "Find previous"),
                (QKeySequence("Ctrl+M"), self.merge_with_next, "Merge the segment with the next one"),
                (QKeySequence("Ctrl+Space"), self.toggle_play, "Play / pause the transcript's audio"),
                (QKeySequence("Ctrl+Shift+Z"), self.redo, "Redo")):
            sc = QShortcut(keys, self, slot)
            sc.setContext(ctx)
            sc.setWhatsThis(what)  # its line in Help > Keyboard shortcuts

    def set_document(self, doc: TranscriptDocument | None) -> None:
        """Show ``doc`` (saving the one shown before if it has unsaved edits)."""
        self.flush()
        self.document = doc
        self.unsure_note.hide()
        self.seek_bar.set_duration(self._duration(doc))
        self.seek_bar.set_peaks(None)
        if doc is not None and hasattr(self.player, "request_peaks"):
            self.player.request_peaks()  # the waveform: at once when known, else after decoding
        self._render((0, 0))
        self.text.setReadOnly(doc is None)
        self.text.moveCursor(QTextCursor.MoveOperation.Start)
        self._update_actions()

    def _show_player(self) -> None:
        """The seek bar, waveform and speed show with a player; its file's waveform follows."""
        player = self.player
        for w in (self.seek_bar, self.speed_label, self.speed_box):
            w.setVisible(player is not None)
        self.speed_box.setEnabled(hasattr(player, "set_speed"))
        ready = getattr(player, "peaks_ready", None)
        if ready is not None and getattr(self, "_peaks_from", None) is not player:
            ready.connect(self._on_peaks)
            self._peaks_from = player

    def _on_peaks(self, path, peaks) -> None:
        if path == getattr(self.player, "path", None):
            self.seek_bar.set_peaks(peaks)

    def _set_speed(self, speed: float) -> None:
        if hasattr(self.player, "set_speed"):
            self.player.set_speed(speed)
            self.status_message.emit("playing at normal speed" if speed == 1.0 else
                                     f"playing at {speed:g}× speed, same pitch")

    def _render(self, cursor: tuple[int, int] | None = None) -> None:
        """Fill the text from the document; put the cursor at ``(segment, char)``."""
        self._loading = True
        scroll = self.text.verticalScrollBar().value()
        self.text.setPlainText("\n".join(self.document.texts()) if self.document else "")
        self.text.verticalScrollBar().setValue(scroll)
        if cursor is not None and self.document and self.document.segments:
            self.text.place_cursor(*cursor)
        self._loading = False
        self._said = None
        self.text.set_said(None)
        self._refresh_marks()

    def _segment(self, block: int):
        """Segment ``block`` of the document, ``None`` without one."""
        doc = self.document
        return doc.segments[block] if doc is not None and 0 <= block < len(doc.segments) else None

    def _gutter_speaker(self, block: int):
        s = self._segment(block)
        return (s.speaker, speaker_colour(self._names, s.speaker)) if s is not None and s.speaker else None

    def _current_speaker(self) -> str | None:
        s = self._segment(min(self.cursor()[0], len(self.document.segments) - 1) if self.document else -1)
        return s.speaker if s is not None else None

    def assign_speaker(self, name: str) -> bool:
        """Give the segment under the cursor (or the selected words, when inside one segment) to speaker ``name``."""
        name = (name or "").strip()
        if self.document is None or not self.document.segments or not name:
            return False
        c = self.text.textCursor()
        seg, _ = self.cursor()
        start = end = None
        if c.hasSelection():
            a, b = sorted((c.selectionStart(), c.selectionEnd()))
            block = self.text.document().findBlock(a)
            if block.blockNumber() == self.text.document().findBlock(b).blockNumber():
                seg, start, end = block.blockNumber(), a - block.position(), b - block.position()
        if start is None and self.document.segments[seg].speaker == name:
            return False
        return self.run(lambda: self.document.set_speaker(seg, name, start, end), (seg, 0))

    def rename_speaker(self, old: str, new: str) -> bool:
        """Rename (or merge into an existing name) speaker ``old`` everywhere; one undo step."""
        return self.run(lambda: self.document.rename_speaker(old, new), self.cursor())

    def _rename_dialog(self) -> None:
        old = self._current_speaker()
        if not old:
            self.status_message.emit("this segment has no speaker: choose one in the Speaker box first")
            return
        new, ok = QInputDialog.getText(self, "Rename speaker", f"New name for {old} (an existing name merges them):",
                                       text=old)
        if ok and new.strip() and new.strip() != old:
            self.rename_speaker(old, new)

    def audio_path(self) -> Path | None:
        """The recording this transcript is of (its JSON's ``source``), ``None`` when unknown."""
        doc = self.document
        src = (doc.meta.get("source") or {}).get("path") if doc is not None else None
        if src:
            return Path(src)
        player_src = getattr(self.player, "path", None)
        return Path(player_src) if player_src else None

    def _speaker_job(self, what: str, cannot: str):
        """``(name, path, spans)`` of the current speaker's segments for a background job (``what``: "to
        split them"; ``cannot``: "cannot split {name}"), or None after saying on the status line why not."""
        name, path = self._current_speaker(), self.audio_path()
        if self.document is None or not name:
            self.status_message.emit(f"put the cursor on a segment with a speaker {what}")
            return None
        if path is None or not path.exists():
            self.status_message.emit(f"{cannot.format(name=name)}: the recording is not found")
            return None
        return name, path, [(s.start_s, s.end_s) for s in self.document.segments if s.speaker == name]

    def _in_background(self, work, message: str, thread_name: str) -> threading.Thread:
        self.status_message.emit(message)
        t = threading.Thread(target=work, daemon=True, name=thread_name)
        t.start()
        return t

    def remember_voice(self) -> threading.Thread | None:
        """Save the current speaker's voice (from their segments of the recording) to the speaker
        library under their name, in a background thread; ``voice_saved`` says how it went."""
        job = self._speaker_job("to remember their voice", "cannot remember {name}'s voice")
        if job is None:
            return None
        name, path, spans = job
        if name.startswith("Speaker ") and name[8:].isdigit():
            self.status_message.emit(f"give {name} a real name first (Rename speaker…): the voice is saved under it")
            return None

        def work() -> None:
            from speechstudio.diarize.cli import voice_from_spans
            try:
                emb, seconds, source = voice_from_spans(path, spans)
                save_voice(name, emb, seconds=seconds, source=source, overwrite=True)
                self.voice_saved.emit(f"remembered {name}'s voice ({seconds:.0f} s): later transcripts with "
                                      "speaker labels will name them")
            except (SpeechStudioError, OSError, ValueError) as e:
                self.voice_saved.emit(f"cannot remember {name}'s voice: {plain_error(e)}")

        return self._in_background(work, f"remembering {name}'s voice…", "remember-voice")

    def split_speaker(self) -> threading.Thread | None:
        """Split the current speaker in two by voice (``diarize.split.split_by_voice``, in a thread): the
        second voice's segments get the next free "Speaker N", one undo step."""
        job = self._speaker_job("to split them", "cannot split {name}")
        if job is None:
            return None
        name, path, spans = job

        def work() -> None:
            from speechstudio.diarize.split import split_by_voice

            try:
                self.split_found.emit(name, spans, split_by_voice(path, spans))
            except (SpeechStudioError, OSError, ValueError) as e:
                self.voice_saved.emit(f"cannot split {name}: {plain_error(e)}")

        return self._in_background(work, f"listening to {name}'s segments again…", "split-speaker")

    def _apply_split(self, name: str, spans, voices) -> None:
        """The second voice's segments (found by :meth:`split_speaker`) to a new speaker; edited ones keep theirs."""
        second = {span for span, v in zip(spans, voices) if v == 1}
        moved = [i for i, s in enumerate(self.document.segments) if s.speaker == name and (s.start_s, s.end_s) in second]
        if self.run(lambda: self.document.split_speaker(name, moved), self.cursor()):
            new = self.document.segments[moved[0]].speaker
            self._say_saved(f"{name} split in two: {len(moved)} segment{'s are' if len(moved) > 1 else ' is'} now {new} "
                            "(undo puts them back)")

    def cursor(self) -> tuple[int, int]:
        """``(segment, char)`` of the text cursor."""
        return self.text.position()

    def _gutter_times(self, block: int) -> str:
        s = self._segment(block)
        if s is None:
            return ""
        times = f"{format_time(s.start_s)}–{format_time(s.end_s)}"
        lang = getattr(s, "language", None) if self.text.tag_width else None
        return f"{lang.upper()}  {times}" if lang else times

    def _after_change(self, cursor=None, rerender: bool = True) -> None:
        """Refresh after a change; ``cursor``: ``(segment, char)`` or a callable giving it."""
        if callable(cursor):
            cursor = cursor()
        if rerender:
            self._render(cursor)
        else:
            self._refresh_marks()
        self.text.gutter.update()
        self._update_actions()
        self._autosave.start()
        self.changed.emit()

    def _on_text_changed(self) -> None:
        if self._loading or self.document is None:
            return
        # blocks end in U+2029; toPlainText() would also turn no-break spaces into spaces
        lines = self.text.document().toRawText().split("\u2029")
        if lines == [""] and not self.document.segments:
            return
        try:
            self.document.type_lines(lines)
        except SpeechStudioError as e:
            self.status_message.emit(str(e))
            self._render(self.cursor())
            return
        self._after_change(rerender=False)

    def run(self, op, cursor=None) -> bool:
        """Run document operation ``op()``, then re-render with the cursor at ``cursor`` (``(segment,
        char)`` or a callable); a user error goes to the status line. Returns success."""
        if self.document is None:
            return False
        try:
            op()
        except SpeechStudioError as e:
            self.status_message.emit(str(e))
            return False
        self._after_change(cursor)
        return True

    def undo(self) -> None:
        self._step(undo=True)

    def redo(self) -> None:
        self._step(undo=False)

    def _step(self, undo: bool) -> None:
        doc = self.document
        if doc is None or not (doc.can_undo if undo else doc.can_redo):
            return
        done = []

        def op():
            done.append(doc.undo() if undo else doc.redo())

        def where():
            return (done[0].splices[0].index if done and done[0].splices else 0), 0

        if self.run(op, where):
            self._say_saved(f"{'undid' if undo else 'redid'} {done[0].label}")

    def _say_saved(self, message: str) -> None:
        """Save now, then say ``message`` (what an action did): the autosave's "saved …" a second later hid it."""
        if self.flush():
            self.status_message.emit(message)

    def split_at_cursor(self) -> None:
        seg, char = self.cursor()
        self.run(lambda: self.document.split(seg, char), (seg + 1, 0))

    def merge_with_next(self) -> None:
        seg, _ = self.cursor()
        at = len(self.document.segments[seg].text.rstrip()) if self.document and self.document.segments else 0
        self.run(lambda: self.document.merge(seg), (seg, at))

    def set_times(self, seg: int, start_s: float, end_s: float) -> bool:
        return self.run(lambda: self.document.set_times(seg, start_s, end_s), self.cursor())

    def _apply_times(self) -> None:
        if self.document is None or not self.document.segments:
            return
        seg, _ = self.cursor()
        s = self.document.segments[seg]
        try:
            a, b = parse_time(self.start_edit.text()), parse_time(self.end_edit.text())
        except SpeechStudioError as e:
            self.status_message.emit(str(e))
            self._show_times()
            return
        if (a, b) != (round(s.start_s, 3), round(s.end_s, 3)) and not self.set_times(seg, a, b):
            self._show_times()

    def flush(self) -> bool:
        """Save now if there are unsaved edits. Returns False when saving failed (said on the status line)."""
        self._autosave.stop()
        doc = self.document
        if doc is None or not doc.dirty:
            return True
        try:
            path = doc.save()
        except (SpeechStudioError, OSError) as e:
            self.status_message.emit(f"cannot save the transcript: {plain_error(e)}")
            return False
        self.status_message.emit(f"saved {path.name}")
        self.saved.emit(path)
        self._update_actions()
        return True

    def export(self, fmt: str, path: str | Path) -> Path | None:
        """Write the edited transcript as ``fmt`` to ``path`` (atomic); ``None`` on failure."""
        if self.document is None:
            return None
        try:
            out = write_transcript(path, self.document.segments, self.document.info, fmt)
        except (SpeechStudioError, OSError) as e:
            self.status_message.emit(f"export failed: {plain_error(e)}")
            return None
        self.status_message.emit(f"exported {out}")
        return out

    def _export_dialog(self) -> None:
        if self.document is None:
            return
        fmt = self.export_box.currentText()
        base = self.document.path or Path.home() / "transcript.json"
        default = base.with_name(f"{base.stem}.edited.{fmt}" if fmt == "json" else f"{base.stem}.{fmt}")
        if path := ask_save_path(self, f"Export transcript as {fmt}", default.name, f"{fmt} (*.{fmt})"):
            self.export(fmt, path)

    def toggle_play(self) -> None:
        if self.player is None or self.document is None:
            return
        if not self.player.playing and self.document.segments:
            self.player.seek(self.document.time_at(*self.cursor()))
        self.player.toggle()
        self._update_actions()

    def _on_cursor_moved(self) -> None:
        self._show_times()
        chars, self._chars = self._chars, self.text.document().characterCount()
        if self._loading or self.document is None or not self.document.segments:
            return
        if chars != self._chars:  # typing moves the cursor: the player stays where it is
            return
        if self.player is not None:
            t = self.document.time_at(*self.cursor())
            self.player.seek(t)
            self.seek_bar.show_position(t)

    @staticmethod
    def _duration(doc) -> float:
        """The recording's length: the transcript's audio duration, else its last segment's end."""
        return 0.0 if doc is None else (float(doc.info.duration_s or 0.0)
                                        or max((seg.end_s for seg in doc.segments), default=0.0))

    def _seek_to(self, t: float) -> None:
        if self.player is not None:
            self.player.seek(t)
        self.highlight_time(t)

    def _follow_player(self) -> None:
        if self.player is None or self.document is None:
            return
        playing = bool(self.player.playing)
        if playing:
            self.seek_bar.show_position(self.player.position_s)
        if self.play_btn.text() != ("Pause" if playing else "Play"):
            self.play_btn.setText("Pause" if playing else "Play")
        self.highlight_time(self.player.position_s if playing else None)

    def highlight_time(self, t: float | None) -> tuple[int, int, int] | None:
        """Highlight the word said at ``t`` s (``None``: none), scrolled to; returns its ``(segment, start, end)``."""
        hit = self.document.word_at(t) if (self.document is not None and t is not None) else None
        if hit != self._said:
            self._said = hit
            if hit is not None:
                self.text.scroll_to_block(hit[0])
            self.text.set_said(hit)
        return hit

    def _refresh_marks(self) -> None:
        """Underline the unsure words (probability < ``LOW_CONFIDENCE``) in the segments on screen and 20 around."""
        doc = self.document
        self._unsure = [] if doc is None else [
            (i, a, b) for i in self.text.visible_blocks() if i < len(doc.segments)
            for a, b, w in doc.word_spans(i) if w.probability < LOW_CONFIDENCE]
        self.text.set_unsure(self._unsure)
        if self._unsure:
            self.unsure_note.show()

    def _show_times(self) -> None:
        doc = self.document
        if doc is None or not doc.segments:
            self.segment_label.setText("Segment –")
            for box in (self.start_edit, self.end_edit, self.speaker_box.lineEdit()):
                box.clear()
            return
        seg = min(self.cursor()[0], len(doc.segments) - 1)
        s = doc.segments[seg]
        self.segment_label.setText(f"Segment {seg + 1} of {len(doc.segments)}")
        for box, text in ((self.speaker_box, s.speaker or ""), (self.start_edit, format_time(s.start_s)),
                          (self.end_edit, format_time(s.end_s))):
            if not box.hasFocus():
                (box.setEditText if box is self.speaker_box else box.setText)(text)

    def _update_actions(self) -> None:
        doc = self.document
        has = doc is not None and bool(doc.segments)
        self.undo_btn.setEnabled(bool(doc and doc.can_undo))
        self.undo_btn.setToolTip(f"Undo {doc.undo_label()} (Ctrl+Z)" if doc and doc.can_undo else "Nothing to undo")
        self.redo_btn.setEnabled(bool(doc and doc.can_redo))
        self.redo_btn.setToolTip(f"Redo {doc.redo_label()} (Ctrl+Shift+Z)" if doc and doc.can_redo else "Nothing to redo")
        for w in (self.split_btn, self.merge_btn, self.export_btn, self.export_box, self.start_edit, self.end_edit,
                  self.speaker_box, self.rename_btn, self.split_speaker_btn, self.remember_btn):
            w.setEnabled(has)
        self.find_bar.set_enabled(has)
        self._names = doc.speakers() if doc is not None else []
        self.text.set_speaker_names(self._names)
        # the segments' languages when there is more than one (each stretch in its own)
        spoken = list(dict.fromkeys(s.language for s in doc.segments if getattr(s, "language", None))) if doc else []
        self.text.set_tag_room([lang.upper() for lang in spoken] if len(spoken) > 1 else [])
        items = [self.speaker_box.itemText(i) for i in range(self.speaker_box.count())]
        if items != self._names:
            refill(self.speaker_box, self._names)
        count = doc.speaker_count() if doc is not None else ""
        self.count_label.setText(count)
        self.count_label.setToolTip(
            "The program is not sure how many people speak: listen, then merge two speakers with Rename "
            "speaker… (give one the other's name), split one with Split speaker, or give selected words to "
            "another speaker" if count.endswith("check")
            else "How many people speak in this recording" if count else "")
        hub = getattr(self.player, "hub", None)
        if hub is not None:  # one no-device policy (gui.devices): disabled with "No speaker found"
            self.play_btn.setEnabled(allow(self.play_btn, hub, "speaker", "Play from the cursor / pause (Ctrl+Space)")
                                     and has)
        else:
            self.play_btn.setEnabled(has and self.player is not None and bool(getattr(self.player, "available", True)))
        self.save_btn.setEnabled(bool(doc and doc.dirty))
        self.save_btn.setText("Save" if doc is not None and doc.dirty else "Saved")
        self._show_times()
