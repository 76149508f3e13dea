"""The Help menu: keyboard shortcuts, "Check my setup" (the doctor dialog), About (versions and
licenses of SpeechStudio, its libraries and the installed models)."""
from __future__ import annotations

import html
import platform
from contextlib import suppress
from importlib import metadata
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractButton, QDialog, QDialogButtonBox, QMenu, QMessageBox, QTableWidget,
                               QWidget)

from speechstudio import __version__
from speechstudio.gui.common import action, add_row, table, vbox
from speechstudio.gui.doctor_dialog import show_doctor_dialog
from speechstudio.hub.packages import PACKAGE_MODELS

#: distributions shown in About (PyPI names); a missing one is listed as "not installed"
LIBRARIES = ("PySide6-Essentials", "numpy", "torch", "transformers", "faster-whisper", "ctranslate2",
             "onnxruntime", "av", "soundfile", "soxr", "huggingface_hub", "silero-vad", "pyqtgraph")


def _dist_license(dist: metadata.Distribution) -> str:
    """An installed distribution's License-Expression, License or "License ::" classifier; "" when it says none."""
    meta = dist.metadata
    expr = meta.get("License-Expression")
    if expr:
        return expr
    lic = (meta.get("License") or "").strip()
    if lic and "\n" not in lic and len(lic) < 60:
        return lic
    for c in meta.get_all("Classifier") or []:
        if c.startswith("License ::"):
            return c.split("::")[-1].strip()
    return lic.splitlines()[0][:60] if lic else ""


def library_versions() -> list[tuple[str, str, str]]:
    """``(name, version, license)`` of the main libraries from installed metadata (PySide6-Essentials, else PySide6)."""
    out = []
    for name in LIBRARIES:
        dist = None
        for candidate in (name, "PySide6") if name == "PySide6-Essentials" else (name,):
            with suppress(metadata.PackageNotFoundError):
                dist = metadata.distribution(candidate)
                break
        out.append((name, dist.version, _dist_license(dist)) if dist else (name, "not installed", ""))
    return out


def model_licenses() -> list[tuple[str, str]]:
    """``(model, license)`` of the package models (installed or not), Piper package voices and MMS-TTS voices."""
    rows = [(m.name, m.license or "see its package") for m in PACKAGE_MODELS]
    rows += piper_voice_licenses()
    rows.append(("facebook/mms-tts-* voices", "CC BY-NC 4.0 (non-commercial)"))  # per their model cards
    return rows


def piper_voice_licenses() -> list[tuple[str, str]]:
    """``(voice, license)`` of the Piper voices installed as packages: the package's and the dataset's
    (the ``MODEL_CARD``'s "License:"), e.g. ``("en_US-joe-medium voice", "package MIT; dataset CC0 (model card)")``."""
    from speechstudio.tts.voices import package_voices

    rows = []
    for v in package_voices():
        package, dataset = "see its package", ""
        with suppress(metadata.PackageNotFoundError):
            package = _dist_license(metadata.distribution(v.package)) or package
        with suppress(OSError):
            text = (Path(v.location).parent / "MODEL_CARD").read_text(encoding="utf-8", errors="replace")
            dataset = next((line.split(":", 1)[1].strip() for line in text.splitlines()
                            if line.lstrip("* ").lower().startswith("license:")), "")
        rows.append((f"{v.name} voice", f"package {package}" + (f"; dataset {dataset} (model card)" if dataset else "")))
    return rows


def about_html() -> str:
    """The About box text (HTML): app version and license, Python, Qt, libraries, model licenses."""
    app_license = "GPL-3.0-or-later"
    with suppress(metadata.PackageNotFoundError):
        app_license = _dist_license(metadata.distribution("speechstudio")) or app_license
    lib_rows = "".join(f"<tr><td>{html.escape(n)}</td><td>{html.escape(v)}</td><td>{html.escape(lic)}</td></tr>"
                       for n, v, lic in library_versions())
    model_rows = "".join(f"<tr><td>{html.escape(n)}</td><td>{html.escape(lic)}</td></tr>" for n, lic in model_licenses())
    return (f"<h3>SpeechStudio {html.escape(__version__)}</h3>"
            f"<p>Offline speech recognition, dictation and speech synthesis. License: {html.escape(app_license)}.</p>"
            f"<p>Python {platform.python_version()} · Qt {qVersion()} · PySide6 {pyside_version} · "
            f"{html.escape(platform.system())} {html.escape(platform.machine())}</p>"
            f"<p><b>Libraries</b></p><table cellspacing='0' cellpadding='2'>"
            f"<tr><th align='left'>Package</th><th align='left'>Version</th><th align='left'>License</th></tr>"
            f"{lib_rows}</table>"
            f"<p><b>Models</b></p><table cellspacing='0' cellpadding='2'>{model_rows}</table>")


