"""Split one speaker of a transcript in two by voice: the one action a reader takes when the
diarizer heard two people as one (the transcript editor's *Split speaker*; merging is *Rename
speaker…* to the other's name).

The speaker's segments are read again from the recording: 1 s windows of speech every 0.25 s
(:mod:`.track`, the same windows as the diarizer), clustered into exactly two voices
(:func:`.cluster.cluster_windows` with the count asked, so the user's "two" is law); each segment
takes the voice most of its windows belong to.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from speechstudio.audio import speaker_encoder as vp
from speechstudio.audio.decode import load_audio
from speechstudio.audio.vad import SileroVad
from speechstudio.diarize.cluster import cluster_windows
from speechstudio.diarize.speakers import SpeakerCount
from speechstudio.diarize.track import HOP_S, SpeakerTrack
from speechstudio.errors import UsageError


MIN_SPEECH_S = 4.0   #: speech (s) in the speaker's segments below which two voices are not told apart


def split_by_voice(path: Path, spans: list[tuple[float, float]]) -> list[int]:
    """Voice 0 or 1 for each of ``spans`` (``(start_s, end_s)`` seconds of the recording ``path``,
    one per segment of the speaker). Voice 0 is the one that speaks first. A span without a window
    of speech takes the voice of the nearest span that has one.

    Raises ``UsageError`` naming the file when the spans hold under ``MIN_SPEECH_S`` seconds of
    speech or every span lands with one voice; the decoder's errors for an unreadable file."""
    if len(spans) < 2:
        raise UsageError(f"{path}: this speaker has one segment: select the words to give to another speaker instead")
    audio = load_audio(path, vp.RATE)
    vad = SileroVad(threads=1)
    times, embs, owner = [], [], []
    for k, (a, b) in enumerate(spans):
        piece = audio[int(max(0.0, a) * vp.RATE): int(b * vp.RATE)]
        if piece.size < vp.RATE // 2:
            continue
        track = SpeakerTrack(vad=vad)
        track.push(piece)
        w = track.finish()
        times.append(w.times + a)
        embs.append(w.embeddings)
        owner += [k] * len(w)
    n = len(owner)
    if n * HOP_S < MIN_SPEECH_S:
        raise UsageError(f"{path}: only {n * HOP_S:.1f} s of speech in this speaker's segments: too little to "
                         "tell two voices apart")
    labels = cluster_windows(np.concatenate(embs), np.concatenate(times), SpeakerCount(2, 2), HOP_S).labels
    owner_arr = np.asarray(owner)
    voice: list[int | None] = []
    for k in range(len(spans)):
        mine = labels[owner_arr == k]
        voice.append(None if not mine.size else int(np.bincount(mine, minlength=2).argmax()))
    heard = [k for k, v in enumerate(voice) if v is not None]
    mids = np.asarray([(a + b) / 2 for a, b in spans])
    out = [v if v is not None else voice[heard[int(np.argmin(np.abs(mids[heard] - mids[k])))]]
           for k, v in enumerate(voice)]
    if len(set(out)) < 2:
        raise UsageError(f"{path}: this speaker's segments all sound like one voice: nothing to split")
    return [int(v != out[0]) for v in out]
