"""Known voices: a named speaker's CAM++ voice print (:mod:`.embedding`), saved once as
``<data dir>/speakers/<name>.json`` (atomically; no audio kept) and named in later files (:func:`match`:
``KNOWN_SIMILARITY`` and ``MARGIN``, from ``bench/bench_diarization.py``; docs/diarization.md, How it works). A
damaged file does not break the library: :func:`load_library` reports it and goes on."""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from speechstudio.atomic import atomic_write_text, write_error
from speechstudio.diarize.embedding import SIZE
from speechstudio.errors import SpeechStudioError, UsageError
from speechstudio.hub.paths import data_dir


KNOWN_SIMILARITY = 0.65  #: cosine to a saved print (bench/bench_diarization.py)
MARGIN = 0.03
_NAME = re.compile(r"^[^/\\:*?\"<>|\x00-\x1f]{1,64}$")
_RESERVED = re.compile(r"(?i)^(?:CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9])(?:\..*)?$")  # Microsoft's "Naming Files" rules


@dataclass(frozen=True)
class KnownVoice:
    """``name``; ``embedding`` float32 (192,) unit norm; ``seconds`` of speech it was made from;
    ``source`` (file and span, or "recording"); ``created`` (ISO time); ``path`` of its file."""

    name: str
    embedding: np.ndarray
    seconds: float
    source: str
    created: str
    path: Path


@dataclass(frozen=True)
class Library:
    """``voices`` that loaded, ``problems``: one line per file that did not (name and reason)."""

    voices: tuple[KnownVoice, ...]
    problems: tuple[str, ...] = ()

    def get(self, name: str) -> KnownVoice | None:
        return next((v for v in self.voices if v.name.lower() == name.lower()), None)


def library_dir() -> Path:
    """``<data dir>/speakers`` (``$SPEECHSTUDIO_HOME/speakers`` when set); not created."""
    return data_dir() / "speakers"


def check_name(name: str) -> str:
    """A voice name as given, trimmed. Raises ``UsageError`` for an empty name or one with characters
    a file name cannot hold (``/ \\ : * ? " < > |``)."""
    n = (name or "").strip()
    if not n or not _NAME.match(n) or n in (".", ".."):
        raise UsageError(f"speaker name {name!r}: use 1-64 characters without / \\ : * ? \" < > |")
    if _RESERVED.match(n):  # a file Windows cannot make: the library folder may be shared with a Windows machine
        raise UsageError(f"speaker name {name!r} is a name Windows keeps for devices; choose another")
    return n


def load_library(folder: Path | None = None) -> Library:
    """Every ``*.json`` voice in the library folder; damaged ones are listed in ``problems``."""
    d = folder or library_dir()
    voices, problems = [], []
    if not d.is_dir():
        return Library(())
    for p in sorted(d.glob("*.json")):
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
            emb = np.asarray(data["embedding"], np.float32)
            if emb.shape == (256,):
                raise ValueError("made by an older SpeechStudio (GE2E): save the voice again")
            if emb.shape != (SIZE,) or not np.all(np.isfinite(emb)) or float(np.linalg.norm(emb)) < 1e-6:
                raise ValueError(f"embedding of shape {emb.shape} is not a {SIZE}-d voice print")
            voices.append(KnownVoice(str(data.get("name") or p.stem), emb / np.linalg.norm(emb),
                                     float(data.get("seconds", 0.0)), str(data.get("source", "")),
                                     str(data.get("created", "")), p))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            problems.append(f"{p}: skipped, not a readable voice print ({type(exc).__name__}: {exc})")
    return Library(tuple(voices), tuple(problems))


