"""Resume: whether an input's existing transcripts are still its own and up to date, by the ``"source"``
record its JSON transcript keeps (:func:`fingerprint`, the file names written with it under ``"outputs"``);
the rules: docs/transcribe.md, Batch."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from speechstudio.atomic import atomic_write_text, read_json_object
from speechstudio.audio.diagnose import is_stream
from speechstudio.batch.export import FORMATS
from speechstudio.transcript.model import json_text, transcript_dict

MIB = 1 << 20


@dataclass(frozen=True)
class WorkPlan:
    """What to do with one input: ``todo`` (format -> output path) the outputs to write; none: the input is
    skipped, and ``skip`` says why in a few words (the queue's status: "already transcribed", or "changed
    after its transcript was written" when its kept outputs are of an older version); ``notes``: one-line
    notes for the user."""

    todo: dict[str, Path]
    notes: tuple[str, ...] = ()
    skip: str = ""


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
    """The ``"source"`` record of a JSON transcript, with ``"labelled"`` (it has speaker labels, or no words to
    label) and ``"made"`` (what it was made with, ``None`` where the JSON does not record it: the ``model`` id,
    ``task``, ``language``, the ``speakers`` asked, the audio ``track``) added, or ``None`` (absent, unreadable,
    not ours)."""
    doc = read_json_object(json_path)
    src = doc.get("source")
    if not isinstance(src, dict) or "size" not in src:
        return None
    req, audio = (d if isinstance(d, dict) else {} for d in (src.get("request"), doc.get("audio")))
    made = {"model": doc.get("model_id") or None, "task": req.get("task", doc.get("task")),
            "language": doc.get("language"), "speakers": req.get("speakers"), "track": audio.get("track")}
    return {**src, "labelled": "speaker_count" in doc or not doc.get("segments"), "made": made}


def asked(request, recognizer=None) -> dict:
    """What ``request`` (a ``TranscriptionRequest``) asks that changes a transcript, for :func:`plan_work`:
    ``models`` (ids its transcripts may record: ``recognizer``'s, else the request's resolved without loading or
    downloading, so an alias and its id are one; empty: not known), ``model`` (its name in notes), ``task``,
    ``language`` and ``track`` (a number) when named, ``speakers`` (:func:`speakers_text`)."""
    from speechstudio.errors import SpeechStudioError
    from speechstudio.hub.resolve import default_asr_model, multilingual_whisper, resolve_model

    if getattr(recognizer, "engine", "") == "auto":     # a LanguageRouter: the model each input was routed to
        models = {recognizer.english_name, getattr(recognizer.multilingual, "model_id", None)}
    elif recognizer is not None:
        models = {getattr(recognizer, "model_id", None)}
    else:                   # what load_recognizer loads (the default: its English and multilingual models)
        models = set()
        for find in ([lambda: resolve_model(request.model, allow_download=False, progress=False)] if request.model
                     else [multilingual_whisper, lambda: default_asr_model()[0]]):
            try:
                models.add(getattr(find(), "model_id", None))
            except SpeechStudioError:       # not here: downloaded (or refused) when it loads
                models.add(request.model)
    track = request.audio_track if isinstance(request.audio_track, int) else None
    return {"models": models - {None}, "model": request.model or "the default model", "task": request.task,
            "language": request.language, "track": track, "speakers": speakers_text(request)}


def speakers_text(request) -> str | None:
    """The speakers ``request`` asks as ``--speakers`` takes them (``auto``, ``N``, ``MIN-MAX``); ``None``: none."""
    c = request.speakers.count if request.speakers is not None else None
    return None if c is None else "auto" if c.describe() == "auto" else (
        str(c.min_speakers) if c.exact else f"{c.min_speakers}-{c.max_speakers}")


def plan_work(path: Path, targets: dict[str, Path], overwrite: bool, asked: dict | None = None) -> WorkPlan:
    """Which of ``targets`` (format -> output path) to write for input ``path`` (all with ``overwrite``, and the
    outputs of other formats that its JSON lists as written with it: no output of an earlier run is left). Outputs
    its JSON lists as written with it (and not edited since) are redone when the input changed, or when its JSON
    records other than ``asked`` (:func:`asked`) asks: model, task, language or
    track named, speakers, or no labels when asked (:func:`_differences`, named in a note). Any other existing
    output is kept, and when it is older than the input (so of an older version of it) nothing is done,
    so that the input's outputs never mix two versions of it (docs/transcribe.md, Resume)."""
    if overwrite:       # the outputs of the transcript it replaces in other formats too: its outputs are of one run
        js = targets.get("json") or next(iter(targets.values())).with_suffix(".json")
        also, notes = _other_formats(path, js, recorded_source(js) if js.exists() else None, targets)
        return WorkPlan({**targets, **also}, tuple(notes))
    if is_stream(path):          # a pipe holds new audio each time and cannot be compared
        notes = [f"{path}: read from a pipe, so its old transcript cannot be checked; transcribed again"
                 for t in targets.values() if t.exists()][:1]
        return WorkPlan(dict(targets), tuple(notes))
    existing = {f: t for f, t in targets.items() if t.exists() and not t.is_dir()}     # a folder there: refused
    todo = {f: t for f, t in targets.items() if f not in existing}
    js = targets.get("json")
    src = recorded_source(js) if js is not None and "json" in existing else None
    asked = asked or {}
    speakers = asked.get("speakers") is not None
    changed, redo = False, []
    ours: dict[str, Path] = {}
    if src is not None:
        try:        # the same bytes: size and both digests (mtime ignored: a copied or touched file is not redone)
            now = fingerprint(path)
            changed = any(src.get(k) != now.get(k) for k in ("size", "sha256_first_mib", "sha256_last_mib"))
        except OSError:
            changed = False                  # unreadable now: the decoder reports it
        redo = _differences(src, asked, speakers)
        ours = _written_with(js, src, existing)
    # stale: the other outputs modified more than 1 s before the input was (none when a time cannot be read); the
    # input's time: the one its JSON records while that JSON is current (a later copy or touch is no change)
    since = src.get("mtime") if src is not None and not changed else None
    try:
        since = path.stat().st_mtime if since is None else float(since)
        stale = {f: t for f, t in existing.items() if f not in ours and t.stat().st_mtime + 1.0 < since}
    except (OSError, TypeError, ValueError):
        stale = {}
    if stale:
        names, one = ", ".join(t.name for t in stale.values()), len(stale) == 1
        return WorkPlan({}, (f"{path}: modified after {names} {'was' if one else 'were'} written, and no .json "
                             f"transcript shows {'it is' if one else 'they are'} speechstudio's unedited output (your "
                             "own?): kept; not transcribed again, so that its outputs do not mix two versions of it "
                             "(use --overwrite to replace them)",),
                        skip="changed after its transcript was written")
    notes: list[str] = []
    if changed or redo:
        also, more = _other_formats(path, js, src, targets)
        todo.update({**ours, **also})
        notes.extend([f"{path}: changed since its transcript was written (size or content differ); transcribed "
                      "again"] if changed else [f"{path}: {why}" for why in redo])
        notes.extend(more)
    elif src is None and speakers and js is None and existing and not todo:   # only the JSON records labels
        notes.append(f"{path}: kept its transcript; without a .json output it is not known to have speaker "
                     "labels (add json to --format, or use --overwrite to redo it with them)")
    if todo:
        notes.extend(f"{t}: exists, kept (use --overwrite to replace it)" for f, t in existing.items() if f not in todo)
    return WorkPlan(todo, tuple(notes), "" if todo else "already transcribed")


def _other_formats(path: Path, js: Path, src: dict | None, targets: dict[str, Path]) -> tuple[dict, list[str]]:
    """The outputs in formats not among ``targets`` that JSON ``js`` (record ``src``) lists as written with it and
    unedited: written again too, so that all of ``path``'s outputs are of one run (format -> path); and notes
    naming them and the other formats kept."""
    others = {f: js.with_suffix(f".{f}") for f in FORMATS if f not in targets and js.with_suffix(f".{f}").exists()}
    also = _written_with(js, src, others) if src is not None else {}
    notes = [f"{path}: {', '.join(t.name for t in also.values())} (its earlier transcript's other formats) "
             "written again too, so that all its outputs are of this run"] if also else []
    if kept := [t.name for f, t in others.items() if f not in also]:
        notes.append(f"{path}: {', '.join(kept)} kept as they are (edited since, or not listed by its JSON "
                     "transcript): they may be of an earlier run")
    return also, notes


def _differences(src: dict, asked: dict, speakers: bool) -> list[str]:
    """Notes on how the transcript of JSON record ``src`` (:func:`recorded_source`) differs from what ``asked``
    asks (not where either does not say: an older JSON) and on labels asked (``speakers``) that it has none of."""
    made, was, now = src["made"], [], []
    if made["model"] and asked.get("models") and made["model"] not in asked["models"]:
        was, now = [f"model {made['model']}"], [asked["model"]]
    for key in ("task", "language", "speakers", "track"):
        if None not in (made[key], asked.get(key)) and made[key] != asked[key]:
            was, now = was + [f"{key} {made[key]}"], now + [str(asked[key])]
    said = f"its transcript was made with {' and '.join(was)}; transcribed again with {' and '.join(now)}"
    return ([said] if was else []) + (["its transcript has no speaker labels; transcribed again with them"]
                   if speakers and not src["labelled"] else [])


def _written_with(js: Path, src: dict, existing: dict[str, Path]) -> dict[str, Path]:
    """Of ``existing`` (format -> path), the JSON ``js`` and the outputs its ``src`` record lists as written with it,
    unless modified more than 1 s after it (edited since: the JSON is written last)."""
    listed = set(src.get("outputs") or ()) | {path_text(js.name)}
    try:
        limit = js.stat().st_mtime + 1.0
        return {f: t for f, t in existing.items()
                if path_text(t.name) in listed and (t == js or t.stat().st_mtime <= limit)}
    except OSError:
        return {}


def owner(json_path: Path) -> str | None:
    """The input path a JSON transcript records, if any."""
    src = recorded_source(json_path) if json_path.exists() else None
    path = src.get("path") if src else None
    return path if isinstance(path, str) else None


def write_json(target: Path, segments, info, source: dict, outputs: list[str], request=None) -> Path:
    """Write the JSON transcript (:func:`speechstudio.transcript.model.transcript_dict`) with its
    ``"source"`` record (``source`` from :func:`fingerprint`, ``outputs``: file names written
    with it, ``"request"``: the task and speakers ``request`` asked), atomically. Raises ``OSError``
    like ``export.write_transcript``."""
    doc = transcript_dict(list(segments), info)
    req = {"request": {"task": request.task, "speakers": speakers_text(request)}} if request is not None else {}
    doc["source"] = {**source, "outputs": [path_text(name) for name in outputs], **req}
    return atomic_write_text(target, json_text(doc))
