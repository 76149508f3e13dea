"""Faults of issue 29 fixed as classes: child processes started the way the installed app can run
them, a broken subcommand never vanishes silently, a prepared dataset cannot point outside itself."""
from __future__ import annotations

import json
import sys

import pytest

from speechstudio.errors import SpeechStudioError


def test_child_commands_work_frozen_and_from_source(monkeypatch):
    from speechstudio.runtime import app_command

    assert app_command() == [sys.executable, "-m", "speechstudio"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "/opt/speechstudio/SpeechStudio")
    assert app_command() == ["/opt/speechstudio/SpeechStudio"]


def test_download_job_runs_the_apps_own_cli(monkeypatch):
    """The Models page's download job starts `<app> models download ID`: frozen, no `-m`."""
    import subprocess

    from speechstudio.worker.jobs import DownloadJob

    seen = {}

    class Proc:
        stdout = ()
        returncode = 0

        def __init__(self, cmd, **kw):
            seen["cmd"] = cmd

        def wait(self, *a):
            return 0

        def poll(self):
            return 0

        def kill(self):
            pass

    monkeypatch.setattr(subprocess, "Popen", Proc)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "/opt/speechstudio/SpeechStudio")
    try:
        list(DownloadJob("Systran/faster-whisper-tiny").run(None))
    except SpeechStudioError:
        pass
    assert seen["cmd"] == ["/opt/speechstudio/SpeechStudio", "models", "download", "Systran/faster-whisper-tiny"]


def test_a_subcommand_missing_a_package_is_named_and_a_broken_one_fails(monkeypatch, capsys):
    import importlib

    from speechstudio import cli

    real = importlib.import_module

    def missing_pkg(name, *a, **kw):
        if name == "speechstudio.doctor.cli":
            raise ModuleNotFoundError("No module named 'psutil'", name="psutil")
        return real(name, *a, **kw)

    monkeypatch.setattr(importlib, "import_module", missing_pkg)
    parser = cli.build_parser()
    assert "unavailable here: doctor (needs the psutil package)" in parser.format_help()

    def broken(name, *a, **kw):
        if name == "speechstudio.doctor.cli":
            raise ImportError("cannot import name 'run_checks' from 'speechstudio.doctor'",
                              name="speechstudio.doctor")
        return real(name, *a, **kw)

    monkeypatch.setattr(importlib, "import_module", broken)
    with pytest.raises(ImportError, match="run_checks"):
        cli.build_parser()


@pytest.mark.parametrize("audio, why", [("/etc/passwd", "is absolute"), ("../../secret.wav", "leaves the dataset"),
                                        ("clips/../../x.wav", "leaves the dataset"), ("C:\\\\x.wav", "is absolute")])
def test_a_prepared_dataset_cannot_point_outside_its_folder(tmp_path, audio, why):
    from speechstudio.finetune.manifest import DatasetError, Manifest

    (tmp_path / "manifest.json").write_text(json.dumps({
        "sample_rate": 22050, "clips": [
            {"id": "ok", "audio": "clips/ok.wav", "text": "hi", "duration_s": 1.0},
            {"id": "bad", "audio": audio, "text": "hi", "duration_s": 1.0}]}))
    with pytest.raises(DatasetError, match=f"clip 2 \\(bad\\): audio path .* {why}"):
        Manifest.load(tmp_path)


def test_no_microphone_is_said_plainly(monkeypatch, capsys):
    """PortAudio with no input device: dictate says "no microphone found", --list-devices says none."""
    from speechstudio.asr.sources import MicSource
    from speechstudio.audio.backends import AudioUnavailableError, SoundDeviceBackend

    class NoDevices:
        class default:
            device = (-1, -1)

        @staticmethod
        def query_devices():
            return []

    backend = SoundDeviceBackend.__new__(SoundDeviceBackend)
    backend.sd = NoDevices
    monkeypatch.setattr("speechstudio.audio.backends.monitor_sources", lambda: [])
    with pytest.raises(AudioUnavailableError, match="^no microphone found"):
        MicSource(backend=backend)
    monkeypatch.setattr("speechstudio.audio.backends._backend", backend)  # what --list-devices asks
    from speechstudio import cli

    assert cli.main(["dictate", "--list-devices"]) == 0
    assert capsys.readouterr().out.strip() == "no input device found (no microphone, no system-audio monitor source)"
    assert cli.main(["dictate"]) == 1      # the way out is named: a recording instead of the microphone
    err = capsys.readouterr().err
    assert "no microphone found" in err and err.rstrip().endswith("or dictate a recording: --file AUDIO")


def test_a_file_as_the_only_argument_opens_the_app_with_it(monkeypatch, tmp_path):
    """`speechstudio talk.mp3` (what a file manager's "Open with" runs) opens the app with the file
    queued, as `speechstudio gui talk.mp3` does; a subcommand named like no file stays a subcommand."""
    from speechstudio import cli
    from speechstudio.gui import cli as gui_cli

    seen = {}
    monkeypatch.setattr(gui_cli, "run_gui", lambda args: seen.setdefault("paths", list(args.paths)) and 0)
    audio = tmp_path / "talk.mp3"
    audio.write_bytes(b"x")
    assert cli.main([str(audio)]) == 0
    assert seen["paths"] == [str(audio)]
    with pytest.raises(SystemExit) as e:              # not a file: argparse's usage error as before
        cli.main(["nosuchfile.wav"])
    assert e.value.code == 2
