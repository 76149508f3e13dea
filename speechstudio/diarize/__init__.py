"""Who spoke when: offline speaker diarization behind one interface (Qt-free).

* :mod:`.family`: the registry of diarizer families (``voiceprint``, the offline default; ``pyannote``
  where the user has its pipeline), the same shape as the recogniser registry.
* :mod:`speechstudio.audio.speaker_encoder`: GE2E speaker embeddings (Resemblyzer, weights in its wheel), shared with voice cloning.
* :mod:`.track`: embeds 1 s windows of speech while the audio streams past the recogniser.
* :mod:`.cluster`: agglomerative clustering of the windows, the speaker count measured per recording.
* :mod:`.assign`: labels each word and segment, splits segments at speaker changes.
* :mod:`.library`: known voices, saved by name, recognised in later files.
* :mod:`.speakers`: ``--speakers auto|N|MIN-MAX``.
"""
