"""Resume: whether an input's existing transcripts are still its own and up to date, by the ``"source"``
record its JSON transcript keeps (:func:`fingerprint`, the file names written with it under ``"outputs"``);
the rules: docs/transcribe.md, Batch."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from speechstudio.atomic import atomic_write_text
from speechstudio.audio.diagnose import is_stream
from speechstudio.transcript.model import json_text, transcript_dict

MIB = 1 << 20


def path_text(path: str | os.PathLike) -> str:
    """``path`` as text JSON can hold: a file name that is not valid UTF-8 (kept by Python as
    surrogate escapes) has its odd bytes written as ``\\xNN``; other names are unchanged."""
    return os.fsencode(os.fspath(path)).decode("utf-8", "backslashreplace")


def fingerprint(path: str | os.PathLike) -> dict:
    """``{"path", "size" (bytes), "mtime" (s since the epoch), "sha256_first_mib", "sha256_last_mib"}`` of a file
    (SHA-256 hex digests of its first and last MiB; the last ``""`` at most 1 MiB); ``{"path", "stream": True}``
    for a pipe (``-``, a FIFO), which is never read here. Raises ``OSError`` when the file cannot be read."""
    p = Path(path)
    if is_stream(p):
        return {"path": "-" if str(p) == "-" else path_text(p.absolute()), "stream": True}
    st = p.stat()
    with open(p, "rb") as f:
        head = hashlib.sha256(f.read(MIB)).hexdigest()
        tail = ""
        if st.st_size > MIB:
            f.seek(max(MIB, st.st_size - MIB))
            tail = hashlib.sha256(f.read(MIB)).hexdigest()
    return {"path": path_text(p.resolve()), "size": st.st_size, "mtime": round(st.st_mtime, 3),
            "sha256_first_mib": head, "sha256_last_mib": tail}


def recorded_source(json_path: str | os.PathLike) -> dict | None:
    """The ``"source"`` record of a JSON transcript (``"labelled"`` added: it has speaker labels, or no
    words to label), or ``None`` (absent, unreadable, not ours)."""
    try:
        with open(json_path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    src = doc.get("source") if isinstance(doc, dict) else None
    labelled = "speaker_count" in doc or not doc.get("segments")
    return {**src, "labelled": labelled} if isinstance(src, dict) and "size" in src else None


def same_content(recorded: dict, current: dict) -> bool:
    """Whether two fingerprints describe the same bytes (size and both digests; mtime ignored,
    so a copied or touched file is not redone)."""
    keys = ("size", "sha256_first_mib", "sha256_last_mib")
    return all(recorded.get(k) == current.get(k) for k in keys)


def plan_work(path: Path, targets: dict[str, Path], overwrite: bool,
              speakers: bool = False) -> tuple[dict[str, Path], list[str]]:
    """``(todo, notes)``: which of ``targets`` (format -> output path) to write for input ``path`` (none when every
    output exists and is current: the input is skipped; all with ``overwrite``), and one-line notes for the user
    (an input changed since its transcript, a transcript without the speaker labels now asked for
    (``speakers``), outputs kept that we did not write)."""
    if overwrite:
        return dict(targets), []
    if is_stream(path):          # a pipe holds new audio each time and cannot be compared
        notes = [f"{path}: read from a pipe, so its old transcript cannot be checked; transcribed again"
                 for t in targets.values() if t.exists()][:1]
        return dict(targets), notes
    existing = {f: t for f, t in targets.items() if t.exists()}
    todo = {f: t for f, t in targets.items() if f not in existing}
    notes: list[str] = []
    js = targets.get("json")
    src = recorded_source(js) if js is not None and "json" in existing else None
    if src is not None:
        try:
            changed = not same_content(src, fingerprint(path))
        except OSError:
            changed = False                  # unreadable now: the decoder reports it
        unlabelled = speakers and not src["labelled"]
        if changed or unlabelled:
            ours = set(src.get("outputs") or ()) | {js.name}
            redo = {f: t for f, t in existing.items() if path_text(t.name) in ours}
            todo.update(redo)
            notes.append(f"{path}: changed since its transcript was written (size or content differ); transcribed again"
                         if changed else f"{path}: its transcript has no speaker labels; transcribed again with them")
            existing = {f: t for f, t in existing.items() if f not in redo}
    elif existing:
        try:
            newer = path.stat().st_mtime > max(t.stat().st_mtime for t in existing.values()) + 1.0
        except OSError:
            newer = False
        if newer and not todo:
            notes.append(f"{path}: modified after its transcript was written; kept the old transcript "
                         "(use --overwrite to redo it)")
        elif speakers and js is None and not todo:      # only the JSON records whether it has labels
            notes.append(f"{path}: kept its transcript; without a .json output it is not known to have speaker "
                         "labels (add json to --format, or use --overwrite to redo it with them)")
    if todo:
        notes.extend(f"{t}: exists, kept (use --overwrite to replace it)" for t in existing.values())
    return todo, notes


def owner(json_path: Path) -> str | None:
    """The input path a JSON transcript records, if any."""
    src = recorded_source(json_path) if json_path.exists() else None
    path = src.get("path") if src else None
    return path if isinstance(path, str) else None


def write_json(target: Path, segments, info, source: dict, outputs: list[str]) -> Path:
    """Write the JSON transcript (:func:`speechstudio.transcript.model.transcript_dict`) with its
    ``"source"`` record (``source`` from :func:`fingerprint`, ``outputs``: file names written
    with it), atomically. Raises ``OSError`` like ``export.write_transcript``."""
    doc = transcript_dict(list(segments), info)
    doc["source"] = {**source, "outputs": [path_text(name) for name in outputs]}
    return atomic_write_text(target, json_text(doc))
