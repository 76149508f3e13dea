"""Long documents as chapters of plain text for ``audiobook``: ``.txt`` (heading-like lines), ``.md``
(``#`` / ``##`` headings) and ``.epub`` (``tts.epub``); rules: docs/tts.md, Audiobooks. Raises
``DocumentError`` (a ``UsageError``) naming the file and reason."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from speechstudio.tts.epub import read_epub
from speechstudio.tts.frontend.markup import drop_emphasis, html_to_text
from speechstudio.tts.frontend.text import has_speakable
from speechstudio.tts.textfile import DocumentError, read_text_file

DOCUMENT_SUFFIXES = (".txt", ".md", ".markdown", ".epub")
_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred first second third fourth "
    "fifth sixth seventh eighth ninth tenth eleventh twelfth last final".split())
# "Chapter 3", "CHAPTER IV. The Storm", "Part Two: Home", "Book the First"; the keyword capitalised.
_KEYWORD = r"(?:Chapter|CHAPTER|Part|PART|Book|BOOK|Volume|VOLUME)\s+(?:the\s+|THE\s+)?"
_TXT_HEADING = re.compile(
    r"^\s*(?:" + _KEYWORD + r"(\d+|[IVXLCivxlc]+|[A-Za-z]+(?:-[A-Za-z]+)?)"
    r"(?:\s*[.:\u2014\u2013-]\s*(?:\S.{0,70})?|\.)?"
    r"|Prologue|PROLOGUE|Epilogue|EPILOGUE|Preface|PREFACE|Introduction|INTRODUCTION|Afterword|AFTERWORD)\s*$")
_ROMAN = re.compile(r"(?i)M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_MD_HEADING = re.compile(r"^(#{1,2})\s+(.+?)\s*#*\s*$")


def is_text_heading(line: str, next_line: str | None = "") -> bool:
    """A plain-text chapter heading: "Chapter 3" / "Part II" / "Book Two", "Prologue" and the like, or a line of
    capitals (at most 8 words) before a blank line (``next_line`` "" or None)."""
    m = _TXT_HEADING.match(line)
    if m:
        word = m.group(1)
        return word is None or word.isdigit() or bool(_ROMAN.fullmatch(word)) or all(
            w.lower() in _NUMBER_WORDS for w in word.split("-"))
    s = line.strip()
    letters = [ch for ch in s if ch.isalpha()]
    return (len(letters) >= 3 and all(ch.isupper() for ch in letters) and len(s.split()) <= 8
            and not s.endswith((",", ";")) and not (next_line or "").strip())


@dataclass(frozen=True)
class Chapter:
    """One chapter: ``index`` (0-based), ``title``, ``text`` (plain text, paragraphs separated by a blank line)."""

    index: int
    title: str
    text: str


@dataclass(frozen=True)
class Book:
    """A document read for an audiobook: ``title``, ``author`` ("" unknown), ``chapters``, ``cover`` (JPEG / PNG
    bytes or None), ``warnings`` (what was wrong with the file and how it was read anyway)."""

    title: str
    author: str
    chapters: list[Chapter]
    cover: bytes | None = None
    warnings: tuple[str, ...] = ()


def document_text(path: str | Path) -> str:
    """The chapters of a ``.txt`` / ``.md`` / ``.epub`` file one after another (a blank line between them), to be
    read as one text. Raises ``DocumentError``."""
    return "\n\n".join(c.text for c in read_book(path).chapters)


def read_book(path: str | Path) -> Book:
    """Title, author, chapters and cover of a ``.txt`` / ``.md`` / ``.epub`` file. Raises ``DocumentError``
    (unsupported type, missing, not Unicode text, not an EPUB, no text)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if str(path) == "-":
        raise DocumentError(f"-: a book is read from a file ({', '.join(DOCUMENT_SUFFIXES)}), not from standard input")
    if suffix not in DOCUMENT_SUFFIXES:
        raise DocumentError(f"{path}: unsupported document type (use {', '.join(DOCUMENT_SUFFIXES)})")
    if not path.is_file():
        raise DocumentError(f"{path}: file not found")
    author, cover, warnings = "", None, ()
    if suffix == ".epub":
        title, author, cover, parts, warnings = read_epub(path)
    else:
        split = _split_markdown if suffix in (".md", ".markdown") else _split_text
        title, author, parts = split(read_text_file(path))
        title = title or path.stem
    chapters = [(t, x) for t, x in parts if has_speakable(x)]
    if not chapters:
        raise DocumentError(f"{path}: no text a voice can say")
    return Book(title, author, [Chapter(i, t or _untitled(x, title if len(chapters) == 1 else "", i), x)
                                for i, (t, x) in enumerate(chapters)], cover, warnings)


def _untitled(text: str, book_title: str, index: int) -> str:
    """Title of a part without a heading: the book's (if it is the only part), else its first line."""
    first = " ".join(text.strip().splitlines()[0].split())[:60].rstrip(" .,;:") if text.strip() else ""
    return book_title or first or f"Chapter {index + 1}"


