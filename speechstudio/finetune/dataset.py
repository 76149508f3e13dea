"""Import a voice dataset: ``scan_source(path)`` detects the layout and lists its inputs (``Entry``) and
refusals (``Problem``: ``file:line`` and reason) for ``build.build_dataset``.

Layouts, in order: **LJSpeech / Piper** (``metadata.csv`` as ``finetune.metadata`` reads it, audio in
``wavs/`` or beside it, relative paths only, never ``..``); **wav+txt pairs** (``NAME.txt`` / ``.lab``
beside any audio, subfolders included); **long recordings** (no texts, cut by ``finetune.longform``).
Nothing is dropped silently; other speakers' lines are counted in ``SourceScan.speakers``."""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from speechstudio.finetune.manifest import DatasetError, Problem
from speechstudio.finetune.metadata import Row, decode_utf8, detect_layout, read_lines, similar

#: Extensions taken as audio when scanning folders (decoding is FFmpeg's, so the list is generous).
AUDIO_EXTENSIONS = (".wav", ".flac", ".mp3", ".ogg", ".oga", ".opus", ".m4a", ".aac", ".wma", ".aif", ".aiff",
                    ".caf", ".webm", ".mp4", ".mkv", ".mov", ".raw", ".pcm")
TEXT_EXTENSIONS = (".txt", ".lab")
METADATA = "metadata.csv"


@dataclass(frozen=True)
class Entry:
    """One input: ``id`` (safe file name stem), ``text`` (None: a long recording, text from the
    recogniser), ``path`` of the audio file, ``source`` (``metadata.csv:12``, ``a/b.wav``)."""

    id: str
    text: str | None
    path: Path
    source: str


