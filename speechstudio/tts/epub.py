"""EPUB 2 / 3 books as the chapters their own contents name (EPUB 3 ``nav``, else the NCX; broken books:
one chapter per spine document and a warning), standard library only, no DTD fetched. Footnote markers,
back-links and pop-up notes are not read. Not a ZIP or no package document: ``DocumentError``."""
from __future__ import annotations

import posixpath
import re
import zipfile
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

from speechstudio.tts.textfile import DocumentError

_BLOCKS = frozenset("p div h1 h2 h3 h4 h5 h6 li blockquote section article tr br dt dd figcaption pre hr "
                    "table ul ol dl header footer aside nav body title".split())
_SILENT = frozenset("script style head svg math img object video audio iframe template".split())
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_CONTENTS_RE = re.compile(r"(?i)\s*(?:table of )?contents\s*$")
_NOTE_TYPES = ("noteref", "backlink", "doc-noteref", "doc-backlink")
_POPUP_TYPES = ("footnote", "endnote", "rearnote", "doc-footnote", "doc-endnote")
# The text of a footnote marker or back-link: "1", "[12]", "*", "†", "a", "iv", "↩", "Back".
_MARKER_TEXT = re.compile(r"^\s*[\[(]?(?:\d{1,3}|[a-z]|[ivx]{1,4}|[*†‡§¶#]+)[\])]?\s*$|^\s*(?:[↩↑⤴^]|back\b|return\b)",
                          re.IGNORECASE)


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _xml(data: bytes):
    try:
        return ET.fromstring(data)
    except ET.ParseError:
        return None


class _Xhtml(HTMLParser):
    """Plain text of one XHTML document ``data`` (UTF-8), cut at the elements whose ``id`` is in ``marks``:
    ``segments`` is ``[(id or None, text), ...]``; ``heading``: its first h1-h3; ``navs``: the
    ``(href, label)`` links of each ``<nav>`` (with whether it is ``epub:type="toc"``)."""

    def __init__(self, data: bytes, marks: set[str]):
        super().__init__(convert_charrefs=True)
        self.marks = marks
        self.segments: list[tuple[str | None, list[str]]] = [(None, [])]
        self.skip = 0  # depth inside silent elements
        self.stack: list[tuple[str, bool]] = []  # (tag, silent)
        self.link: list[str] | None = None  # text of an internal link, decided at its end
        self.heading, self.in_heading = "", 0
        self.navs: list[tuple[bool, list[tuple[str, str]]]] = []  # (epub:type="toc", links) per <nav>
        self.nav_depth, self.href = 0, None
        self.link_words = 0  # links to the book itself: a contents page is mostly those
        self.link_id: str | None = None
        self.note_links: list[tuple[str | None, str]] = []  # (own id, href) of footnote markers / back-links
        self.feed(data.decode("utf-8", errors="replace"))

    def _out(self, text: str) -> None:
        if self.link is not None:
            self.link.append(text)
        elif not self.nav_depth:  # a contents page is navigation, not text to read
            self.segments[-1][1].append(text)

    def handle_starttag(self, tag, attrs) -> None:
        tag = tag.lower()
        a = {k.lower(): (v or "") for k, v in attrs}
        kinds = (a.get("epub:type", "") + " " + a.get("role", "")).lower().split()
        if a.get("id") in self.marks and not self.skip:
            self.segments.append((a["id"], []))
        if tag == "nav":
            if not self.nav_depth:
                self.navs.append(("toc" in kinds, []))
            self.nav_depth += 1
        if tag == "a" and a.get("href") and any(k in _NOTE_TYPES for k in kinds):
            self.note_links.append((a.get("id"), a["href"]))
        silent = tag in _SILENT or any(k in _NOTE_TYPES for k in kinds) or (
            tag == "aside" and any(k in _POPUP_TYPES for k in kinds))
        if tag in _VOID:
            if tag in _BLOCKS and not self.skip:
                self._out("\n\n")
            return
        self.stack.append((tag, silent))
        self.skip += silent
        if self.skip:
            return
        if tag in _BLOCKS:
            self._out("\n\n")
        if tag in ("h1", "h2", "h3"):
            self.in_heading += 1
        if tag == "a":
            self.href, self.link_id = a.get("href"), a.get("id")
            if self.nav_depth or (self.href and "#" in self.href and self.link is None):
                self.link = []

    def handle_endtag(self, tag) -> None:
        tag = tag.lower()
        if tag in _VOID:
            return
        while self.stack:
            open_tag, silent = self.stack.pop()
            self.skip -= silent
            if not self.skip and not silent:
                self._close(open_tag)
            if open_tag == tag:
                break

    def _close(self, tag: str) -> None:
        if tag == "a" and self.href and not re.match(r"[a-z]+:", self.href):
            self.link_words += 1  # one per link to the book itself
        if tag == "a" and self.link is not None:
            text, self.link = "".join(self.link), None
            if self.nav_depth and self.href:
                self.navs[-1][1].append((self.href, " ".join(text.split())))
            if not _MARKER_TEXT.match(text):
                self._out(text)
            elif not self.nav_depth and self.href:
                self.note_links.append((self.link_id, self.href))
            self.href = None
        if tag == "nav" and self.nav_depth:
            self.nav_depth -= 1
        if tag in ("h1", "h2", "h3") and self.in_heading:
            self.in_heading -= 1
        if tag in ("td", "th"):  # cells of a row: "Name, Age", not "NameAge"
            self._out(", ")
        if tag in _BLOCKS:
            if tag[0] == "h" and len(tag) == 2 and tag[1].isdigit():
                self._out("\ue014")  # a heading ends its sentence
            self._out("\n\n")

    def handle_data(self, data) -> None:
        if self.skip:
            return
        if self.in_heading and not self.heading and data.strip() and self.link is None:
            self.heading = " ".join(data.split())
        self._out(data)

    def result(self) -> list[tuple[str | None, str]]:
        self.close()
        return [(mark, _tidy("".join(parts))) for mark, parts in self.segments]


