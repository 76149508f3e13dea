"""The offline diarizer (registry name ``voiceprint``): GE2E window embeddings while the audio
streams (:mod:`.track`), agglomerative clustering with a per-recording count (:mod:`.cluster`),
known voices named from the speaker library (:mod:`.library`), words labelled from the windows
(:mod:`.assign`)."""
from __future__ import annotations

import importlib.util

import numpy as np

from speechstudio.diarize.assign import turns_from_windows
from speechstudio.diarize.cluster import MIN_TALK_S, cluster_windows, unit
from speechstudio.diarize.family import Diarization, DiarizerCapabilities, DiarizerFamily, speaker_infos
from speechstudio.diarize.library import match
from speechstudio.diarize.track import HOP_S, SpeakerTrack



class VoiceprintSession:
    def __init__(self, count, library=None) -> None:
        self.count, self.library = count, library
        self.track = SpeakerTrack()

    def push(self, block: np.ndarray) -> None:
        self.track.push(block)

    def finish(self) -> Diarization:
        w = self.track.finish()
        found = cluster_windows(w.embeddings, w.times, self.count, HOP_S)
        labels, k = found.labels, found.count
        cents = [unit(w.embeddings[labels == i].mean(axis=0)) for i in range(k)]
        # known voices: a cluster takes the name of the saved voice it matches; two clusters that
        # match one voice are one person
        names, known = [None] * k, {}
        if self.library is not None and self.library.voices:
            best: dict[str, tuple[float, int]] = {}
            for i, c in enumerate(cents):
                hit = match(c, self.library)
                if hit is not None and (hit[0] not in best or hit[1] > best[hit[0]][0]):
                    best[hit[0]] = (hit[1], i)
                if hit is not None:
                    names[i] = hit[0]
            known = {n: round(s, 3) for n, (s, _) in best.items()}
        unknown = 0
        for i in range(k):
            if names[i] is None:
                unknown += 1
                names[i] = f"Speaker {unknown}"
        uniq = list(dict.fromkeys(names))        # clusters folded onto the same known voice share it
        labels = np.asarray([uniq.index(names[i]) for i in labels], int) if labels.size else labels
        turns = turns_from_windows(w.times, labels, uniq, w.speech)
        notes = []
        if found.one_voice:
            notes.append(f"asked for {self.count.describe()}; they sound like one voice: check the labels "
                         "(merge speakers in the transcript editor)")
        speech_s = float((w.speech[:, 1] - w.speech[:, 0]).sum()) if len(w.speech) else 0.0
        if len(w.speech) and k <= 1 < self.count.max_speakers and len(w) * HOP_S < 2 * MIN_TALK_S:
            notes.append(f"only {speech_s:.1f} s of speech: too little to tell voices apart, one label")
        elif not len(w.speech):
            notes.append("no speech found: no speaker labels")
        embeddings = {n: unit(w.embeddings[labels == i].mean(axis=0))
                      for i, n in enumerate(uniq) if (labels == i).any()}
        could_be = found.other_count if len(uniq) == k else None
        return Diarization(turns, speaker_infos(turns, uniq, known), w.times, labels, uniq, notes, embeddings, could_be)


class VoiceprintFamily(DiarizerFamily):
    def unavailable(self) -> str | None:
        for module, pip in (("resemblyzer", "resemblyzer"), ("sklearn", "scikit-learn")):
            if importlib.util.find_spec(module) is None:
                return f"needs {pip} (pip install 'speechstudio[speakers]')"
        return None

    def start(self, count, *, library=None, path=None):
        return VoiceprintSession(count, library)


FAMILY = VoiceprintFamily("voiceprint", "Voice prints (offline: GE2E embeddings + agglomerative clustering)",
                          DiarizerCapabilities(offline=True, overlap=False, known_voices=True, streaming=True))
