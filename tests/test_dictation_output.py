"""Dictation into other apps, the CPU-only parts (issue 16): sinks over a fake injector and a fake
clipboard (exact key calls, the user's clipboard restored), the output thread, the global hotkey
at its library boundary (a fake pynput listener: toggle and push-to-talk start/stop a session),
the remote toggle (`speechstudio dictate --toggle`) and the messages for what is missing.
"""
from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from speechstudio.dictation import control
from speechstudio.dictation.composer import Edit
from speechstudio.dictation.hotkey import Hotkey, HotkeyUnavailable, key_name, parse_hotkey
from speechstudio.dictation.inject import CommandInjector, InjectionUnavailable, open_injector
from speechstudio.dictation.sinks import ClipboardSink, OutputThread, PasteSink, TypeSink, open_sink
from speechstudio.errors import UsageError


class FakeInjector:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def type_text(self, text):
        self.calls.append(("type", text))

    def backspace(self, n):
        self.calls.append(("backspace", n))

    def paste(self, shortcut="ctrl+v"):
        self.calls.append(("paste", shortcut, self.clipboard.value if hasattr(self, "clipboard") else None))


class FakeClipboard:
    def __init__(self, value="user's own text") -> None:
        self.value, self.history = value, []

    def get(self):
        return self.value

    def set(self, text):  # noqa: A003
        self.history.append(text)
        self.value = text


def test_type_sink_sends_backspaces_then_text():
    inj = FakeInjector()
    sink = TypeSink(inj)
    for e in (Edit(0, "Hello world"), Edit(5, "there."), Edit(0, "\nNext")):
        sink.apply(e)
    assert inj.calls == [("type", "Hello world"), ("backspace", 5), ("type", "there."), ("type", "\nNext")]


def test_paste_sink_pastes_the_new_text_and_restores_the_clipboard():
    inj, clip = FakeInjector(), FakeClipboard()
    inj.clipboard = clip
    sink = PasteSink(inj, clip, "ctrl+shift+v", settle_s=0.0, restore_delay_s=0.0)
    sink.apply(Edit(0, "Hello"))
    sink.apply(Edit(2, ""))               # only Backspaces: the clipboard is not touched
    sink.apply(Edit(0, "p!"))
    assert inj.calls == [("paste", "ctrl+shift+v", "Hello"), ("backspace", 2), ("paste", "ctrl+shift+v", "p!")]
    assert clip.value == "user's own text"
    assert clip.history == ["Hello", "user's own text", "p!", "user's own text"]


def test_clipboard_sink_keeps_the_whole_text():
    clip = FakeClipboard("")
    sink = ClipboardSink(clip)
    for e in (Edit(0, "One two"), Edit(3, "three"), Edit(0, ".")):
        sink.apply(e)
    assert clip.value == "One three." and clip.history == ["One two", "One three", "One three."]


def test_output_thread_applies_in_order_and_reports_a_failure_once():
    inj = FakeInjector()
    out = OutputThread(TypeSink(inj))
    for i in range(50):
        out.put(Edit(0, str(i % 10)))
    out.put(None)
    out.close()
    assert "".join(c[1] for c in inj.calls) == "".join(str(i % 10) for i in range(50))

    class Broken:
        def apply(self, e):
            raise InjectionUnavailable("ydotool failed: failed to connect socket (is ydotoold running?)")

        def close(self):
            pass

    held = threading.Event()
    held.set()
    inj = FakeInjector()
    out = OutputThread(TypeSink(inj), wait_while=held.is_set)   # the hotkey's keys are still down
    out.put(Edit(0, "x"))
    time.sleep(0.2)
    assert inj.calls == []
    held.clear()
    out.close()
    assert inj.calls == [("type", "x")]

    errors = []
    out = OutputThread(Broken(), on_error=errors.append)
    out.put(Edit(0, "a"))
    out.put(Edit(0, "b"))
    out.close()
    assert errors == ["ydotool failed: failed to connect socket (is ydotoold running?)"]


