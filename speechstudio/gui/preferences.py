"""The user's preferences (the Settings dialog's values, keys ``prefs/…``) and recent files, kept in
QSettings."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from speechstudio.gui.common import setting_list, settings

FORMATS = ("txt", "srt", "vtt", "json")
DEVICES = ("auto", "cpu", "cuda")
PRECISIONS = ("auto", "fp32", "fp16", "bf16")
THEMES = ("system", "light", "dark")
RECENT_MAX = 10


@dataclass
class Preferences:
    """One snapshot of the preferences (see the module docstring for each field's meaning)."""

    output_dir: str = ""
    formats: tuple[str, ...] = FORMATS
    subtitle_max_line_width: int = 42
    subtitle_max_line_count: int = 2
    device: str = "auto"
    precision: str = "auto"
    data_dir: str = ""
    cache_dir: str = ""
    theme: str = "system"


def _int(value, default: int = 0) -> int:
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return default


def _choice(value, choices: tuple[str, ...]) -> str:
    return str(value) if str(value) in choices else choices[0]


def load() -> Preferences:
    """Read the preferences from :func:`~speechstudio.gui.common.settings` (unknown values: the defaults)."""
    s = settings()
    formats = tuple(f for f in setting_list(s, "prefs/formats", list(FORMATS)) if f in FORMATS)
    return Preferences(
        output_dir=str(s.value("prefs/output_dir", "") or ""),
        formats=formats or FORMATS,
        subtitle_max_line_width=_int(s.value("prefs/subtitle_max_line_width", 42)),
        subtitle_max_line_count=_int(s.value("prefs/subtitle_max_line_count", 2)),
        device=_choice(s.value("prefs/device", "auto"), DEVICES),
        precision=_choice(s.value("prefs/precision", "auto"), PRECISIONS),
        data_dir=str(s.value("prefs/data_dir", "") or ""),
        cache_dir=str(s.value("prefs/cache_dir", "") or ""),
        theme=_choice(s.value("prefs/theme", "system"), THEMES),
    )


def save(p: Preferences) -> None:
    """Write ``p`` to the settings file (synced at once)."""
    s = settings()
    s.setValue("prefs/formats", ",".join(p.formats))
    for key in ("subtitle_max_line_width", "subtitle_max_line_count"):
        s.setValue(f"prefs/{key}", int(getattr(p, key)))
    for key in ("output_dir", "device", "precision", "data_dir", "cache_dir", "theme"):
        s.setValue(f"prefs/{key}", getattr(p, key))
    s.sync()


def apply_startup(p: Preferences | None = None) -> list[str]:
    """Set ``SPEECHSTUDIO_HOME`` / ``HF_HUB_CACHE`` from the preferences before model code runs, unless
    the environment has them; pins ``SPEECHSTUDIO_SETTINGS`` first. Returns one note per value applied."""
    p = p or load()
    notes: list[str] = []
    os.environ.setdefault("SPEECHSTUDIO_SETTINGS", settings().fileName())
    if p.data_dir and not os.environ.get("SPEECHSTUDIO_HOME"):
        os.environ["SPEECHSTUDIO_HOME"] = p.data_dir
        notes.append(f"data folder: {p.data_dir}")
    if p.cache_dir and not (os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")):
        os.environ["HF_HUB_CACHE"] = p.cache_dir
        notes.append(f"model cache: {p.cache_dir}")
    return notes


_SYSTEM_PALETTE = None


def _dark_palette():
    """A dark Fusion palette (the colours of Qt's own Fusion dark scheme, approximately)."""
    p = QPalette()
    role = QPalette.ColorRole
    for r, c in ((role.Window, "#2b2b2b"), (role.WindowText, "#e6e6e6"), (role.Base, "#1e1e1e"),
                 (role.AlternateBase, "#262626"), (role.ToolTipBase, "#3a3a3a"), (role.ToolTipText, "#f0f0f0"),
                 (role.Text, "#e6e6e6"), (role.Button, "#353535"), (role.ButtonText, "#e6e6e6"),
                 (role.BrightText, "#ff5555"), (role.Link, "#6aa9ff"), (role.Highlight, "#3d6fb4"),
                 (role.HighlightedText, "#ffffff"), (role.PlaceholderText, "#8a8a8a"), (role.Light, "#4a4a4a"),
                 (role.Midlight, "#3f3f3f"), (role.Mid, "#2f2f2f"), (role.Dark, "#1a1a1a"), (role.Shadow, "#000000")):
        p.setColor(r, QColor(c))
    for r in (role.WindowText, role.Text, role.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, r, QColor("#7a7a7a"))
    return p


def apply_theme(theme: str, app=None) -> str:
    """Set ``"light"``, ``"dark"`` or ``"system"`` via ``QStyleHints.setColorScheme`` (Qt >= 6.8), or
    Fusion with a palette where the platform cannot switch (X11 without a theme, offscreen). Returns
    ``"light"`` or ``"dark"`` now in effect."""
    global _SYSTEM_PALETTE
    app = app or QApplication.instance()
    if _SYSTEM_PALETTE is None:
        _SYSTEM_PALETTE = (app.style().name(), app.palette())
    want = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}.get(theme, Qt.ColorScheme.Unknown)
    app.styleHints().setColorScheme(want)
    if theme in ("light", "dark"):
        if app.style().name().lower() != "fusion":
            app.setStyle("Fusion")
        if app.styleHints().colorScheme() != want:  # the platform did not switch: set the palette
            app.setPalette(_dark_palette() if theme == "dark" else app.style().standardPalette())
    else:
        style, palette = _SYSTEM_PALETTE
        if app.style().name() != style:
            app.setStyle(style)
        app.setPalette(palette)
    return "dark" if app.palette().window().color().lightness() < 128 else "light"


def _recent_raw() -> list[str]:
    v = settings().value("recent/files", [])
    if isinstance(v, str):  # an INI list of one comes back as a plain string (commas and all)
        return [v] if v else []
    return [str(x) for x in (v or [])]


def recent_files() -> list[str]:
    """Recently opened files/folders, newest first; ones that no longer exist are dropped."""
    return [p for p in _recent_raw() if Path(p).exists()][:RECENT_MAX]


def add_recent(paths) -> list[str]:
    """Put ``paths`` (files or folders) at the front of the recent list; returns the new list."""
    new = [str(Path(p).resolve()) for p in paths]
    old = [p for p in _recent_raw() if p not in new]
    out = (new + old)[:RECENT_MAX]
    s = settings()
    s.setValue("recent/files", out)  # a list: QSettings quotes names with commas
    s.sync()
    return out


def clear_recent() -> None:
    s = settings()
    s.setValue("recent/files", [])
    s.sync()