@dataclass
class SourceScan:
    """``mode`` (``ljspeech`` | ``pairs`` | ``long``), ``root``; for ``ljspeech`` the ``layout``,
    ``speakers`` (name -> lines) and the ``speaker`` kept."""

    mode: str
    root: Path
    entries: list[Entry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    layout: str | None = None
    speakers: dict[str, int] = field(default_factory=dict)
    speaker: str | None = None


def clip_id(name: str) -> str:
    """A file-name-safe id: ASCII letters, digits, ``_ . -``; others become ``_``. Ids are
    compared case-insensitively (``A`` and ``a`` are one file on Windows and macOS)."""
    out = re.sub(r"[^A-Za-z0-9_.-]", "_", name.strip())
    return ("_" + out[1:]) if out.startswith(".") else (out or "_")


def _find_audio(root: Path, rel: PurePosixPath) -> Path | None:
    """``root/rel`` as written, with an audio extension added (``wavs/a`` -> ``wavs/a.wav``), or
    with another one (``a.wav`` given, ``a.flac`` there)."""
    path = root.joinpath(*rel.parts)
    if path.suffix.lower() in AUDIO_EXTENSIONS:
        if path.is_file():
            return path
        path = path.with_suffix("")
    for ext in AUDIO_EXTENSIONS:
        cand = path.with_name(path.name + ext)
        if cand.is_file():
            return cand
    return None


def _locate(root: Path, ident: str, where: str) -> tuple[Path | None, str, str, Problem | None]:
    """``(audio or None, clip name, what was looked for, refusal)`` for a line's first field."""
    is_path = "/" in ident or "\\" in ident or ident.startswith("..") or ident.lower().endswith(AUDIO_EXTENSIONS)
    if not is_path:
        audio = _find_audio(root, PurePosixPath("wavs", ident)) or _find_audio(root, PurePosixPath(ident))
        return audio, clip_id(ident), f"wavs/{ident}.wav", None
    rel = PurePosixPath(ident.replace("\\", "/"))
    if rel.is_absolute() or re.match(r"^[A-Za-z]:", ident):
        return None, "", ident, Problem(where, f"{ident}: absolute path refused (audio must be inside the dataset folder)")
    if ".." in rel.parts:
        return None, "", ident, Problem(where, f"{ident}: path leaves the dataset folder ('..' refused)")
    audio = _find_audio(root, rel)
    if audio is None and len(rel.parts) == 1:  # a.wav: in wavs/
        audio = _find_audio(root, PurePosixPath("wavs", *rel.parts))
    if audio is None and len(rel.parts) > 1 and rel.parts[0] == "wavs":  # wavs/a.wav, but a flat folder
        audio = _find_audio(root, PurePosixPath(*rel.parts[1:]))
    name = clip_id(PurePosixPath(rel.name).stem if rel.suffix.lower() in AUDIO_EXTENSIONS else rel.name)
    return audio, name, ident, None


def _choose_speaker(path: Path, speakers: Counter, wanted: str | None) -> str:
    listed = ", ".join(f"{name} ({n} lines)" for name, n in speakers.most_common(12))
    listed += f", and {len(speakers) - 12} more" if len(speakers) > 12 else ""
    if wanted is None:
        if len(speakers) == 1:
            return next(iter(speakers))
        raise DatasetError(f"{path}: ID|SPEAKER|TEXT lines of {len(speakers)} speakers: {listed}; choose one "
                           "(--speaker NAME)")
    if wanted in speakers:
        return wanted
    folded = [name for name in speakers if name.casefold() == wanted.strip().casefold()]
    if len(folded) == 1:
        return folded[0]
    raise DatasetError(f"{path}: no speaker {wanted!r} in its ID|SPEAKER|TEXT lines; speakers: {listed}")


def read_metadata(root: Path, speaker: str | None = None) -> SourceScan:
    """Read ``root/metadata.csv``, keeping ``speaker``'s lines (case-insensitive; optional with one
    speaker). Raises ``DatasetError`` (unreadable or empty; several speakers, none or an absent one
    chosen; ``speaker`` for a file without speakers)."""
    path = root / METADATA
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    if not raw.strip(b" \t\r\n\xef\xbb\xbf\xff\xfe\x00"):
        raise DatasetError(f"{path}: the file is empty (expected one ID|TEXT line per clip)")
    lines = read_lines(raw, METADATA)
    problems: list[Problem] = list(lines.problems)
    used: set[Path] = set()
    for rough in lines.undecodable_ids:  # its audio is named by that line: not also "no line refers to it"
        if rough and not re.search(r"[/\\]|\.\.", rough):
            audio = _find_audio(root, PurePosixPath("wavs", rough))
            used.update([audio.resolve()] if audio else [])
    if lines.header is not None:
        audio, _, _, _ = _locate(root, lines.header[0], "")
        if audio is not None:  # "file|text" names a clip called "file": a data line after all
            lines.rows.insert(0, Row(lines.header_line, lines.header))
            lines.header = None
    layout = detect_layout(lines.rows, lines.header)
    expected = {"text": "ID|TEXT", "normalized": "ID|TEXT|NORMALIZED", "speaker": "ID|SPEAKER|TEXT"}[layout]
    speakers = Counter(r.fields[1] for r in lines.rows if layout == "speaker" and len(r.fields) == 3 and r.fields[1])
    chosen = _choose_speaker(path, speakers, speaker) if layout == "speaker" and speakers else None
    if chosen is None and speaker is not None:
        raise DatasetError(f"{path}: --speaker {speaker}: the file has no speaker column ({expected} lines)")
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for row in lines.rows:
        n, fields = row.line, row.fields
        where = f"{METADATA}:{n}"
        ident = fields[0]
        audio, name, missing, refused = _locate(root, ident, where) if ident else (None, "", "", None)
        if audio is not None:  # named by this line, even if the line is refused: not also "unreferenced"
            used.add(audio.resolve())
        if len(fields) < 2:
            problems.append(Problem(where, f"expected {expected} (no '|' on the line)"))
            continue
        if len(fields) > 3 or (layout in ("speaker", "normalized") and len(fields) != 3):
            problems.append(Problem(where, f"{len(fields)} fields, expected {expected}" + (
                "; put a text that holds '|' in double quotes" if len(fields) > 3 else "")))
            continue
        if layout == "speaker":
            text = fields[2]
            if fields[1] != chosen:
                continue
        elif layout == "text" and len(fields) == 3 and fields[2] and not similar(fields[1], fields[2]):
            problems.append(Problem(where, f"3 fields, expected {expected} (the other lines have 2): put a text "
                                           "that holds '|' in double quotes"))
            continue
        elif layout == "normalized":  # LJSpeech: the audio says the normalized text ("nine one one")
            text = fields[2] or fields[1]
        else:
            text = fields[1] or (fields[2] if len(fields) > 2 else "")
        text = " ".join(text.split())
        if not ident:
            problems.append(Problem(where, "empty id"))
            continue
        if refused is not None:
            problems.append(refused)
            continue
        if name.casefold() in seen:
            problems.append(Problem(where, f"duplicate id {ident} (first on line {seen[name.casefold()]})"))
            continue
        seen[name.casefold()] = n
        if not text:
            problems.append(Problem(where, f"empty text for {ident}"))
            continue
        if audio is None:
            problems.append(Problem(where, f"audio {missing} not found"))
            continue
        entries.append(Entry(name, text, audio, where))
    wavs = root / "wavs"
    if wavs.is_dir():
        for p in sorted(wavs.iterdir()):
            if p.suffix.lower() in AUDIO_EXTENSIONS and p.is_file() and p.resolve() not in used:
                problems.append(Problem(f"wavs/{p.name}", f"no line in {METADATA} refers to it"))
    return SourceScan("ljspeech", root, entries, problems, layout, dict(speakers), chosen)


def read_pairs(root: Path, exclude: tuple[Path, ...] = ()) -> tuple[list[Entry], list[Problem], list[Path]]:
    """``(entries, problems, audio_files)`` of a wav+txt folder; ``entries`` is empty when no
    audio file has a text file (then ``audio_files`` are long recordings)."""
    files: list[Path] = []
    ex = {p.resolve() for p in exclude}
    for dirpath, dirnames, filenames in os.walk(root):  # hidden files and folders and ``exclude`` skipped
        d = Path(dirpath)
        dirnames[:] = sorted(x for x in dirnames if not x.startswith(".") and (d / x).resolve() not in ex)
        files += [d / f for f in sorted(filenames) if not f.startswith(".")]
    audio = [p for p in files if p.suffix.lower() in AUDIO_EXTENSIONS]
    texts = {p.with_suffix(""): p for p in reversed(files) if p.suffix.lower() in TEXT_EXTENSIONS}
    entries: list[Entry] = []
    problems: list[Problem] = []
    if not any(p.with_suffix("") in texts for p in audio):
        return entries, problems, audio
    seen: dict[str, str] = {}
    paired: set[Path] = set()
    for p in audio:
        rel = p.relative_to(root).as_posix()
        txt = texts.get(p.with_suffix(""))
        if txt is None:
            problems.append(Problem(rel, f"no {p.stem}.txt beside it"))
            continue
        paired.add(txt)
        trel = txt.relative_to(root).as_posix()
        text, bad = decode_utf8(txt.read_bytes(), trel)
        if bad:
            problems.append(bad)
            continue
        text = " ".join(text.split())
        if not text:
            problems.append(Problem(trel, "empty text"))
            continue
        name = clip_id(p.relative_to(root).with_suffix("").as_posix().replace("/", "_"))
        if name.casefold() in seen:
            problems.append(Problem(rel, f"duplicate id {name} (also {seen[name.casefold()]})"))
            continue
        seen[name.casefold()] = rel
        entries.append(Entry(name, text, p, rel))
    for stem, txt in texts.items():
        if txt not in paired:
            problems.append(Problem(txt.relative_to(root).as_posix(), "no audio file with the same name"))
    return entries, problems, audio


def scan_source(source: str | os.PathLike, exclude: tuple[Path, ...] = (), speaker: str | None = None) -> SourceScan:
    """Detect the layout of ``source`` (folder or audio file) and list its inputs, skipping ``exclude``
    folders. Raises ``DatasetError`` (missing, no audio, or about the speakers)."""
    src = Path(source)
    if not src.exists():
        raise DatasetError(f"{src}: no such file or folder")
    if src.is_file():
        if src.name == METADATA:
            src = src.parent
        elif src.suffix.lower() in TEXT_EXTENSIONS + (".csv", ".json", ".tsv"):
            raise DatasetError(f"{src}: a text file, not audio: give the dataset folder ({METADATA} + wavs/, "
                               "or NAME.wav + NAME.txt pairs)")
        else:
            return SourceScan("long", src.parent, [Entry(clip_id(src.stem), None, src, src.name)])
    elif src.name == "wavs" and (src.parent / METADATA).is_file():
        src = src.parent  # the audio folder of an LJSpeech dataset: its texts are one level up
    if (src / METADATA).is_file():
        return read_metadata(src, speaker)
    if speaker is not None:
        raise DatasetError(f"{src}: --speaker {speaker} chooses lines of a {METADATA} (ID|SPEAKER|TEXT); "
                           "this folder has none")
    entries, problems, audio = read_pairs(src, exclude)
    if entries or problems:
        return SourceScan("pairs", src, entries, problems)
    if not audio:
        raise DatasetError(f"{src}: no audio files here (expected {METADATA} + wavs/, NAME.wav + NAME.txt pairs, "
                           "or long recordings)")
    seen: set[str] = set()
    out = []
    for p in audio:
        name = clip_id(p.relative_to(src).with_suffix("").as_posix().replace("/", "_"))
        while name.casefold() in seen:
            name += "_"
        seen.add(name.casefold())
        out.append(Entry(name, None, p, p.relative_to(src).as_posix()))
    return SourceScan("long", src, out)
