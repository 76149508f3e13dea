"""Long documents -> chaptered audiobooks: txt / Markdown / EPUB chapters, formats, tags, resume."""
from __future__ import annotations

import base64
import json

import pytest

from speechstudio.tts.documents import DocumentError, markdown_to_text, read_book

BOOK_TXT = """The Test Book

Chapter 1

It was version 3.0.2 then. Nobody knew.

CHAPTER II. The Storm

On 05/06/2024 the rain came. It took 20 ms.

Chapter 3

The end came quietly.
"""


@pytest.fixture(scope="module")
def tiny_voice(tmp_path_factory):
    from tts_fixtures.tiny import make_tiny_vits

    from speechstudio.tts.family import load_voice

    return load_voice(make_tiny_vits(tmp_path_factory.mktemp("tiny") / "v"), device="cpu", name="tiny")


def test_text_chapters_by_heading_lines(tmp_path):
    path = tmp_path / "book.txt"
    path.write_text(BOOK_TXT, encoding="utf-8")
    book = read_book(path)
    title, chapters = book.title, book.chapters
    assert title == "The Test Book"  # the title page is the book's title, not a one-second chapter
    assert [(c.index, c.title) for c in chapters] == [(0, "Chapter 1"), (1, "CHAPTER II. The Storm"),
                                                      (2, "Chapter 3")]
    assert chapters[0].text.startswith("Chapter 1.\n\nIt was version 3.0.2 then.")
    assert chapters[1].text.endswith("It took 20 ms.")
    (tmp_path / "plain.txt").write_text("Just one part.\n", encoding="utf-8")
    assert [c.title for c in read_book(tmp_path / "plain.txt").chapters] == ["plain"]


def test_markdown_is_read_as_a_listener_needs_it(tmp_path):
    md = ("# Intro\n\nSee [the docs](http://x.org) and ![a cat](cat.png).\n\n```\ncode()\n```\n\n"
          "## Part **two**\n\n- first item\n- second *item*\n\n> quoted `x`\n")
    assert markdown_to_text("Some **bold** and _it_ text.") == "Some bold and it text."
    path = tmp_path / "notes.md"
    path.write_text(md, encoding="utf-8")
    chapters = read_book(path).chapters
    assert [c.title for c in chapters] == ["Intro", "Part two"]
    assert chapters[0].text == "Intro.\n\nSee the docs and a cat."
    assert chapters[1].text == "Part two.\n\nfirst item\nsecond item\n\nquoted x"


@pytest.mark.parametrize("md,text", [  # no Markdown syntax is read aloud as symbols, no content is lost
    ("A note[^1] here.\n\n[^1]: The note.", "A note here."),  # was "note[ to the power of one]"
    ("Setext title\n============\n\nBody.", "Setext title.\n\nBody."),  # was "equals equals ..."
    ("Part two\n--------\nBody.", "Part two.\n\nBody."),  # was "Part two\nBody.", one sentence
    ("Mail <me@x.org> or see <https://x.org/a>.", "Mail me@x.org or see https://x.org/a."),  # were dropped
    ("| Name | Age |\n|---|--:|\n| Ann | 42 |", "Name, Age\n\nAnn, 42"),  # was ",  Name ,  Age , ..."
    ("Not \\*bold\\*, 1\\. and \\# and a \\| b.", "Not *bold*, 1. and # and a | b."),  # escapes
])
def test_markdown_syntax_is_not_read_aloud(md, text):
    assert markdown_to_text(md) == text


def test_epub_chapters_in_spine_order(tmp_path):
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("id1")
    book.set_title("A Small Book")
    book.set_language("en")
    chs = []
    for i, (head, body) in enumerate((("Beginning", "<p>First words.</p><p>Second <b>para</b>.</p>"),
                                      ("The End", "<p>Last words.</p><script>x()</script>"))):
        c = epub.EpubHtml(title=head, file_name=f"c{i}.xhtml", lang="en")
        c.content = f"<html><body><h1>{head}</h1>{body}</body></html>"
        book.add_item(c)
        chs.append(c)
    book.toc = chs
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chs]
    epub.write_epub(str(tmp_path / "b.epub"), book)
    book = read_book(tmp_path / "b.epub")
    title, chapters = book.title, book.chapters
    assert title == "A Small Book"
    assert [(c.title, c.text) for c in chapters] == [("Beginning", "Beginning.\n\nFirst words.\n\nSecond para."),
                                                    ("The End", "The End.\n\nLast words.")]
    (tmp_path / "bad.epub").write_bytes(b"not a zip")
    with pytest.raises(DocumentError, match="bad.epub: not a readable EPUB"):
        read_book(tmp_path / "bad.epub")


def test_audiobook_files_tags_marks_and_resume(tmp_path, tiny_voice):
    import soundfile as sf

    from speechstudio.tts.audiobook import make_audiobook

    path = tmp_path / "book.txt"
    path.write_text(BOOK_TXT, encoding="utf-8")
    out = tmp_path / "out"
    events = []

    def stop_at_third(p):
        events.append(p)
        if p.chapter == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        make_audiobook(tiny_voice, path, out, "mp3", progress=stop_at_third, workers=1)
    names = sorted(p.name for p in out.iterdir())
    assert names == [".audiobook.json", "01 - Chapter 1.mp3", "02 - CHAPTER II. The Storm.mp3"]  # no partial third
    first_mtime = (out / "01 - Chapter 1.mp3").stat().st_mtime_ns
    events.clear()
    result = make_audiobook(tiny_voice, path, out, "mp3", progress=events.append, workers=1)
    assert result.skipped == 2 and [p.name for p in result.files] == [
        "01 - Chapter 1.mp3", "02 - CHAPTER II. The Storm.mp3", "03 - Chapter 3.mp3"]
    assert (out / "01 - Chapter 1.mp3").stat().st_mtime_ns == first_mtime
    assert [e.skipped for e in events[:2]] == [True, True] and events[-1].chars_done == events[-1].chars_total
    with sf.SoundFile(str(result.files[2])) as f:
        assert (f.samplerate, f.title, f.album) == (16000, "Chapter 3", "The Test Book")
        assert "synthetic speech" in f.comment
    marks = json.loads((out / "chapters.json").read_text(encoding="utf-8"))["chapters"]
    assert [m["start_s"] for m in marks] == pytest.approx([0.0, result.durations_s[0], sum(result.durations_s[:2])],
                                                          abs=2e-3)
    playlist = (out / "playlist.m3u8").read_text(encoding="utf-8").splitlines()
    assert playlist[0] == "#EXTM3U" and playlist[-1] == "03 - Chapter 3.mp3"
    # Other settings: chapters are redone.
    from speechstudio.tts.family import SynthesisSettings

    again = make_audiobook(tiny_voice, path, out, "mp3", SynthesisSettings(length_scale=1.5), workers=1)
    # 1.5x slower speech; the sentence, heading and chapter-end pauses stay: measured 4.042 -> 4.438 s
    assert again.skipped == 0 and again.durations_s[1] > result.durations_s[1] + 0.3


