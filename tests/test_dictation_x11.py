"""Dictation into another application under a real X server (Xvfb), issue 16.

A small Qt text field runs in another process (``tests/x11_target.py``) and has the focus;
``speechstudio dictate --file F --fast --output type|paste`` (the file-fed fake microphone, the
real Whisper tiny.en) must put exactly the composed stable text of the same file's offline
streaming run into it: no dropped or doubled letters ("all" in the recording), and in paste mode
the user's clipboard is back afterwards. Also: the real pynput listener fires the hotkey on
XTest key events, and a hotkey another client has grabbed is reported.

Needs Debian's ``xvfb xdotool xclip`` and the Qt xcb libraries (``libxcb-cursor0`` ...; see
GUIDE.md "Machine notes"): without them the tests are skipped and the reason is printed (``-rs``).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).parent
TOOLS = ("Xvfb", "xdotool", "xclip")
# 2.9 s, 8 kHz (resampled on the way): "She had your dark suit in greasy wash water all year."
FILE = "deepspeech_LDC93S1_8k.wav"


@pytest.fixture(scope="module")
def display():
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}: apt-get install -y xvfb xdotool xclip libxcb-cursor0 "
                    "libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 "
                    "libxcb-xinerama0 libxcb-shape0 libxcb-image0 libegl1 libgl1 libfontconfig1 libdbus-1-3")
    if importlib.util.find_spec("pynput") is None:  # the Linux 'hotkey' extra (evdev builds from source)
        pytest.skip("needs pynput: pip install 'speechstudio[hotkey]' (a C compiler and the kernel headers)")
    r, w = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    with os.fdopen(r) as f:
        num = f.readline().strip()
    assert num.isdigit(), "Xvfb did not report a display number"
    yield f":{num}"
    xvfb.terminate()
    xvfb.wait(10)


@pytest.fixture
def x_env(display, home):
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", XDG_SESSION_TYPE="x11")
    env.pop("WAYLAND_DISPLAY", None)
    return env


@pytest.fixture
def target(x_env, tmp_path):
    """The focused Qt text field; returns a function giving its text."""
    out = tmp_path / "target.txt"
    proc = subprocess.Popen([sys.executable, str(HERE / "x11_target.py"), str(out)], env=x_env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wid = subprocess.run(["xdotool", "search", "--sync", "--name", "dictation-target"], env=x_env,
                             capture_output=True, text=True, timeout=60).stdout.split()[0]
        subprocess.run(["xdotool", "windowfocus", "--sync", wid], env=x_env, check=True, timeout=30)
        deadline = time.monotonic() + 30
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.05)

        def text(settle_s: float = 0.5) -> str:
            time.sleep(settle_s)  # the field writes its text every 100 ms
            return out.read_text(encoding="utf-8")

        assert text() == ""
        yield text
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def xterm_target(x_env, tmp_path):
    """``xterm`` running ``cat > FILE``, focused: a client that drops synthetic (XSendEvent) keys,
    so only real XTest key events reach it. Returns a function that ends the line and the input
    (Return, Ctrl+D) and gives what cat wrote, without that last newline."""
    if shutil.which("xterm") is None:
        pytest.skip("needs xterm: apt-get install -y xterm")
    out = tmp_path / "xterm.txt"
    proc = subprocess.Popen(["xterm", "-T", "dictation-xterm", "-e", "sh", "-c", f"cat > '{out}'"], env=x_env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wid = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "dictation-xterm"],
                             env=x_env, capture_output=True, text=True, timeout=60).stdout.split()[0]
        subprocess.run(["xdotool", "windowfocus", "--sync", wid], env=x_env, check=True, timeout=30)

        def text() -> str:
            time.sleep(0.5)
            subprocess.run(["xdotool", "key", "Return", "ctrl+d"], env=x_env, check=True, timeout=10)
            proc.wait(30)  # cat saw the end of input: the shell and xterm exit
            written = out.read_text(encoding="utf-8")
            assert written.endswith("\n"), repr(written)
            return written[:-1]

        yield text
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(10)


@pytest.fixture(scope="module")
def audio() -> Path:
    from conftest import realspeech_file

    return realspeech_file(FILE)


@pytest.fixture(scope="module")
def expected(whisper_dir, audio, tmp_path_factory):
    """The composed stable text of the file's offline streaming run (the same path, in-process,
    to stdout with spoken commands on)."""
    env = dict(os.environ, SPEECHSTUDIO_HOME=str(tmp_path_factory.mktemp("home")), HF_HUB_OFFLINE="1")
    r = subprocess.run([sys.executable, "-m", "speechstudio.cli", "dictate", "--file", str(audio), "--fast",
                        "--model", str(whisper_dir), "--no-download", "--commands", "on"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    text = r.stdout.splitlines()[-1]
    assert "wash water all year" in text.lower(), text
    return text


def dictate(x_env, whisper_dir, audio, *extra) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "speechstudio.cli", "dictate", "--file", str(audio), "--fast",
                        "--model", str(whisper_dir), "--no-download", *extra],
                       env=x_env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r


def test_type_mode_types_the_stable_text_into_the_focused_window(target, x_env, whisper_dir, audio, expected):
    r = dictate(x_env, whisper_dir, audio, "--output", "type")
    assert r.stdout.splitlines()[-1] == expected
    assert target() == expected


def test_type_mode_reaches_xterm_which_drops_synthetic_keys(xterm_target, x_env, whisper_dir, audio, expected):
    """pynput's X11 controller sends XSendEvent keys, which xterm ignores: nothing was typed into
    a terminal. The injector sends XTest keys (``inject._xtest_controller``)."""
    dictate(x_env, whisper_dir, audio, "--output", "type")
    assert xterm_target() == expected


def test_paste_mode_pastes_and_restores_the_users_clipboard(target, x_env, whisper_dir, audio, expected):
    subprocess.run(["xclip", "-selection", "clipboard", "-i"], input="the user's own clipboard ✓".encode(),
                   env=x_env, check=True, timeout=10, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dictate(x_env, whisper_dir, audio, "--output", "paste")
    assert target() == expected
    clip = subprocess.run(["xclip", "-selection", "clipboard", "-o"], env=x_env, capture_output=True, timeout=10)
    assert clip.stdout.decode() == "the user's own clipboard ✓"


def test_typing_fast_drops_and_doubles_nothing(target, x_env):
    text = "Bookkeeper's committee: all 1100 balloons, aardvarks & llamas?\nZZ top -- 'quoted' (ok) tab\there."
    code = ("from speechstudio.dictation.sinks import open_sink; from speechstudio.dictation.composer import Edit;"
            "s = open_sink('type'); s.apply(Edit(0, %r)); s.apply(Edit(5, 'HERE!'))" % text)
    subprocess.run([sys.executable, "-c", code], env=x_env, check=True, timeout=120)
    assert target() == text[:-5] + "HERE!"


def test_real_listener_fires_and_a_grabbed_hotkey_is_reported(x_env):
    listen = ("import time, sys; from speechstudio.dictation.hotkey import Hotkey\n"
              "hk = Hotkey('ctrl+alt+d', lambda: print('start', flush=True), lambda: print('stop', flush=True))\n"
              "hk.start(); print('ready', flush=True); time.sleep(6); hk.stop()")
    p = subprocess.Popen([sys.executable, "-c", listen], env=x_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    for _ in range(2):
        subprocess.run(["xdotool", "key", "ctrl+alt+d"], env=x_env, check=True, timeout=10)
        time.sleep(0.3)
    out, err = p.communicate(timeout=30)
    assert out.split() == ["start", "stop"], err

    grab = ("from Xlib import X, XK, display; import time; d = display.Display();"
            "c = d.keysym_to_keycode(XK.string_to_keysym('d'));"
            "d.screen().root.grab_key(c, X.ControlMask | X.Mod1Mask, True, X.GrabModeAsync, X.GrabModeAsync);"
            "d.sync(); print('grabbed', flush=True); time.sleep(20)")
    holder = subprocess.Popen([sys.executable, "-c", grab], env=x_env, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "grabbed"
        check = ("from speechstudio.dictation.hotkey import check_x11_grab, HotkeyUnavailable\n"
                 "check_x11_grab('ctrl+alt+f')\n"
                 "try:\n    check_x11_grab('ctrl+alt+d')\nexcept HotkeyUnavailable as e:\n    print(e)")
        r = subprocess.run([sys.executable, "-c", check], env=x_env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip().startswith("hotkey ctrl+alt+d is already taken by another application")
    finally:
        holder.terminate()
        holder.wait(10)
