"""Import a voice dataset: an LJSpeech folder, wav+txt pairs, or long recordings to cut.

``scan_source(path)`` decides what a source is and lists its inputs (``Entry``) plus the inputs it
refused (``Problem``, naming ``file:line`` and the reason); ``build.build_dataset`` (re-exported
here) decodes, cuts, checks and writes the prepared dataset.

Layouts (auto-detected, in this order):

* **LJSpeech** (keithito.com/LJ-Speech-Dataset): ``metadata.csv`` with ``ID|TEXT[|NORMALIZED]``
  lines (UTF-8), audio in ``wavs/ID.wav`` (any audio extension FFmpeg reads is accepted, and
  ``ID.wav`` beside metadata.csv). TEXT is used; NORMALIZED only when TEXT is empty. The first
  field may also be a relative path (``wavs/a.flac``, ``audio/b``); absolute paths and paths with
  ``..`` are refused, so a dataset never reads outside its folder. A recording made with
  ``finetune.recording`` is such a folder (plus ``consent.txt``). Its ``wavs/`` folder given as
  the source is read as the dataset folder (not as long recordings).
* **wav+txt pairs**: ``NAME.wav`` (or .flac, .mp3, ...) with ``NAME.txt`` (or ``NAME.lab``) beside
  it, in the folder or its subfolders (hidden folders skipped).
* **long recordings**: one audio file, or a folder of audio files none of which has a text file:
  each is cut into sentence clips by Whisper word times (``finetune.longform``).

Refused with a ``Problem`` (never dropped silently): lines without ``|``, empty ids or texts,
duplicate ids, missing audio, text that is not UTF-8, audio files no line refers to, text files
without audio, audio without text (pairs mode); undecodable audio is found while building.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from speechstudio.finetune.manifest import DatasetError, Problem

if TYPE_CHECKING:
    from speechstudio.finetune.build import build_dataset  # noqa: F401  (served by __getattr__ below)

__all__ = ["Entry", "SourceScan", "scan_source", "read_ljspeech", "read_pairs", "clip_id", "AUDIO_EXTENSIONS",
           "TEXT_EXTENSIONS", "build_dataset"]

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
    """``mode``: ``ljspeech``, ``pairs`` or ``long``; ``root``: the dataset folder."""

    mode: str
    root: Path
    entries: list[Entry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def clip_id(name: str) -> str:
    """A file-name-safe id: ASCII letters, digits, ``_ . -``; others become ``_``. Ids are
    compared case-insensitively (``A`` and ``a`` are one file on Windows and macOS)."""
    out = re.sub(r"[^A-Za-z0-9_.-]", "_", name.strip())
    return ("_" + out[1:]) if out.startswith(".") else (out or "_")


def _utf8(raw: bytes, where: str, first_line: int = 1) -> tuple[str | None, Problem | None]:
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as e:
        line = first_line + raw[: e.start].count(b"\n")
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        return None, Problem(f"{where}:{line}", f"not UTF-8 text (byte 0x{raw[e.start]:02x} at column {col}); "
                                               "save the file as UTF-8")


def _is_audio(p: Path) -> bool:
    return p.suffix.lower() in AUDIO_EXTENSIONS and p.is_file()


def _find_audio(root: Path, rel: PurePosixPath) -> Path | None:
    path = root.joinpath(*rel.parts)
    if path.suffix.lower() in AUDIO_EXTENSIONS:
        return path if path.is_file() else None
    for ext in AUDIO_EXTENSIONS:
        cand = path.with_name(path.name + ext)
        if cand.is_file():
            return cand
    return None


def read_ljspeech(root: Path) -> tuple[list[Entry], list[Problem]]:
    """Entries and problems of ``root/metadata.csv`` (see the module docstring)."""
    entries: list[Entry] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    used: set[Path] = set()
    try:
        raw = (root / METADATA).read_bytes()
    except OSError as exc:
        raise DatasetError(f"{root / METADATA}: cannot read ({exc.strerror or exc})") from exc
    if not raw.strip(b" \t\r\n\xef\xbb\xbf"):
        raise DatasetError(f"{root / METADATA}: the file is empty (expected one ID|TEXT line per clip)")
    for n, line_bytes in enumerate(raw.split(b"\n"), 1):
        where = f"{METADATA}:{n}"
        line, bad = _utf8(line_bytes.rstrip(b"\r").removeprefix(b"\xef\xbb\xbf"), METADATA, n)
        if bad:
            problems.append(bad)
            # its audio is named by this line: not also reported as "no line refers to it"
            rough = line_bytes.split(b"|", 1)[0].decode("utf-8", "replace").strip()
            if b"|" in line_bytes and rough and not re.search(r"[/\\]|\.\.", rough):
                audio = _find_audio(root, PurePosixPath("wavs", rough))
                used.update([audio.resolve()] if audio else [])
            continue
        if not line.strip():
            continue
        if "|" not in line:
            problems.append(Problem(where, "expected ID|TEXT (no '|' on the line)"))
            continue
        fields = [f.strip() for f in line.split("|")]
        ident, text = fields[0], fields[1] or (fields[2] if len(fields) > 2 else "")
        text = " ".join(text.split())
        if not ident:
            problems.append(Problem(where, "empty id"))
            continue
        is_path = "/" in ident or "\\" in ident or ident.startswith("..") or ident.lower().endswith(AUDIO_EXTENSIONS)
        if is_path:
            rel = PurePosixPath(ident.replace("\\", "/"))
            if rel.is_absolute() or re.match(r"^[A-Za-z]:", ident):
                problems.append(Problem(where, f"{ident}: absolute path refused "
                                               "(audio must be inside the dataset folder)"))
                continue
            if ".." in rel.parts:
                problems.append(Problem(where, f"{ident}: path leaves the dataset folder ('..' refused)"))
                continue
            audio = _find_audio(root, rel) or (_find_audio(root, PurePosixPath("wavs", *rel.parts))
                                               if len(rel.parts) == 1 else None)
            name = clip_id(PurePosixPath(rel.name).stem if rel.suffix.lower() in AUDIO_EXTENSIONS else rel.name)
            missing = ident
        else:
            audio = _find_audio(root, PurePosixPath("wavs", ident)) or _find_audio(root, PurePosixPath(ident))
            name, missing = clip_id(ident), f"wavs/{ident}.wav"
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
        used.add(audio.resolve())
        entries.append(Entry(name, text, audio, where))
    wavs = root / "wavs"
    if wavs.is_dir():
        for p in sorted(wavs.iterdir()):
            if _is_audio(p) and p.resolve() not in used:
                problems.append(Problem(f"wavs/{p.name}", f"no line in {METADATA} refers to it"))
    return entries, problems


def _walk(root: Path, exclude: tuple[Path, ...]) -> list[Path]:
    files = []
    ex = {p.resolve() for p in exclude}
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        dirnames[:] = sorted(x for x in dirnames if not x.startswith(".") and (d / x).resolve() not in ex)
        files += [d / f for f in sorted(filenames) if not f.startswith(".")]
    return files


def read_pairs(root: Path, exclude: tuple[Path, ...] = ()) -> tuple[list[Entry], list[Problem], list[Path]]:
    """``(entries, problems, audio_files)`` of a wav+txt folder; ``entries`` is empty when no
    audio file has a text file (then ``audio_files`` are long recordings)."""
    files = _walk(root, exclude)
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
        text, bad = _utf8(txt.read_bytes(), trel)
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


def scan_source(source: str | os.PathLike, exclude: tuple[Path, ...] = ()) -> SourceScan:
    """Detect the layout of ``source`` (a folder or one audio file) and list its inputs.

    ``exclude``: folders not to scan (the output's ``clips/`` when it lies inside the source).
    Raises ``DatasetError`` when the source does not exist or holds no audio."""
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
        entries, problems = read_ljspeech(src)
        return SourceScan("ljspeech", src, entries, problems)
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


def __getattr__(name: str):
    # ``build_dataset`` lives in ``finetune.build`` (which imports this module); served lazily here.
    if name == "build_dataset":
        from speechstudio.finetune.build import build_dataset

        return build_dataset
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
