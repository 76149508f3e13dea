"""System audio as an input (issue 16, live captions of a meeting or video): PulseAudio/PipeWire
monitor sources listed through ``pactl`` and recorded through ``parec``. The sound server is faked
at its command-line boundary: ``pactl`` and ``parec`` scripts on PATH answer as the real tools do
(the listing below is real ``pactl list sources`` output, trimmed; ``parec`` writes a known signal
as raw float32 and then waits like a live source). Checked for real with pulseaudio + a null sink:
``paplay`` into it while ``speechstudio dictate --input-device system:speakers.monitor`` printed
the speech.
"""
from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from speechstudio.audio.backends import (AudioUnavailableError, DeviceInfo, MonitorStream, SoundDeviceBackend,
                                         is_system_device, monitor_sources)

LISTING = """\
Source #0
\tState: SUSPENDED
\tName: alsa_output.pci-0000_00_1f.3.analog-stereo.monitor
\tDescription: Monitor of Built-in Audio Analog Stereo
\tDriver: module-alsa-card.c
\tSample Specification: s16le 2ch 44100Hz
\tChannel Map: front-left,front-right
\tProperties:
\t\tdevice.description = "Monitor of Built-in Audio Analog Stereo"
Source #1
\tState: RUNNING
\tName: alsa_input.pci-0000_00_1f.3.analog-stereo
\tDescription: Built-in Audio Analog Stereo
\tSample Specification: s16le 2ch 48000Hz
Source #2
\tState: IDLE
\tName: bluez_output.AA_BB.1.monitor
\tDescription: Monitor of WH-1000XM4
\tSample Specification: float32le 2ch 48000Hz
"""

PACTL = f"""#!{sys.executable}
import sys
if sys.argv[1:] == ["list", "sources"]:
    sys.stdout.write({LISTING!r})
elif sys.argv[1:] == ["get-default-sink"]:
    print("bluez_output.AA_BB.1")
else:
    sys.exit("unexpected " + " ".join(sys.argv[1:]))
"""

PAREC = f"""#!{sys.executable}
import os, sys, time
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if "=" in a)
if args.get("device") not in ("bluez_output.AA_BB.1.monitor", "alsa_output.pci-0000_00_1f.3.analog-stereo.monitor"):
    sys.stderr.write("Stream error: No such entity\\n")
    sys.exit(1)
assert args["format"] == "float32le" and args["channels"] == "1", args
open(os.environ["FAKE_PAREC_ARGS"], "w").write(" ".join(sys.argv[1:]))
sys.stdout.buffer.write(open(os.environ["FAKE_PAREC_PCM"], "rb").read())
sys.stdout.flush()
time.sleep(60)
"""


