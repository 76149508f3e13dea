"""The Dictate page's file actions: Dictate a file… (through the microphone's live path), and the
transcript's Copy, Save as… and Send to file… (append), written atomically."""
from __future__ import annotations

import datetime as _dt
from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog

from speechstudio.asr.sources import FileSource
from speechstudio.atomic import atomic_write_text
from speechstudio.errors import SpeechStudioError
from speechstudio.gui.common import settings
from speechstudio.gui.save_places import ask_save_path
from speechstudio.gui.wording import dictate
from speechstudio.hub.paths import data_dir


class TranscriptFileActions:
    """Mixed into ``DictatePage``: uses its ``text``, ``status_message``, ``_error`` and sets ``saved_path``."""

    def dictate_file(self, path: Path, *, realtime: bool = True) -> bool:
        """Dictate ``path`` (a ``FileSource`` at real time; ``realtime=False``: as fast as the recogniser
        goes) as the microphone would be. Returns False (with a message in the page) when it cannot start."""
        try:
            source = FileSource(path, realtime=realtime)
        except SpeechStudioError as e:
            self._error(dictate("cannot_file", name=Path(path).name, why=e))
            return False
        settings().setValue("dictate/file_dir", str(Path(path).parent))
        return self.start(source)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text)
        self.status_message.emit("transcript copied")

    def _default_path(self) -> Path:
        return data_dir() / "dictation" / f"dictation-{_dt.datetime.now():%Y%m%d-%H%M%S}.txt"

    def _save_dialog(self) -> None:
        if path := ask_save_path(self, "Save transcript", self._default_path().name, "Text (*.txt);;All files (*)"):
            self.save(Path(path))

    def save(self, path: Path) -> Path | None:
        """Write the transcript (UTF-8, one final newline) to ``path`` atomically."""
        try:
            atomic_write_text(Path(path), self.text + "\n")
        except OSError as e:
            self._error(dictate("cannot_save", path=path, why=e.strerror or e))
            return None
        self.saved_path = Path(path)
        self.status_message.emit(dictate("saved", path=path))
        return self.saved_path

    def _send_dialog(self) -> None:
        last = settings().value("dictate/send_path") or str(self._default_path().with_name("notes.txt"))
        path, _ = QFileDialog.getSaveFileName(self, "Append transcript to", str(last), "Text (*.txt);;All files (*)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.send_to_file(Path(path))

    def send_to_file(self, path: Path) -> Path | None:
        """Append the transcript to ``path`` (created if missing) as a new paragraph, rewriting the file atomically."""
        path = Path(path)
        try:
            old = path.read_text(encoding="utf-8") if path.exists() else ""
            if old and not old.endswith("\n"):
                old += "\n"
            atomic_write_text(path, old + self.text + "\n")
        except (OSError, UnicodeDecodeError) as e:
            self._error(dictate("cannot_append", path=path, why=getattr(e, "strerror", None) or e))
            return None
        settings().setValue("dictate/send_path", str(path))
        self.status_message.emit(dictate("appended", path=path))
        return path

