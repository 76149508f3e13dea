"""speak --file: an empty file and malformed SSML are input errors naming the file (exit 2, as an undecodable
file), found before any voice loads."""
import io
import sys

import pytest

from speechstudio.cli import main


@pytest.fixture
def no_voice(tmp_path, monkeypatch):
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from speechstudio.tts import voices

    def refuse(*a, **k):
        raise AssertionError("a voice was loaded")

    monkeypatch.setattr(voices, "load_named", refuse)


@pytest.mark.parametrize("name,data,flags,message", [
    ("empty.txt", b"", [], "text is empty or has nothing a voice can say"),
    ("symbols.txt", b"!!! ???\n\n*** ---\n", [], "text is empty or has nothing a voice can say"),
    ("bad.ssml", b"<speak>Hello <emphasis>there</speak>\n", [], "SSML line 1, column 31: mismatched tag"),
    ("bad.txt", b"<speak>Hello <emphasis>there</speak>\n", ["--ssml"], "SSML line 1, column 31: mismatched tag"),
    # a document without a <speak> root given --ssml: was read as SSML fragments without a word
    ("notes.md", b"# Notes\n\nHello <b>there</b>.\n", ["--ssml"], ("--ssml, but the file is not SSML (it does "
     "not start with <speak>); leave out --ssml to read it as text")),
    ("notes.txt", b"Hello there.\n", ["--ssml"], "--ssml, but the file is not SSML"),
    ("binary.txt", b"\x00\x01\xff\xfe\x80abc", [], "not UTF-8 text"),
    ("report.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", [],
     "a PDF document, not text; save it as plain text (.txt), Markdown or EPUB first"),
    ("letter.txt", b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00\xdf\xa4", [], "a ZIP file (a Word .docx"),
])
def test_speak_file_errors_name_the_file_exit_2(no_voice, tmp_path, capsys, name, data, flags, message):
    path = tmp_path / name
    path.write_bytes(data)
    out = tmp_path / "out.wav"
    assert main(["speak", "--file", str(path), "--out", str(out), *flags]) == 2
    err = capsys.readouterr().err
    assert f"speechstudio: error: {path}: {message}" in err and err.count("\n") == 1
    assert not out.exists()


def test_speak_empty_text_and_stdin_exit_2(no_voice, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.wav"
    assert main(["speak", "", "--out", str(out)]) == 2
    assert "speechstudio: error: text is empty" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"  \n")))
    assert main(["speak", "-", "--out", str(out)]) == 2
    assert "speechstudio: error: standard input: text is empty" in capsys.readouterr().err
    assert main(["speak", "<speak></speak>", "--out", str(out)]) == 2      # was: the voice loaded, then exit 1
    assert capsys.readouterr().err == "speechstudio: error: text is empty or has nothing a voice can say\n"
    assert not out.exists()


def test_audiobook_from_standard_input_and_a_text_file_imported_as_a_voice_say_what_is_wrong(no_voice, tmp_path,
                                                                                              capsys):
    """Were "-: unsupported document type" and "plain.txt: missing its voice config plain.txt.json"."""
    assert main(["audiobook", "-", "--out", str(tmp_path / "book")]) == 2
    assert capsys.readouterr().err == ("speechstudio: error: -: a book is read from a file (.txt, .md, .markdown, "
                                       ".epub), not from standard input\n")
    plain = tmp_path / "plain.txt"
    plain.write_text("hello\n")
    assert main(["voices", "import", str(plain)]) == 1
    assert capsys.readouterr().err == (f"speechstudio: error: {plain}: not a Piper voice (a VOICE.onnx file with "
                                       "its VOICE.onnx.json beside it)\n")


def test_speak_out_a_folder_and_a_cover_folder_say_so(no_voice, tmp_path, capsys):
    """Not "unsupported output format" / "cover image not found" for a folder."""
    assert main(["speak", "Hello.", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"speechstudio: error: {tmp_path}: is a folder, not a file"
    book = tmp_path / "book.md"
    book.write_text("# One\n\nHello.\n", encoding="utf-8")
    assert main(["audiobook", str(book), "--out", str(tmp_path / "ab"), "--cover", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"speechstudio: error: {tmp_path}: is a folder, not a cover image"