def test_cli_audiobook_and_lexicon(tmp_path, home, capsys):
    import argparse

    from tts_fixtures.tiny import make_tiny_vits

    from speechstudio.errors import UsageError
    from speechstudio.tts.cli import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    voice = make_tiny_vits(tmp_path / "v")
    book = tmp_path / "b.md"
    book.write_text("# One\n\nHello there.\n\n# Two\n\nGood bye.\n", encoding="utf-8")
    args = parser.parse_args(["audiobook", str(book), "--out", str(tmp_path / "ab"), "--format", "ogg",
                              "--voice", str(voice), "--device", "cpu"])
    assert args.func(args) == 0
    assert sorted(p.name for p in (tmp_path / "ab").glob("*.ogg")) == ["01 - One.ogg", "02 - Two.ogg"]
    printed = capsys.readouterr().out
    assert "wrote 2 chapter file(s)" in printed and "b.m4b (2 chapter marks)" in printed
    import av

    with av.open(str(tmp_path / "ab" / "b.m4b")) as c:  # joined from the Ogg Vorbis chapter files
        assert [ch["metadata"]["title"] for ch in c.chapters()] == ["One", "Two"]
    for argv in (["lexicon", "add", "Nguyen", "/ŋwˈɪn/"], ["lexicon", "add", "GIF", "jif", "--language", "en"]):
        a = parser.parse_args(argv)
        assert a.func(a) == 0
    a = parser.parse_args(["lexicon", "add", "qq", "/☃☃/"])  # refused now, not at every later text with "qq"
    with pytest.raises(UsageError, match="^/☃☃/ is not IPA \\(☃\\): write /IPA/ as espeak-ng does"):
        a.func(a)
    a = parser.parse_args(["lexicon", "list"])
    a.func(a)
    assert capsys.readouterr().out.splitlines()[-2:] == ["gif\tjif", "nguyen\t/ŋwˈɪn/"]
    assert (home / "lexicon" / "en.tsv").is_file()


# (id, file name, text, expected book title, expected chapter titles)
TITLES = [
    ("md-h1-over-h2", "b.md", "# The Book\n\n## One\n\nFirst.\n\n## Two\n\nSecond.\n", "The Book", ["One", "Two"]),
    ("md-h1-with-intro", "b.md", "# The Book\n\nAn intro line.\n\n## One\n\nFirst.\n", "The Book", ["The Book", "One"]),
    ("md-yaml-title", "b.md", "---\ntitle: \"Yaml Title\"\nauthor: A\n---\n\n# One\n\nFirst.\n\n# Two\n\nSecond.\n",
     "Yaml Title", ["One", "Two"]),
    ("md-two-h1-chapters", "b.md", "# One\n\nFirst.\n\n# Two\n\nSecond.\n", "b", ["One", "Two"]),
    ("txt-title-and-byline", "b.txt", "My Book\nby Some Body\n\nChapter 1\n\nFirst.\n", "My Book", ["Chapter 1"]),
    ("txt-prose-front-matter", "b.txt", "This book has a preface.\n\nChapter 1\n\nFirst.\n", "b",
     ["This book has a preface", "Chapter 1"]),
    ("txt-no-headings", "b.txt", "Only text here.\n", "b", ["b"]),
]


@pytest.mark.parametrize("name, text, title, chapter_titles", [t[1:] for t in TITLES], ids=[t[0] for t in TITLES])
def test_book_title_is_metadata_not_a_one_second_chapter(tmp_path, name, text, title, chapter_titles):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    book = read_book(path)
    got_title, chapters = book.title, book.chapters
    assert (got_title, [c.title for c in chapters]) == (title, chapter_titles)
    assert all(c.text.strip() not in (title, title + ".") for c in chapters)


@pytest.mark.parametrize("name, text, author", [
    ("b.txt", "My Book\nby Some Body\n\nChapter 1\n\nFirst.\n", "Some Body"),
    ("b.txt", "My Book\n\nChapter 1\n\nFirst.\n", ""),
    ("b.md", "---\ntitle: \"Yaml Title\"\nauthor: 'A. Writer'\n---\n\n# One\n\nFirst.\n", "A. Writer"),
    ("b.md", "# The Book\n\n## One\n\nFirst.\n", ""),
])
def test_the_author_of_a_text_or_markdown_book_is_read(tmp_path, name, text, author):
    """The byline of a text title page and Markdown's YAML ``author:`` become the book's author (the .m4b's and
    the chapter files' artist tag), as an EPUB's does."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert read_book(path).author == author


def _png(color=(200, 30, 30), size=(40, 30)) -> bytes:
    """A solid-colour RGB PNG, written with zlib (Pillow is not a dependency)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    width, height = size
    rows = b"".join(b"\x00" + bytes(color) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


#: A 16x8 baseline JPEG (made once with Pillow, quality 20), for tests without Pillow.
JPEG_16X8 = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDACgcHiMeGSgjISMtKygwPGRBPDc3PHtYXUlkkYCZlo+AjIqgtObDoKrarYqMyP/L2u71////"
    "m8H////6/+b9//j/2wBDASstLTw1PHZBQXb4pYyl+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4"
    "+Pj/wAARCAAIABADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQID"
    "AAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlq"
    "c3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3"
    "+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEI"
    "FEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImK"
    "kpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwCt"
    "RRRWR6B//9k=")


