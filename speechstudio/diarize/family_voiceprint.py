"""The offline diarizer (registry name ``voiceprint``): GE2E window embeddings while the audio
streams (:mod:`.track`), agglomerative clustering (:mod:`.cluster`), known voices named from the
speaker library (:mod:`.library`), words labelled from the windows (:mod:`.assign`)."""
from __future__ import annotations

import numpy as np

from speechstudio.diarize.family import Diarization, DiarizerCapabilities, DiarizerFamily, speaker_infos

__all__ = ["FAMILY", "VoiceprintSession"]


class VoiceprintSession:
    def __init__(self, count, library=None) -> None:
        from speechstudio.diarize.track import HOP_S, SpeakerTrack

        self.count, self.library = count, library
        self.hop_s = HOP_S
        self.track = SpeakerTrack(HOP_S)

    def push(self, block: np.ndarray) -> None:
        self.track.push(block)

    def finish(self) -> Diarization:
        from speechstudio.diarize.assign import turns_from_windows
        from speechstudio.diarize.cluster import cluster_windows
        from speechstudio.diarize.library import match

        w = self.track.finish()
        labels = cluster_windows(w.embeddings, self.count, self.hop_s)
        k = int(labels.max()) + 1 if labels.size else 0
        cents = []
        for i in range(k):
            m = w.embeddings[labels == i].mean(axis=0)
            cents.append(m / max(float(np.linalg.norm(m)), 1e-9))
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
        # one name per index (clusters folded onto the same known voice share it)
        uniq = list(dict.fromkeys(names))
        labels = np.asarray([uniq.index(names[i]) for i in labels], int) if labels.size else labels
        short = None
        if w.short_times is not None and len(w.short_times) and labels.size:
            cents = np.stack([w.embeddings[labels == i].mean(axis=0) for i in range(len(uniq))])
            cents /= np.maximum(np.linalg.norm(cents, axis=1, keepdims=True), 1e-9)
            short = (w.short_times, np.argmax(w.short_embeddings @ cents.T, axis=1))
        turns = turns_from_windows(w.times, labels, uniq, w.speech, short)
        notes = []
        found = len(uniq)
        if self.count.exact and found < self.count.min_speakers:
            notes.append(f"asked for {self.count.min_speakers} speakers; found {found} distinct voice"
                         f"{'s' if found != 1 else ''}, labelled {'them' if found != 1 else 'it'} only")
        elif found < self.count.min_speakers:
            notes.append(f"asked for at least {self.count.min_speakers} speakers; found {found}")
        if not len(w):
            notes.append("no speech long enough to tell voices apart (1.6 s windows)")
        embeddings = {}
        for i, n in enumerate(uniq):
            sel = labels == i
            if sel.any():
                m = w.embeddings[sel].mean(axis=0)
                embeddings[n] = m / max(float(np.linalg.norm(m)), 1e-9)
        return Diarization(turns, speaker_infos(turns, uniq, known), w.times, labels, uniq, notes, embeddings, short)


class VoiceprintFamily(DiarizerFamily):
    def unavailable(self) -> str | None:
        import importlib.util

        for module, pip in (("resemblyzer", "resemblyzer"), ("sklearn", "scikit-learn")):
            if importlib.util.find_spec(module) is None:
                return f"needs {pip} (pip install 'speechstudio[speakers]')"
        return None

    def start(self, count, *, library=None, path=None):
        return VoiceprintSession(count, library)


FAMILY = VoiceprintFamily("voiceprint", "Voice prints (offline: GE2E embeddings + agglomerative clustering)",
                          DiarizerCapabilities(offline=True, overlap=False, known_voices=True, streaming=True))
