"""Long documents (plain text, Markdown, EPUB) as chapters of plain text for ``audiobook``.

* ``.txt``: a line such as ``Chapter 3``, ``CHAPTER IV. The Storm``, ``Part Two`` or ``Prologue`` /
  ``Epilogue`` alone on its line starts a chapter; without such lines the file is one chapter. A part
  without a heading (front matter) is titled by its first line, a file of one part by its name.
* ``.md`` / ``.markdown``: every level-1 or level-2 heading (``#`` / ``##``) starts a chapter; the
  Markdown is reduced to the text a listener needs (links keep their text, images their alt text,
  code blocks, HTML tags, emphasis and list markers go).
* ``.epub`` (EPUB 2 and 3, read with EbookLib, AGPL-3.0): the documents of the spine in reading
  order; each with speakable text is a chapter, titled by its first heading (else its table of
  contents entry, else its first line). Block elements (``p``, headings, ``li``, ``div``) become
  paragraphs; ``script`` / ``style`` are dropped.

Errors: ``DocumentError`` (a ``UsageError``) naming the file and the reason (not UTF-8, not an
EPUB, no text, EbookLib missing).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from speechstudio.errors import UsageError
from speechstudio.tts.text import has_speakable

__all__ = ["DOCUMENT_SUFFIXES", "Chapter", "DocumentError", "markdown_to_text", "read_document"]

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


def read_document(path: str | Path) -> tuple[str, list[Chapter]]:
    """``(book title, chapters)`` of a ``.txt`` / ``.md`` / ``.epub`` file (module docstring).

    Chapters without anything speakable are left out. Raises ``DocumentError``."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in DOCUMENT_SUFFIXES:
        raise DocumentError(f"{path}: unsupported document type (use {', '.join(DOCUMENT_SUFFIXES)})")
    if not path.is_file():
        raise DocumentError(f"{path}: file not found")
    if suffix == ".epub":
        title, parts = _read_epub(path)
    else:
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DocumentError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
        title = path.stem
        parts = _split_markdown(text) if suffix in (".md", ".markdown") else _split_text(text)
    chapters = [(t, x) for t, x in parts if has_speakable(x)]
    if not chapters:
        raise DocumentError(f"{path}: no text a voice can say")
    return title, [Chapter(i, t or _untitled(x, title if len(chapters) == 1 else "", i), x)
                   for i, (t, x) in enumerate(chapters)]


def _untitled(text: str, book_title: str, index: int) -> str:
    """Title of a part without a heading: the book's (if it is the only part), else its first line."""
    first = " ".join(text.strip().splitlines()[0].split())[:60].rstrip(" .,;:") if text.strip() else ""
    return book_title or first or f"Chapter {index + 1}"


def _split_text(text: str) -> list[tuple[str, str]]:
    parts: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        if _TXT_HEADING.match(line):
            parts.append((" ".join(line.split()), [line.strip() + ".", ""]))
        else:
            parts[-1][1].append(line)
    return [(t, re.sub(r"\n\s*\n\s*\n", "\n\n", "\n".join(lines)).strip()) for t, lines in parts]


def markdown_to_text(md: str) -> str:
    """Markdown -> plain text to read aloud (module docstring); headings become their own paragraph."""
    md = re.sub(r"^(```|~~~).*?^\1\s*$", "", md, flags=re.MULTILINE | re.DOTALL)  # fenced code
    md = re.sub(r"<!--.*?-->", "", md, flags=re.DOTALL)
    md = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", md)  # images: alt text
    md = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", md)  # links: their text
    md = re.sub(r"\[([^\]]+)\]\[[^\]]*\]", r"\1", md)
    md = re.sub(r"^[ \t]*\[[^\]]+\]:[ \t]*\S+.*$", "", md, flags=re.MULTILINE)  # link definitions
    md = re.sub(r"</?[A-Za-z][^>]*>", "", md)  # HTML tags
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


def _split_markdown(md: str) -> list[tuple[str, str]]:
    parts: list[tuple[str, list[str]]] = [("", [])]
    fence = False
    for line in md.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        m = None if fence else _MD_HEADING.match(line)
        if m:
            parts.append((markdown_to_text(m.group(2)).rstrip("."), [line]))
        else:
            parts[-1][1].append(line)
    return [(t, markdown_to_text("\n".join(lines))) for t, lines in parts]


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


def _read_epub(path: Path) -> tuple[str, list[tuple[str, str]]]:
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
    book_title = titles[0][0] if titles else path.stem
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
        out.append((heading or toc_titles.get(item.get_name(), ""), text))
    return book_title, out
