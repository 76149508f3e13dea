"""Who spoke when: offline speaker diarization behind one interface (Qt-free).

* :mod:`.family`: the registry of diarizer families (``voiceprint``, the offline default; ``pyannote``
  where the user has its pipeline), the same shape as the recogniser registry.
* :mod:`.voiceprint`: GE2E speaker embeddings (Resemblyzer, weights in its wheel).
* :mod:`.track`: embeds 1.6 s windows of speech while the audio streams past the recogniser.
* :mod:`.cluster`: agglomerative clustering of the windows, the speaker count.
* :mod:`.assign`: labels each word and segment, splits segments at speaker changes.
* :mod:`.library`: known voices, saved by name, recognised in later files.
* :mod:`.speakers`: ``--speakers auto|N|MIN-MAX``.
"""
