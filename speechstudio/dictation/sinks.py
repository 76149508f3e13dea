"""Where dictated text goes: :class:`TypeSink`, :class:`PasteSink` (clipboard restored after
``restore_delay_s``) or :class:`ClipboardSink`; :class:`OutputThread` applies edits off other threads."""
from __future__ import annotations

import queue
import threading
import time
from typing import Callable

from speechstudio.dictation.composer import Edit, apply_edit
from speechstudio.dictation import inject
from speechstudio.errors import UsageError

OUTPUT_MODES = ("type", "paste", "clipboard", "stdout")

#: Seconds between setting the clipboard and pressing the paste shortcut, and between the shortcut
#: and restoring the user's clipboard (0.3 s leaves room for a busy machine).
PASTE_SETTLE_S = 0.05
RESTORE_DELAY_S = 0.3


class TypeSink:
    """Apply edits as key events through ``injector`` (``type_text``, ``backspace``)."""

    mode = "type"

    def __init__(self, injector) -> None:
        self.injector = injector

    def apply(self, edit: Edit) -> None:
        if edit.delete:
            self.injector.backspace(edit.delete)
        if edit.insert:
            self.injector.type_text(edit.insert)


class PasteSink:
    """Apply edits: Backspaces through ``injector``, text through ``clipboard`` + the paste
    ``shortcut``; the user's clipboard text is restored after each paste."""

    mode = "paste"

    def __init__(self, injector, clipboard, shortcut: str = "ctrl+v", *, settle_s: float = PASTE_SETTLE_S,
                 restore_delay_s: float = RESTORE_DELAY_S) -> None:
        self.injector, self.clipboard, self.shortcut = injector, clipboard, shortcut
        self.settle_s, self.restore_delay_s = settle_s, restore_delay_s

    def apply(self, edit: Edit) -> None:
        if edit.delete:
            self.injector.backspace(edit.delete)
        if not edit.insert:
            return
        saved = self.clipboard.get()
        self.clipboard.set(edit.insert)
        time.sleep(self.settle_s)
        try:
            self.injector.paste(self.shortcut)
            time.sleep(self.restore_delay_s)
        finally:
            self.clipboard.set(saved)


class ClipboardSink:
    """Keep the whole composed text on ``clipboard`` (set after every edit)."""

    mode = "clipboard"

    def __init__(self, clipboard) -> None:
        self.clipboard = clipboard
        self.text = ""

    def apply(self, edit: Edit) -> None:
        self.text = apply_edit(self.text, edit)
        self.clipboard.set(self.text)


def open_sink(mode: str, *, paste_shortcut: str = "ctrl+v", key_delay_s: float = 0.0, injector=None,
              clipboard=None):
    """A sink for ``mode`` (:data:`OUTPUT_MODES`; ``"stdout"`` / ``"app"``: None), opened now so what is missing
    shows first. Raises ``InjectionUnavailable``, ``ClipboardUnavailable``, ``UsageError``."""
    if mode in ("stdout", "app"):
        return None
    if mode == "type":
        return TypeSink(injector or inject.open_injector(key_delay_s))
    if mode == "paste":
        return PasteSink(injector or inject.open_injector(key_delay_s), clipboard or inject.Clipboard(), paste_shortcut)
    if mode == "clipboard":
        return ClipboardSink(clipboard or inject.Clipboard())
    raise UsageError(f"output {mode!r}: expected one of {', '.join(OUTPUT_MODES)}")


class OutputThread:
    """Apply edits to ``sink`` in order in a daemon thread; ``on_error(message)`` once on failure, later
    edits dropped. Edits wait while ``wait_while()`` (hotkey keys still held would make shortcuts).
    :meth:`close` drains, at most ``timeout_s``."""

    def __init__(self, sink, on_error: Callable[[str], None] | None = None,
                 wait_while: Callable[[], bool] | None = None) -> None:
        self.sink, self.on_error, self.wait_while = sink, on_error, wait_while
        self.failed = ""
        self._q: queue.Queue[Edit | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="dictation-output", daemon=True)
        self._thread.start()

    def put(self, edit: Edit | None) -> None:
        if edit is not None and not self.failed:
            self._q.put(edit)

    def _run(self) -> None:
        while True:
            edit = self._q.get()
            if edit is None:
                return
            if self.failed:
                continue
            while self.wait_while is not None and self.wait_while():
                time.sleep(0.02)
            try:
                self.sink.apply(edit)
            except Exception as e:  # noqa: BLE001 - a failing target must not stop dictation
                self.failed = str(e) or type(e).__name__
                if self.on_error is not None:
                    self.on_error(self.failed)

    def finish(self) -> None:
        """No more edits: the thread applies what is queued, then ends (does not wait)."""
        self._q.put(None)

    def close(self, timeout_s: float = 30.0) -> None:
        """:meth:`finish`, then wait for the queue to drain (at most ``timeout_s`` seconds)."""
        self._q.put(None)
        self._thread.join(timeout_s)
