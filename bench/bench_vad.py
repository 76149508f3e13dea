"""Voice activity: the app's Silero VAD (``audio.vad``, the silero-vad package's model, Whisper's options)
against faster-whisper's own ``vad_filter`` (its bundled model, ``VadOptions()``), on the real shared-channel
conversations of ``bench/diarization_data`` (the RTTM's speech as the reference): the share of speech missed
(words Whisper never sees) and of non-speech kept (decoded for nothing), and CPU seconds per 5 minutes of
audio. Figures: docs/transcribe.md, "Voice activity".

Usage: ``python bench/bench_vad.py``
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import long_audio  # noqa: E402

DATA = Path(__file__).resolve().parent / "diarization_data"


def _mask(spans, n: int) -> np.ndarray:
    m = np.zeros(n, bool)
    for a, b in spans:
        m[a:b] = True
    return m


def main() -> None:
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    from speechstudio.audio.decode import load_audio
    from speechstudio.audio.vad import WHISPER_SPANS, default_spans

    peers = {"faster-whisper": lambda a: [(c["start"], c["end"]) for c in get_speech_timestamps(a, VadOptions())],
             "ours": lambda a: default_spans(a, **WHISPER_SPANS)}
    totals = {k: np.zeros(4) for k in peers}
    print("| recording | faster-whisper missed / kept | ours missed / kept |\n|---|---|---|")
    for path in sorted(DATA.glob("*.flac")):
        audio = load_audio(path, 16000)
        ref = np.zeros(audio.size, bool)
        for line in path.with_suffix(".rttm").read_text().splitlines():
            f = line.split()
            ref[int(float(f[3]) * 16000):int((float(f[3]) + float(f[4])) * 16000)] = True
        cells = []
        for name, vad in peers.items():
            hyp = _mask(vad(audio), audio.size)
            t = np.array([(ref & ~hyp).sum(), ref.sum(), (~ref & hyp).sum(), (~ref).sum()], float)
            totals[name] += t
            cells.append(f"{t[0] / t[1]:.3f} / {t[2] / max(t[3], 1):.3f}")
        print(f"| {path.stem} | " + " | ".join(cells) + " |")
    print("| **all** | " + " | ".join(f"**{v[0] / v[1]:.3f} / {v[2] / v[3]:.3f}**" for v in totals.values()) + " |")
    audio = long_audio(300)
    cpu = {}
    for name, vad in peers.items():
        vad(audio[:16000])
        start = time.process_time()
        vad(audio)
        cpu[name] = time.process_time() - start
    print(f"CPU s per 5 min: faster-whisper {cpu['faster-whisper']:.2f}, ours {cpu['ours']:.2f} "
          f"({cpu['ours'] / cpu['faster-whisper']:.2f}x)")


if __name__ == "__main__":
    main()
