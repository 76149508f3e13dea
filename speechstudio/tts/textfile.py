"""Read a user's text file or stdin in its Unicode encoding (BOM, BOM-less UTF-16, an SSML ``<?xml encoding>``, else
UTF-8; docs/tts.md). Undecodable bytes raise ``DocumentError`` (a ``UsageError``) naming the file and byte offset."""
from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from pathlib import Path

from speechstudio.errors import UsageError

_BOMS = ((codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_BE, "utf-16"), (codecs.BOM_UTF16_LE, "utf-16"))
_NAMES = {"utf-32": "UTF-32", "utf-8-sig": "UTF-8", "utf-16": "UTF-16", "utf-16-le": "UTF-16 LE",
          "utf-16-be": "UTF-16 BE", "utf-8": "UTF-8"}
_CHUNK = 1 << 20
_XML_DECL = re.compile(rb"\A\s*<\?xml[^>]*?\sencoding\s*=\s*[\"']([A-Za-z][A-Za-z0-9._-]*)[\"']")


class DocumentError(UsageError):
    """A text file, input or document that cannot be read (missing, not Unicode text, not an EPUB, nothing to
    say); the message names it and the reason."""


def detect_encoding(head: bytes) -> str:
    """Python codec name for text starting with ``head`` (the first few KB); BOM-less UTF-16 when at
    least 40 % of the 2-byte units have a NUL in one half and none in the other."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    sample = head[: 4096 - 4096 % 2]
    pairs = len(sample) // 2
    if pairs >= 2 and b"\x00" in sample:
        even = sum(1 for i in range(0, 2 * pairs, 2) if sample[i] == 0)
        odd = sum(1 for i in range(1, 2 * pairs, 2) if sample[i] == 0)
        if odd >= 0.4 * pairs and even == 0:
            return "utf-16-le"
        if even >= 0.4 * pairs and odd == 0:
            return "utf-16-be"
    declared = _XML_DECL.match(head)
    if declared:
        try:
            name = codecs.lookup(declared.group(1).decode("ascii")).name
        except LookupError:
            name = ""
        if name and not name.startswith(("utf-16", "utf-32")):
            return "utf-8" if name in ("utf-8", "ascii") else name
    return "utf-8"


#: documents that are not text, by their first bytes (their own format specifications' magic numbers)
_NOT_TEXT = ((b"%PDF-", "a PDF document"), (b"PK\x03\x04", "a ZIP file (a Word .docx or OpenDocument file?)"),
             (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Word or Office document"))


def _text_encoding(head: bytes, name: str) -> str:
    """:func:`detect_encoding` of a text's first bytes; ``DocumentError`` for a document that is not text (a PDF,
    a Word file: their bytes can pass for BOM-less UTF-16)."""
    kind = next((what for magic, what in _NOT_TEXT if head.startswith(magic)), None)
    if kind:
        raise DocumentError(f"{name}: {kind}, not text; save it as plain text (.txt), Markdown or EPUB first")
    return detect_encoding(head)


def _error(name: str, encoding: str, exc: UnicodeDecodeError, offset: int = 0) -> DocumentError:
    where = offset + exc.start
    what = f"byte 0x{exc.object[exc.start]:02X}" if exc.start < len(exc.object) else "the last bytes"
    return DocumentError(f"{name}: not {_NAMES.get(encoding, encoding)} text ({what} at offset {where}: "
                         f"{exc.reason}); save it as UTF-8 (or UTF-16 with a BOM) and try again")


def decode_text(data: bytes, name: str = "input") -> str:
    """``data`` as text (encoding from ``detect_encoding``, BOM removed). ``name`` is used in the
    error (a file name, or ``"standard input"``). Raises ``DocumentError``."""
    encoding = _text_encoding(data[:4096], name)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise _error(name, encoding, exc) from None


def _check(path: Path, encoding: str) -> None:
    """Decode the whole file in 1 MB pieces (memory stays flat) to fail before any work."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    offset = 0
    with open(path, "rb") as fh:
        while True:
            block = fh.read(_CHUNK)
            try:
                decoder.decode(block, final=not block)
            except UnicodeDecodeError as exc:
                raise _error(str(path), encoding, exc, offset) from None
            if not block:
                return
            offset += len(block)


def read_text_file(path: str | Path) -> str:
    """The whole text of ``path`` (any encoding of the module docstring), ``\\r\\n`` -> ``\\n``.
    Raises ``DocumentError`` (missing, a folder, unreadable, not Unicode text)."""
    return "".join(iter_text_lines(path))


def iter_text_lines(path: str | Path) -> Iterator[str]:
    """Check the whole file decodes (``DocumentError`` at once if not), then return an iterator
    over its lines (with their ``\\n``), read lazily: a long file is never held in memory."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            encoding = _text_encoding(fh.read(4096), str(path))
    except IsADirectoryError:
        raise DocumentError(f"{path}: is a folder, not a text file") from None
    except FileNotFoundError:
        raise DocumentError(f"{path}: text file not found") from None
    except OSError as exc:
        raise DocumentError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    _check(path, encoding)

    def lines() -> Iterator[str]:
        with open(path, encoding=encoding) as fh:
            yield from fh

    return lines()
