"""A store voice whose voice.json is damaged: listed as damaged, named by speak, removable (CLI exit codes)."""

from speechstudio.cli import main


def _damage(home, name="bad1", text="{bad json\n"):
    folder = home / "voices" / name
    folder.mkdir(parents=True)
    (folder / "voice.json").write_text(text, encoding="utf-8")
    return folder


def test_damaged_voice_listed_named_and_removed(home, tmp_path, capsys, monkeypatch):
    folder = _damage(home)
    _damage(home, "notobject", "[1, 2]")
    assert main(["voices", "list"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if " bad1 " in ln)
    assert line.startswith("! bad1") and "damaged" in line
    assert f"{folder / 'voice.json'}: not valid JSON" in line and "speechstudio voices remove bad1" in line
    assert "notobject" in out and "not a JSON object (a list)" in out
    assert "* en_US-joe-medium" in out  # the good voices are still listed

    wav = tmp_path / "a.wav"
    assert main(["speak", "Hello.", "--voice", "bad1", "--out", str(wav)]) == 1
    err = capsys.readouterr().err
    assert f"voice 'bad1' is damaged: {folder / 'voice.json'}: not valid JSON" in err
    assert "unknown voice" not in err and not wav.exists()

    from speechstudio.tts import voices

    monkeypatch.setattr(voices, "load_piper_model", lambda src: (None, None))  # the name is checked after it
    assert main(["voices", "import", str(tmp_path / "x.onnx"), "--name", "bad1"]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "not valid JSON" in err and "voices remove bad1" in err

    assert main(["voices", "remove", "bad1"]) == 0
    assert "removed voice bad1" in capsys.readouterr().out
    assert not folder.exists() and (home / "voices" / "notobject").is_dir()
    assert main(["voices", "remove", "bad1"]) == 1
    assert "no voice named 'bad1'" in capsys.readouterr().err


def test_unknown_voice_name_is_a_usage_error(home, tmp_path, capsys):
    """A voice name that is nothing installed, no Hub id and no file: exit status 2, as an unknown --model."""
    wav = tmp_path / "a.wav"
    assert main(["speak", "Hello.", "--voice", "nosuchvoice", "--out", str(wav)]) == 2
    err = capsys.readouterr().err
    assert "unknown voice 'nosuchvoice'; known voices: en_US-joe-medium" in err and not wav.exists()


def test_a_voice_by_a_word_of_its_name_and_by_the_short_mms_id(home, monkeypatch):
    """--voice joe is en_US-joe-medium even beside a voice named myjoe (the docs' example stopped working once
    one was imported); --voice mms:deu is the voice `voices download mms:deu` stored."""
    from dataclasses import replace

    import pytest

    from speechstudio.errors import UnknownModelError
    from speechstudio.tts import voices

    joe = voices.resolve_voice("en_US-joe-medium")
    store = [replace(joe, name="myjoe", origin="store"),
             replace(joe, name="mms-tts-deu", origin="store", hf_id="facebook/mms-tts-deu")]
    monkeypatch.setattr(voices, "_store_voices", lambda: store)
    assert voices.resolve_voice("joe").name == "en_US-joe-medium"
    assert voices.resolve_voice("mms:deu").name == "mms-tts-deu"
    with pytest.raises(UnknownModelError, match=r"'jo' \(matches several: myjoe, en_US-joe-medium\)"):
        voices.resolve_voice("jo", allow_download=False)


def test_removing_a_voice_removes_its_optimised_graph(home, monkeypatch):
    """voices remove also deletes the cached optimised graph of its .onnx (about 60 MB each were left behind)."""
    from speechstudio.tts import voices

    folder = home / "voices" / "my-voice"
    folder.mkdir(parents=True)
    (folder / "my-voice.onnx").write_bytes(b"onnx")
    cache = home / "cache" / "voices"
    cache.mkdir(parents=True, exist_ok=True)  # the package voice's may be there (conftest links it into each home)
    for name in ("my_voice-0123456789abcdef.onnx", "other-0123456789abcdef.onnx"):
        (cache / name).write_bytes(b"graph")
    ref = voices.VoiceRef("my-voice", "piper", str(folder / "my-voice.onnx"), "store")
    monkeypatch.setattr(voices, "_store_voices", lambda: [ref])
    assert voices.remove_voice("my-voice") == ref
    assert not folder.exists() and not (cache / "my_voice-0123456789abcdef.onnx").exists()
    assert (cache / "other-0123456789abcdef.onnx").is_file()


def test_a_folder_of_several_voices_says_which_one_is_used(home, tmp_path):
    from speechstudio.tts import voices

    for name in ("b_voice", "a_voice"):
        (tmp_path / f"{name}.onnx").write_bytes(b"onnx")
    assert voices.resolve_voice(str(tmp_path)).reason == f"given as {tmp_path}: a_voice.onnx of its 2 voices"