def _tidy(text: str) -> str:
    text = re.sub(r"([.!?:;,])?[ \t\n]*\ue014", lambda m: m.group(1) or ".", text)
    paras = (" ".join(p.split()).strip(" ,") for p in re.split(r"\n\s*\n", text))
    return "\n\n".join(p for p in paras if p and p != ".")


def read_epub(path: str | Path) -> tuple[str, str, bytes | None, list[tuple[str, str]], tuple[str, ...]]:
    """The EPUB at ``path`` (module docstring): ``(title, author (creators joined by ", "), cover image bytes or None,
    chapters [(title, plain text, paragraphs separated by a blank line), ...], warnings)``. Raises
    ``DocumentError`` naming the file."""
    path = Path(path)
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DocumentError(f"{path}: not a readable EPUB ({type(exc).__name__}: {str(exc)[:80]})") from None
    with zf:
        names = set(zf.namelist())

        def read(name: str) -> bytes | None:
            try:
                return zf.read(name) if name in names else None
            except (zipfile.BadZipFile, OSError, KeyError, ValueError):
                return None

        return _book(path, read, names)


def _book(path: Path, read, names: set[str]):
    container = _xml(read("META-INF/container.xml") or b"")  # its first rootfile there, else the first .opf
    opf_path = next((el.get("full-path") for el in (container.iter() if container is not None else ())
                     if _local(el.tag) == "rootfile" and el.get("full-path") in names),
                    min((n for n in names if n.lower().endswith(".opf")), default=None))
    opf = _xml(read(opf_path) or b"") if opf_path else None
    if opf is None:
        raise DocumentError(f"{path}: not a readable EPUB (no package document: META-INF/container.xml names no .opf file)")
    base = posixpath.dirname(opf_path)
    title, creators, cover_id = "", [], ""
    manifest: dict[str, tuple[str, str, str]] = {}
    spine: list[str] = []
    ncx_id = ""
    for el in opf.iter():
        name = _local(el.tag)
        if name == "title" and not title and (el.text or "").strip():
            title = " ".join(el.text.split())
        elif name == "creator" and (el.text or "").strip() and " ".join(el.text.split()) not in creators:
            creators.append(" ".join(el.text.split()))
        elif name == "meta" and el.get("name") == "cover":
            cover_id = el.get("content", "")
        elif name == "item" and el.get("id") and el.get("href"):
            href = posixpath.normpath(posixpath.join(base, unquote(el.get("href"))))
            manifest[el.get("id")] = (href, el.get("media-type", ""), el.get("properties", ""))
        elif name == "spine":
            ncx_id = el.get("toc", "")
        elif name == "itemref" and el.get("idref"):
            spine.append(el.get("idref"))
    title = title or path.stem
    nav_file = next((h for h, _t, props in manifest.values() if "nav" in props.split()), None)
    ncx_file = manifest.get(ncx_id, ("",))[0] or next(
        (h for h, t, _p in manifest.values() if t == "application/x-dtbncx+xml"), None)
    entries = _nav_entries(nav_file, read) or _ncx_entries(ncx_file, read)
    documents = [manifest[i][0] for i in spine if i in manifest and manifest[i][0] not in (nav_file, ncx_file)
                 and "html" in manifest[i][1]]
    problems: list[str] = []
    missing = [d for d in documents if d not in names]
    documents = [d for d in documents if d in names]
    entries = [(label, f, frag) for label, f, frag in entries if f in documents]
    if not entries:
        problems.append("no table of contents (EPUB 3 nav / EPUB 2 NCX) to take chapters from: one chapter per "
                        "spine document")
    if missing:
        problems.append(f"{len(missing)} file(s) of the spine missing and skipped ({', '.join(missing[:3])}"
                        f"{', ...' if len(missing) > 3 else ''})")
    chapters = _chapters(documents, entries, read, [title, *creators])
    warnings = (f"{path.name}: " + "; ".join(problems),) if problems else ()
    return title, ", ".join(creators), _cover(manifest, cover_id, read), chapters, warnings