@pytest.mark.parametrize("data, size", [(_png(size=(40, 30)), (40, 30)), (_png(size=(1, 300)), (1, 300)),
                                        (JPEG_16X8, (16, 8))], ids=["png", "png-tall", "jpeg"])
def test_cover_size_is_read_from_the_header(data, size):
    from speechstudio.audio.encode import image_size
    from speechstudio.tts.audiobook import prepare_cover

    assert image_size(data) == size and prepare_cover(data) == data


def _epub(path, cover: bytes | None = None):
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("id2")
    book.set_title("A Small Book")
    book.set_language("en")
    book.add_author("Ann Author")
    if cover is not None:
        book.set_cover("cover.png", cover, create_page=False)
    page = epub.EpubHtml(title="Title page", file_name="title.xhtml", lang="en")
    page.content = "<html><body><h1>A Small Book</h1><p>by Ann Author</p></body></html>"
    chs = [page]
    for i, (head, body) in enumerate((("Beginning", "<p>First words here.</p>"), ("Middle", "<p>More words.</p>"),
                                      ("The End", "<p>Last words.</p>"))):
        c = epub.EpubHtml(title=head, file_name=f"c{i}.xhtml", lang="en")
        c.content = f"<html><body><h1>{head}</h1>{body}</body></html>"
        chs.append(c)
    for c in chs:
        book.add_item(c)
    book.toc = chs[1:]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chs]
    epub.write_epub(str(path), book)


def test_epub_title_page_author_and_cover(tmp_path):
    from speechstudio.tts.documents import read_book

    cover = _png()
    _epub(tmp_path / "b.epub", cover)
    book = read_book(tmp_path / "b.epub")
    assert (book.title, book.author, book.cover) == ("A Small Book", "Ann Author", cover)
    assert [c.title for c in book.chapters] == ["Beginning", "Middle", "The End"]  # no title-page chapter
    _epub(tmp_path / "plain.epub")
    assert read_book(tmp_path / "plain.epub").cover is None


def test_a_contents_page_in_the_books_own_contents_is_not_read(tmp_path):
    """A contents page listed as a chapter, four links over 14 words ("Chapter One: The Boat"), was read aloud as
    chapter 2 "Contents" (the rule wanted a link per 3 words; a new user's book)."""
    from ebooklib import epub

    from speechstudio.tts.documents import read_book

    book = epub.EpubBook()
    book.set_identifier("id3")
    book.set_title("The Quiet Harbour")
    book.set_language("en")
    heads = ["Chapter One: The Boat", "Chapter Two: The Storm", "Chapter Three: The Light", "Chapter Four: Home"]
    chs = []
    for i, head in enumerate(heads):
        c = epub.EpubHtml(title=head, file_name=f"c{i}.xhtml", lang="en")
        c.content = f"<html><body><h1>{head}</h1><p>The words of part {i + 1} are here.</p></body></html>"
        chs.append(c)
    toc = epub.EpubHtml(title="Contents", file_name="toc.xhtml", lang="en")
    toc.content = ("<html><body><h1>Contents</h1>" + "".join(f'<p><a href="c{i}.xhtml">{h}</a></p>'
                                                              for i, h in enumerate(heads)) + "</body></html>")
    for c in [toc, *chs]:
        book.add_item(c)
    book.toc = [toc, *chs]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = [toc, *chs]
    epub.write_epub(str(tmp_path / "h.epub"), book)
    assert [c.title for c in read_book(tmp_path / "h.epub").chapters] == heads


def test_m4b_chapters_cover_tags_and_rebuild_only_on_change(tmp_path, tiny_voice):
    import av

    from speechstudio.tts.audiobook import make_audiobook

    cover = _png()
    _epub(tmp_path / "b.epub", cover)
    out = tmp_path / "out"
    result = make_audiobook(tiny_voice, tmp_path / "b.epub", out, "flac", workers=1)
    assert result.book_file == out / "A Small Book.m4b" and result.warnings == ()
    marks = json.loads((out / "chapters.json").read_text(encoding="utf-8"))["chapters"]
    with av.open(str(result.book_file)) as c:
        chapters = c.chapters()
        assert [ch["metadata"]["title"] for ch in chapters] == ["Beginning", "Middle", "The End"]
        starts = [float(ch["start"] * ch["time_base"]) for ch in chapters]
        assert starts == pytest.approx([m["start_s"] for m in marks], abs=1e-3)
        assert starts[1] == pytest.approx(result.durations_s[0], abs=1e-3) and starts[1] > 0.3
        audio = c.streams.audio[0]
        assert (audio.codec_context.name, audio.rate) == ("aac", 16000)
        assert float(audio.duration * audio.time_base) == pytest.approx(sum(result.durations_s), abs=2e-3)
        pictures = [s for s in c.streams if s.disposition & av.stream.Disposition.attached_pic]
        assert [s.codec_context.name for s in pictures] == ["png"]
        assert c.metadata["title"] == "A Small Book" and c.metadata["artist"] == "Ann Author"
        assert c.metadata["major_brand"] == "M4B " and "synthetic speech (voice tiny)" in c.metadata["comment"]
    assert cover in result.book_file.read_bytes()  # the covr atom holds the image as given
    mtime = result.book_file.stat().st_mtime_ns
    again = make_audiobook(tiny_voice, tmp_path / "b.epub", out, "flac", workers=1)
    assert again.skipped == 3 and result.book_file.stat().st_mtime_ns == mtime  # nothing changed: kept
    other = JPEG_16X8
    assert make_audiobook(tiny_voice, tmp_path / "b.epub", out, "flac", workers=1, cover=other).skipped == 3
    data = result.book_file.read_bytes()
    assert other in data and cover not in data  # a new cover: rebuilt, chapters not redone
    with av.open(str(result.book_file)) as c:
        assert [s.codec_context.name for s in c.streams if s.disposition & av.stream.Disposition.attached_pic] == [
            "mjpeg"]
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "01 - Beginning.flac", "02 - Middle.flac", "03 - The End.flac", "A Small Book.m4b", "chapters.json",
        "playlist.m3u8"]


