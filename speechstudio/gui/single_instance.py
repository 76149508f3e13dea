"""One SpeechStudio window per data folder: the first holds a lock file and a local socket; a second
launch sends its files there and exits."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

LOCK_FILE = "app.lock"
_TIMEOUT_MS = 5000


class SingleInstance(QObject):
    """The lock and the socket of one data folder. :meth:`acquire` in the first process (then
    ``files_received(list[str])`` brings each later launch's files); :meth:`send` in a later one."""

    files_received = Signal(list)

    def __init__(self, data_dir: str | os.PathLike) -> None:
        super().__init__()
        self.data_dir = Path(data_dir)
        self.lock_path = self.data_dir / LOCK_FILE
        # the socket's name, one per data folder (short: Unix socket paths are limited to ~100 bytes)
        self.name = f"speechstudio-{hashlib.sha1(os.fsencode(str(self.data_dir.resolve()))).hexdigest()[:16]}"
        self._lock: QLockFile | None = None
        self._server: QLocalServer | None = None

    def acquire(self) -> bool:
        """Take the lock (a stale one, its process gone, is taken over) and listen; False if a live process holds it."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        lock = QLockFile(str(self.lock_path))
        lock.setStaleLockTime(0)  # stale only when its process is gone, never by age
        if not lock.tryLock(0):
            return False
        self._lock = lock
        QLocalServer.removeServer(self.name)  # a socket file left by a crashed first window
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if server.listen(self.name):
            server.newConnection.connect(self._accept)
            self._server = server
        return True

    def owner_pid(self) -> int | None:
        """The pid written in the lock file by the process holding it, or None."""
        info = QLockFile(str(self.lock_path)).getLockInfo()   # PySide6: (pid, host, app); 0 when unreadable
        pid = info[-3] if isinstance(info, tuple) and len(info) >= 3 else 0
        return int(pid) if pid else None

    def send(self, files: list[str]) -> bool:
        """Hand ``files`` to the window holding the lock (an empty list too: it comes forward); True if it answered."""
        sock = QLocalSocket()
        sock.connectToServer(self.name)
        if not sock.waitForConnected(_TIMEOUT_MS):
            return False
        sock.write((json.dumps({"files": [os.path.abspath(f) for f in files]}) + "\n").encode("utf-8"))
        sock.flush()
        ok = sock.waitForBytesWritten(_TIMEOUT_MS) or sock.bytesToWrite() == 0
        answered = ok and sock.waitForReadyRead(_TIMEOUT_MS) and bytes(sock.readAll().data()).startswith(b"ok")
        sock.disconnectFromServer()
        return bool(answered)

    def release(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None

    def _accept(self) -> None:
        while self._server is not None and self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            buffer = bytearray()

            def read(sock=sock, buffer=buffer) -> None:
                buffer.extend(bytes(sock.readAll().data()))
                if b"\n" not in buffer:
                    return
                try:
                    files = json.loads(buffer.split(b"\n", 1)[0].decode("utf-8")).get("files", [])
                    files = [str(f) for f in files] if isinstance(files, list) else []
                except (ValueError, AttributeError):
                    files = []
                sock.write(b"ok\n")
                sock.flush()
                sock.disconnectFromServer()
                self.files_received.emit(files)

            sock.readyRead.connect(read)
            sock.disconnected.connect(sock.deleteLater)
            if sock.bytesAvailable():
                read()


def bring_to_front(win) -> None:
    """Show ``win`` in front, un-minimised; a maximised window stays maximised."""
    win.showNormal() if win.isMinimized() else win.show()
    win.raise_()
    win.activateWindow()


def serve_window(instance: SingleInstance, win) -> None:
    """Files from a later launch: queued in ``win`` (its Transcribe page), which comes to the front."""
    def received(files: list) -> None:
        if files:
            win.open_paths(files)
        bring_to_front(win)

    instance.files_received.connect(received)
