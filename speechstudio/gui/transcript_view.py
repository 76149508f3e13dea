"""The transcript of one queue row (start / end / text, click to hear; "Edit transcript" opens the editor) with "export
as", the queue row itself, and reading our ``.json`` back for skipped files."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QLabel, QWidget

from speechstudio.asr.languages import language_name
from speechstudio.batch.export import FORMATS, output_path, write_transcript
from speechstudio.diarize.family import SpeakerInfo
from speechstudio.errors import SpeechStudioError
from speechstudio.gui.common import (CurrentStack, add_row, bare, button, combo, fmt_ts, hrow, note_label,
                                     speaker_colour, table, vbox)
from speechstudio.gui.transcript_editor import TranscriptEditor
from speechstudio.gui.transcript_player import SegmentPlayer
from speechstudio.transcript import TranscriptDocument


@dataclass
class QueueRow:
    """One input in the queue. ``status``: queued | running | done | skipped | failed | cancelled |
    ignored. ``segments``: transcript (``Segment`` list) once known."""

    item: object  # speechstudio.batch.run.InputItem
    status: str = "queued"
    duration_s: float | None = None
    progress: float = 0.0
    rtfx: float | None = None
    outputs: tuple[Path, ...] = ()
    reason: str = ""
    segments: list = field(default_factory=list)
    info: object = None  # TranscriptInfo for re-export
    output_dir: str | None = None  # where its outputs go when not the page's folder (a watched folder's choice)


def load_json_transcript(row: QueueRow) -> None:
    """Read a ``.json`` output (ours) for the transcript / metadata of a skipped file."""
    js = next((p for p in row.outputs if p.suffix == ".json"), None)
    if js is None or not js.is_file():
        return
    try:
        doc = TranscriptDocument.load(js)
    except SpeechStudioError:  # TranscriptFileError: unreadable, or not our transcript
        return
    row.info, row.segments = doc.info, list(doc.segments)
    table, count = doc.meta.get("speakers"), doc.meta.get("speaker_count")
    if isinstance(table, list) and table:  # the speakers and how sure their count was (the row's status says it)
        speakers = tuple(SpeakerInfo(str(s.get("name", "")), float(s.get("talk_time_s") or 0.0), bool(s.get("known")),
                                     s.get("similarity"), s.get("sureness")) for s in table if isinstance(s, dict))
        could_be = count.get("could_be") if isinstance(count, dict) else None
        row.info = dataclasses.replace(row.info, speakers=speakers,
                                       speakers_could_be=could_be if isinstance(could_be, int) else None)


def _earlier_segments(row: QueueRow, output_dir: str | None) -> list:
    """The segments of the ``.json`` an earlier run wrote where this row's would go (the row's output folder, else
    ``output_dir``, else beside the input), else []: a file added again shows its transcript before Start skips it."""
    js = output_path(row.item.path, "json", row.item.root, row.output_dir or output_dir or None)
    try:
        return list(TranscriptDocument.load(js).segments)
    except (SpeechStudioError, OSError):  # none there, unreadable, or not our transcript
        return []


class TranscriptView(QWidget):
    """A row's transcript: the segment table (click to hear) or, while editing, the :class:`TranscriptEditor` (saved
    into the row's ``.json`` and its txt / srt / vtt, copied into ``row.segments``); ``audio`` and ``io`` give it a
    player. Signals ``status_message(str)``, ``editing_changed(bool)`` (after each :meth:`set_editing`)."""

    status_message = Signal(str)
    editing_changed = Signal(bool)

    def __init__(self, formats, parent=None, *, audio=None, io=None) -> None:
        super().__init__(parent)
        self.row: QueueRow | None = None
        self.output_dir: str | None = None  # the page's output folder (None: beside each input)
        self._doc_row: QueueRow | None = None     # the row whose transcript the editor holds (saved into its outputs)
        self.title = note_label("Transcript title", "Transcript: select a finished file")
        self.edit_btn = button("Edit transcript", "Edit the transcript",
                               "Fix words, times and segments; the player follows the cursor")
        self.edit_btn.setCheckable(True)
        self.edit_btn.setEnabled(False)
        self.export_label = QLabel("Export as")
        self.export_box = combo("Export format", formats)
        self.export_btn = button("Export…", "Export transcript")
        self.export_btn.setEnabled(False)
        self.segments = table("Transcript segments; click one to hear it", ("Start", "End", "Text"))
        self.segments.setColumnWidth(0, 70)
        self.segments.setColumnWidth(1, 70)
        self.player = SegmentPlayer(audio, io, self) if audio is not None and io is not None else None
        if self.player is not None:
            self.player.message.connect(self.status_message)
        self.editor = TranscriptEditor(self.player)
        self.editor.changed.connect(self._on_edited)
        self.editor.status_message.connect(self.status_message)
        self.editor.saved.connect(self._outputs_follow)
        self.stack = CurrentStack()
        self.stack.addWidget(self.segments)
        self.stack.addWidget(self.editor)
        bare(vbox(self, hrow((self.title, 1), self.edit_btn, self.export_label, self.export_box, self.export_btn,
                             stretch=False), (self.stack, 1)))
        self.edit_btn.toggled.connect(self.set_editing)

    def show_row(self, row: QueueRow | None) -> None:
        self.row = row
        self._fill_table(row)
        editable = row is not None and row.status in ("done", "skipped") and row.info is not None
        self.edit_btn.setEnabled(editable)
        self.export_btn.setEnabled(editable)
        if self.player is not None:
            self.player.set_source(row.item.path if row is not None else None)
        self.set_editing(self.edit_btn.isChecked() and editable)

    def _fill_table(self, row: QueueRow | None) -> None:
        self.segments.setRowCount(0)
        if row is None:
            self.title.setText("Transcript: select a finished file")
            return
        name, segments = row.item.path.name, row.segments
        if row.status in ("failed", "ignored"):
            reason = row.reason.removeprefix(f"{row.item.path}: ")     # the reason names the file already
            self.title.setText(f"{name}: {reason}")
        elif row.status == "cancelled":
            self.title.setText(f"{name}: cancelled, nothing written")
        elif row.status == "queued" and not segments and (segments := _earlier_segments(row, self.output_dir)):
            self.title.setText(f"{name}: queued; its transcript from an earlier run is shown (Start keeps it unless "
                               "Redo finished files is on)")
        elif row.status in ("queued", "running") and not segments:
            self.title.setText(f"{name}: {'not transcribed yet' if row.status == 'queued' else 'transcribing…'}")
        else:
            hear = " — click a segment to hear it" if self.player is not None and self.player.available else ""
            self.title.setText(f"Transcript of {name} ({len(segments)} segments){hear}")
        names = list(dict.fromkeys(s.speaker for s in segments if getattr(s, "speaker", None)))
        # a file in more than one language (each stretch decoded in its own): say which, per segment
        spoken = list(dict.fromkeys(s.language for s in segments if getattr(s, "language", None)))
        for seg in segments:
            who = getattr(seg, "speaker", None)
            text = f"{who}: {seg.text.strip()}" if who else seg.text.strip()
            lang = getattr(seg, "language", None) if len(spoken) > 1 else None
            if lang:
                text = f"[{language_name(lang)}] {text}"
            colour = speaker_colour(names, who)
            tip = [f"said by {who}"] if colour is not None else []
            tip += [f"spoken in {language_name(lang)}"] if lang else []
            r = add_row(self.segments, (fmt_ts(seg.start_s), fmt_ts(seg.end_s), text), ("", "", ", ".join(tip)))
            if colour is not None:
                self.segments.item(r, 2).setForeground(colour)
        self.segments.resizeRowsToContents()

    def set_editing(self, on: bool) -> None:
        """Show the editor on the selected row's transcript (``on``) or the segment table."""
        row = self.row
        doc = self._document(row) if on and row is not None else None
        on = on and doc is not None
        if self.edit_btn.isChecked() != on and self.edit_btn.isEnabled():
            with QSignalBlocker(self.edit_btn):
                self.edit_btn.setChecked(on)
        if doc is not self.editor.document:
            self.editor.set_document(doc)       # saves the document it held into that document's row
            self._doc_row = row if doc is not None else None
        self.stack.setCurrentWidget(self.editor if on else self.segments)
        self.stack.updateGeometry()
        for w in (self.export_label, self.export_box, self.export_btn):
            w.setVisible(not on)  # the editor has its own export of the edited text
        self.edit_btn.setText("Close editor" if on else "Edit transcript")
        if on:
            names = ", ".join([doc.path.name] + [p.name for p in self._other_outputs()])
            self.title.setText(f"Editing {row.item.path.name} — saved into {names} as you go")
            self.editor.text.setFocus()
        elif row is not None:
            self._fill_table(row)
        self.editing_changed.emit(on)

    def _other_outputs(self, row: QueueRow | None = None) -> list[Path]:
        """The outputs of ``row`` (default: the selected one) other than its ``.json`` (txt / srt / vtt …)."""
        row = row or self.row
        return [p for p in (row.outputs if row is not None else ()) if p.suffix.lstrip(".") in FORMATS
                and p.suffix != ".json"]

    def _outputs_follow(self, json_path) -> None:
        """After the editor saved ``json_path``: write the edit into the row's other outputs (txt / srt / vtt) too."""
        doc = self.editor.document
        if doc is None or doc.path != json_path:
            return
        done, failed = [], []
        for p in self._other_outputs(self._doc_row):
            try:
                write_transcript(p, doc.segments, doc.info, p.suffix.lstrip("."))
                done.append(p.name)
            except (SpeechStudioError, OSError) as e:
                failed.append(f"{p.name}: {e}")
        if failed:
            self.status_message.emit(f"saved {json_path.name}; not updated: " + "; ".join(failed))
        elif done:
            self.status_message.emit(f"saved {json_path.name}, " + ", ".join(done))

    def _document(self, row: QueueRow) -> TranscriptDocument | None:
        """The row's transcript as an editable document (its ``.json``; else a new ``.json`` next
        to its first output). ``None`` (said on the status line) when the JSON cannot be read."""
        cur = self.editor.document
        js = next((p for p in row.outputs if p.suffix == ".json"), None)
        if js is None:
            js = row.outputs[0].with_suffix(".json") if row.outputs else output_path(row.item.path, "json")
        if cur is not None and cur.path == js and not cur.changed_on_disk():
            return cur
        if js.is_file():
            try:
                return TranscriptDocument.load(js)
            except SpeechStudioError as e:
                self.status_message.emit(f"cannot edit: {e}")
                return None
        if row.info is None:
            return None
        return TranscriptDocument.from_segments(row.segments, row.info, js)

    def _on_edited(self) -> None:
        if self._doc_row is not None and self.editor.document is not None:
            self._doc_row.segments = list(self.editor.document.segments)
