"""Long documents as chapters of plain text for ``audiobook``: ``.txt`` (chapter heading lines such as
``Chapter 3`` / ``Part Two`` / ``Prologue``; a short title page gives the title), ``.md`` (``#`` /
``##`` headings; Markdown reduced to what a listener needs; title from YAML ``title:`` or the only
level-1 heading) and ``.epub`` (EPUB 2/3 with EbookLib, AGPL-3.0: spine documents in reading order,
author ``dc:creator``, cover image). Rules in full: docs/tts.md, Audiobooks.

Text files may be UTF-8, UTF-16 or UTF-32 (``textfile``). Errors: ``DocumentError`` (a ``UsageError``)
naming the file and reason."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from speechstudio.errors import UsageError
from speechstudio.tts.markup import html_to_text
from speechstudio.tts.text import has_speakable

__all__ = ["DOCUMENT_SUFFIXES", "Book", "Chapter", "DocumentError", "markdown_to_text", "read_book", "read_document"]

DOCUMENT_SUFFIXES = (".txt", ".md", ".markdown", ".epub")
_TXT_HEADING = re.compile(
    r"^\s*(?:(?:chapter|part|book)\s+(?:[0-9]+|[ivxlcdm]+|[a-z]+(?:-[a-z]+)?)\b[.:]?(?:\s+.{0,80})?"
    r"|prologue|epilogue|preface|introduction|afterword)\s*$", re.IGNORECASE)
_MD_HEADING = re.compile(r"^(#{1,2})\s+(.+?)\s*#*\s*$")
_BLOCKS = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "section", "tr", "br", "dt", "dd",
           "figcaption", "pre"}


class DocumentError(UsageError):
    """A document that cannot be read as chapters; the message names the file and the reason."""


@dataclass(frozen=True)
class Chapter:
    """One chapter: ``index`` (0-based), ``title``, ``text`` (plain text, paragraphs separated by a
    blank line)."""

    index: int
    title: str
    text: str


@dataclass(frozen=True)
class Book:
    """A document read for an audiobook: ``title``, ``author`` ("" when unknown), ``chapters``,
    ``cover``: the cover image's bytes (JPEG or PNG, as stored in the EPUB) or None."""

    title: str
    author: str
    chapters: list[Chapter]
    cover: bytes | None = None


def read_document(path: str | Path) -> tuple[str, list[Chapter]]:
    """``(book title, chapters)`` of a ``.txt`` / ``.md`` / ``.epub`` file (module docstring).

    Chapters without anything speakable are left out. Raises ``DocumentError``."""
    book = read_book(path)
    return book.title, book.chapters


def read_book(path: str | Path) -> Book:
    """Title, author, chapters and cover of a ``.txt`` / ``.md`` / ``.epub`` file (module docstring).

    Raises ``DocumentError`` (unsupported type, missing, not Unicode text, not an EPUB, no text)."""
    from speechstudio.tts.textfile import TextFileError, read_text_file

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in DOCUMENT_SUFFIXES:
        raise DocumentError(f"{path}: unsupported document type (use {', '.join(DOCUMENT_SUFFIXES)})")
    if not path.is_file():
        raise DocumentError(f"{path}: file not found")
    author, cover = "", None
    if suffix == ".epub":
        title, author, cover, parts = _read_epub(path)
    else:
        try:
            text = read_text_file(path)
        except TextFileError as exc:
            raise DocumentError(str(exc)) from None
        if suffix in (".md", ".markdown"):
            title, parts = _split_markdown(text)
        else:
            title, parts = _split_text(text)
        title = title or path.stem
    chapters = [(t, x) for t, x in parts if has_speakable(x)]
    if not chapters:
        raise DocumentError(f"{path}: no text a voice can say")
    return Book(title, author, [Chapter(i, t or _untitled(x, title if len(chapters) == 1 else "", i), x)
                                for i, (t, x) in enumerate(chapters)], cover)


