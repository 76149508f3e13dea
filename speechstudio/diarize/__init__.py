"""Who spoke when: offline speaker diarization behind one interface (Qt-free).

* :mod:`.family`: the registry of diarizer families (``voiceprint``, the offline default; ``pyannote``
  where the user has its pipeline), the same shape as the recogniser registry.
* :mod:`.segmentation`: pyannote's segmentation network: who speaks when inside 10 s.
* :mod:`.embedding`: CAM++ speaker embeddings (weights in ``weights/``), for voice prints and known voices.
* :mod:`.track`: 10 s chunks, their local speakers and voice prints, while the audio streams past the recogniser.
* :mod:`.cluster`: agglomerative clustering of the voice prints, the speaker count measured per recording.
* :mod:`.assign`: labels each word and segment, splits segments at speaker changes.
* :mod:`.library`: known voices, saved by name, recognised in later files.
* :mod:`.speakers`: ``--speakers auto|N|MIN-MAX``.
"""
