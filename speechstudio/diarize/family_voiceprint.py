"""The offline diarizer (registry name ``voiceprint``): local speakers and their CAM++ voice prints
in 10 s chunks while the audio streams (:mod:`.track`, :mod:`.segmentation`), clustered across the
recording with a per-recording count and turned into the speaker timeline (:mod:`.cluster`), known
voices named from the speaker library (:mod:`.library`), words labelled from the timeline (:mod:`.assign`)."""
from __future__ import annotations

import numpy as np

from speechstudio.diarize import embedding, segmentation
from speechstudio.diarize.assign import Turn, talk_time
from speechstudio.diarize.cluster import cluster_chunks, timeline
from speechstudio.diarize.family import NO_SPEECH_NOTE, Diarization, DiarizerFamily, speaker_infos
from speechstudio.diarize.library import name_clusters
from speechstudio.diarize.track import SpeakerTrack

#: Speech (s) under which voices are not told apart (two voices of 2 s each)
TOO_LITTLE_S = 4.0
#: Talk (s) under which a found voice is no speaker of its own unless the asked count needs it (under a short word)
MIN_TALK_S = 0.2


class VoiceprintSession:
    def __init__(self, count, library=None) -> None:
        self.count, self.library = count, library
        self.track = SpeakerTrack()

    def push(self, block: np.ndarray) -> None:
        self.track.push(block)

    def finish(self) -> Diarization:
        ch = self.track.finish()
        found = cluster_chunks(ch.embeddings, ch.solo_s, self.count, ch.activity, ch.starts)
        k = found.count
        names, known = name_clusters(found.centroids, self.library)
        turns = timeline(ch.activity, ch.starts, ch.duration_s, found, [str(i) for i in range(k)])
        talk = talk_time(turns)
        # a voice heard for under MIN_TALK_S in all is no speaker of its own where the count allows fewer:
        # its words go to the nearest turn (the count then says it could be one more)
        brief = sorted((s for s in talk if talk[s] < MIN_TALK_S), key=talk.get)
        brief = brief[:max(0, len(talk) - self.count.min_speakers)]
        turns = [t for t in turns if t.speaker not in brief]
        heard = [t.speaker for t in turns if t.end_s - t.start_s >= 0.25] + [t.speaker for t in turns]
        unknown = 0       # unknown voices are numbered in the order they first speak (a turn of 0.25 s or more)
        for i in [int(s) for s in heard] + list(range(k)):
            if names[i] is None:
                unknown += 1
                names[i] = f"Speaker {unknown}"
        turns = [Turn(t.start_s, t.end_s, names[int(t.speaker)]) for t in turns]
        uniq = list(dict.fromkeys(names[int(s)] for s in heard))      # clusters named alike are one person
        notes = []
        if found.heard is not None:
            voices = "one voice" if found.heard == 1 else f"{found.heard} voices"
            notes.append(f"asked for {self.count.describe()}; they sound like {voices}: check the labels "
                         "(merge speakers in the transcript editor)")
        speech_s = sum(t for s, t in talk.items() if s not in brief)     # the speakers' talk times: what the summary says
        if not turns:
            notes.append(NO_SPEECH_NOTE)
        elif len(uniq) <= 1 < self.count.max_speakers and speech_s < TOO_LITTLE_S:
            notes.append(f"only {speech_s:.1f} s of speech: too little to tell voices apart, one label")
        elif len(uniq) < self.count.min_speakers and found.heard is None:     # fewer voice prints than asked-for voices
            labels = "one label" if len(uniq) == 1 else f"{len(uniq)} labels"
            notes.append(f"asked for {self.count.describe()}; {speech_s:.1f} s of speech is too little to tell "
                         f"that many voices apart: {labels}")
        sums = {n: sum(c for c, m in zip(found.centroids, names) if m == n)       # clusters named alike: one print
                for n in dict.fromkeys(names) if n in uniq}
        embeddings = {n: e / np.linalg.norm(e) for n, e in sums.items()}
        could_be = (found.other_count if found.heard is None else found.heard) if len(uniq) == k else None
        if brief:
            could_be = len(uniq) + len(brief)
        if turns and len(uniq) < self.count.min_speakers:
            could_be = self.count.min_speakers
        return Diarization(turns, speaker_infos(turns, uniq, known), notes, embeddings, could_be)


class VoiceprintFamily(DiarizerFamily):
    def unavailable(self) -> str | None:
        missing = [p for p in (segmentation.WEIGHTS, embedding.WEIGHTS) if not p.is_file()]
        return f"{missing[0]} is missing: reinstall SpeechStudio" if missing else None

    def start(self, count, *, library=None, path=None):
        return VoiceprintSession(count, library)


FAMILY = VoiceprintFamily("voiceprint", "Voice prints (offline: pyannote segmentation, CAM++ voice prints, agglomerative clustering)")