def _is_title_page(text: str) -> bool:
    """At most 3 short lines (12 words each) without sentence punctuation: a title and byline."""
    lines = [" ".join(x.split()) for x in text.splitlines() if x.strip()]
    return 0 < len(lines) <= 3 and all(len(x.split()) <= 12 and not re.search(r"[.!?;:]$", x) for x in lines)


# Project Gutenberg: "*** START OF THE PROJECT GUTENBERG EBOOK X ***" ends the header (Title: / Author: lines),
# "*** END OF ..." (or an older "End of the Project Gutenberg EBook of X") starts the licence; neither is read.
_PG_START = re.compile(r"(?i)^\s*\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK")
_PG_END = re.compile(r"(?i)^\s*(?:\*{3}\s*END OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK|End of (?:the )?Project "
                     r"Gutenberg'?s? E-?(?:Book|text))")
_PG_FIELD = re.compile(r"^(Title|Author):[ \t]*(\S.*?)\s*$")
# "CHAPTER I." / "Chapter 3" / "PART TWO:" without a title of its own: a title on the next line is joined to it
_BARE_HEADING = re.compile(r"^\s*" + _KEYWORD + r"\S+?\s*[.:\u2014\u2013-]?\s*$")
_TITLED_HEADING = re.compile(r"^\s*" + _KEYWORD + r"\S+?\s*[.:\u2014\u2013-]\s*(\S.*)$")
_CONTENTS = re.compile(r"(?i)^(?:table of )?contents\.?$")


def _gutenberg(lines: list[str]) -> tuple[str, str, list[str]]:
    """``(title, author, body lines)`` of a Project Gutenberg text: its header's ``Title:`` / ``Author:`` and the
    lines between the START and END markers; ``("", "", lines)`` for other texts."""
    start = next((i for i, x in enumerate(lines[:400]) if _PG_START.match(x)), None)
    end = next((i for i, x in enumerate(lines) if _PG_END.match(x) and i > (start or 0)), None)
    if start is None and end is None:
        return "", "", lines
    fields: dict[str, str] = {}
    for i, line in enumerate(lines[:start or 0]):
        m = _PG_FIELD.match(line)
        if m and m.group(1) not in fields:
            value = m.group(2)
            for more in lines[i + 1:start]:  # a long title goes on over indented lines
                if not more.strip() or not more[:1].isspace():
                    break
                value += " " + more.strip()
            fields[m.group(1)] = value
    return fields.get("Title", ""), fields.get("Author", ""), lines[(start + 1 if start is not None else 0):end]


def _title_line(line: str, after: str | None) -> bool:
    """``line`` (after a bare chapter heading) is its title: short, no sentence, a blank line (or the end) after."""
    s = " ".join(line.split())
    return (bool(s) and len(s.split()) <= 10 and any(ch.isalpha() for ch in s) and not is_text_heading(line, after)
            and not re.search(r"[.!?,;:]$", s) and not (after or "").strip())


def _key(title: str) -> str:
    """A heading compared with a contents line: letters and digits, lower case, no trailing page number."""
    return " ".join(re.sub(r"[\W_]+", " ", re.sub(r"[ .\t]*\d+\s*$", "", title)).lower().split())