def test_cli_audiobook_cover_errors_are_one_line(tmp_path, capsys, monkeypatch):
    from speechstudio import cli
    import speechstudio.tts.family as tts_family

    monkeypatch.setattr(tts_family, "load_voice", lambda *a, **k: pytest.fail("voice loaded"))
    book = tmp_path / "b.md"
    book.write_text("# One\n\nHello there.\n", encoding="utf-8")
    (tmp_path / "c.txt").write_text("not a picture")
    for cover, reason in ((tmp_path / "none.png", "cover image not found"),
                          (tmp_path / "c.txt", "not a JPEG or PNG image")):
        assert cli.main(["audiobook", str(book), "--out", str(tmp_path / "ab"), "--cover", str(cover)]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"speechstudio: error: {cover}: {reason}")


def _book_beside_a_users_file(tmp_path):
    """``(book, out, mine)``: a two-chapter Markdown book and an output folder holding a file of the user's own
    with the second chapter's name."""
    book = tmp_path / "b.md"
    book.write_text("# One\n\nHello there.\n\n# Two\n\nGood night.\n", encoding="utf-8")
    out = tmp_path / "ab"
    out.mkdir()
    (out / "02 - Two.flac").write_bytes(b"my own recording")
    return book, out, out / "02 - Two.flac"


