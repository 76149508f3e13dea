"""`speechstudio doctor`: each problem simulated at its boundary (NVML, the driver's CUDA version,
PortAudio's lookup, ldd's answer, the folder write, the Hub connection) gives the right verdict and
the fix line; `--json` schema; the Help dialog lists the checks."""
from __future__ import annotations

import ctypes.util
import errno
import json
import sys
import time
import types

import pytest

from speechstudio.cli import main
from speechstudio.doctor import CHECKS, run_checks
from speechstudio.doctor import audio, display, gpu, network, storage
from speechstudio.doctor.report import VERDICTS, Check, to_text

pynvml = pytest.importorskip("pynvml")


def fake_nvml(monkeypatch, *, driver="550.54.15", cuda=12040, cc=(8, 9), vram=24 * 2**30, name="NVIDIA GeForce RTX 4090"):
    """Replace the NVML calls (the driver's answers) with those of one GPU."""
    for fn, value in {"nvmlInit": None, "nvmlShutdown": None, "nvmlSystemGetCudaDriverVersion": cuda,
                      "nvmlSystemGetDriverVersion": driver, "nvmlDeviceGetCount": 1,
                      "nvmlDeviceGetHandleByIndex": object(), "nvmlDeviceGetCudaComputeCapability": cc,
                      "nvmlDeviceGetName": name,
                      "nvmlDeviceGetMemoryInfo": types.SimpleNamespace(total=vram, used=0, free=vram)}.items():
        monkeypatch.setattr(pynvml, fn, lambda *a, v=value: v)


def cuda_torch(monkeypatch, cuda="12.8"):
    monkeypatch.setattr(gpu, "torch_build", lambda: {"version": f"2.13.0+cu{cuda.replace('.', '')}", "cuda": cuda})


# ----------------------------------------------------------------------------- GPU
def test_no_nvml_library_on_cpu_build_is_information(monkeypatch):
    def no_library():
        raise pynvml.NVMLError(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)
    monkeypatch.setattr(pynvml, "nvmlInit", no_library)
    monkeypatch.setattr(gpu, "torch_build", lambda: {"version": "2.13.0+cpu", "cuda": None})
    c = gpu.check_gpu()
    assert (c.status, c.fix) == ("info", "")
    assert "CPU build" in c.summary and "no NVIDIA driver" in c.summary and "NVML Shared Library Not Found" in c.summary


def test_no_nvml_library_on_cuda_build_says_install_the_driver(monkeypatch):
    monkeypatch.setattr(pynvml, "nvmlInit", lambda: (_ for _ in ()).throw(pynvml.NVMLError(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)))
    cuda_torch(monkeypatch)
    c = gpu.check_gpu()
    assert c.status == "warn"
    assert "running on the CPU" in c.summary and "CUDA 12.8" in c.summary
    assert c.fix == gpu.DRIVER_FIX and "sudo ubuntu-drivers install" in c.fix


def test_driver_older_than_torch_cuda_major_fails(monkeypatch):
    fake_nvml(monkeypatch, driver="470.82.01", cuda=11040)
    cuda_torch(monkeypatch, "12.8")
    c = gpu.check_gpu()
    assert c.status == "fail"
    assert "driver 470.82.01 supports CUDA 11.4 only; this torch needs CUDA 12.8" in c.summary
    assert c.fix == gpu.DRIVER_FIX


def test_driver_older_minor_runs_through_minor_version_compatibility(monkeypatch):
    fake_nvml(monkeypatch, driver="535.104.05", cuda=12020)
    cuda_torch(monkeypatch, "12.8")
    monkeypatch.setattr(gpu, "_torch_cuda_runtime", lambda: {"cuda_available": True, "cudnn": 91002})
    c = gpu.check_gpu()
    assert c.status == "warn" and "minor version compatibility (driver >= 525.60.13)" in c.summary
    assert c.fix == gpu.DRIVER_FIX


def test_matching_driver_reports_gpu_facts(monkeypatch):
    fake_nvml(monkeypatch, driver="570.86.10", cuda=12080, cc=(7, 5), vram=16 * 2**30, name="Tesla T4")
    cuda_torch(monkeypatch, "12.8")
    monkeypatch.setattr(gpu, "_torch_cuda_runtime", lambda: {"cuda_available": True, "cudnn": 91002})
    c = gpu.check_gpu()
    assert (c.status, c.fix) == ("ok", "")
    assert "cuDNN 91002" in c.summary and "Tesla T4 16.0 GiB, compute 7.5, FP16 yes, BF16 no" in c.summary
    assert c.details["gpus"][0] == {"name": "Tesla T4", "vram_bytes": 16 * 2**30, "compute_capability": "7.5",
                                    "fp16": True, "bf16": False}


