"""Notice a recogniser that writes nothing while someone speaks: :class:`NoTextWatch` warns once after
``NO_TEXT_AFTER_S`` of loud input with empty text (a broken adapted model looks like a dead microphone)."""
from __future__ import annotations

import numpy as np

from speechstudio.audio.levels import rms_dbfs

#: A block at least this loud (RMS, dBFS) counts as sound (speech ~-30 to -20, a quiet room ~-60).
SOUND_DBFS = -45.0
#: Seconds of sound with no text at all before the warning: a recogniser's own delay (2-3 s) plus one sentence.
NO_TEXT_AFTER_S = 8.0


def no_text_warning(model_id: str, sound_s: float) -> str:
    """The one-line warning for ``model_id`` after ``sound_s`` seconds of sound without text."""
    return (f"{model_id} has written nothing for {sound_s:.0f} s of sound: music or noise, or a model that does "
            f"not recognise this speech (an adapted model that did not learn?: try another model)")


class NoTextWatch:
    """Counts seconds of sound while the text is empty; :meth:`push` returns the warning once."""

    def __init__(self, model_id: str, after_s: float = NO_TEXT_AFTER_S, threshold_db: float = SOUND_DBFS):
        self.model_id, self.after_s, self.threshold_db = model_id, float(after_s), float(threshold_db)
        self.sound_s = 0.0
        self.warned = False
        self.text_seen = False

    def push(self, block: np.ndarray, sample_rate: int, text: str) -> str | None:
        """Account one block (``(n,)`` or ``(n, channels)``, float or integer PCM, ``sample_rate`` Hz) and the
        text so far; the warning the first time ``after_s`` of sound passed with no text, else None."""
        if text.strip():
            self.text_seen = True
        block = np.asarray(block)
        if self.text_seen or self.warned or len(block) == 0:
            return None
        x = block / float(np.iinfo(block.dtype).max) if np.issubdtype(block.dtype, np.integer) else block
        if rms_dbfs(x) >= self.threshold_db:
            self.sound_s += len(block) / float(sample_rate)
        if self.sound_s >= self.after_s:
            self.warned = True
            return no_text_warning(self.model_id, self.sound_s)
        return None

    def final(self, text: str) -> str | None:
        """At the end of a session: the warning when there was sound (at least half of
        ``after_s``) and the final text is still empty, unless it was given already."""
        if text.strip() or self.text_seen or self.warned or self.sound_s < self.after_s / 2:
            return None
        self.warned = True
        return no_text_warning(self.model_id, self.sound_s)