def _drop_contents(parts: list[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
    """Without a contents list, lines that repeat later as headings (or as their titles): heading parts with no
    text of their own, a "Contents" part whose lines all do, and such lines after a "Contents" line."""
    afters: list[frozenset[str]] = [frozenset()]  # the keys of the headings after each part, last part first
    for t, _ in reversed(parts[1:]):
        m = _TITLED_HEADING.match(t)
        afters.append(afters[-1] | ({_key(t), _key(m.group(1)) if m else ""} - {""}))
    out = []
    for (title, lines), later in zip(parts, reversed(afters)):
        body = [x for x in lines[1:] if x.strip()]
        if title and _key(title) in later and not body:
            continue  # an entry of a contents list, not a chapter
        if title and _CONTENTS.match(title) and all(_key(x) in later for x in body):
            continue
        lines = list(lines)
        for i, line in enumerate(lines):
            if _CONTENTS.match(line.strip()):  # "Contents" in the text, its entries under it
                j = i + 1
                while j < len(lines) and (not lines[j].strip() or _key(lines[j]) in later):
                    j += 1
                if any(x.strip() for x in lines[i + 1:j]):
                    del lines[i:j]
                break
        out.append((title, lines))
    return out


def _split_text(text: str) -> tuple[str, str, list[tuple[str, str]]]:
    """``(title, author, [(heading, text), ...])`` of a plain text book: title and author ("by NAME") from a
    Project Gutenberg header or a title page, else ""; a contents list is not read."""
    pg_title, pg_author, lines = _gutenberg(text.splitlines())
    parts: list[tuple[str, list[str]]] = [("", [])]
    i = 0
    while i < len(lines):
        line = lines[i]
        after = lines[i + 1] if i + 1 < len(lines) else None
        if is_text_heading(line, after):
            heading = " ".join(line.split())
            if after is not None and _BARE_HEADING.match(line) and _title_line(after, lines[i + 2] if i + 2 < len(
                    lines) else None):  # "CHAPTER I." then "The Start": one heading
                heading = f"{heading}{' ' if heading[-1] in '.:-' else ': '}{' '.join(after.split())}"
                i += 1
            parts.append((heading, [heading.rstrip(".") + ".", ""]))
        else:
            parts[-1][1].append(line)
        i += 1
    parts = _drop_contents(parts)
    out = [(t, re.sub(r"\n\s*\n\s*\n", "\n\n", "\n".join(lines)).strip()) for t, lines in parts]
    if len(out) > 1 and _is_title_page(out[0][1]):
        page = [" ".join(x.split()) for x in out[0][1].splitlines() if x.strip()]
        byline = next((m.group(1) for x in page[1:] if (m := re.match(r"(?i)by\s+(.+)", x))), "")
        return pg_title or page[0], pg_author or byline, out[1:]
    return pg_title, pg_author, out


def markdown_to_text(md: str) -> str:
    """Markdown -> plain text to read aloud (module docstring); headings become their own paragraph."""
    md = re.sub(r"^(```|~~~).*?^\1\s*$", "", md, flags=re.MULTILINE | re.DOTALL)  # fenced code
    md = re.sub(r"<!--.*?-->", "", md, flags=re.DOTALL)
    # images: alt text; links: their text; footnote marks ("[^1]") go
    md = re.sub(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])|\[\^[^\]\s]+\](?!:)", lambda m: m.group(1) or "", md)
    md = re.sub(r"^[ \t]*\[[^\]]+\]:[ \t]*\S+.*$", "", md, flags=re.MULTILINE)  # link definitions
    md = html_to_text(md, strip=False)  # HTML blocks -> paragraphs, inline tags go, entities (tts/frontend/markup.py)
    md = re.sub(r"<([A-Za-z][\w+.-]*:[^\s<>]+|[^\s<>@]+@[^\s<>]+)>|</?[A-Za-z][^>]*>", lambda m: m.group(1) or "", md)
    md = re.sub(r"`([^`]*)`", r"\1", md)
    md = re.sub(r"^[ \t]{0,3}(?:#{1,6}[ \t]+(.+?)[ \t]*#*|(\S.*?)[ \t]*\n[ \t]{0,3}(?:=+|-+))[ \t]*$",  # ATX, setext
                lambda m: "\n" + (m.group(1) or m.group(2)).rstrip(".") + ".\n", md, flags=re.MULTILINE)
    md = re.sub(r"^[ \t]{0,3}(?:[-*+]|\d+[.)])[ \t]+", "", md, flags=re.MULTILINE)  # list markers
    md = re.sub(r"^[ \t]{0,3}>[ \t]?", "", md, flags=re.MULTILINE)  # block quotes
    md = re.sub(r"^[ \t]*(?:[-*_][ \t]*){3,}$", "", md, flags=re.MULTILINE)  # rules
    md = drop_emphasis(md)
    md = re.sub(r"^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$", "", md, flags=re.MULTILINE)  # table rules
    md = re.sub(r"^[ \t]*\|[ \t]*(.*?)[ \t]*\|?[ \t]*$", r"\1", md, flags=re.MULTILINE)  # a row's outer pipes
    md = re.sub(r"[ \t]*(?<!\\)\|[ \t]*", ", ", md)  # cells
    md = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", md)  # backslash escapes
    return re.sub(r"\n{3,}", "\n\n", md).strip()


_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


def _split_markdown(md: str) -> tuple[str, str, list[tuple[str, str]]]:
    """``(book title or "", author or "", [(heading, text), ...])`` of a Markdown book (module docstring)."""
    front = _FRONT_MATTER.match(md)
    fields = [re.search(rf"^{key}:[ \t]*(.+?)[ \t]*$", front.group(1), re.MULTILINE) if front else None
              for key in ("title", "author")]  # YAML front matter (Pandoc, Jekyll, Hugo); never read aloud
    title, author = (found.group(1).strip("'\"") if found else "" for found in fields)
    md = md[front.end():] if front else md
    parts: list[tuple[str, int, list[str]]] = [("", 0, [])]
    fence = False
    for line in md.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        m = None if fence else _MD_HEADING.match(line)
        if m:
            parts.append((markdown_to_text(m.group(2)).rstrip("."), len(m.group(1)), [line]))
        else:
            parts[-1][2].append(line)
    levels = [level for _, level, _ in parts[1:]]
    if levels.count(1) == 1 and levels[0] == 1 and 2 in levels:  # "# Book" over "## Chapter" headings
        heading, _, lines = parts.pop(1)
        title = title or heading
        body = markdown_to_text("\n".join(lines[1:]))
        if has_speakable(body):
            parts.insert(1, (heading, 1, lines))
    return title, author, [(t, markdown_to_text("\n".join(lines))) for t, _, lines in parts]
