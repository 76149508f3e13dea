"""Key injection and the clipboard: pynput (X11, Windows, macOS), ``wtype`` / ``ydotool`` on Wayland;
``xclip`` / ``xsel`` / ``wl-copy`` / pyperclip. What is missing raises :class:`InjectionUnavailable` /
:class:`ClipboardUnavailable`."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

from speechstudio.errors import SpeechStudioError

PASTE_SHORTCUTS = ("ctrl+v", "ctrl+shift+v", "shift+insert")


class InjectionUnavailable(SpeechStudioError):
    """Keys cannot be sent to other applications here (no display, Wayland without helpers,
    macOS Accessibility not granted, pynput missing)."""


class ClipboardUnavailable(SpeechStudioError):
    """No clipboard tool (xclip/xsel/wl-clipboard) or the clipboard cannot be read/written."""


def is_wayland() -> bool:
    """True in a Wayland session (``XDG_SESSION_TYPE=wayland`` or ``WAYLAND_DISPLAY`` set)."""
    return os.environ.get("XDG_SESSION_TYPE", "").lower() == "wayland" or bool(os.environ.get("WAYLAND_DISPLAY"))


WAYLAND_HELP = ("Wayland does not let applications type into other windows by themselves: install wtype "
                "(Sway, Hyprland and other wlroots desktops: `sudo apt install wtype`) or ydotool (any desktop, "
                "GNOME and KDE too: `sudo apt install ydotool`, then run `ydotoold` with access to /dev/uinput); "
                "or use the clipboard output and paste yourself")


class PynputInjector:
    """pynput's keyboard ``Controller``. ``key_delay_s``: pause after every key (0 = none; a few
    ms helps applications that drop fast synthetic keys)."""

    name = "pynput"

    def __init__(self, key_delay_s: float = 0.0) -> None:
        try:
            from pynput.keyboard import Controller, Key
        except ImportError as e:  # no X connection, or pynput not installed
            raise InjectionUnavailable(f"cannot send keys to other applications: {str(e).splitlines()[0]} "
                                       "(pip install 'speechstudio[hotkey]'; on Linux an X11 session)") from None
        self.kb, self.Key = _xtest_controller() or Controller(), Key
        self.key_delay_s = float(key_delay_s)

    def _tap(self, key) -> None:
        self.kb.press(key)
        self.kb.release(key)
        if self.key_delay_s:
            time.sleep(self.key_delay_s)

    def type_text(self, text: str) -> None:
        for ch in text:
            if ch in "\n\t":
                self._tap(self.Key.enter if ch == "\n" else self.Key.tab)
            else:
                self.kb.type(ch)
                if self.key_delay_s:
                    time.sleep(self.key_delay_s)

    def backspace(self, n: int) -> None:
        for _ in range(n):
            self._tap(self.Key.backspace)

    def paste(self, shortcut: str = "ctrl+v") -> None:
        keys = {"ctrl": self.Key.ctrl, "shift": self.Key.shift, "insert": self.Key.insert,
                "cmd": self.Key.cmd}
        parts = _shortcut(shortcut).split("+")
        if sys.platform == "darwin":
            parts = ["cmd" if p == "ctrl" else p for p in parts]
        mods, last = [keys[p] for p in parts[:-1]], parts[-1]
        for m in mods:
            self.kb.press(m)
        try:
            self._tap(keys.get(last, last))
        finally:
            for m in reversed(mods):
                self.kb.release(m)


def _xtest_controller():
    """On X11, pynput's ``Controller`` sending every key through XTest, else None. pynput's ``XSendEvent`` events are
    synthetic and xterm and others drop them; its keysym lookup and spare-keycode borrowing are kept."""
    try:
        import Xlib.display
        import Xlib.X
        import Xlib.XK
        from pynput._util.xorg import alt_gr_mask, display_manager
        from pynput.keyboard import Controller, _xorg
        from Xlib.ext import xtest
    except ImportError:
        return None
    if Controller is not _xorg.Controller:
        return None

    class XTestController(_xorg.Controller):
        def _send_key(self, event, keycode, shift_state):
            press = event is Xlib.display.event.KeyPress
            with display_manager(self._display) as dm:
                levels = []
                if shift_state & Xlib.X.ShiftMask:
                    levels.append(dm.keysym_to_keycode(Xlib.XK.XK_Shift_L))
                if shift_state & alt_gr_mask(dm):
                    levels.append(dm.keysym_to_keycode(Xlib.XK.XK_Mode_switch)
                                  or dm.keysym_to_keycode(Xlib.XK.XK_ISO_Level3_Shift))
                if not all(levels):  # no key for that level: pynput's own way
                    return super()._send_key(event, keycode, shift_state)
                if press:
                    for k in levels:
                        xtest.fake_input(dm, Xlib.X.KeyPress, k)
                    xtest.fake_input(dm, Xlib.X.KeyPress, keycode)
                else:
                    xtest.fake_input(dm, Xlib.X.KeyRelease, keycode)
                    for k in reversed(levels):
                        xtest.fake_input(dm, Xlib.X.KeyRelease, k)
            return None

    return XTestController()


class CommandInjector:
    """``wtype`` or ``ydotool`` run as a subprocess per call (Wayland)."""

    EVDEV = {"ctrl": 29, "shift": 42, "v": 47, "insert": 110, "backspace": 14}   # linux/input-event-codes.h

    def __init__(self, tool: str) -> None:
        self.name = tool
        self.exe = shutil.which(tool)
        if self.exe is None:
            raise InjectionUnavailable(f"{tool} is not installed. {WAYLAND_HELP}")

    def _run(self, *args: str) -> None:
        r = subprocess.run([self.exe, *args], capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            msg = (r.stderr or r.stdout).strip().splitlines()
            raise InjectionUnavailable(f"{self.name} failed: {msg[-1] if msg else 'exit ' + str(r.returncode)}"
                                       + (" (is ydotoold running?)" if self.name == "ydotool" else ""))

    def type_text(self, text: str) -> None:
        if text:
            self._run("type", "--", text) if self.name == "ydotool" else self._run("--", text)

    def backspace(self, n: int) -> None:
        if n <= 0:
            return
        if self.name == "ydotool":
            self._run("key", *(["14:1", "14:0"] * n))
        else:
            self._run(*(["-k", "BackSpace"] * n))

    def paste(self, shortcut: str = "ctrl+v") -> None:
        parts = _shortcut(shortcut).split("+")
        if self.name == "ydotool":
            codes = [self.EVDEV[p] for p in parts]
            self._run("key", *[f"{c}:1" for c in codes], *[f"{c}:0" for c in reversed(codes)])
        else:
            args: list[str] = []
            for m in parts[:-1]:
                args += ["-M", m]
            args += ["-k", "Insert"] if parts[-1] == "insert" else [parts[-1]]
            for m in reversed(parts[:-1]):
                args += ["-m", m]
            self._run(*args)


def _shortcut(s: str) -> str:
    s = s.lower().replace(" ", "")
    if s not in PASTE_SHORTCUTS:
        raise InjectionUnavailable(f"paste shortcut {s!r}: expected one of {', '.join(PASTE_SHORTCUTS)}")
    return s


def open_injector(key_delay_s: float = 0.0):
    """The key injector for this session (see the module docstring). Raises
    :class:`InjectionUnavailable` naming what is missing and how to get it."""
    if sys.platform.startswith("linux"):
        if is_wayland():
            for tool in ("wtype", "ydotool"):
                if shutil.which(tool):
                    return CommandInjector(tool)
            raise InjectionUnavailable(WAYLAND_HELP)
        if not os.environ.get("DISPLAY"):
            raise InjectionUnavailable("no graphical session ($DISPLAY is not set): typing into other applications "
                                       "needs an X11 or Wayland desktop")
    if sys.platform == "darwin":
        import ctypes
        import ctypes.util

        lib = ctypes.cdll.LoadLibrary(ctypes.util.find_library("ApplicationServices"))
        lib.AXIsProcessTrusted.restype = ctypes.c_bool
        if not lib.AXIsProcessTrusted():
            raise InjectionUnavailable("macOS has not allowed SpeechStudio to control the keyboard: System Settings "
                                       "> Privacy & Security > Accessibility, turn on SpeechStudio (or your terminal)")
    return PynputInjector(key_delay_s)


class Clipboard:
    """The system clipboard as text (tools run detached so the serving one does not hold our stdout).
    ``get()`` / ``set(text)`` raise :class:`ClipboardUnavailable` naming what to install."""

    def __init__(self) -> None:
        self._p = None
        self._get: list[str] | None = None
        self._set: list[str] | None = None
        if sys.platform.startswith("linux"):
            if is_wayland() and shutil.which("wl-copy") and shutil.which("wl-paste"):
                self._get, self._set = ["wl-paste", "--no-newline"], ["wl-copy"]
            elif os.environ.get("DISPLAY") and shutil.which("xclip"):
                self._get = ["xclip", "-selection", "clipboard", "-o"]
                self._set = ["xclip", "-selection", "clipboard", "-i"]
            elif os.environ.get("DISPLAY") and shutil.which("xsel"):
                self._get, self._set = ["xsel", "--clipboard", "--output"], ["xsel", "--clipboard", "--input"]
            else:
                raise ClipboardUnavailable(f"no clipboard tool found: {self._help()}")
            return
        try:
            import pyperclip
        except ImportError:
            raise ClipboardUnavailable("the clipboard needs the pyperclip package: pip install pyperclip") from None
        self._p = pyperclip

    @staticmethod
    def _help() -> str:
        if sys.platform.startswith("linux"):
            if is_wayland():
                return "install wl-clipboard (`sudo apt install wl-clipboard`)"
            if not os.environ.get("DISPLAY"):
                return "the clipboard needs a graphical session ($DISPLAY is not set)"
            return "install xclip or xsel (`sudo apt install xclip`)"
        return "check that a desktop session is running"

    def get(self) -> str:
        """The clipboard's text ("" when it is empty or holds no text)."""
        if self._p is None:
            try:
                r = subprocess.run(self._get, capture_output=True, timeout=10)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise ClipboardUnavailable(f"cannot read the clipboard with {self._get[0]}: {e}") from None
            return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else ""
        try:
            return self._p.paste() or ""
        except self._p.PyperclipException as e:
            raise ClipboardUnavailable(f"cannot read the clipboard: {str(e).splitlines()[0]}; {self._help()}") from None

    def set(self, text: str) -> None:  # noqa: A003
        """Put ``text`` on the clipboard."""
        if self._p is None:
            try:
                p = subprocess.Popen(self._set, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
                p.communicate(text.encode("utf-8"), timeout=10)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise ClipboardUnavailable(f"cannot write the clipboard with {self._set[0]}: {e}") from None
            if p.returncode != 0:
                raise ClipboardUnavailable(f"cannot write the clipboard: {self._set[0]} exited with {p.returncode}")
            return
        try:
            self._p.copy(text)
        except self._p.PyperclipException as e:
            raise ClipboardUnavailable(f"cannot write the clipboard: {str(e).splitlines()[0]}; {self._help()}") from None
