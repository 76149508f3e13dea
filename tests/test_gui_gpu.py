"""GPU monitor: the no-GPU state on this machine, and the numbers with NVML faked at its boundary."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from types import SimpleNamespace

import pytest

from speechstudio.worker import monitor
from test_gui_support import fake_audio, win  # noqa: F401 - fixtures


@pytest.fixture(autouse=True)
def fresh_nvml(monkeypatch):
    monkeypatch.setitem(monitor._nvml_state, "init", False)


def test_no_gpu_state(win, qtbot, monkeypatch):
    pynvml = pytest.importorskip("pynvml")

    def no_driver():
        raise pynvml.NVMLError(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)

    monkeypatch.setattr(pynvml, "nvmlInit", no_driver)  # what a machine without the driver says
    with qtbot.waitSignal(win.monitor.sampled, timeout=10000):
        win.monitor.start()
    win.monitor.stop()
    text = win.gpu.headline.text()
    assert text.startswith("No NVIDIA GPU")
    assert "CPU" in text
    assert win.gpu.cpu.text().endswith("%")
    assert "GiB" in win.gpu.ram.text()
    assert all(not b.isVisible() for b in win.gpu.gpu_boxes)


def test_this_machine_reports_plainly():
    s = monitor.sample_system()
    if s.gpus:
        pytest.skip("this machine has an NVIDIA GPU")
    assert s.no_gpu_reason  # a plain reason, never an exception
    assert s.ram_total_mib > 0


def fake_nvml(monkeypatch):
    pynvml = pytest.importorskip("pynvml")
    calls = {"init": 0}

    def init():
        calls["init"] += 1

    fake = {
        "nvmlInit": init,
        "nvmlDeviceGetCount": lambda: 2,
        "nvmlSystemGetDriverVersion": lambda: "555.42",
        "nvmlDeviceGetHandleByIndex": lambda i: f"h{i}",
        "nvmlDeviceGetName": lambda h: "NVIDIA H200" if h == "h0" else b"NVIDIA L4",
        "nvmlDeviceGetUtilizationRates": lambda h: SimpleNamespace(gpu=87 if h == "h0" else 3, memory=40),
        "nvmlDeviceGetMemoryInfo": lambda h: SimpleNamespace(used=40 * 2**30, total=141 * 2**30, free=101 * 2**30),
        "nvmlDeviceGetTemperature": lambda h, sensor: 64,
        "nvmlDeviceGetPowerUsage": lambda h: 412_000,          # mW
        "nvmlDeviceGetEnforcedPowerLimit": lambda h: 700_000,  # mW
        "nvmlDeviceGetClockInfo": lambda h, clk: 1980,
        "nvmlDeviceGetCurrentClocksEventReasons": lambda h: 0x4 | 0x20,
    }
    for name, fn in fake.items():
        monkeypatch.setattr(pynvml, name, fn, raising=False)
    return calls


def test_fake_nvml_numbers(win, qtbot, monkeypatch):
    calls = fake_nvml(monkeypatch)
    s = monitor.sample_system()
    assert [g.name for g in s.gpus] == ["NVIDIA H200", "NVIDIA L4"]
    g = s.gpus[0]
    assert (g.util_pct, g.temp_c, g.power_w, g.power_limit_w, g.sm_clock_mhz) == (87, 64, 412, 700, 1980)
    assert g.mem_used_mib == 40 * 1024 and g.mem_total_mib == 141 * 1024
    assert g.throttle == "power cap, SW thermal"

    for _ in range(3):  # through the real sampling thread, three samples for the sparklines
        with qtbot.waitSignal(win.monitor.sampled, timeout=10000):
            win.monitor.interval_s = 0.05
            win.monitor.start()
    win.monitor.stop()
    assert calls["init"] == 1  # NVML initialised once, not per sample
    panel = win.gpu
    assert panel.headline.text() == "2 NVIDIA GPUs, driver 555.42"
    box = panel.gpu_boxes[0]
    assert box.title() == "GPU 0: NVIDIA H200"
    assert box.util.text() == "87 %"
    assert box.mem.text() == "40.0 / 141.0 GiB (28%)"
    assert box.temp.text() == "64 °C"
    assert box.power.text() == "412 W / 700 W"
    assert box.clock.text() == "1980 MHz"
    assert box.throttle.text() == "power cap, SW thermal"
    assert len(box.util_spark.values) >= 2
    assert panel.gpu_boxes[1].title() == "GPU 1: NVIDIA L4"
    # two GPUs and the computer's rows in a short dock: it scrolls up and down, no row is cut sideways
    assert panel.verticalScrollBar().maximum() > 0
    assert panel.widget().width() >= panel.widget().minimumSizeHint().width()


def test_a_sparkline_held_at_its_top_reads_as_full(qtbot):
    from PySide6.QtGui import QColor

    from speechstudio.gui.common import Sparkline

    s = Sparkline(color="#f97316")
    qtbot.addWidget(s)
    s.resize(120, 24)
    for _ in range(60):  # a CPU at 100 % for a minute
        s.add(100.0)
    img = s.grab().toImage()
    base = s.palette().base().color().rgb()
    inside = [QColor(img.pixel(x, y)) for x in range(4, 116) for y in range(4, 20)]
    coloured = sum(c.rgb() != base and c.red() > c.blue() for c in inside)
    assert coloured / len(inside) > 0.9  # filled under the line (a bare line at the frame looked empty)


def test_process_vram_only_if_torch_already_imported(monkeypatch):
    fake_nvml(monkeypatch)
    import sys

    monkeypatch.delitem(sys.modules, "torch", raising=False)
    s = monitor.sample_system()
    assert s.gpus[0].process_vram_mib is None
    assert "torch" not in sys.modules  # the monitor never imports torch
    fake_torch = SimpleNamespace(cuda=SimpleNamespace(is_initialized=lambda: True,
                                                      memory_reserved=lambda i: 512 * 2**20))
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    assert monitor.sample_system().gpus[0].process_vram_mib == 512