def show_about(parent) -> QMessageBox:
    """Open the About box (non-modal) and return it."""
    box = QMessageBox(QMessageBox.Icon.NoIcon, "About SpeechStudio", about_html(), QMessageBox.StandardButton.Ok, parent)
    box.setAccessibleName("About SpeechStudio")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.open()
    return box


EVERYWHERE = "Everywhere"


def _where(obj, win, page_names: dict) -> tuple[str, str]:
    """``(page, place)``: where a shortcut of ``obj`` (an action, shortcut or button) works: its page (or
    :data:`EVERYWHERE`), and the page with the nearest widget above ``obj`` that names its scope
    (``shortcut_scope``), e.g. "Transcribe: transcript editor"."""
    scope, w = "", obj.parent()
    while w is not None and w is not win:
        scope = scope or getattr(w, "shortcut_scope", "")
        if id(w) in page_names:
            return page_names[id(w)], f"{page_names[id(w)]}: {scope}" if scope else page_names[id(w)]
        w = w.parent()
    return EVERYWHERE, scope or EVERYWHERE


def window_shortcuts(win) -> list[tuple[str, str, str]]:
    """``(keys, what it does, where)`` for every key ``win`` binds, read from the objects that bind them: QActions,
    QShortcuts (their "what's this"), buttons' shortcuts and mnemonics, and a widget's own ``shortcut_help()``.
    One line per action and place ("Ctrl+Return, Ctrl+Enter"); everywhere first, then the pages in order."""
    native = QKeySequence.SequenceFormat.NativeText
    stack, nav = getattr(win, "stack", None), getattr(win, "nav", None)
    names = [nav.item(i).text() for i in range(nav.count())] if nav is not None else []
    pages = [win._inner(stack.widget(i)) for i in range(stack.count())] if stack is not None else []
    page_names = {id(p): name for p, name in zip(pages, names, strict=False) if p is not None}
    def plain(text: str) -> str:
        return text.replace("&", "").rstrip("…").strip()

    found: list[tuple[str, str, tuple[str, str]]] = []
    bound = ([(a, a.shortcut(), plain(a.text())) for a in win.findChildren(QAction) if a.text()]
             + [(sc, sc.key(), sc.whatsThis()) for sc in win.findChildren(QShortcut)]
             + [(b, b.shortcut(), b.accessibleName() or plain(b.text())) for b in win.findChildren(QAbstractButton)])
    for obj, seq, what in bound:
        if keys := seq.toString(native):
            found.append((keys, what or keys, _where(obj, win, page_names)))
    for w in win.findChildren(QWidget):
        if callable(getattr(w, "shortcut_help", None)):
            where = _where(w, win, page_names)
            found += [(keys, what, where) for keys, what in w.shortcut_help()]
    merged: dict[tuple[str, tuple[str, str]], list[str]] = {}
    for keys, what, where in found:
        if keys not in merged.setdefault((what, where), []):
            merged[(what, where)].append(keys)
    order = [EVERYWHERE, *names]
    rows = sorted(merged.items(), key=lambda kv: order.index(kv[0][1][0]) if kv[0][1][0] in order else len(order))
    return [(", ".join(keys), what, place) for (what, (_page, place)), keys in rows]  # sorted() is stable


class ShortcutsDialog(QDialog):
    """A table of the window's keyboard shortcuts: keys, what they do, where they work."""

    def __init__(self, win) -> None:
        super().__init__(win)
        self.setWindowTitle("Keyboard shortcuts")
        self.setAccessibleName("Keyboard shortcuts")
        rows = window_shortcuts(win)
        self.table = table("Shortcut list", ("Keys", "Action", "Where"), stretch=1)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectItems)
        for row in rows:
            add_row(self.table, row, ("", "", ""))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        vbox(self, self.table, buttons)
        self.resize(680, min(640, 80 + 30 * len(rows)))


def build_help_menu(win) -> QMenu:
    """Add the Help menu to ``win``; sets ``win.act_shortcuts``, ``win.act_check_setup`` and ``win.act_about``."""
    m = win.menuBar().addMenu("&Help")
    win.act_shortcuts = action(win, "&Keyboard shortcuts", lambda: ShortcutsDialog(win).open(), "F1", m)
    win.act_check_setup = action(win, "&Check my setup…", lambda: show_doctor_dialog(win), menu=m)
    m.addSeparator()
    win.act_about = action(win, "&About SpeechStudio", lambda: show_about(win), menu=m)
    return m
