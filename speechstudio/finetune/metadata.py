"""The lines of an LJSpeech / Piper ``metadata.csv``: decoding, fields, header, layout, speakers.

Layouts (``|``-separated, one clip per line): ``text`` ``ID|TEXT``; ``speaker`` ``ID|SPEAKER|TEXT``
(Piper ``--multiple-speakers``); ``normalized`` ``ID|TEXT|NORMALIZED`` (LJSpeech; the NORMALIZED field is
what the audio says, "nine one one" for "911", and is trained on; rhasspy/piper#368). Three fields are
``speaker`` when a header says so, else when most middle fields are short (<= 3 words, 40 chars), not
:func:`similar` to the third (< 60 % letters/digits in common, ``difflib``) and repeat. Also read: BOM,
UTF-16, CRLF/CR, blank lines, a header line, and CSV quoting (``""`` inside a fully quoted field)."""
from __future__ import annotations

import contextlib
import csv
import difflib
import re
from collections import Counter
from dataclasses import dataclass, field

from speechstudio.finetune.manifest import Problem
from speechstudio.tts.frontend.text import normalize_english

#: First fields of a header line (compared case-insensitively, ``-`` / space as ``_``).
HEADER_IDS = {"id", "ids", "file", "filename", "file_name", "filepath", "file_path", "path", "audio", "audio_file",
              "audio_path", "audio_filename", "wav", "wav_file", "wav_path", "wav_filename", "utt", "utt_id",
              "utterance", "utterance_id", "name", "clip", "clip_id", "key"}
HEADER_SPEAKER = {"speaker", "speaker_id", "speaker_name", "speakers", "spk", "spk_id", "voice", "voice_id"}


@dataclass(frozen=True)
class Row:
    """One data line: ``line`` number (1-based) and its fields, stripped."""

    line: int
    fields: tuple[str, ...]


@dataclass
class MetadataLines:
    """Decoded lines of one file: ``rows``, ``problems`` (undecodable lines; their rough ids in
    ``undecodable_ids``), ``header`` (fields or None) and its line number."""

    rows: list[Row] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    undecodable_ids: list[str] = field(default_factory=list)
    header: tuple[str, ...] | None = None
    header_line: int = 0


def decode_utf8(raw: bytes, where: str, first_line: int = 1) -> tuple[str | None, Problem | None]:
    """``(text, None)`` or ``(None, Problem)`` naming the line and column of the first byte that is not UTF-8
    (a leading BOM is dropped); ``first_line``: the line number of ``raw``'s first line."""
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as e:
        line = first_line + raw[: e.start].count(b"\n")
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        return None, Problem(f"{where}:{line}", f"not UTF-8 text (byte 0x{raw[e.start]:02x} at column {col}); "
                                               "save the file as UTF-8")


def split_fields(line: str) -> list[str]:
    """``|``-separated fields, stripped; CSV-quoted fields unquoted (``csv``, strict). A line whose
    quotes do not follow the CSV rules is split as written."""
    plain = [f.strip() for f in line.split("|")]
    if '"' not in line:
        return plain
    try:
        return [f.strip() for f in next(csv.reader([line], delimiter="|", skipinitialspace=True, strict=True))]
    except csv.Error:
        return plain


def read_lines(raw: bytes, where: str) -> MetadataLines:
    """Split ``raw`` (the file's bytes) into rows; ``where`` names the file in problems. The first data
    line is the header when it looks like one (:func:`_is_header`)."""
    out = MetadataLines()
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 (Windows Notepad's "Unicode")
        with contextlib.suppress(UnicodeDecodeError):  # else left to the per-line UTF-8 check, which names the line
            raw = raw.decode("utf-16").encode("utf-8")
    for n, line_bytes in enumerate(re.split(rb"\r\n|\n|\r", raw), 1):
        line, bad = decode_utf8(line_bytes.removeprefix(b"\xef\xbb\xbf"), where, n)
        if bad:
            out.problems.append(bad)
            out.undecodable_ids.append(line_bytes.split(b"|", 1)[0].decode("utf-8", "replace").strip()
                                       if b"|" in line_bytes else "")
            continue
        line = line.replace("\ufeff", "")
        if not line.strip():
            continue
        fields = tuple(split_fields(line))
        if not out.rows and out.header is None and _is_header(fields):
            out.header, out.header_line = fields, n
            continue
        out.rows.append(Row(n, fields))
    return out


def _key(text: str) -> str:
    return re.sub(r"[\s-]+", "_", text.strip().casefold())


def _is_header(fields: tuple[str, ...]) -> bool:
    """``id|text``-like: a known first field and only short words elsewhere."""
    return (len(fields) >= 2 and _key(fields[0]) in HEADER_IDS
            and all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_ -]{0,29}", f) for f in fields[1:]))


def _letters(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def similar(a: str, b: str) -> bool:
    """True when ``b`` reads as a version of ``a`` (same letters and digits, or a ``difflib``
    ratio of at least 0.6 on them, with the numbers of ``a`` spelled out when it has digits:
    "Call 911 now." / "Call nine one one now."): LJSpeech's normalised text of the same sentence."""
    la, lb = _letters(a), _letters(b)
    if la == lb or difflib.SequenceMatcher(None, la, lb, autojunk=False).ratio() >= 0.6:
        return True
    if not any(ch.isdigit() for ch in a):
        return False
    spelled = _letters(normalize_english(a))
    return difflib.SequenceMatcher(None, spelled, lb, autojunk=False).ratio() >= 0.6


def _short(text: str) -> bool:
    return 0 < len(text) <= 40 and len(text.split()) <= 3


def detect_layout(rows: list[Row], header: tuple[str, ...] | None = None) -> str:
    """``text``, ``speaker`` or ``normalized`` for the rows of one file (module docstring); with mostly
    two-field rows, three-field rows are refused unless the third is :func:`similar` to the second."""
    if header is not None and len(header) >= 3:
        return "speaker" if _key(header[1]) in HEADER_SPEAKER else "normalized"
    if header is not None:
        return "text"
    three = [r.fields for r in rows if len(r.fields) == 3]
    if len(three) <= sum(1 for r in rows if len(r.fields) == 2):
        return "text"
    speaker_votes = [f[1] for f in three if f[2] and _short(f[1]) and not similar(f[1], f[2])]
    normal_votes = len(three) - len(speaker_votes)
    names = Counter(name.casefold() for name in speaker_votes)
    repeats = len(names) <= max(3, len(speaker_votes) // 2)
    return "speaker" if len(speaker_votes) > normal_votes and repeats else "normalized"