def test_gpu_with_cpu_build_says_install_cuda_torch(monkeypatch):
    fake_nvml(monkeypatch)
    monkeypatch.setattr(gpu, "torch_build", lambda: {"version": "2.13.0+cpu", "cuda": None})
    c = gpu.check_gpu()
    assert c.status == "warn" and "cannot use the GPU (NVIDIA GeForce RTX 4090 24.0 GiB, compute 8.9" in c.summary
    assert "download.pytorch.org/whl/cu128" in c.fix


def test_torch_build_read_without_importing_torch(monkeypatch):
    from importlib import metadata

    monkeypatch.delitem(sys.modules, "torch", raising=False)
    build = gpu.torch_build()
    assert "torch" not in sys.modules
    assert build["version"] == metadata.version("torch")
    assert (build["cuda"] is None) == build["version"].endswith("+cpu")


# ----------------------------------------------------------------------------- Python
def test_packaged_app_lists_the_bundled_versions_and_never_asks_for_pip(monkeypatch):
    from speechstudio.doctor import environment

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(environment, "package_versions", lambda: {"torch": "2.13.0+cpu", "sounddevice": None})
    c = environment.check_python()
    assert (c.status, c.fix) == ("ok", "")
    assert "(packaged app)" in c.summary and c.summary.endswith("; torch 2.13.0+cpu")
    assert c.details["packages"] == {"torch": "2.13.0+cpu", "sounddevice": None}


def test_missing_package_from_source_gives_the_pip_line(monkeypatch):
    from speechstudio.doctor import environment

    monkeypatch.setattr(environment, "package_versions", lambda: {"torch": "2.13.0+cpu", "sounddevice": None})
    c = environment.check_python()
    assert c.status == "fail" and "missing: sounddevice (microphone and speakers)" in c.summary
    assert c.fix == "pip install sounddevice"


# ----------------------------------------------------------------------------- sound
def test_portaudio_missing(monkeypatch):
    real = ctypes.util.find_library
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None if "portaudio" in name else real(name))
    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    c = audio.check_audio()
    assert c.status == "fail"
    assert c.summary.startswith("PortAudio is not installed (PortAudio library not found)")
    assert c.fix == "sudo apt install libportaudio2"


def test_portaudio_present_lists_devices(monkeypatch):
    devices = [{"name": "Built-in Mic", "max_input_channels": 2, "max_output_channels": 0},
               {"name": "Speakers", "max_input_channels": 0, "max_output_channels": 2}]
    sd = types.SimpleNamespace(query_devices=lambda: devices, default=types.SimpleNamespace(device=(0, 1)),
                               get_portaudio_version=lambda: (1246976, "PortAudio V19.7.0-devel"))
    monkeypatch.setattr(audio, "_import_sounddevice", lambda: sd)
    c = audio.check_audio()
    assert (c.status, c.fix) == ("ok", "")
    assert c.summary == ("PortAudio V19.7.0-devel; 1 input(s) (default: Built-in Mic), "
                         "1 output(s) (default: Speakers)")


# ----------------------------------------------------------------------------- window
LDD_MISSING = """\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /x/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f)
\tlibxcb-cursor.so.0 => not found
\tlibxkbcommon-x11.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb-cursor.so.0 => not found
"""