def test_open_sink_modes_and_missing_helpers(monkeypatch):
    assert open_sink("stdout") is None and open_sink("app") is None
    with pytest.raises(UsageError, match="output 'fax': expected one of type, paste, clipboard, stdout"):
        open_sink("fax")
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(InjectionUnavailable, match=r"install wtype .* or ydotool"):
        open_sink("type")
    monkeypatch.setenv("XDG_SESSION_TYPE", "x11")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    with pytest.raises(InjectionUnavailable, match=r"\$DISPLAY is not set"):
        open_injector()


def test_wayland_command_injectors_build_the_right_commands(monkeypatch, tmp_path):
    log = tmp_path / "log"
    for tool in ("wtype", "ydotool"):
        exe = tmp_path / tool
        exe.write_text(f"#!/bin/sh\necho {tool} \"$@\" >> {log}\n")
        exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    inj = open_injector()
    assert isinstance(inj, CommandInjector) and inj.name == "wtype"
    inj.type_text("Hi there")
    inj.backspace(2)
    inj.paste("ctrl+v")
    y = CommandInjector("ydotool")
    y.type_text("x")
    y.backspace(1)
    y.paste("ctrl+shift+v")
    assert log.read_text().splitlines() == [
        "wtype -- Hi there", "wtype -k BackSpace -k BackSpace", "wtype -M ctrl v -m ctrl",
        "ydotool type -- x", "ydotool key 14:1 14:0", "ydotool key 29:1 42:1 47:1 47:0 42:0 29:0"]


# ------------------------------------------------------------------------------------ hotkey
class K:
    """A pynput-like key: ``Key.ctrl_l`` has ``.name``; ``KeyCode`` has ``.char``."""

    def __init__(self, name=None, char=None) -> None:
        self.name, self.char = name, char


CTRL, ALT, D, X = K("ctrl_l"), K("alt_r"), K(char="d"), K(char="x")


class FakeListener:
    """pynput.keyboard.Listener's boundary: constructed with on_press/on_release, start(), stop()."""

    instances: list["FakeListener"] = []

    def __init__(self, on_press, on_release) -> None:
        self.on_press, self.on_release = on_press, on_release
        self.started = self.stopped = False
        FakeListener.instances.append(self)

    def start(self):
        self.started = True

    def stop(self):
        self.stopped = True

    def chord(self, *keys):
        for k in keys:
            self.on_press(k)
        for k in reversed(keys):
            self.on_release(k)


class Session:
    """Stands in for the dictation session the hotkey drives."""

    def __init__(self) -> None:
        self.running, self.log = False, []

    def start(self):
        self.running = True
        self.log.append("start")

    def stop(self):
        self.running = False
        self.log.append("stop")


def test_parse_and_key_names():
    assert parse_hotkey("<ctrl>+<alt>+d") == parse_hotkey("Ctrl+Alt+D") == {"ctrl", "alt", "d"}
    assert parse_hotkey("f9") == {"f9"}
    with pytest.raises(HotkeyUnavailable, match="expected modifiers and one key"):
        parse_hotkey("ctrl+shift")
    assert [key_name(k) for k in (CTRL, ALT, D, K(char="\x04"), K("f9"), K("cmd_r"))] == \
        ["ctrl", "alt", "d", "d", "f9", "cmd"]


def test_toggle_hotkey_starts_and_stops_the_session():
    s = Session()
    hk = Hotkey("ctrl+alt+d", s.start, s.stop, is_active=lambda: s.running, listener_factory=FakeListener)
    hk.start()
    lst = hk.listener
    assert lst.started
    lst.chord(CTRL, D)                         # not the combination
    lst.chord(CTRL, ALT, X)
    assert s.log == []
    lst.chord(CTRL, ALT, D)
    assert s.log == ["start"] and s.running
    lst.on_press(CTRL)
    lst.on_press(ALT)
    lst.on_press(D)
    lst.on_press(D)                            # auto-repeat while held: fires once
    assert s.log == ["start", "stop"]
    lst.on_release(D)
    lst.on_press(D)                            # modifiers still down, D again: a new press
    assert s.log == ["start", "stop", "start"]
    s.stop()                                   # stopped elsewhere ("stop dictating", the Stop button)
    lst.on_release(D)
    lst.chord(CTRL, ALT, D)
    assert s.log == ["start", "stop", "start", "stop", "start"]
    hk.stop()
    assert lst.stopped and hk.listener is None


