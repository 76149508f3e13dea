"""The window: Qt's platform plugin and the system libraries it cannot find. ``ldd`` on the plugin names
missing libraries (``libxcb-cursor0`` ...); the Debian package follows from the soname (Debian Policy
8.1), with the exceptions in :data:`PACKAGE_OF`."""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from speechstudio.doctor.report import FAIL, INFO, OK, Check

NAME = "Window (Qt)"
PACKAGE_OF = {"libglib-2.0.so.0": "libglib2.0-0", "libgthread-2.0.so.0": "libglib2.0-0",
              "libgobject-2.0.so.0": "libglib2.0-0", "libgio-2.0.so.0": "libglib2.0-0"}
_NOT_FOUND = re.compile(r"^\s*(\S+)\s*=>\s*not found", re.M)


def debian_package(soname: str) -> str:
    """Debian/Ubuntu package shipping ``soname``: ``libxcb-icccm.so.4`` -> ``libxcb-icccm4``,
    ``libxkbcommon-x11.so.0`` -> ``libxkbcommon-x11-0``, ``libEGL.so.1`` -> ``libegl1``."""
    if soname in PACKAGE_OF:
        return PACKAGE_OF[soname]
    m = re.match(r"^(.+?)\.so\.(\d+)", soname)
    if not m:
        return soname
    name, major = m.group(1).lower(), m.group(2)
    return f"{name}-{major}" if name[-1].isdigit() else f"{name}{major}"


def _ldd(path: Path) -> str:
    """``ldd PATH``'s output (the dynamic loader's view of which libraries resolve)."""
    return subprocess.run(["ldd", str(path)], capture_output=True, text=True, timeout=10).stdout


def _session() -> str:
    forced = os.environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0]
    if forced:
        return forced
    if os.environ.get("WAYLAND_DISPLAY") or os.environ.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    return "xcb" if os.environ.get("DISPLAY") else "none"


def check_display() -> Check:
    """PySide6 present, the platform plugin this session uses, and the libraries the X11 (xcb) plugin
    lacks with the exact ``sudo apt install`` line (Linux); on Windows/macOS only PySide6's presence."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None:
        return Check(NAME, FAIL, "PySide6 is not installed: no window (the command line works)",
                     "pip install PySide6-Essentials pyqtgraph")
    if not sys.platform.startswith("linux"):
        return Check(NAME, OK, "PySide6 installed")
    session = _session()       # the installed (or bundled) PySide6's platform plugins:
    folder = next((p for f in spec.submodule_search_locations or []
                   if (p := Path(f) / "Qt" / "plugins" / "platforms").is_dir()), None)
    details: dict = {"plugins": str(folder) if folder else None, "session": session}
    if folder is None:
        return Check(NAME, FAIL, "PySide6's platform plugins are missing",
                     "pip install --force-reinstall PySide6-Essentials", details)
    if shutil.which("ldd") is None:
        return Check(NAME, INFO, f"platform {session}; cannot check libraries (no ldd)", "", details)
    wanted = ["xcb"] + (["wayland"] if session == "wayland" else [])
    missing: list[str] = []
    for plugin in wanted:
        path = folder / f"libq{plugin}.so"
        if path.is_file():
            missing += [s for s in dict.fromkeys(_NOT_FOUND.findall(_ldd(path))) if s not in missing]
    details["missing"] = missing
    where = {"none": "no display in this session (DISPLAY and WAYLAND_DISPLAY unset): the window opens "
                     "in a desktop session", "offscreen": "offscreen (no window on screen)"}.get(
        session, f"platform plugin {session}")
    if missing:
        packages = list(dict.fromkeys(debian_package(s) for s in missing))
        details["packages"] = packages
        return Check(NAME, FAIL, f"{where}; the X11 plugin cannot load, missing: {', '.join(missing)}",
                     "sudo apt install " + " ".join(packages), details)
    return Check(NAME, OK, f"{where}; the X11 plugin's libraries are all there", "", details)
