"""What ``--speakers`` asks for (``auto`` (1 to ``MAX_AUTO``), ``N`` or ``MIN-MAX``) and the
:class:`Labeller` that carries it through a batch or a library call."""
from __future__ import annotations

from dataclasses import dataclass, field

from speechstudio.diarize.family import DiarizerFamily, get
from speechstudio.diarize.library import Library, load_library
from speechstudio.errors import UsageError

#: The most speakers ``auto`` looks for (a meeting; more is rare in the recordings peers' users bring).
MAX_AUTO = 8


@dataclass(frozen=True)
class SpeakerCount:
    """``min_speakers`` <= the number found <= ``max_speakers``; ``exact`` when one number was asked."""

    min_speakers: int = 1
    max_speakers: int = MAX_AUTO

    @property
    def exact(self) -> bool:
        return self.min_speakers == self.max_speakers

    def describe(self) -> str:
        if self.exact:
            return f"{self.min_speakers} speaker{'s' if self.min_speakers != 1 else ''}"
        if (self.min_speakers, self.max_speakers) == (1, MAX_AUTO):
            return "auto"
        return f"{self.min_speakers}-{self.max_speakers} speakers"


@dataclass(frozen=True)
class DiarizeOptions:
    """Diarization for a batch: ``count`` (:class:`SpeakerCount`), ``diarizer`` (a family name of
    :mod:`speechstudio.diarize.family`, ``None``: the default ``voiceprint``), ``known_voices``:
    name voices found in the speaker library."""

    count: SpeakerCount = SpeakerCount()
    diarizer: str | None = None
    known_voices: bool = True

    def labeller(self) -> Labeller:
        """The diarizer family (``UsageError`` when it cannot run here) with the speaker library."""
        library = load_library() if self.known_voices else Library(())
        return Labeller(get(self.diarizer), self.count, library, list(library.problems))


@dataclass
class Labeller:
    """Speaker labels for the files of one batch (or one library call): ``start`` a session per
    recording (it takes the blocks the recogniser reads), then ``session.finish().apply(segments,
    info)``. ``problems``: unreadable known-voice files, said once (:meth:`take_problems`)."""

    family: DiarizerFamily
    count: SpeakerCount
    library: Library
    problems: list[str] = field(default_factory=list)

    def start(self, path=None, count: SpeakerCount | None = None):
        """A session for one recording (``count``: instead of the asked one, e.g. one channel's 1)."""
        return self.family.start(count or self.count, library=self.library, path=path)

    def take_problems(self) -> list[str]:
        out, self.problems = self.problems, []
        return out


def parse_speakers(text: str | None) -> SpeakerCount | None:
    """``None`` / ``"off"`` -> ``None`` (no diarization); ``"auto"`` -> 1..MAX_AUTO; ``"3"`` -> exactly 3;
    ``"2-4"`` -> 2..4. Raises ``UsageError`` naming the value (an empty one too: a script's unset variable
    is no choice of "off")."""
    if text is None:
        return None
    t = str(text).strip().lower()
    if not t:
        raise UsageError("--speakers needs a value: auto, off, a number (2) or a range (2-4)")
    if t in ("off", "none", "no"):
        return None
    if t == "auto":
        return SpeakerCount()
    try:
        lo, hi = (int(p) for p in t.split("-", 1)) if "-" in t else (int(t),) * 2
    except ValueError:
        raise UsageError(f"--speakers {text}: expected auto, off, a number (2) or a range (2-4)") from None
    if lo < 1 or hi < lo:
        raise UsageError(f"--speakers {text}: need 1 <= MIN <= MAX")
    if hi > 20:
        raise UsageError(f"--speakers {text}: at most 20 speakers")
    return SpeakerCount(lo, hi)
