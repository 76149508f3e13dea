"""The prepared dataset both fine-tuning tracks train on, saved as JSON.

A folder with ``manifest.json`` (``Manifest``, atomic), ``clips/ID.wav`` (mono PCM-16 at
``Manifest.sample_rate``, trimmed, loudness-normalised) and, for recordings, ``consent.txt``. Clip paths
are relative to the folder."""
from __future__ import annotations

import json
import re
import os
import random
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from speechstudio.atomic import atomic_write_json
from speechstudio.errors import SpeechStudioError

MANIFEST_NAME = "manifest.json"

#: Flags a check can set on a clip (``Clip.flags``). ``Manifest.usable`` leaves out too_short, too_long,
#: unsayable, other_speaker and asr_mismatch clips (the last unless kept); the others are usable unless
#: ``Clip.dropped``. The wizard shows them all so the user can fix the text, drop or re-record.
FLAGS = {
    "clipping": "samples at full scale (distorted recording)",
    "low_level": "speech level far below the target (quiet recording)",
    "noisy": "high background noise between words",
    "asr_mismatch": "the recogniser heard something else than the text (CER above the threshold): left out "
                    "unless kept (--keep-mismatched) or its text is fixed",
    "too_short": "shorter than the shortest usable clip",
    "too_long": "longer than the longest usable clip (split it)",
    "unsayable": "text has characters the voice / vocabulary cannot say",
    "text_normalised": "text had invisible characters (zero-width space, joiners, soft hyphen): removed, clip kept",
    "other_speaker": "sounds like another speaker than the rest of the clips (speaker embedding outlier)",
}


class DatasetError(SpeechStudioError):
    """A dataset folder, metadata line or clip is unusable; the message names the file / line."""


@dataclass(frozen=True)
class Clip:
    """One utterance: ``audio`` (relative path), ``text`` as written, ``duration_s`` after trimming,
    ``flags`` (keys of ``FLAGS``), ``cer`` of the ASR cross-check (or None), ``source``
    (``metadata.csv:12``, ``talk.mp3 12.3-17.9 s``), ``dropped`` by the user."""

    id: str
    audio: str
    text: str
    duration_s: float
    flags: tuple[str, ...] = ()
    cer: float | None = None
    asr_text: str | None = None
    source: str = ""
    dropped: bool = False


@dataclass(frozen=True)
class Problem:
    """An input that could not become a clip: ``source`` (file or ``file:line``) and ``reason``."""

    source: str
    reason: str


@dataclass
class Manifest:
    """Clips of one speaker at one sample rate (Hz), plus the inputs that were refused.
    ``notes["keep_mismatched"]``: asr_mismatch clips are trained on (``build_dataset(keep_mismatched=True)``)."""

    sample_rate: int
    clips: list[Clip] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    language: str = "en"
    notes: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ queries
    def usable(self) -> list[Clip]:
        """Clips not dropped and not flagged too_short / too_long / unsayable / other_speaker, nor
        asr_mismatch unless ``notes["keep_mismatched"]``."""
        bad = {"too_short", "too_long", "unsayable", "other_speaker"}
        if not self.notes.get("keep_mismatched"):
            bad.add("asr_mismatch")
        return [c for c in self.clips if not c.dropped and not bad.intersection(c.flags)]

    @property
    def total_s(self) -> float:
        """Seconds of usable audio."""
        return float(sum(c.duration_s for c in self.usable()))

    def split(self, val_count: int | None = None, seed: int = 0) -> tuple[list[Clip], list[Clip]]:
        """(train, validation) from the usable clips: a seeded shuffle; ``val_count`` defaults to
        5 % of the clips, at least 1 and at most 20 (0 when there are fewer than 4 clips)."""
        clips = sorted(self.usable(), key=lambda c: c.id)
        random.Random(seed).shuffle(clips)
        if val_count is None:
            val_count = 0 if len(clips) < 4 else max(1, min(20, round(0.05 * len(clips))))
        return clips[val_count:], clips[:val_count]

    def path_of(self, clip: Clip, root: str | os.PathLike) -> Path:
        """Absolute path of a clip's audio, given the dataset folder ``root``."""
        return Path(root) / clip.audio

    def with_clip(self, clip: Clip) -> "Manifest":
        """A copy with the clip of the same id replaced (e.g. text fixed, dropped). A new text clears
        ``asr_mismatch``: the recogniser was checked against the old one, the user fixed it."""
        old = {c.id: c.text for c in self.clips}
        if "asr_mismatch" in clip.flags and old.get(clip.id, clip.text) != clip.text:
            clip = replace(clip, flags=tuple(f for f in clip.flags if f != "asr_mismatch"))
        return replace(self, clips=[clip if c.id == clip.id else c for c in self.clips])

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict:
        return {"version": 1, "sample_rate": self.sample_rate, "language": self.language, "notes": self.notes,
                "clips": [asdict(c) for c in self.clips], "problems": [asdict(p) for p in self.problems]}

    def save(self, folder: str | os.PathLike) -> Path:
        """Write ``folder/manifest.json`` atomically; returns its path."""
        return atomic_write_json(Path(folder) / MANIFEST_NAME, self.to_dict())

    @classmethod
    def load(cls, folder: str | os.PathLike) -> "Manifest":
        """Read ``folder/manifest.json`` (or the file itself). Raises ``DatasetError``."""
        path = Path(folder)
        if path.is_dir():
            path = path / MANIFEST_NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            clips = [Clip(**{**c, "flags": tuple(c.get("flags", ()))}) for c in data["clips"]]
            for k, c in enumerate(clips):
                _check_inside(path, k + 1, c)
            problems = [Problem(**p) for p in data.get("problems", [])]
            return cls(int(data["sample_rate"]), clips, problems, data.get("language", "en"), data.get("notes", {}))
        except FileNotFoundError:
            raise DatasetError(f"{path}: no prepared dataset here (manifest.json missing)") from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DatasetError(f"{path}: unreadable manifest ({type(exc).__name__}: {exc})") from exc


def _check_inside(manifest: Path, number: int, clip: Clip) -> None:
    """A clip's audio must be a relative path inside the dataset folder (as ``metadata.csv`` lines
    are checked): an absolute path or ``..`` would let a prepared dataset read any file."""
    audio = str(clip.audio)
    rel = Path(audio.replace("\\", "/"))
    if rel.is_absolute() or re.match(r"^[A-Za-z]:", audio) or audio.startswith(("/", "\\")):
        raise DatasetError(f"{manifest}: clip {number} ({clip.id}): audio path {audio!r} is absolute; "
                           "a prepared dataset names its clips relative to its folder")
    if ".." in rel.parts:
        raise DatasetError(f"{manifest}: clip {number} ({clip.id}): audio path {audio!r} leaves the dataset "
                           "folder ('..' refused)")