def save_voice(name: str, embedding: np.ndarray, *, seconds: float, source: str, overwrite: bool = False,
               created: str | None = None) -> KnownVoice:
    """Save ``embedding`` (192,) as voice ``name``. Raises ``UsageError`` when the name is taken
    (and ``overwrite`` is false) or not a valid name, ``OutputWriteError`` (naming the file and the
    reason) when the library folder cannot be written."""
    name = check_name(name)
    existing = load_library().get(name)
    if existing is not None and not overwrite:
        raise UsageError(f"a known voice named {existing.name!r} exists ({existing.path}); choose another name "
                         "or remove it first")
    emb = np.asarray(embedding, np.float32).reshape(-1)
    emb = emb / max(float(np.linalg.norm(emb)), 1e-9)
    created = created or time.strftime("%Y-%m-%dT%H:%M:%S")  # a rename keeps the date the voice was saved
    path = existing.path if existing is not None else library_dir() / f"{name}.json"
    record = {"name": name, "seconds": round(float(seconds), 2), "source": source, "created": created,
              "embedding": [round(float(v), 6) for v in emb]}
    try:
        atomic_write_text(path, json.dumps(record))
    except OSError as e:  # the data folder is a file, read-only, full
        raise write_error(path, e) from None
    return KnownVoice(name, emb, float(seconds), source, created, path)


def rename_voice(old: str, new: str) -> KnownVoice:
    """Rename a saved voice. Raises ``SpeechStudioError`` for an unknown one, ``UsageError`` for a taken name."""
    lib = load_library()
    v = lib.get(old)
    if v is None:
        raise SpeechStudioError(f"no known voice named {old!r}")
    new = check_name(new)
    if new == v.name:  # nothing to do (a change of case is a rename)
        return v
    other = lib.get(new)
    if other is not None and other.path != v.path:
        raise UsageError(f"a known voice named {other.name!r} exists already")
    saved = save_voice(new, v.embedding, seconds=v.seconds, source=v.source, overwrite=other is not None,
                       created=v.created)
    if saved.path != v.path:
        v.path.unlink(missing_ok=True)
    return saved


def remove_voice(name: str) -> Path:
    """Delete a saved voice, or the damaged file ``<name>.json`` listed among the library's problems; returns
    the file deleted. Raises ``SpeechStudioError`` for an unknown one."""
    v = load_library().get(name)
    path = v.path if v is not None else library_dir() / f"{name}.json"
    if v is None and (name != Path(name).name or not path.is_file()):
        raise SpeechStudioError(f"no known voice named {name!r}")
    path.unlink(missing_ok=True)
    return path


def match(embedding: np.ndarray, library: Library) -> tuple[str, float] | None:
    """``(name, similarity)`` of the saved voice ``embedding`` (192,) is, or ``None`` (no voice close
    enough, or two too close to tell apart)."""
    if not library.voices:
        return None
    e = np.asarray(embedding, np.float32)
    e = e / max(float(np.linalg.norm(e)), 1e-9)
    sims = sorted(((float(v.embedding @ e), v.name) for v in library.voices), reverse=True)
    best, name = sims[0]
    runner = sims[1][0] if len(sims) > 1 else -1.0
    return (name, best) if best >= KNOWN_SIMILARITY and best - runner >= MARGIN else None


def describe_sureness(similarity: float) -> str:
    """``"sure"`` (>= 0.80), ``"likely"`` (>= KNOWN_SIMILARITY), else ``"unsure"``."""
    return "sure" if similarity >= 0.80 else "likely" if similarity >= KNOWN_SIMILARITY else "unsure"


def name_clusters(centroids: np.ndarray, library: Library | None) -> tuple[list[str | None], dict[str, float]]:
    """``(names, known)`` of the clusters ``centroids`` float32 (k, 192): each saved voice names the
    cluster it matches best (:func:`match`); another cluster that matches it surely (>= 0.80) is the same
    person and takes the name too, one that only likely matches stays unnamed (one saved voice near two
    people in a meeting named them both). ``known``: each named voice's best similarity."""
    names: list[str | None] = [None] * len(centroids)
    if library is None or not library.voices:
        return names, {}
    hits = [match(c, library) for c in centroids]
    best: dict[str, tuple[float, int]] = {}
    for i, hit in enumerate(hits):
        if hit is not None and (hit[0] not in best or hit[1] > best[hit[0]][0]):
            best[hit[0]] = (hit[1], i)
    for i, hit in enumerate(hits):
        if hit is not None and (best[hit[0]][1] == i or describe_sureness(hit[1]) == "sure"):
            names[i] = hit[0]
    return names, {n: round(s, 3) for n, (s, _) in best.items()}