def test_xcb_library_missing_gives_the_apt_line(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("XDG_SESSION_TYPE", raising=False)
    monkeypatch.setattr(display, "_ldd", lambda path: LDD_MISSING)
    c = display.check_display()
    assert c.status == "fail"
    assert c.fix == "sudo apt install libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4"
    assert "missing: libxcb-cursor.so.0, libxkbcommon-x11.so.0, libxcb-icccm.so.4" in c.summary


def test_debian_package_names_from_sonames():
    assert [display.debian_package(s) for s in ("libxcb-render-util.so.0", "libEGL.so.1", "libdbus-1.so.3",
                                                "libX11-xcb.so.1", "libglib-2.0.so.0", "libfontconfig.so.1")] == \
        ["libxcb-render-util0", "libegl1", "libdbus-1-3", "libx11-xcb1", "libglib2.0-0", "libfontconfig1"]


def test_real_plugin_is_found_and_checked():
    c = display.check_display()
    assert c.details["plugins"].endswith("PySide6/Qt/plugins/platforms")
    assert c.status == ("fail" if c.details["missing"] else "ok")


# ----------------------------------------------------------------------------- folders
def test_read_only_data_folder(monkeypatch, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(data / "SpeechStudio"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    from speechstudio import atomic

    real = atomic.probe_write

    def write(folder):
        if folder == data:
            raise OSError(errno.EROFS, "Read-only file system")
        real(folder)
    monkeypatch.setattr(atomic, "probe_write", write)
    c = storage.check_folders()
    assert c.status == "fail"
    assert f"data folder: cannot write in {data} (Read-only file system)" in c.summary
    assert c.fix == f"sudo chown -R $USER '{data}' (or choose a writable folder: export SPEECHSTUDIO_HOME=$HOME/speechstudio-data)"
    assert c.details["data"]["writable"] is False and c.details["cache"]["writable"] is True


def test_writable_folders_that_do_not_exist_yet(monkeypatch, tmp_path):
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(tmp_path / "a" / "b"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    c = storage.check_folders()
    assert c.status == "ok" and c.fix == ""
    assert not (tmp_path / "a").exists() and list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- network
def test_no_network_is_a_warning_within_seconds(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")     # discard port: nothing listens
    import huggingface_hub.constants  # reads HF_HUB_OFFLINE once, at import (CI exports it)

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    t0 = time.perf_counter()
    c = network.check_network(timeout_s=3)
    assert time.perf_counter() - t0 < 3.5
    assert c.status == "warn" and c.summary.startswith("http://127.0.0.1:9 unreachable")
    assert "export HF_HUB_OFFLINE=1" in c.fix


def test_offline_mode_makes_no_request(monkeypatch):
    from speechstudio.hub import download

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(download, "_probe_endpoint", lambda t: pytest.fail("the network was touched"))
    c = network.check_network()
    assert (c.status, c.fix) == ("info", "") and "no request made" in c.summary


# ----------------------------------------------------------------------------- whole report
def test_json_report_schema_and_exit_status(monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    rc = main(["doctor", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"schema", "speechstudio", "ok", "checks"} and report["schema"] == 1
    assert [c["name"] for c in report["checks"]] == list(CHECKS)
    for c in report["checks"]:
        assert set(c) == {"name", "status", "summary", "fix", "details"} and c["status"] in VERDICTS
        assert bool(c["fix"]) == (c["status"] in ("warn", "fail")), c
    assert rc == (0 if report["ok"] else 1)
    assert report["ok"] == all(c["status"] != "fail" for c in report["checks"])


def test_a_crashing_check_is_a_problem_and_the_others_still_run(monkeypatch):
    monkeypatch.setattr(audio, "check_audio", lambda: 1 / 0)
    checks = run_checks(network=False)
    assert [c.name for c in checks] == [n for n in CHECKS if n != "Network"]
    crashed = checks[2]
    assert (crashed.name, crashed.status) == ("Sound (PortAudio)", "fail")
    assert "ZeroDivisionError" in crashed.summary


def test_text_report_shows_fix_lines_and_conclusion():
    text = to_text([Check("A", "ok", "fine"), Check("B", "fail", "broken", "do this")], "9.9")
    assert text.splitlines() == ["SpeechStudio 9.9: checking this computer", "[  ok] A  fine", "[fail] B  broken",
                                 "          fix: do this",
                                 "1 problem(s), 0 warning(s): run the fix lines above, then `speechstudio doctor` again."]


# ----------------------------------------------------------------------------- Help dialog
def test_dialog_lists_every_check(qtbot, monkeypatch):
    from PySide6.QtWidgets import QApplication

    from speechstudio.gui.doctor_dialog import DoctorDialog, show_doctor_dialog

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    show_doctor_dialog(None)
    dlg = next(w for w in QApplication.topLevelWidgets() if isinstance(w, DoctorDialog))
    with qtbot.waitSignal(dlg.done, timeout=30000):
        pass
    assert [dlg.tree.topLevelItem(i).text(0) for i in range(dlg.tree.topLevelItemCount())] == list(CHECKS)
    assert dlg.report_text().splitlines()[0].startswith("SpeechStudio ")
    assert dlg.again.isEnabled() and not dlg.running
    dlg.close()
