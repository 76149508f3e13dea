"""Multi-channel audio to one stream: with a front centre, the centre (quiet centre: ITU-R BS.775-3
downmix, LFE out); mono / stereo: the mean; other layouts: the mean raised to the loudest channel's level
(at most x n), an unnamed layout warned about. Six or eight unnamed channels (a plain PCM WAV has no channel
mask) are read in FFmpeg's default order for the count (WAVEFORMATEXTENSIBLE's, SMPTE's): 5.1 and 7.1, unless
the 4th channel, a film's LFE, carries full-band sound: then they are a multitrack recorder's (one microphone
each), and mixed."""
from __future__ import annotations

import numpy as np

from speechstudio.audio.diagnose import QUIET_RMS

CENTRE_QUIET_DB = 30.0
#: RMS frequency (Hz) above which a sounding 4th channel is no LFE: an LFE is band-limited to 120 Hz (ATSC A/52
#: section 5.4.3, Dolby Digital), speech sits at 1000-1600 Hz (the realspeech recordings), a 50 Hz hum at 50
LFE_MAX_HZ = 200.0
_LFE = 3                #: the LFE's place in FFmpeg's default 5.1 and 7.1 orders
_BS775 = {"FC": 1.0, "FL": 0.7071, "FR": 0.7071, "FLC": 0.7071, "FRC": 0.7071, "LFE": 0.0, "LFE2": 0.0}
_SURROUND = 0.5
#: counts of unnamed channels read as FFmpeg's default layout for the count (5.1, 7.1: the film layouts)
DEFAULT_ORDER_COUNTS = (6, 8)


class Downmix:
    """How to mix: ``channel`` (one channel, 0-based) or ``weights`` (float32 (channels,)), or neither
    (the plain mean); ``note``: one line for the user, or None."""

    def __init__(self, channel: int | None = None, weights: np.ndarray | None = None, note: str | None = None):
        self.channel, self.weights, self.note = channel, weights, note

    def mono(self, planes: np.ndarray) -> np.ndarray:
        """float32 (n,) from float32 (channels, n)."""
        if self.channel is not None:
            return np.ascontiguousarray(planes[min(self.channel, planes.shape[0] - 1)])
        if self.weights is not None and self.weights.shape[0] == planes.shape[0]:
            return (self.weights @ planes).astype(np.float32)
        return planes.mean(axis=0, dtype=np.float32)


def choose(names: list[str], layout: str, energy: np.ndarray | None = None, mixed: float | None = None,
           rms_hz: np.ndarray | None = None) -> Downmix:
    """The :class:`Downmix` for channel ``names`` (FFmpeg's; "NONE" unnamed) of ``layout`` given their mean
    squares ``energy``, that of their mean ``mixed`` and their RMS frequencies ``rms_hz`` (Hz; None: not measured;
    ``diagnose.channel_energy``)."""
    n = len(names)
    if n <= 2:
        return Downmix()
    named = all(c and c != "NONE" for c in names)
    read_as = ""
    full_band_lfe = (n in DEFAULT_ORDER_COUNTS and rms_hz is not None and energy is not None
                     and energy[_LFE] >= QUIET_RMS ** 2 and rms_hz[_LFE] > LFE_MAX_HZ)
    if not named and n in DEFAULT_ORDER_COUNTS and not full_band_lfe:
        import av       # FFmpeg's default layout for n channels (av_channel_layout_default: PyAV's "<n>c")

        default = av.AudioLayout(f"{n}c")
        layout, names = str(default.name), [str(c.name) for c in default.channels]
        named, read_as = True, f"{n} channels without names: read as {layout} ({' '.join(names)}); "
    if named and "FC" in names:
        c = names.index("FC")
        if energy is None or energy[c] >= float(energy.max()) * 10 ** (-CENTRE_QUIET_DB / 10):
            return Downmix(channel=c, note=f"{read_as}{layout} audio: transcribed the centre channel, where films carry "
                                           "the dialogue (--channels split for every channel)")
        w = np.array([_BS775.get(x, _SURROUND) for x in names], np.float32)
        return Downmix(weights=w, note=f"{read_as}{layout} audio with a silent centre channel: transcribed an ITU-R "
                                       "BS.775 downmix of the others")
    gain = 1.0
    if energy is not None and mixed:
        gain = float(np.clip(np.sqrt(float(energy.max()) / mixed), 1.0, n))
    note = None if named else (f"unknown channel layout '{layout}' ({n} channels without names): transcribed as "
                               "one mono mix (--channels split for each channel)")
    if full_band_lfe:
        note = (f"{n} channels without names, the 4th with full-band sound (a film's 4th is its LFE, bass only): "
                "a recording of several microphones, transcribed as one mono mix (--channels split for each channel)")
    return Downmix(weights=np.full(n, gain / n, np.float32), note=note)
