"""The global dictation hotkey through pynput (``"ctrl+alt+d"``; ``toggle`` or ``push_to_talk``);
:func:`check_x11_grab` finds a taken combination. Wayland: bind ``dictate --toggle`` (:mod:`.control`)."""
from __future__ import annotations

import os
import sys
import threading
from typing import Callable

from speechstudio.dictation.inject import is_wayland
from speechstudio.errors import SpeechStudioError

DEFAULT_HOTKEY = "ctrl+alt+d"
MODES = ("toggle", "push_to_talk")
MODIFIERS = ("ctrl", "alt", "shift", "cmd")
_ALIASES = {"control": "ctrl", "super": "cmd", "win": "cmd", "meta": "cmd", "option": "alt", "return": "enter",
            "esc": "escape", "altgr": "alt_gr"}


class HotkeyUnavailable(SpeechStudioError):
    """The hotkey cannot be used: bad spec, taken by another application, no permission, Wayland."""


def parse_hotkey(spec: str) -> frozenset[str]:
    """``"ctrl+alt+d"`` / ``"<ctrl>+<alt>+d"`` -> ``{"ctrl", "alt", "d"}`` (``"f9"`` alone is a
    valid hotkey too). Raises :class:`HotkeyUnavailable` for an empty or modifier-only spec."""
    parts = [p.strip().strip("<>").lower() for p in str(spec).split("+")]
    names = frozenset(_ALIASES.get(p, p) for p in parts if p)
    if not names or names <= set(MODIFIERS):
        raise HotkeyUnavailable(f"hotkey {spec!r}: expected modifiers and one key, e.g. {DEFAULT_HOTKEY}")
    return names


def key_name(key) -> str | None:
    """A pynput key (``Key.ctrl_l``, ``KeyCode(char='d')``; duck-typed: ``.name`` or ``.char`` /
    ``.vk``) as the name :func:`parse_hotkey` uses: ``"ctrl"``, ``"d"``, ``"f9"``."""
    name = getattr(key, "name", None)
    if isinstance(name, str) and name:
        stem = name[:-2] if name.endswith(("_l", "_r")) else name
        return stem if stem in MODIFIERS else name
    char = getattr(key, "char", None)
    if isinstance(char, str) and char:
        if len(char) == 1 and ord(char) < 32:          # Ctrl+D reported as "\x04" (Windows)
            return chr(ord(char) + 96)
        return char.lower()
    vk = getattr(key, "vk", None)
    return chr(vk).lower() if isinstance(vk, int) and (0x30 <= vk <= 0x39 or 0x41 <= vk <= 0x5A) else None


class Hotkey:
    """Listen for ``spec`` and call ``on_start()`` / ``on_stop()`` from the listener thread; ``is_active()`` tells
    toggle mode whether dictation runs; ``listener_factory(on_press=, on_release=)`` defaults to pynput's.
    :meth:`start` raises :class:`HotkeyUnavailable` naming what is missing."""

    def __init__(self, spec: str, on_start: Callable[[], None], on_stop: Callable[[], None], *,
                 mode: str = "toggle", is_active: Callable[[], bool] | None = None, listener_factory=None) -> None:
        if mode not in MODES:
            raise HotkeyUnavailable(f"hotkey mode {mode!r}: expected one of {', '.join(MODES)}")
        self.spec, self.keys, self.mode = spec, parse_hotkey(spec), mode
        self.on_start, self.on_stop = on_start, on_stop
        self.is_active, self.listener_factory = is_active, listener_factory
        self.listener = None
        self._pressed: set[str] = set()
        self._latched = False          # the combination is down (fires once per press)
        self._active = False
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self.listener is not None

    @property
    def held(self) -> bool:
        """True while any key of the combination is down (keys injected now would combine with it)."""
        return bool(self._pressed & self.keys)

    def start(self) -> None:
        factory = self.listener_factory
        if factory is None:
            if sys.platform.startswith("linux") and is_wayland():
                raise HotkeyUnavailable("Wayland does not let applications read global keys: in your desktop's "
                                        "keyboard settings bind a shortcut to the command "
                                        "`speechstudio dictate --toggle`")
            if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
                raise HotkeyUnavailable("no graphical session ($DISPLAY is not set): a global hotkey needs a desktop")
            try:
                from pynput import keyboard
            except ImportError as e:
                raise HotkeyUnavailable(f"global hotkey unavailable: {str(e).splitlines()[0]} "
                                        "(pip install 'speechstudio[hotkey]'; on Linux an X11 session)") from None
            factory = keyboard.Listener
            check_x11_grab(self.spec)
        self.listener = factory(on_press=self._on_press, on_release=self._on_release)
        self.listener.start()

    def stop(self) -> None:
        if self.listener is not None:
            self.listener.stop()
            self.listener = None
        self._pressed.clear()
        self._latched = False

    def _canonical(self, key):
        canon = getattr(self.listener, "canonical", None)
        try:
            return canon(key) if canon is not None else key
        except Exception:  # noqa: BLE001 - fall back to the raw key
            return key

    def _on_press(self, key) -> None:
        name = key_name(self._canonical(key)) or key_name(key)
        if name is None:
            return
        with self._lock:
            self._pressed.add(name)
            fire = self.keys <= self._pressed and not self._latched
            self._latched = self._latched or fire
        if not fire:
            return
        if self.mode == "toggle" and (self.is_active() if self.is_active is not None else self._active):
            self._stop()
        else:
            self._active = True
            self.on_start()

    def _on_release(self, key) -> None:
        name = key_name(self._canonical(key)) or key_name(key)
        with self._lock:
            self._pressed.discard(name)
            release = self._latched and name in self.keys
            self._latched = self._latched and not release
        if release and self.mode == "push_to_talk":
            self._stop()

    def _stop(self) -> None:
        self._active = False
        self.on_stop()


def check_x11_grab(spec: str) -> None:
    """On X11 (no-op elsewhere) raise :class:`HotkeyUnavailable` when another client grabbed ``spec``
    (XGrabKey answers BadAccess); the test grab is released at once."""
    if not sys.platform.startswith("linux") or not os.environ.get("DISPLAY"):
        return
    try:
        from Xlib import X, XK, display, error
    except ImportError:
        return
    keys = parse_hotkey(spec)
    bits = (("ctrl", X.ControlMask), ("shift", X.ShiftMask), ("alt", X.Mod1Mask), ("cmd", X.Mod4Mask))
    mask = sum(bit for m, bit in bits if m in keys)      # distinct bits: the sum is their OR
    rest = [k for k in keys if k not in MODIFIERS]
    try:
        d = display.Display()
    except Exception:  # noqa: BLE001 - no X connection: the listener will say so
        return
    try:
        sym = XK.string_to_keysym(rest[0]) or XK.string_to_keysym(rest[0].upper() if len(rest[0]) > 1 else rest[0])
        code = d.keysym_to_keycode(sym) if sym else 0
        if not code:
            raise HotkeyUnavailable(f"hotkey {spec!r}: the key {rest[0]!r} is not on this keyboard")
        caught = error.CatchError(error.BadAccess)
        root = d.screen().root
        root.grab_key(code, mask, True, X.GrabModeAsync, X.GrabModeAsync, onerror=caught)
        d.sync()
        if caught.get_error() is not None:
            raise HotkeyUnavailable(f"hotkey {spec} is already taken by another application (a desktop shortcut or "
                                    "another program): choose another one in SpeechStudio's Dictate page")
        root.ungrab_key(code, mask)
        d.sync()
    finally:
        d.close()
