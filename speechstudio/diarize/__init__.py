"""Who spoke when: offline speaker diarization behind one interface (Qt-free): the registry of diarizer families
(:mod:`.family`) and one module per step (segmentation, embedding, track, cluster, assign, library; ``--speakers``
in :mod:`.speakers`), listed with their methods in ``docs/diarization.md``, How it works."""
