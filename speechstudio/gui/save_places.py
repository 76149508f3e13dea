"""Where a Save dialog opens: the folder the user saved into last, else their Documents folder, else their home folder
(``QStandardPaths``). Kept in the settings as ``save/last_dir``."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog

from speechstudio.gui.common import settings


def save_folder() -> Path:
    """The folder a Save dialog starts in: the last one saved into (if it still exists), else the user's Documents
    folder when it exists (XDG ``DOCUMENTS`` / ``~/Documents``), else home."""
    last = str(settings().value("save/last_dir", "") or "")
    places = (QStandardPaths.StandardLocation.DocumentsLocation, QStandardPaths.StandardLocation.HomeLocation)
    for found in (last, *(QStandardPaths.writableLocation(where) for where in places)):
        if found and Path(found).is_dir():
            return Path(found)
    return Path.home()


def ask_save_path(parent, title: str, name: str, filters: str) -> str:
    """The path picked in a Save dialog (which asks before replacing a file) that proposes ``name`` in
    :func:`save_folder` (its folder is remembered); ``""`` when cancelled."""
    path, _ = QFileDialog.getSaveFileName(parent, title, str(save_folder() / name), filters)
    if path:
        settings().setValue("save/last_dir", str(Path(path).parent))
    return path