@pytest.fixture
def sound_server(tmp_path, monkeypatch):
    """Fake ``pactl``/``parec`` first on PATH; ``parec`` plays a 1 s 440 Hz tone at 16 kHz."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("pactl", PACTL), ("parec", PAREC)):
        p = bin_dir / name
        p.write_text(text)
        p.chmod(p.stat().st_mode | stat.S_IXUSR)
    tone = (0.5 * np.sin(2 * np.pi * 440 * np.arange(16000) / 16000)).astype("<f4")
    (tmp_path / "tone.f32").write_bytes(tone.tobytes())
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_PAREC_PCM", str(tmp_path / "tone.f32"))
    monkeypatch.setenv("FAKE_PAREC_ARGS", str(tmp_path / "args.txt"))
    monkeypatch.setattr(sys, "platform", "linux")
    return tone, tmp_path / "args.txt"


def _record(stream_device: str, seconds_of_audio: float, rate=16000, block=320) -> np.ndarray:
    got: list[np.ndarray] = []
    s = MonitorStream(stream_device, rate, block, got.append)
    s.start()
    deadline = time.monotonic() + 10
    while sum(map(len, got)) < seconds_of_audio * rate and time.monotonic() < deadline:
        time.sleep(0.02)
    assert s.active
    s.stop()
    assert not s.active
    assert {len(b) for b in got} == {block}
    return np.concatenate(got)


def test_monitor_sources_lists_only_monitors_default_sink_first(sound_server):
    devs = monitor_sources()
    assert [(d.index, d.name, d.max_input_channels, d.default_samplerate) for d in devs] == [
        ("system:bluez_output.AA_BB.1.monitor", "System audio: WH-1000XM4", 2, 48000.0),
        ("system:alsa_output.pci-0000_00_1f.3.analog-stereo.monitor", "System audio: Built-in Audio Analog Stereo",
         2, 44100.0),
    ]
    assert not any(d.is_default for d in devs)  # the microphone stays the default input
    assert is_system_device(devs[0].index) and not is_system_device(3) and not is_system_device("pulse")


def test_monitor_stream_delivers_the_played_samples_in_blocks(sound_server):
    tone, args_file = sound_server
    audio = _record("system:bluez_output.AA_BB.1.monitor", 1.0)
    np.testing.assert_array_equal(audio[: len(tone)], tone)
    assert "--device=bluez_output.AA_BB.1.monitor" in args_file.read_text()
    assert "--rate=16000" in args_file.read_text()


def test_a_source_that_is_gone_is_a_clear_error(sound_server):
    s = MonitorStream("system:alsa_output.unplugged.monitor", 16000, 320, lambda b: None)
    with pytest.raises(AudioUnavailableError, match=r"cannot record system audio from "
                                                    r"'alsa_output.unplugged.monitor': Stream error: No such entity"):
        s.start()
    assert not s.active


def test_without_the_sound_server_tools_nothing_is_listed_and_recording_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no pactl, no parec
    monkeypatch.setattr(sys, "platform", "linux")
    assert monitor_sources() == []
    with pytest.raises(AudioUnavailableError, match=r"needs 'parec' .*apt install pulseaudio-utils"):
        MonitorStream("system:x.monitor", 16000, 320, lambda b: None).start()


def test_not_listed_on_windows_or_macos(sound_server, monkeypatch):
    for platform in ("win32", "darwin"):
        monkeypatch.setattr(sys, "platform", platform)
        assert monitor_sources() == []


class _StubSoundDevice:
    """``sounddevice`` with one microphone (no PortAudio needed)."""

    class default:
        device = (0, 1)

    @staticmethod
    def query_devices():
        return [{"name": "USB mic", "max_input_channels": 1, "max_output_channels": 0, "default_samplerate": 48000.0},
                {"name": "Speakers", "max_input_channels": 0, "max_output_channels": 2, "default_samplerate": 48000.0}]


def test_backend_lists_system_audio_after_the_microphones_and_dictation_reads_it(sound_server):
    """The path Dictate and the captions window use: backend devices → MicSource → blocks."""
    from speechstudio.asr.sources import MicSource

    backend = SoundDeviceBackend.__new__(SoundDeviceBackend)
    backend.sd = _StubSoundDevice()
    devs = backend.input_devices()
    assert [d.name for d in devs] == ["USB mic", "System audio: WH-1000XM4", "System audio: Built-in Audio Analog Stereo"]
    assert devs[0] == DeviceInfo(0, "USB mic", 1, 0, 48000.0, True)
    source = MicSource("system:bluez_output.AA_BB.1.monitor", block_ms=20.0, backend=backend)
    assert (source.name, source.sample_rate, source.block) == ("System audio: WH-1000XM4", 48000, 960)
    got = []
    for block in source.blocks():
        got.append(block)
        if sum(map(len, got)) >= 15000:  # 16 whole blocks of 960 = 15360 samples of the 16000
            source.stop()
    tone, args_file = sound_server
    assert "--rate=48000" in args_file.read_text()
    np.testing.assert_array_equal(np.concatenate(got)[:15000], tone[:15000])  # fake parec ignores the rate


def test_cli_lists_and_refuses_an_unknown_system_source(sound_server):
    from speechstudio.asr import sources
    from speechstudio.audio.backends import UnavailableBackend

    backend = SoundDeviceBackend.__new__(SoundDeviceBackend)
    backend.sd = _StubSoundDevice()
    assert sources.list_input_devices(backend) == [
        (0, "USB mic", 48000),
        ("system:bluez_output.AA_BB.1.monitor", "System audio: WH-1000XM4", 48000),
        ("system:alsa_output.pci-0000_00_1f.3.analog-stereo.monitor", "System audio: Built-in Audio Analog Stereo",
         44100),
    ]
    with pytest.raises(AudioUnavailableError, match=r"microphone 'system:nope.monitor' is not connected; "
                                                    r"available: 0, system:bluez_output"):
        sources.MicSource("system:nope.monitor", backend=backend)
    src = sources.MicSource("system:bluez_output.AA_BB.1.monitor", backend=UnavailableBackend("no PortAudio"))
    got = []
    for block in src.blocks():   # blocks of 20 ms at the monitor's 48 kHz: the tone's last 640 samples would
        got.append(block)        # only come when the fake parec exits, 60 s later
        if sum(map(len, got)) >= 8000:
            src.stop()
    np.testing.assert_array_equal(np.concatenate(got)[:8000], sound_server[0][:8000])


def test_without_portaudio_or_a_sound_server_the_listing_and_a_system_source_say_why(tmp_path, monkeypatch):
    """No PortAudio and no pactl: `dictate --list-devices` fails with the backend's reason (not an
    empty listing and exit 0), and a system:NAME source names the sound server it needs."""
    from speechstudio.asr import sources
    from speechstudio.audio.backends import UnavailableBackend

    monkeypatch.setenv("PATH", str(tmp_path))  # no pactl
    backend = UnavailableBackend("PortAudio library not found")
    with pytest.raises(AudioUnavailableError, match=r"^PortAudio library not found$"):
        sources.list_input_devices(backend)
    with pytest.raises(AudioUnavailableError, match=r"system audio source 'system:foo' not found; available: none "
                                                    r"\(needs PulseAudio or PipeWire and pactl\)"):
        sources.MicSource("system:foo", backend=backend)
    with pytest.raises(AudioUnavailableError, match=r"^PortAudio library not found$"):
        sources.MicSource(None, backend=backend)