def test_push_to_talk_runs_while_held():
    s = Session()
    hk = Hotkey("ctrl+alt+d", s.start, s.stop, mode="push_to_talk", listener_factory=FakeListener)
    hk.start()
    lst = hk.listener
    lst.on_press(CTRL)
    lst.on_press(ALT)
    lst.on_press(D)
    assert s.log == ["start"]
    lst.on_press(D)                            # auto-repeat
    lst.on_release(CTRL)                       # any key of the chord released: stop
    assert s.log == ["start", "stop"] and hk.held
    lst.on_release(ALT)
    lst.on_release(D)
    assert s.log == ["start", "stop"] and not hk.held


def test_hotkey_on_wayland_says_what_to_do(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    hk = Hotkey("ctrl+alt+d", lambda: None, lambda: None)
    with pytest.raises(HotkeyUnavailable, match="speechstudio dictate --toggle"):
        hk.start()


# ------------------------------------------------------------------------------------ remote toggle
def test_remote_toggle_reaches_the_running_app(home, tmp_path_factory, monkeypatch):
    run_dir = tmp_path_factory.mktemp("run")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run_dir))
    with pytest.raises(control.ControlError, match="SpeechStudio is not running"):
        control.send_command("toggle")
    got = []
    server = control.ControlServer(lambda cmd: got.append(cmd) or f"dictation {'started' if len(got) % 2 else 'stopped'}")
    try:
        assert control.send_command("toggle") == "dictation started"
        r = subprocess.run([sys.executable, "-m", "speechstudio.cli", "dictate", "--toggle"], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "dictation stopped" and got == ["toggle", "toggle"]
    finally:
        server.close()
    r = subprocess.run([sys.executable, "-m", "speechstudio.cli", "dictate", "--toggle"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1 and "SpeechStudio is not running" in r.stderr


def test_cli_says_what_is_missing_before_loading_a_model(home, tmp_path):
    import os

    import numpy as np
    import soundfile as sf

    wav = tmp_path / "quiet.wav"
    sf.write(str(wav), np.zeros(8000, np.float32), 16000)
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(XDG_SESSION_TYPE="wayland", PATH=str(tmp_path) + os.pathsep + "/usr/bin:/bin")
    r = subprocess.run([sys.executable, "-m", "speechstudio.cli", "dictate", "--file", str(wav), "--fast",
                        "--output", "type"], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 1 and "install wtype" in r.stderr and "ydotool" in r.stderr and "Traceback" not in r.stderr


def test_stdout_shows_the_text_with_spoken_commands_applied():
    """With --commands on, stdout streamed the words heard ("Stop dictating.", text said after it, text a
    "scratch that" removed): a pipe now gets the composed text once, at the end; a terminal redraws it."""
    import io

    from speechstudio.asr.streaming import StreamUpdate
    from speechstudio.asr.types import Word
    from speechstudio.dictation.cli import _Printer

    heard = StreamUpdate("partial", 0, (Word(0.0, 0.5, "Hello."), Word(0.5, 1.0, "Stop"), Word(1.0, 1.4, "dictating.")),
                         "Hello. Stop dictating.", "", 1.4, 1.4)
    pipe = io.StringIO()
    printer = _Printer(pipe)
    printer.update(heard, composed="Hello.")
    printer.finish("Hello.")
    assert pipe.getvalue() == "Hello.\n"
    printer.update(heard)                                   # --commands off: each stable piece as heard
    assert pipe.getvalue() == "Hello.\nHello. Stop dictating.\n"
    tty = io.StringIO()
    tty.isatty = lambda: True
    printer = _Printer(tty)
    printer.update(StreamUpdate("final", 0, heard.words, heard.stable_text, "", 1.4, 1.4), composed="Hello.")
    assert tty.getvalue() == "\r\033[KHello.\n"