def _nav_entries(nav_file: str | None, read) -> list[tuple[str, str, str | None]]:
    data = read(nav_file) if nav_file else None
    if not data:
        return []
    parsed = _Xhtml(data, set())
    parsed.result()
    # the links of <nav epub:type="toc">, else of the first <nav>
    toc = next((links for is_toc, links in parsed.navs if is_toc), parsed.navs[0][1] if parsed.navs else [])
    return [_entry(label, href, nav_file) for href, label in toc if label]


def _ncx_entries(ncx_file: str | None, read) -> list[tuple[str, str, str | None]]:
    root = _xml(read(ncx_file) or b"") if ncx_file else None
    if root is None:
        return []
    out = []
    for point in root.iter():
        if _local(point.tag) != "navPoint":
            continue
        label, src = "", ""
        for child in point:
            if _local(child.tag) == "navLabel":
                label = " ".join("".join(t.text or "" for t in child.iter() if _local(t.tag) == "text").split())
            elif _local(child.tag) == "content":
                src = child.get("src", "")
        if src:
            out.append(_entry(label, src, ncx_file))
    return out


def _entry(label: str, href: str, relative_to: str) -> tuple[str, str, str | None]:
    file, _, frag = href.partition("#")
    file = posixpath.normpath(posixpath.join(posixpath.dirname(relative_to), unquote(file))) if file else relative_to
    return label, file, unquote(frag) or None


def _note_places(documents: list[str], read) -> set[tuple[str, str]]:
    """``(file, id)`` of every footnote marker and back-link in the book, and of what they point at."""
    places = set()
    for doc in documents:
        parsed = _Xhtml(read(doc) or b"", set())
        for own, href in parsed.note_links:
            if own:
                places.add((doc, own))
            _label, file, frag = _entry("", href, doc)
            if frag:
                places.add((file, frag))
    return places


def _chapters(documents: list[str], entries, read, names: list[str]) -> list[tuple[str, str]]:
    """``[(title, text), ...]``: each contents entry runs to the next in spine order; an entry labelled like a
    footnote marker ("1", "Back") that points at a marker, back-link or note is no chapter (Calibre)."""
    if any(_MARKER_TEXT.match(label) for label, _f, frag in entries if frag):
        notes = _note_places(documents, read)
        entries = [e for e in entries if not (e[2] and (e[1], e[2]) in notes and _MARKER_TEXT.match(e[0]))]
    marks: dict[str, set[str]] = {}
    starts: dict[tuple[str, str | None], list[str]] = {}
    for label, file, frag in entries:
        if frag:
            marks.setdefault(file, set()).add(frag)
        starts.setdefault((file, frag), []).append(label)
    chapters: list[list] = [["", []]]  # text before the first entry: front matter
    for doc in documents:
        parsed = _Xhtml(read(doc) or b"", marks.get(doc, set()))
        segments = parsed.result()
        if not entries:
            chapters.append([parsed.heading, [segments[0][1]]])
            continue
        words = sum(len(t.split()) for _, t in segments)
        # one link per 3 words or more, or headed "Contents" ("Chapter One: The Boat" titles are three words a link)
        contents_page = (parsed.link_words >= 3 and parsed.link_words * 3 >= words
                         or bool(_CONTENTS_RE.match(parsed.heading or "") and parsed.link_words >= 2))
        for mark, text in segments:
            for label in starts.get((doc, mark), []):
                chapters.append([label, []])
            chapters[-1][1].append("" if contents_page else text)
    out = []
    for i, (label, texts) in enumerate(chapters):
        text = "\n\n".join(t for t in texts if t)
        if (i == 0 or _CONTENTS_RE.match(label)) and not text or _only_names(text, names):
            continue  # no front matter, a contents page, or a title page: the title is metadata, not a chapter
        out.append((label, text))
    return out


def _only_names(text: str, names: list[str]) -> bool:
    """True when ``text`` says nothing but ``names`` (and "by"): a title page."""
    rest = text.casefold()
    for name in sorted(names, key=len, reverse=True):
        if name:
            rest = rest.replace(name.casefold(), " ")
    return not re.search(r"\w", re.sub(r"\bby\b", " ", rest))


def _cover(manifest: dict[str, tuple[str, str, str]], cover_id: str, read) -> bytes | None:
    """EPUB 3 ``cover-image`` item, EPUB 2 ``<meta name="cover">``, else an image named "cover"."""
    images = [(i, h) for i, (h, t, _p) in manifest.items() if t.startswith("image/")]
    candidates = [h for h, t, p in manifest.values() if "cover-image" in p.split()]
    candidates += [manifest[cover_id][0]] if cover_id in manifest else []
    candidates += [h for i, h in images if "cover" in i.lower() or "cover" in posixpath.basename(h).lower()]
    return next((data for href in candidates if (data := read(href))), None)
