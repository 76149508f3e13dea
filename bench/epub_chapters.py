"""EPUB chapters against the book's own navigation, for EPUBs of several makers (issue 41).

The public-domain source in ``bench/epub_source`` (the opening of Pride and Prejudice, Jane Austen,
1813, with a footnote and an image; as Project Gutenberg style HTML and as Markdown) is built by each
maker found here: Project Gutenberg's ``ebookmaker`` (PyPI ``ebookmaker``; EPUB 3 and EPUB 2, all
chapters inside one XHTML file), ``pandoc`` (EPUB 3 and EPUB 2; Debian package ``pandoc``) and
EbookLib (EPUB 3 with an NCX, one file per chapter). Every book is read with ``documents.read_book``;
its chapter titles must equal the navigation as EbookLib reads it (``book.toc``, flattened), less
entries whose text only repeats title and author (a title page); no footnote marker ("wife.1") or
back-link ("Back") may be left in the text. Prints one table row per book.

    python bench/epub_chapters.py [--ebookmaker PATH] [--keep DIR]
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).with_name("epub_source")


def navigation(path: Path) -> list[str]:
    """Titles of the book's table of contents as EbookLib reads it (EPUB 3 nav, else the NCX)."""
    from ebooklib import epub

    out: list[str] = []

    def walk(items) -> None:
        for it in items:
            if isinstance(it, tuple):
                walk([it[0]])
                walk(it[1])
            elif getattr(it, "title", None):
                out.append(" ".join(it.title.split()))

    walk(epub.read_epub(str(path), options={"ignore_ncx": False}).toc)
    return out


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


def build(folder: Path, ebookmaker: str | None) -> list[tuple[str, Path]]:
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
    out = folder / "ebooklib.epub"
    ebooklib_book(md, out)
    books.append(("EbookLib EPUB 3", out))
    return books


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ebookmaker", default=shutil.which("ebookmaker"), help="path of Project Gutenberg's ebookmaker")
    ap.add_argument("--keep", type=Path, help="write the books here instead of a temporary folder")
    args = ap.parse_args(argv)
    from speechstudio.tts.documents import read_book
    from speechstudio.tts.epub import _only_names

    folder = args.keep or Path(tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    print("| maker | navigation entries | chapters | equal | markers left | warnings |")
    print("| --- | --- | --- | --- | --- | --- |")
    bad = 0
    for label, path in build(folder, args.ebookmaker):
        book = read_book(path)
        nav = navigation(path)
        titles = [c.title for c in book.chapters]
        expected = [t for t in nav if t in titles or not _only_names(t, [book.title, book.author])]
        markers = sum(len(re.findall(r"[a-z][.,;]\d|\bBack\b|\u21a9", c.text)) for c in book.chapters)
        equal = titles == expected
        bad += (not equal) + (markers > 0)
        print(f"| {label} | {len(nav)} ({'; '.join(nav)}) | {len(titles)} | {'yes' if equal else 'NO'} | {markers} "
              f"| {'; '.join(book.warnings) or '-'} |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