def test_cli_audiobook_refuses_a_users_file_before_loading_a_voice(tmp_path, home, capsys, monkeypatch):
    from speechstudio import cli
    import speechstudio.tts.family as tts_family
    import speechstudio.tts.voices as tts_voices

    def no_voice(*_a, **_k):
        raise AssertionError("voice loaded before the outputs were checked")

    monkeypatch.setattr(tts_family, "load_voice", no_voice)
    monkeypatch.setattr(tts_voices, "load_named", no_voice)
    book, out, mine = _book_beside_a_users_file(tmp_path)
    assert cli.main(["audiobook", str(book), "--out", str(out)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [f"speechstudio: error: {mine}: exists and was not written by an earlier audiobook run here "
                     "(move it away, or use --restart to redo the book and replace it)"]
    assert mine.read_bytes() == b"my own recording" and sorted(p.name for p in out.iterdir()) == [mine.name]


def test_the_apps_audiobook_job_refuses_a_users_file_before_loading_a_voice(tmp_path, home):
    """The Speak page's Audiobook… (worker.audiobook_job) checks the outputs first, as the CLI does."""
    from types import SimpleNamespace as NS

    from speechstudio.atomic import OutputExistsError
    from speechstudio.worker.audiobook_job import AudiobookJob

    book, out, mine = _book_beside_a_users_file(tmp_path)
    models = NS(voice=lambda *a: pytest.fail("voice loaded before the outputs were checked"))
    with pytest.raises(OutputExistsError, match="02 - Two.flac: exists and was not written by an earlier audiobook"):
        list(AudiobookJob(book, out).run(models))
    assert mine.read_bytes() == b"my own recording" and sorted(p.name for p in out.iterdir()) == [mine.name]


# ----------------------------------------------------------------------------- issue 41: the book's own chapters
def _zip_epub(path, files: dict[str, str], spine: list[str], nav: str | None = None, ncx: str | None = None,
              container: bool = True):
    """A small EPUB written with zipfile: ``files`` (name under OEBPS/ -> XHTML), their ``spine`` order,
    an EPUB 3 ``nav`` document and / or an EPUB 2 ``ncx`` (their bodies)."""
    import zipfile

    items = [f'<item id="d{i}" href="{name}" media-type="application/xhtml+xml"/>' for i, name in enumerate(files)]
    if nav is not None:
        items.append('<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>')
    if ncx is not None:
        items.append('<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>')
    toc = ' toc="ncx"' if ncx else ""
    refs = "".join(f'<itemref idref="d{list(files).index(n) if n in files else 99}"/>' for n in spine)
    opf = ('<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
           '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Two In One</dc:title>'
           '<dc:creator>Ann Author</dc:creator></metadata>'
           f'<manifest>{"".join(items)}</manifest><spine{toc}>{refs}</spine></package>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        if container:
            z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" '
                       'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
                       '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                       '</rootfiles></container>')
        z.writestr("OEBPS/content.opf", opf)
        for name, body in files.items():
            if body is not None:
                z.writestr(f"OEBPS/{name}", '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml" '
                           f'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>x</title></head><body>{body}'
                           '</body></html>')
        if nav is not None:
            z.writestr("OEBPS/nav.xhtml", '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org'
                       f'/2007/ops"><body><nav epub:type="landmarks"><ol><li><a href="one.xhtml">Start</a></li></ol>'
                       f'</nav><nav epub:type="toc"><ol>{nav}</ol></nav></body></html>')
        if ncx is not None:
            z.writestr("OEBPS/toc.ncx", '<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" '
                       f'version="2005-1"><navMap>{ncx}</navMap></ncx>')


ONE_FILE = ('<h1>Chapter 1</h1><p>It began at noon.<a epub:type="noteref" href="#fn1"><sup>1</sup></a> '
            'Then noon again.<sup><a href="notes.xhtml#n2" id="r2">[2]</a></sup></p>'
            '<p><img src="i.png" alt="A picture of a cat"/>See <a href="one.xhtml#c2">the middle</a>.</p>'
            '<aside epub:type="footnote" id="fn1"><p>A pop-up note.</p></aside>'
            '<h1 id="c2">Chapter 2</h1><h2>The Middle</h2><p>Middle words.</p>')
NOTES = '<h1>Notes</h1><p id="n2">2. A real note. <a href="one.xhtml#r2">\u21a9</a></p>'


def test_epub3_chapters_from_the_nav_anchors_in_one_file_and_no_markers(tmp_path):
    from speechstudio.tts.documents import read_book

    nav = ('<li><a href="one.xhtml">Chapter 1</a></li><li><a href="one.xhtml#c2">Chapter 2: The Middle</a></li>'
           '<li><a href="notes.xhtml">Notes</a></li>')
    _zip_epub(tmp_path / "b.epub", {"title.xhtml": "<h1>Two In One</h1><p>by Ann Author</p>", "one.xhtml": ONE_FILE,
                                    "notes.xhtml": NOTES}, ["title.xhtml", "one.xhtml", "notes.xhtml"], nav=nav)
    book = read_book(tmp_path / "b.epub")
    assert (book.title, book.author, book.warnings) == ("Two In One", "Ann Author", ())
    assert [(c.title, c.text) for c in book.chapters] == [
        ("Chapter 1", "Chapter 1.\n\nIt began at noon. Then noon again.\n\nSee the middle."),
        ("Chapter 2: The Middle", "Chapter 2.\n\nThe Middle.\n\nMiddle words."),
        ("Notes", "Notes.\n\n2. A real note.")]


def test_epub2_chapters_from_the_ncx(tmp_path):
    from speechstudio.tts.documents import read_book

    ncx = ('<navPoint id="a" playOrder="1"><navLabel><text>Chapter 1</text></navLabel><content src="one.xhtml"/>'
           '<navPoint id="b" playOrder="2"><navLabel><text>Chapter 2</text></navLabel>'
           '<content src="one.xhtml#c2"/></navPoint></navPoint>')
    _zip_epub(tmp_path / "b.epub", {"one.xhtml": ONE_FILE}, ["one.xhtml"], ncx=ncx)
    book = read_book(tmp_path / "b.epub")
    assert [c.title for c in book.chapters] == ["Chapter 1", "Chapter 2"] and book.warnings == ()
    assert book.chapters[1].text.startswith("Chapter 2.\n\nThe Middle.")


def test_broken_epub_chapters_from_the_spine_with_one_warning(tmp_path):
    from speechstudio.tts.documents import read_book

    _zip_epub(tmp_path / "b.epub", {"a.xhtml": "<h2>Opening</h2><p>First.</p>", "gone.xhtml": None,
                                    "c.xhtml": "<p>Last words.</p>"}, ["a.xhtml", "gone.xhtml", "c.xhtml"],
              container=False)
    book = read_book(tmp_path / "b.epub")
    assert [(c.title, c.text) for c in book.chapters] == [("Opening", "Opening.\n\nFirst."),
                                                          ("Last words", "Last words.")]
    assert book.warnings == ("b.epub: no table of contents (EPUB 3 nav / EPUB 2 NCX) to take chapters from: one "
                             "chapter per spine document; 1 file(s) of the spine missing and skipped "
                             "(OEBPS/gone.xhtml)",)
    (tmp_path / "empty.epub").write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty ZIP
    with pytest.raises(DocumentError, match="empty.epub: not a readable EPUB"):
        read_book(tmp_path / "empty.epub")


def test_plain_text_headings_only_where_a_heading_is(tmp_path):
    path = tmp_path / "b.txt"
    path.write_text("Chapter 1\n\nPart of him wanted to stay.\n\nBook the next boat, she said.\n\nPART II\n\n"
                    "THE RETURN\n\nHe came home.\n\nCHAPTER THREE\nIt ended.\n", encoding="utf-8")
    chapters = read_book(path).chapters
    assert [c.title for c in chapters] == ["Chapter 1", "PART II", "THE RETURN", "CHAPTER THREE"]
    assert "Part of him wanted to stay.\n\nBook the next boat" in chapters[0].text


def test_cli_list_chapters_synthesizes_nothing(tmp_path, capsys):
    import argparse

    from speechstudio.tts.cli import register

    _zip_epub(tmp_path / "b.epub", {"one.xhtml": ONE_FILE}, ["one.xhtml"],
              nav='<li><a href="one.xhtml">Chapter 1</a></li><li><a href="one.xhtml#c2">Chapter 2</a></li>')
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["audiobook", str(tmp_path / "b.epub"), "--list-chapters"])
    assert args.func(args) == 0
    assert capsys.readouterr().out.splitlines() == ["Two In One by Ann Author: 2 chapter(s)",
                                                    "  1  Chapter 1  (12 words)", "  2  Chapter 2  (6 words)"]


def test_epub2_contents_page_in_the_spine_is_not_read(tmp_path):
    from speechstudio.tts.documents import read_book

    toc_page = ('<div id="toc"><h1>Two In One</h1><ol><li><a href="one.xhtml">Chapter 1</a></li>'
                '<li><a href="one.xhtml#c2">Chapter 2</a></li><li><a href="notes.xhtml">Notes</a></li></ol></div>')
    ncx = ''.join(f'<navPoint id="p{i}"><navLabel><text>{t}</text></navLabel><content src="{s}"/></navPoint>'
                  for i, (t, s) in enumerate((("Chapter 1", "one.xhtml"), ("Chapter 2", "one.xhtml#c2"))))
    _zip_epub(tmp_path / "b.epub", {"toc.xhtml": toc_page, "one.xhtml": ONE_FILE}, ["toc.xhtml", "one.xhtml"], ncx=ncx)
    book = read_book(tmp_path / "b.epub")
    assert [c.title for c in book.chapters] == ["Chapter 1", "Chapter 2"]
    assert book.chapters[0].text.startswith("Chapter 1.\n\nIt began at noon.")


def test_contents_entries_that_are_footnote_links_are_not_chapters(tmp_path):
    """A short book converted by Calibre: its NCX also lists the first links of the text, a footnote
    marker ("1" -> the note) and its back-link ("Back" -> the marker); neither cuts a chapter."""
    from speechstudio.tts.documents import read_book

    one = ('<h1>Chapter I</h1><p>It is a truth.<a id="ref1" href="#note1">1</a></p><p>Second paragraph.</p>'
           '<p id="note1">1. A note. <a href="#ref1">Back</a></p>')
    ncx = ''.join(f'<navPoint id="p{i}"><navLabel><text>{t}</text></navLabel><content src="{s}"/></navPoint>'
                  for i, (t, s) in enumerate((("Chapter I", "one.xhtml"), ("Chapter II", "two.xhtml"),
                                              ("1", "one.xhtml#note1"), ("Back", "one.xhtml#ref1"))))
    _zip_epub(tmp_path / "c.epub", {"one.xhtml": one, "two.xhtml": "<h1>Chapter II</h1><p>More.</p>"},
              ["one.xhtml", "two.xhtml"], ncx=ncx)
    book = read_book(tmp_path / "c.epub")
    assert [(c.title, c.text) for c in book.chapters] == [
        ("Chapter I", "Chapter I.\n\nIt is a truth.\n\nSecond paragraph.\n\n1. A note."),
        ("Chapter II", "Chapter II.\n\nMore.")]


def test_each_chapter_ends_in_two_seconds_of_silence(tmp_path, tiny_voice):
    """A chapter's file ended 0.1-0.2 s after its last word: in the book one chapter ran into the next heading."""
    import numpy as np
    import soundfile as sf

    from speechstudio.tts.audiobook import CHAPTER_END_S, make_audiobook

    book = tmp_path / "b.txt"
    book.write_text("A Book\n\nChapter 1\n\nThe first words.\n\nChapter 2\n\nThe last words.\n", encoding="utf-8")
    result = make_audiobook(tiny_voice, book, tmp_path / "out", "flac", workers=1)
    for path in result.files:
        audio, rate = sf.read(str(path), dtype="float32")
        tail = audio[-int(CHAPTER_END_S * rate):]
        assert CHAPTER_END_S == 2.0 and np.abs(tail).max() == 0.0 and np.abs(audio[:-len(tail)]).max() > 0.01


def test_a_chapter_the_voice_cannot_say_stops_the_book_without_an_empty_file(tmp_path, tiny_voice):
    """Nothing sayable (another script, a garbled file): no empty chapter file marked done (it was: a rerun
    kept it and failed again)."""
    from speechstudio.tts.audiobook import make_audiobook
    from speechstudio.tts.textfile import DocumentError

    only = tmp_path / "only.txt"
    only.write_text("漢字 漢字\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(DocumentError, match=f"^{only}: chapter 1 \\(only\\) has nothing the voice can say"):
            make_audiobook(tiny_voice, only, tmp_path / "out", "flac", workers=1)
        assert [p.name for p in (tmp_path / "out").iterdir()] == []


def test_a_terminated_audiobook_leaves_no_temporary_file(tmp_path, home):
    """`kill` (SIGTERM) mid-chapter is handled as Ctrl+C: the chapter's ``.part`` file goes, exit 130 (was: killed
    outright, the hidden ``.part`` left behind for good)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    book = tmp_path / "book.txt"
    book.write_text("My Book\n\nChapter 1\n\n" + "The quick brown fox jumps over the lazy dog by the river. " * 60,
                    encoding="utf-8")
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "speechstudio", "audiobook", str(book), "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    deadline = time.monotonic() + 120
    while not (out.is_dir() and any(f.name.endswith(".part") for f in out.iterdir())):
        assert p.poll() is None and time.monotonic() < deadline, p.communicate()
        time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and err.splitlines()[-1] == "interrupted", err
    assert [f.name for f in out.iterdir() if f.name.endswith(".part")] == []


# ----------------------------------------------------------------------------- resume: what "done before" means
BOLT_TXT = "Chapter 1\n\nBolt ran fast.\n\nChapter 2\n\nHe rested.\n\nChapter 3\n\nThe end.\n"


def test_a_lexicon_change_redoes_the_chapters_it_applies_to(tmp_path, home, tiny_voice):
    """`lexicon add Bolt Thunderbolt`, audiobook, `lexicon remove Bolt`, rerun: the chapter saying Bolt is made again
    (was: every chapter "done before, kept", still saying Thunderbolt); the others are kept."""
    from speechstudio.tts.audiobook import make_audiobook
    from speechstudio.tts.lexicon import Lexicon, lexicon_path, save_lexicon

    book = tmp_path / "bolt.txt"
    book.write_text(BOLT_TXT, encoding="utf-8")
    out = tmp_path / "out"
    lex = Lexicon()
    lex.add("Bolt", "Thunderbolt")
    save_lexicon(lex, lexicon_path("en"))
    first = make_audiobook(tiny_voice, book, out, "flac", workers=1, book_file=False)
    mtimes = [f.stat().st_mtime_ns for f in first.files]
    save_lexicon(Lexicon(), lexicon_path("en"))  # removed
    again = make_audiobook(tiny_voice, book, out, "flac", workers=1, book_file=False)
    assert again.skipped == 2
    assert [f.stat().st_mtime_ns != m for f, m in zip(again.files, mtimes)] == [True, False, False]
    assert again.durations_s[0] < first.durations_s[0]  # "Bolt" is shorter than "Thunderbolt"
    assert again.durations_s[1:] == first.durations_s[1:]
    assert make_audiobook(tiny_voice, book, out, "flac", workers=1, book_file=False).skipped == 3


def _m4b_starts(path) -> list[float]:
    import av

    with av.open(str(path)) as c:
        return [float(ch["start"] * ch["time_base"]) for ch in c.chapters()]


def test_a_chapter_made_again_rebuilds_the_m4b_and_a_damaged_one_is_made_again(tmp_path, tiny_voice):
    """A chapter file deleted: made again and the .m4b rebuilt (was: the old .m4b kept, its marks not those of
    chapters.json); a kept chapter file that no longer decodes to its recorded length (`echo garbage > ...`) is
    made again (was: kept as done, the .m4b failed or held garbage); a touched but intact one is kept."""
    import os

    import soundfile as sf

    from speechstudio.tts.audiobook import make_audiobook

    book = tmp_path / "bolt.txt"
    book.write_text(BOLT_TXT, encoding="utf-8")
    out = tmp_path / "out"
    first = make_audiobook(tiny_voice, book, out, "flac", workers=1)
    m4b = first.book_file

    def starts_agree():
        marks = json.loads((out / "chapters.json").read_text(encoding="utf-8"))["chapters"]
        assert _m4b_starts(m4b) == pytest.approx([m["start_s"] for m in marks], abs=1e-3)

    first.files[1].unlink()
    before = m4b.stat().st_mtime_ns
    again = make_audiobook(tiny_voice, book, out, "flac", workers=1)
    assert again.skipped == 2 and again.warnings == () and m4b.stat().st_mtime_ns != before
    starts_agree()

    third = out / "03 - Chapter 3.flac"
    third.write_text("garbage\n")
    before = m4b.stat().st_mtime_ns
    fixed = make_audiobook(tiny_voice, book, out, "flac", workers=1)
    assert fixed.skipped == 2 and fixed.warnings == (
        "03 - Chapter 3.flac: changed since it was made and cannot be decoded; made again",)
    assert sf.info(str(third)).duration == pytest.approx(fixed.durations_s[2], abs=1e-3)
    assert m4b.stat().st_mtime_ns != before
    starts_agree()

    data, rate = sf.read(str(third))  # a shorter file in its place: made again too
    sf.write(str(third), data[: len(data) // 2], rate)
    assert make_audiobook(tiny_voice, book, out, "flac", workers=1).warnings == (
        f"03 - Chapter 3.flac: changed since it was made ({len(data) // 2 / rate:.2f} s of audio, "
        f"{fixed.durations_s[2]:.2f} s were written); made again",)

    os.utime(first.files[0], ns=(1, 1))  # touched (a copy without -p): decoded, the same audio, kept
    before = m4b.stat().st_mtime_ns
    kept = make_audiobook(tiny_voice, book, out, "flac", workers=1)
    assert (kept.skipped, kept.warnings, m4b.stat().st_mtime_ns) == (3, (), before)

    m4b.write_bytes(b"not ours any more")  # the .m4b replaced or damaged: rebuilt
    assert make_audiobook(tiny_voice, book, out, "flac", workers=1).skipped == 3
    starts_agree()
    m4b.unlink()
    assert make_audiobook(tiny_voice, book, out, "flac", workers=1).skipped == 3 and m4b.is_file()


def test_a_file_of_the_users_own_with_a_chapters_name_is_not_replaced(tmp_path, home, capsys):
    """`01 - Chapter 1.flac` in the output folder, not written by audiobook: one error line naming it, before any
    work, the file untouched (was: silently overwritten); --restart replaces it; our own files are replaced."""
    from tts_fixtures.tiny import make_tiny_vits

    from speechstudio import cli

    voice = make_tiny_vits(tmp_path / "v")
    book = tmp_path / "bolt.txt"
    book.write_text(BOLT_TXT, encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    mine = out / "01 - Chapter 1.flac"
    mine.write_bytes(b"my own recording")
    argv = ["audiobook", str(book), "--out", str(out), "--voice", str(voice), "--device", "cpu"]
    capsys.readouterr()
    assert cli.main(argv) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]  # not the model's progress bars
    assert err == [f"speechstudio: error: {mine}: exists and was not written by an earlier audiobook run here "
                   "(move it away, or use --restart to redo the book and replace it)"]
    assert sorted(p.name for p in out.iterdir()) == ["01 - Chapter 1.flac"] and mine.read_bytes() == b"my own recording"

    mine.unlink()
    assert cli.main([*argv, "--no-m4b"]) == 0  # a folder of ours: its files are ours to redo
    capsys.readouterr()
    (out / "bolt.m4b").write_bytes(b"my own book")  # a user's .m4b where ours would go
    assert cli.main(argv) == 2
    assert [line for line in capsys.readouterr().err.splitlines() if "error" in line] == [
        f"speechstudio: error: {out / 'bolt.m4b'}: exists and was not written by an earlier audiobook run here "
        "(move it away, or use --restart to redo the book and replace it)"]
    assert (out / "bolt.m4b").read_bytes() == b"my own book"
    assert cli.main([*argv, "--restart"]) == 0
    assert (out / "bolt.m4b").read_bytes()[4:12] == b"ftypM4B "
    assert cli.main(argv) == 0 and "3 kept from an earlier run" in capsys.readouterr().out


GUTENBERG_TXT = """\ufeffThe Project Gutenberg eBook of A Sample Novel

This ebook is for the use of anyone anywhere in the United States and most other parts of the world.

Title: A Sample Novel:
       Being a Test

Author: Some Author

Release date: January 1, 2000 [eBook #99999]

*** START OF THE PROJECT GUTENBERG EBOOK A SAMPLE NOVEL ***

CONTENTS

 CHAPTER I. The Start
 CHAPTER II. The Next

PROLOGUE

Before everything, there was a prologue.

CHAPTER I.
The Start

The story begins here. Chapter 3 of the report says something
important.

CHAPTER II.
The Next

It ends.

*** END OF THE PROJECT GUTENBERG EBOOK A SAMPLE NOVEL ***

Section 1. General Terms of Use and Redistributing Project Gutenberg-tm
electronic works. Lots of license text here that nobody wants to hear.
"""


def test_a_project_gutenberg_text_is_read_without_header_licence_or_contents(tmp_path):
    """The header and licence around "*** START OF ..." / "*** END OF ..." are not read, the contents list is no
    chapters, "CHAPTER I." keeps its title from the next line, Title: / Author: name the book (was: 10 chapters,
    the licence one of them, the book named after the file)."""
    path = tmp_path / "pg12345.txt"
    path.write_text(GUTENBERG_TXT, encoding="utf-8")
    book = read_book(path)
    assert (book.title, book.author) == ("A Sample Novel: Being a Test", "Some Author")
    assert [(c.title, c.text) for c in book.chapters] == [
        ("PROLOGUE", "PROLOGUE.\n\nBefore everything, there was a prologue."),
        ("CHAPTER I. The Start", "CHAPTER I. The Start.\n\nThe story begins here. Chapter 3 of the report says "
                                 "something\nimportant."),
        ("CHAPTER II. The Next", "CHAPTER II. The Next.\n\nIt ends.")]
    # an older end line, a contents list with page numbers under "Contents", a heading without a full stop
    old = (GUTENBERG_TXT.replace("*** END OF THE PROJECT", "End of the Project Gutenberg EBook of A Sample Novel\n\n"
                                 "*** END OF THE PROJECT")
           .replace("CONTENTS\n\n CHAPTER I. The Start\n CHAPTER II. The Next",
                    "Contents\n\nPrologue ........ 1\nThe Start ....... 3\nThe Next ....... 9")
           .replace("CHAPTER I.\nThe Start", "Chapter 1\nThe Start").replace("CHAPTER II.\nThe Next", "Chapter 2\n"
                                                                             "The Next"))
    path.write_text(old, encoding="utf-8")
    assert [c.title for c in read_book(path).chapters] == ["PROLOGUE", "Chapter 1: The Start", "Chapter 2: The Next"]
    assert read_book(path).chapters[-1].text == "Chapter 2: The Next.\n\nIt ends."


def test_left_out_text_is_said_another_books_folder_refused_and_lost_chapters_removed(tmp_path, tiny_voice):
    """What the voice leaves out is a warning naming the chapter (speak said it, the audiobook did not); a second
    book is not mixed into a first one's folder; a chapter the book no longer has loses its file."""
    from speechstudio.atomic import OutputExistsError
    from speechstudio.tts.audiobook import make_audiobook

    book, out = tmp_path / "book.txt", tmp_path / "out"
    book.write_text(BOOK_TXT.replace("The end came quietly.", "The end came quietly. 漢字 漢字. Then 🍕 was there."),
                    encoding="utf-8")
    result = make_audiobook(tiny_voice, book, out, "flac", workers=1)
    assert [w for w in result.warnings if w.startswith("chapter 3 (Chapter 3): ")] == [
        "chapter 3 (Chapter 3): voice tiny speaks English and cannot say CJK script: left out (use a voice for that "
        "language)", "chapter 3 (Chapter 3): voice tiny cannot say symbols '🍕': left out"], result.warnings

    other = tmp_path / "other.txt"
    other.write_text("Another Book\n\nChapter 1\n\nSomething else.\n", encoding="utf-8")
    with pytest.raises(OutputExistsError, match=f"^{out}: holds the audiobook of {book}; choose another folder"):
        make_audiobook(tiny_voice, other, out, "flac", workers=1)

    book.write_text(BOOK_TXT.split("Chapter 3")[0].replace("CHAPTER II. The Storm", "Chapter 2"), encoding="utf-8")
    result = make_audiobook(tiny_voice, book, out, "flac", workers=1)
    assert sorted(p.name for p in out.iterdir()) == [
        ".audiobook.json", "01 - Chapter 1.flac", "02 - Chapter 2.flac", "The Test Book.m4b", "chapters.json",
        "playlist.m3u8"]
    assert sorted(json.loads((out / ".audiobook.json").read_text(encoding="utf-8"))["chapters"]) == ["0", "1"]
    make_audiobook(tiny_voice, book, out, "ogg", workers=1)  # another format: the FLAC chapters are kept too
    assert {"01 - Chapter 1.flac", "01 - Chapter 1.ogg", "02 - Chapter 2.flac"} <= {p.name for p in out.iterdir()}
    again = make_audiobook(tiny_voice, book, out, "flac", workers=1)  # and back: the FLAC chapters are still ours
    assert [f.name for f in again.files] == ["01 - Chapter 1.flac", "02 - Chapter 2.flac"] and again.skipped == 0
    assert {"01 - Chapter 1.ogg", "02 - Chapter 2.ogg"} <= {p.name for p in out.iterdir()}


def test_epub_table_cells_are_not_run_together(tmp_path):
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("t")
    book.set_title("Tables")
    book.set_language("en")
    page = epub.EpubHtml(title="Scores", file_name="c.xhtml", lang="en")
    page.content = ("<html><body><h1>Scores</h1><table><tr><th>Name</th><th>Age</th></tr>"
                    "<tr><td>Ann</td><td><p>42</p></td></tr></table><p>Done, then.</p></body></html>")
    book.add_item(page)
    book.toc = [page]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", page]
    epub.write_epub(str(tmp_path / "t.epub"), book)
    # was "NameAge" and "Ann42": two words read as one
    assert read_book(tmp_path / "t.epub").chapters[0].text == "Scores.\n\nName, Age\n\nAnn\n\n42\n\nDone, then."
