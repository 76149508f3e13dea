"""Split one speaker of a transcript in two by voice (the transcript editor's *Split speaker*): the diarizer's own
steps on that speaker's segments, with exactly two voices (docs/diarization.md, Outputs)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from speechstudio.audio.decode import load_audio
from speechstudio.diarize.cluster import cluster_chunks, timeline
from speechstudio.diarize.segmentation import RATE
from speechstudio.diarize.speakers import SpeakerCount
from speechstudio.diarize.track import SpeakerTrack
from speechstudio.errors import UsageError


MIN_SPEECH_S = 4.0   #: speech (s) in the speaker's segments below which two voices are not told apart


def split_by_voice(path: Path, spans: list[tuple[float, float]]) -> list[int]:
    """Voice 0 or 1 for each of ``spans`` (``(start_s, end_s)`` seconds of the recording ``path``,
    one per segment of the speaker). Voice 0 is the one that speaks first.

    Raises ``UsageError`` naming the file when the spans hold under ``MIN_SPEECH_S`` seconds of
    speech or every span lands with one voice; the decoder's errors for an unreadable file."""
    if len(spans) < 2:
        raise UsageError(f"{path}: this speaker has one segment: select the words to give to another speaker instead")
    audio = load_audio(path, RATE)
    pieces = [audio[int(max(0.0, a) * RATE): int(max(0.0, b) * RATE)] for a, b in spans]
    total = sum(p.size for p in pieces) / RATE
    if total < MIN_SPEECH_S:
        raise UsageError(f"{path}: only {total:.1f} s of speech in this speaker's segments: too little to "
                         "tell two voices apart")
    track = SpeakerTrack()
    track.push(np.concatenate(pieces))
    chunks = track.finish()
    found = cluster_chunks(chunks.embeddings, chunks.solo_s, SpeakerCount(2, 2), chunks.activity, chunks.starts)
    turns = timeline(chunks.activity, chunks.starts, chunks.duration_s, found, ["0", "1"])
    talk = np.zeros((len(spans), 2))
    edges = np.concatenate([[0], np.cumsum([p.size for p in pieces])]) / RATE
    for t in turns:
        talk[:, int(t.speaker)] += np.clip(np.minimum(edges[1:], t.end_s) - np.maximum(edges[:-1], t.start_s), 0, None)
    heard = np.nonzero(talk.sum(axis=1) > 0)[0]
    if not heard.size:
        raise UsageError(f"{path}: no speech heard in this speaker's segments: nothing to split")
    mids = np.asarray([(a + b) / 2 for a, b in spans])
    out = [int(talk[heard[int(np.argmin(np.abs(mids[heard] - mids[k])))]].argmax()) for k in range(len(spans))]
    if len(set(out)) < 2:
        raise UsageError(f"{path}: this speaker's segments all sound like one voice: nothing to split")
    return [int(v != out[0]) for v in out]
