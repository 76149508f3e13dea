"""Build video files with several audio tracks, dispositions, languages and start offsets (PyAV),
as users' screen recordings and films have them, for the decoding tests."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np


def make_video(path: Path, tracks: list[dict], video_s: float = 8.0) -> Path:
    """Write ``path`` (``.mkv`` or ``.mp4``): a small video stream of ``video_s`` seconds from 0 s,
    then one audio track per dict: ``audio`` (float32 mono), ``rate``, ``start_s`` (when the track
    starts, after the video's start), ``language``, ``title``, ``default`` (disposition)."""
    import av

    out = av.open(str(path), "w")
    v = out.add_stream("mpeg4", rate=10)
    v.width, v.height, v.pix_fmt = 64, 48, "yuv420p"
    audio_streams = []
    for t in tracks:
        a = out.add_stream("aac", rate=t.get("rate", 16000))
        a.layout = "mono"
        if t.get("language"):
            a.metadata["language"] = t["language"]
        if t.get("title"):
            a.metadata["title"] = t["title"]
        a.disposition = av.stream.Disposition.default if t.get("default") else av.stream.Disposition(0)
        audio_streams.append(a)
    for i in range(int(video_s * 10)):
        frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), (i * 3) % 255, np.uint8), format="rgb24")
        frame.pts = i
        frame.time_base = Fraction(1, 10)
        for p in v.encode(frame):
            out.mux(p)
    for p in v.encode():
        out.mux(p)
    for a, t in zip(audio_streams, tracks):
        rate = t.get("rate", 16000)
        audio = np.asarray(t["audio"], np.float32)
        start = int(round(t.get("start_s", 0.0) * rate))
        n = 1024
        for k in range(0, len(audio), n):
            chunk = audio[k:k + n]
            if len(chunk) < n:
                chunk = np.pad(chunk, (0, n - len(chunk)))
            frame = av.AudioFrame.from_ndarray(chunk.reshape(1, -1), format="flt", layout="mono")
            frame.sample_rate = rate
            frame.pts = start + k
            frame.time_base = Fraction(1, rate)
            for p in a.encode(frame):
                out.mux(p)
        for p in a.encode():
            out.mux(p)
    out.close()
    return path
