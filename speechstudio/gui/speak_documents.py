"""The Speak page's documents (the CLI's ``speak --file`` and ``audiobook``): Open text… (text, Markdown,
EPUB) and Audiobook… (one file per chapter and an ``.m4b`` with chapter marks, an ``AudiobookJob``)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog

from speechstudio.errors import SpeechStudioError
from speechstudio.gui.common import asker, button
from speechstudio.gui.wording import plain_error

DOCUMENTS = "Texts (*.txt *.md *.markdown *.epub)"


class SpeakDocuments(QObject):
    """Buttons ``open_btn`` and ``book_btn`` for ``page`` (a ``SpeakPage``: its ``text``, ``info``,
    ``compute``, ``_job()`` and ``status_message``). ``book_finished(status)`` when an audiobook ends."""

    book_finished = Signal(str)

    def __init__(self, page) -> None:
        super().__init__(page)
        self.page = page
        self.book_job: int | None = None
        self.result = None
        self.open_btn = button("Open text…", "Open a text file", "Read a text, Markdown or EPUB file into the text box",
                               asker(self.page, "Open a text", lambda p: self.open_text(Path(p)), DOCUMENTS))
        self.book_btn = button("Audiobook…", "Make an audiobook", "Read a text, Markdown or EPUB file aloud into a "
                               "folder: one audio file per chapter and a book file with chapter marks. Stop keeps the "
                               "chapters done; making it again into the same folder goes on from there.",
                               self._book_dialog)
        page.compute.job_progress.connect(self._on_progress)
        page.compute.job_finished.connect(self._on_finished)

    def open_text(self, path: Path) -> bool:
        """Put the text of ``path`` (chapters of a Markdown / EPUB file one after another) in the text
        box; False (and the reason on the page) when it cannot be read."""
        from speechstudio.tts.documents import document_text
        from speechstudio.tts.textfile import read_text_file

        try:
            if Path(path).suffix.lower() in (".md", ".markdown", ".epub"):
                text = document_text(path)
            else:
                text = read_text_file(path)
        except (SpeechStudioError, OSError) as e:
            self.page.info.setText(f"cannot open {Path(path).name}: {e}")
            return False
        self.page.text.setPlainText(text)
        self.page.info.setText(f"{Path(path).name}: {len(text.split())} words")
        return True

    def _book_dialog(self) -> None:
        doc, _ = QFileDialog.getOpenFileName(self.page, "Make an audiobook of", "", DOCUMENTS)
        if not doc:
            return
        out = QFileDialog.getExistingDirectory(self.page, "Folder for the audiobook")
        if out:
            self.make_audiobook(Path(doc), Path(out))

    def make_audiobook(self, document: Path, out_dir: Path) -> int | None:
        """Start the audiobook of ``document`` into ``out_dir`` with the page's voice and sliders;
        returns the job's id (None while one runs)."""
        from speechstudio.worker.audiobook_job import AudiobookJob

        if self.book_job is not None:
            return None
        j = self.page._job()
        self.result = None
        self.book_job = self.page.compute.submit(AudiobookJob(
            document, out_dir, voice=j.voice, speaker=j.speaker, length_scale=j.length_scale,
            noise_scale=j.noise_scale, noise_w=j.noise_w, pitch=j.pitch))
        self.page.info.setText(f"audiobook of {Path(document).name}: starting…")
        self.page.stop_btn.setEnabled(True)
        self.book_btn.setEnabled(False)
        return self.book_job

    def stop(self) -> None:
        if self.book_job is not None:
            self.page.compute.cancel(self.book_job)

    def _on_progress(self, job_id: int, payload) -> None:
        if job_id != self.book_job:
            return
        if hasattr(payload, "chars_total"):  # AudiobookProgress
            share = payload.chars_done / max(1, payload.chars_total)
            self.page.info.setText(f"audiobook: chapter {payload.chapter + 1} of {payload.chapters}, "
                                   f"{payload.title} — {share:.0%} of the book"
                                   + (" (done before, kept)" if payload.skipped else ""))
        else:
            self.page.info.setText(str(payload))

    def _on_finished(self, job_id: int, status: str, result) -> None:
        if job_id != self.book_job:
            return
        self.book_job = None
        self.book_btn.setEnabled(True)
        self.page.stop_btn.setEnabled(self.page.job_id is not None)
        if status == "done" and result is not None:
            self.result = result
            folder = result.files[0].parent if result.files else ""
            book = f" and {result.book_file.name}" if result.book_file else ""
            line = (f"audiobook: {len(result.files)} chapter file{'s' if len(result.files) != 1 else ''}{book} in "
                    f"{folder} ({sum(result.durations_s) / 60:.1f} min)")
            self.page.info.setText(line)
            self.page.status_message.emit(line)
        elif status == "failed":
            self.page.info.setText(f"audiobook failed: {plain_error(result)}")
            self.page.status_message.emit(f"audiobook failed: {plain_error(result)}")
        else:
            self.page.info.setText("audiobook stopped: the chapters done are kept; make it again into the same "
                                   "folder to go on")
        self.book_finished.emit(status)
