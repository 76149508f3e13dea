"""Sound: the PortAudio library ``sounddevice`` loads (Debian ``libportaudio2``; missing: the app starts
without recording) and the devices it sees."""
from __future__ import annotations

import sys

from speechstudio.doctor.report import FAIL, OK, WARN, Check

NAME = "Sound (PortAudio)"
PORTAUDIO_FIX = {"linux": "sudo apt install libportaudio2", "darwin": "brew install portaudio"}


def _import_sounddevice():
    import sounddevice

    return sounddevice


def check_audio() -> Check:
    """PortAudio loads, and how many input/output devices it lists (with the defaults' names)."""
    try:
        sd = _import_sounddevice()
    except ImportError as e:
        return Check(NAME, FAIL, f"the sounddevice package is missing ({e}): no recording or playback",
                     "pip install sounddevice", {"error": str(e)})
    except OSError as e:
        return Check(NAME, FAIL, f"PortAudio is not installed ({e}): no recording, dictation or playback",
                     PORTAUDIO_FIX.get(sys.platform, "pip install --force-reinstall sounddevice"),
                     {"error": str(e)})
    try:
        devices = list(sd.query_devices())
        default_in, default_out = sd.default.device
    except Exception as e:
        return Check(NAME, WARN, f"PortAudio {sd.get_portaudio_version()[1]} cannot list devices ({e})",
                     "check that your user can use the sound card: sudo usermod -aG audio $USER, then log in again",
                     {"error": str(e)})
    inputs = [d["name"] for d in devices if d.get("max_input_channels", 0) > 0]
    outputs = [d["name"] for d in devices if d.get("max_output_channels", 0) > 0]
    details = {"portaudio": sd.get_portaudio_version()[1], "inputs": inputs, "outputs": outputs}

    def name(index):
        return devices[index]["name"] if isinstance(index, int) and 0 <= index < len(devices) else "none"

    summary = (f"{details['portaudio']}; {len(inputs)} input(s) (default: {name(default_in)}), "
               f"{len(outputs)} output(s) (default: {name(default_out)})")
    if not inputs or not outputs:
        lack = " and ".join(w for w, found in (("microphone", inputs), ("speaker", outputs)) if not found)
        return Check(NAME, WARN, f"{summary}: no {lack} found",
                     "plug in or enable the device (pavucontrol / system sound settings)", details)
    return Check(NAME, OK, summary, "", details)
