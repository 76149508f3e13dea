"""The registry of diarizer families, shaped like the recogniser registry (:mod:`speechstudio.asr.family`): a family
says whether it can run here (``unavailable``) and starts a session per recording (``start``), which takes the
16 kHz blocks the recogniser reads (``push``) and returns a :class:`Diarization` (``finish``) that labels the
segments and words. Built-ins (``BUILTIN``): ``voiceprint`` (offline, known voices) and ``pyannote``."""
from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass, field

import numpy as np

from speechstudio.diarize.assign import Turn, label_segments, talk_time
from speechstudio.diarize.library import describe_sureness
from speechstudio.transcript.model import speaker_count_text
from speechstudio.errors import UsageError
from speechstudio.progress import clock
from speechstudio.registry import Registry


#: The note of a recording without speech (the batch folds it into its own "no text" warning)
NO_SPEECH_NOTE = "no speech found: no speaker labels"

BUILTIN = ("speechstudio.diarize.family_voiceprint", "speechstudio.diarize.family_pyannote")
DEFAULT = "voiceprint"


@dataclass(frozen=True)
class SpeakerInfo:
    """One speaker of a recording: ``name`` (``"Speaker 1"`` or a known voice's name),
    ``talk_s`` seconds of speech, ``known`` (named from the library), ``similarity`` to that voice
    and ``sureness`` in words (``"sure"`` / ``"likely"``), ``None`` for unknown voices."""

    name: str
    talk_s: float
    known: bool = False
    similarity: float | None = None
    sureness: str | None = None


@dataclass
class Diarization:
    """What a session found. ``turns``: the speaker timeline the words are labelled from (two turns
    at once where two people speak at once); ``speakers``: in order of first appearance; ``notes``:
    lines for the user (they sound like one voice...); ``embeddings``: each speaker's voice print
    (float32 (192,), for saving a known voice); ``could_be``: the other count the evidence allows,
    ``None`` when the count is sure; ``wordless``: the speakers :meth:`apply` gave no word."""

    turns: list[Turn]
    speakers: list[SpeakerInfo]
    notes: list[str] = field(default_factory=list)
    embeddings: dict[str, np.ndarray] = field(default_factory=dict)
    could_be: int | None = None
    wordless: set[str] = field(default_factory=set)

    def label(self, segments):
        """``segments`` with ``speaker`` on each segment and word, split at speaker changes."""
        return label_segments(list(segments), self.turns)

    def apply(self, segments, info):
        """``(segments, info)`` labelled: segments split at speaker changes (:meth:`label`), ``info``
        (:class:`~speechstudio.asr.types.TranscriptInfo`) with the speakers, timeline and count sureness. Speakers
        are listed in the order they first say a word, ``Speaker N`` labels renumbered 1, 2, ... in that order
        (known voices keep their names). A count that lists speakers who win no word is unsure (``could_be``:
        those who do); they stay, last (real people whose words the recogniser missed; an asked count is law)."""
        labelled = self.label(segments)
        said = [n for n in dict.fromkeys(w.speaker for s in labelled for w in s.words or [s] if s.text.strip()) if n]
        mute = [s for s in self.speakers if s.name not in said]
        if mute and said and self.could_be is None:
            self.could_be = len(self.speakers) - len(mute)
        self.speakers = sorted(self.speakers, key=lambda s: said.index(s.name) if s.name in said else len(said))
        unknown = [s.name for s in self.speakers if re.fullmatch(r"Speaker \d+", s.name)]
        free = (f"Speaker {k}" for k in itertools.count(1)
                if f"Speaker {k}" in unknown or f"Speaker {k}" not in {s.name for s in self.speakers})
        new = {n: next(free) for n in unknown}
        rename = lambda name: new.get(name, name)  # noqa: E731
        self.speakers = [dataclasses.replace(s, name=rename(s.name)) for s in self.speakers]
        self.turns = [dataclasses.replace(t, speaker=rename(t.speaker)) for t in self.turns]
        self.embeddings = {rename(n): e for n, e in self.embeddings.items()}
        self.wordless = {rename(s.name) for s in mute}
        labelled = [dataclasses.replace(s, speaker=rename(s.speaker), words=tuple(
            dataclasses.replace(w, speaker=rename(w.speaker)) for w in s.words)) for s in labelled]
        return labelled, dataclasses.replace(info, speakers=tuple(self.speakers), speaker_turns=tuple(self.turns),
                                             speakers_could_be=self.could_be)

    def summary(self) -> str:
        """``"2 speakers: Speaker 1 (1:02), Ana (0:04, known, sure)"`` (talk time in seconds when every speaker's
        is under 10 s, else all ``m:ss``, never 0); ``"2 or 3 speakers: check: ..., Speaker 3 (0:05, no words)"``."""
        parts = []
        short = all(s.talk_s < 10 for s in self.speakers)
        for s in self.speakers:
            extra = f", known voice, {s.sureness} ({s.similarity:.2f})" if s.known else ""
            talk = f"{max(s.talk_s, 0.1):.1f} s" if short else clock(max(s.talk_s, 1.0))
            mute = ", no words" if s.name in self.wordless else ""
            parts.append(f"{s.name} ({talk}{extra}{mute})")
        n = len(self.speakers)
        return f"{speaker_count_text(n, self.could_be)}: " + ", ".join(parts) if n else "no speech found"


def speaker_infos(turns: list[Turn], names: list[str], known: dict[str, float] | None = None) -> list[SpeakerInfo]:
    """SpeakerInfo per name in the order of ``names`` (then any other name in ``turns``)."""
    known = known or {}
    talk = talk_time(turns)
    order = list(dict.fromkeys(list(names) + [t.speaker for t in turns]))
    return [SpeakerInfo(n, talk.get(n, 0.0), n in known, known.get(n), describe_sureness(known[n]) if n in known else None)
            for n in order if talk.get(n, 0.0) > 0 or n in known]


@dataclass
class DiarizerFamily:
    """One family of diarizers. Subclasses override ``unavailable`` and ``start``."""

    name: str
    label: str

    def unavailable(self) -> str | None:
        """``None`` when it can run here, else the reason and what to install or set."""
        return None

    def start(self, count, *, library=None, path=None):
        """A session for one recording: ``push(block)`` (float32 16 kHz mono), ``finish() ->
        Diarization``. ``count``: :class:`~speechstudio.diarize.speakers.SpeakerCount`;
        ``library``: :class:`~speechstudio.diarize.library.Library` of known voices or ``None``;
        ``path``: the file (for families that read it themselves)."""
        raise NotImplementedError


_FAMILIES = Registry("diarizer family", BUILTIN)
#: The registry's calls (:class:`speechstudio.registry.Registry`): ``register(family, replace=False)``
#: (``ValueError`` for a taken name), ``unregister(name)`` (a test's fake diarizer; unknown names ignored).
register, unregister = _FAMILIES.register, _FAMILIES.unregister


def get(name: str | None = None) -> DiarizerFamily:
    """The family ``name`` (``None``: the default). Raises ``UsageError`` for an unknown name and
    when it cannot run here (with the reason)."""
    name = name or DEFAULT
    family = _FAMILIES.find(name)
    if family is None:
        raise UsageError(f"--diarizer {name}: unknown (known: {', '.join(_FAMILIES.names())})")
    why = family.unavailable()
    if why:
        raise UsageError(f"--diarizer {name}: {why}")
    return family