def _untitled(text: str, book_title: str, index: int) -> str:
    """Title of a part without a heading: the book's (if it is the only part), else its first line."""
    first = " ".join(text.strip().splitlines()[0].split())[:60].rstrip(" .,;:") if text.strip() else ""
    return book_title or first or f"Chapter {index + 1}"


def _is_title_page(text: str) -> bool:
    """At most 3 short lines (12 words each) without sentence punctuation: a title and byline."""
    lines = [" ".join(x.split()) for x in text.splitlines() if x.strip()]
    return 0 < len(lines) <= 3 and all(len(x.split()) <= 12 and not re.search(r"[.!?;:]$", x) for x in lines)


def _split_text(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``(title from a title page or "", [(heading, text), ...])`` of a plain text book."""
    parts: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        if _TXT_HEADING.match(line):
            parts.append((" ".join(line.split()), [line.strip() + ".", ""]))
        else:
            parts[-1][1].append(line)
    out = [(t, re.sub(r"\n\s*\n\s*\n", "\n\n", "\n".join(lines)).strip()) for t, lines in parts]
    if len(out) > 1 and _is_title_page(out[0][1]):
        return " ".join(out[0][1].split("\n")[0].split()), out[1:]
    return "", out


def markdown_to_text(md: str) -> str:
    """Markdown -> plain text to read aloud (module docstring); headings become their own paragraph."""
    md = re.sub(r"^(```|~~~).*?^\1\s*$", "", md, flags=re.MULTILINE | re.DOTALL)  # fenced code
    md = re.sub(r"<!--.*?-->", "", md, flags=re.DOTALL)
    md = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", md)  # images: alt text
    md = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", md)  # links: their text
    md = re.sub(r"\[([^\]]+)\]\[[^\]]*\]", r"\1", md)
    md = re.sub(r"^[ \t]*\[[^\]]+\]:[ \t]*\S+.*$", "", md, flags=re.MULTILINE)  # link definitions
    md = html_to_text(md, strip=False)  # HTML blocks -> paragraphs, inline tags go, entities (tts/markup.py)
    md = re.sub(r"</?[A-Za-z][^>]*>", "", md)  # other tags
    md = re.sub(r"`([^`]*)`", r"\1", md)
    md = re.sub(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", lambda m: "\n" + m.group(1).rstrip(".") + ".\n", md,
                flags=re.MULTILINE)
    md = re.sub(r"^[ \t]{0,3}(?:[-*+]|\d+[.)])[ \t]+", "", md, flags=re.MULTILINE)  # list markers
    md = re.sub(r"^[ \t]{0,3}>[ \t]?", "", md, flags=re.MULTILINE)  # block quotes
    md = re.sub(r"^[ \t]*(?:[-*_][ \t]*){3,}$", "", md, flags=re.MULTILINE)  # rules
    md = re.sub(r"(\*\*|__)(.+?)\1", r"\2", md)
    md = re.sub(r"(?<![\w*])([*_])(?!\s)(.+?)(?<!\s)\1(?![\w*])", r"\2", md)
    md = re.sub(r"^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$", "", md, flags=re.MULTILINE)  # table rules
    md = md.replace("|", ", ")
    return re.sub(r"\n{3,}", "\n\n", md).strip()


_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


def _split_markdown(md: str) -> tuple[str, list[tuple[str, str]]]:
    """``(book title or "", [(heading, text), ...])`` of a Markdown book (module docstring)."""
    title = ""
    front = _FRONT_MATTER.match(md)
    if front:  # YAML front matter (Pandoc, Jekyll, Hugo): its title; never read aloud
        md = md[front.end():]
        found = re.search(r"^title:[ \t]*(.+?)[ \t]*$", front.group(1), re.MULTILINE)
        title = found.group(1).strip("'\"") if found else ""
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
    return title, [(t, markdown_to_text("\n".join(lines))) for t, _, lines in parts]


def _html_text(content: bytes) -> tuple[str, str]:
    """``(first heading, text)`` of an XHTML document: block elements as paragraphs."""
    from lxml import etree, html

    try:
        root = html.fromstring(content)
    except (etree.ParserError, ValueError):
        return "", ""
    for bad in root.xpath("//script|//style|//head"):
        bad.drop_tree()
    heading = ""
    for h in root.xpath("//h1|//h2|//h3"):
        heading = " ".join(h.text_content().split())
        if heading:
            break
    pieces: list[str] = []

    def walk(el) -> None:
        tag = el.tag.split("}")[-1].lower() if isinstance(el.tag, str) else ""
        block = tag in _BLOCKS
        if block:
            pieces.append("\n\n")
        if el.text and isinstance(el.tag, str):
            pieces.append(el.text)
        for child in el:
            walk(child)
            if child.tail:
                pieces.append(child.tail)
        if block:
            if tag.startswith("h") and len(tag) == 2:
                pieces.append(".")
            pieces.append("\n\n")

    walk(root)
    text = "".join(pieces)
    paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    return heading, "\n\n".join(p for p in paras if p and p != ".")


def _read_epub(path: Path) -> tuple[str, str, bytes | None, list[tuple[str, str]]]:
    """``(title, author, cover bytes or None, [(heading, text), ...])`` of an EPUB."""
    try:
        import ebooklib
        from ebooklib import epub
    except ImportError as exc:
        raise DocumentError(f"{path}: reading EPUB needs EbookLib: pip install ebooklib") from exc
    try:
        book = epub.read_epub(str(path), options={"ignore_ncx": True})
    except Exception as exc:  # zipfile.BadZipFile, KeyError, EpubException, lxml errors
        raise DocumentError(f"{path}: not a readable EPUB ({type(exc).__name__}: {str(exc)[:80]})") from exc
    titles = book.get_metadata("DC", "title")
    book_title = " ".join(titles[0][0].split()) if titles and titles[0][0] else path.stem
    authors = [" ".join(a[0].split()) for a in book.get_metadata("DC", "creator") if a[0]]
    toc_titles: dict[str, str] = {}

    def walk_toc(items) -> None:
        for it in items:
            if isinstance(it, tuple):
                walk_toc([it[0]])
                walk_toc(it[1])
            elif getattr(it, "href", None):
                toc_titles.setdefault(it.href.split("#")[0], it.title)

    walk_toc(book.toc)
    out: list[tuple[str, str]] = []
    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT or isinstance(item, epub.EpubNav):
            continue
        heading, text = _html_text(item.get_content())
        if _only_names(text, [book_title, *authors]):
            continue  # a title page: the title is the book's metadata, not a one-second chapter
        out.append((heading or toc_titles.get(item.get_name(), ""), text))
    return book_title, ", ".join(authors), _epub_cover(book, ebooklib), out


def _only_names(text: str, names: list[str]) -> bool:
    """True when ``text`` says nothing but ``names`` (and "by"): an EPUB title page."""
    rest = text.casefold()
    for name in sorted(names, key=len, reverse=True):
        if name:
            rest = rest.replace(name.casefold(), " ")
    rest = re.sub(r"\bby\b", " ", rest)
    return bool(text.strip()) and not has_speakable(rest)


def _epub_cover(book, ebooklib) -> bytes | None:
    """The cover image's bytes: EPUB 3 ``cover-image`` item, EPUB 2 ``<meta name="cover">``, else
    the first image whose id or file name says "cover"; None when there is none."""
    covers = list(book.get_items_of_type(ebooklib.ITEM_COVER))
    if not covers:
        for _value, attrs in book.get_metadata("OPF", "cover"):
            item = book.get_item_with_id(attrs.get("content", ""))
            if item is not None:
                covers.append(item)
    if not covers:
        covers = [i for i in book.get_items_of_type(ebooklib.ITEM_IMAGE)
                  if "cover" in (i.get_id() or "").lower() or "cover" in i.get_name().lower()]
    for item in covers:
        data = item.get_content()
        if data:
            return data
    return None
