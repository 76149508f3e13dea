"""One no-sound-device policy for every Record and Play button: :func:`allow` enables a button only
when its device is there, else disables it with a plain tooltip."""
from __future__ import annotations

import time

from PySide6.QtCore import Qt

NO_MIC = "No microphone found"
NO_SPEAKER = "No speaker found"
TTL_S = 2.0  # how long an answer is reused (device lists change only on plug / unplug)


def fill_microphones(box, hub, off_text: str) -> list:
    """List ``hub``'s input devices in the combo box ``box`` (``"NAME  [default]"``, data: the device
    index, tooltip: its rate); without any it shows ``off_text`` (audio off) or "no microphone found"
    and is disabled. Returns the devices."""
    box.clear()
    devs = hub.backend.input_devices() if hub.available else []
    for d in devs:
        box.addItem(d.name + ("  [default]" if d.is_default else ""), d.index)
        box.setItemData(box.count() - 1, f"{d.default_samplerate / 1000:g} kHz", Qt.ItemDataRole.ToolTipRole)
    if not devs:
        box.addItem(off_text if not hub.available else "no microphone found")
    box.setEnabled(bool(devs))
    return devs


def has_device(hub, kind: str) -> bool:
    """True when ``hub`` (an AudioHub) can record (``kind="mic"``) or play (``"speaker"``): audio on, device listed."""
    if hub is None or not getattr(hub, "available", False):
        return False
    cache = hub.__dict__.setdefault("_device_answers", {})  # kept on the hub: a new sound card, new answers
    key, now = (id(hub.backend), kind), time.monotonic()
    hit = cache.get(key)
    if hit is not None and now - hit[0] < TTL_S:
        return hit[1]
    try:
        devs = hub.backend.input_devices() if kind == "mic" else hub.backend.output_devices()
        found = bool(devs)
    except Exception:  # noqa: BLE001 - a broken driver is "no device", not a crash
        found = False
    cache[key] = (now, found)
    return found


def why_not(hub, kind: str) -> str:
    """The plain sentence for a missing ``kind`` (``"mic"`` / ``"speaker"``) device."""
    what = NO_MIC if kind == "mic" else NO_SPEAKER
    if hub is not None and not getattr(hub, "available", False):
        return f"{what}: sound is off on this computer (no audio system found)."
    return f"{what}: connect one and restart the app." if kind == "speaker" else \
        f"{what}: plug one in and restart the app, or import recordings instead."


def allow(button, hub, kind: str, tip: str = "") -> bool:
    """Whether ``button`` may be enabled as far as the ``kind`` device goes; when not, it is
    disabled with :func:`why_not` as its tooltip, else its tooltip is ``tip`` (when given). The
    caller combines the answer with its own conditions: ``b.setEnabled(ready and allow(b, hub, "mic"))``."""
    ok = has_device(hub, kind)
    if not ok:
        button.setEnabled(False)
        button.setToolTip(why_not(hub, kind))
    elif tip:
        button.setToolTip(tip)
    elif button.toolTip().startswith((NO_MIC, NO_SPEAKER)):
        button.setToolTip("")
    return ok

