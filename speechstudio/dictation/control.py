"""Remote control of the running app's dictation (``dictate --toggle``, for Wayland): a
:class:`ControlServer` on a per-user socket with a 0600 key; messages ``toggle`` / ``start`` / ``stop``."""
from __future__ import annotations

import contextlib
import getpass
import os
import secrets
import sys
import threading
from multiprocessing.connection import Client, Listener
from pathlib import Path
from typing import Callable

from speechstudio.errors import SpeechStudioError
from speechstudio.hub.paths import data_dir

COMMANDS = ("toggle", "start", "stop")


class ControlError(SpeechStudioError):
    """The app is not running, or did not answer."""


def _user() -> str:
    try:
        return "".join(ch for ch in getpass.getuser() if ch.isalnum()) or "user"
    except Exception:  # noqa: BLE001 - no user name: one shared name
        return "user"


def control_address() -> str:
    """The socket path (POSIX) or pipe name (Windows) the app listens on."""
    if sys.platform == "win32":
        return rf"\\.\pipe\speechstudio-{_user()}"
    base = os.environ.get("XDG_RUNTIME_DIR")
    if not base or not os.path.isdir(base):
        base = str(data_dir())
    return str(Path(base) / f"speechstudio-{_user()}.sock")


def _read_key(create: bool) -> bytes:
    path = data_dir() / "dictation" / "control.key"
    if path.exists():
        return path.read_bytes()
    if not create:
        raise ControlError("SpeechStudio is not running (start the app, then use the shortcut again)")
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(16).encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    return key


class ControlServer:
    """Answer :data:`COMMANDS` via ``handler(command) -> reply`` from the server's thread (a GUI must
    hop to its own). Raises :class:`ControlError` when a running app has the address."""

    def __init__(self, handler: Callable[[str], str]) -> None:
        self.handler = handler
        self.address = control_address()
        if sys.platform != "win32":
            Path(self.address).parent.mkdir(parents=True, exist_ok=True)
            if os.path.exists(self.address):
                try:
                    send_command("ping", timeout_s=1.0)
                except ControlError:
                    os.unlink(self.address)  # left over from an app that crashed
                else:
                    raise ControlError(f"another SpeechStudio already listens on {self.address}")
        self._listener = Listener(self.address, authkey=_read_key(create=True))
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="dictation-control", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._closed.is_set():
            try:
                conn = self._listener.accept()
            except Exception:  # noqa: BLE001 - closed, or a client with the wrong key
                continue
            with conn, contextlib.suppress(Exception):     # a client that went away
                msg = conn.recv()
                if msg == "ping":
                    conn.send("pong")
                elif msg in COMMANDS:
                    conn.send(str(self.handler(msg)))
                else:
                    conn.send(f"unknown command {msg!r}")

    def close(self) -> None:
        self._closed.set()
        with contextlib.suppress(ControlError):
            send_command("ping", timeout_s=1.0)   # wake accept()
        self._listener.close()
        self._thread.join(2.0)


def send_command(command: str, timeout_s: float = 5.0) -> str:
    """Send ``command`` to the running app; returns its reply. Raises :class:`ControlError`
    when no app listens or it does not answer within ``timeout_s`` seconds."""
    address = control_address()
    if sys.platform != "win32" and not os.path.exists(address):
        raise ControlError("SpeechStudio is not running (start the app, then use the shortcut again)")
    try:
        conn = Client(address, authkey=_read_key(create=False))
    except (OSError, EOFError) as e:
        raise ControlError(f"SpeechStudio is not running ({address}: {e})") from None
    except Exception as e:  # noqa: BLE001 - AuthenticationError: a stale key
        raise ControlError(f"SpeechStudio did not accept the command: {e}") from None
    try:
        conn.send(command)
        if not conn.poll(timeout_s):
            raise ControlError(f"SpeechStudio did not answer within {timeout_s:g} s")
        return str(conn.recv())
    except (OSError, EOFError) as e:
        raise ControlError(f"SpeechStudio closed the connection: {e}") from None
    finally:
        conn.close()
