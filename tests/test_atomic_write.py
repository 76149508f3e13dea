"""One atomic writer (issue 12, fault 6): every output goes through speechstudio.atomic."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from speechstudio import atomic
from speechstudio.atomic import OutputExistsError, atomic_path, atomic_write_text

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from test_gui_support import fake_audio  # noqa: F401 - fixture



def spy_atomic_path(monkeypatch, *modules) -> list[str]:
    """Record the file name of every ``atomic.atomic_path`` call (the writes still happen), also
    through ``modules`` that imported the name themselves."""
    calls: list[str] = []
    real_atomic = atomic.atomic_path

    def spy(path, **kw):
        calls.append(Path(path).name)
        return real_atomic(path, **kw)

    for module in (atomic, *modules):
        monkeypatch.setattr(module, "atomic_path", spy)
    return calls

def test_new_file_gets_umask_mode_and_folder_is_created(tmp_path):
    target = tmp_path / "a" / "b" / "out.txt"
    atomic_write_text(target, "héllo\n")
    assert target.read_bytes() == "héllo\n".encode()
    assert stat.S_IMODE(target.stat().st_mode) == atomic.new_file_mode()
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.txt"]


def test_existing_file_keeps_its_permissions(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    os.chmod(target, 0o640)
    atomic_write_text(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_symlink_is_kept_and_its_target_written(tmp_path):
    real = tmp_path / "real" / "t.txt"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic_write_text(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"
    assert sorted(p.name for p in real.parent.iterdir()) == ["t.txt"]


def test_failure_inside_the_block_keeps_old_content_and_leaves_no_temp(tmp_path):
    target = tmp_path / "out.wav"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="synthesis failed"):
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"half")
            raise RuntimeError("synthesis failed")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.wav"]


def test_refuses_to_replace_unless_asked(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("keep")
    with pytest.raises(OutputExistsError, match=r"out.txt: the file exists \(use --overwrite"):
        atomic_write_text(target, "new", overwrite=False)
    assert target.read_text() == "keep"
    atomic_write_text(target, "new", overwrite=True)
    assert target.read_text() == "new"


def test_file_appearing_while_writing_is_not_clobbered(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(OutputExistsError):
        with atomic_path(target, overwrite=False) as tmp:
            tmp.write_text("mine")
            target.write_text("someone else's")          # appears during the write
    assert target.read_text() == "someone else's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_fsyncs_file_and_folder(tmp_path, monkeypatch):
    synced: list[str] = []
    real_fsync = os.fsync

    def spy(fd):
        synced.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    atomic_write_text(tmp_path / "x.txt", "x")
    assert synced == ["file", "dir"]


def test_every_writer_uses_the_helper(tmp_path, monkeypatch):
    """Transcripts, JSON state, speech audio and recordings all go through atomic_path."""
    from speechstudio.asr.types import Segment, TranscriptInfo
    from speechstudio.batch import export
    from speechstudio.atomic import atomic_write_json
    from speechstudio.tts.output import write_speech
    from speechstudio.tts.stream import SpeechChunk

    import speechstudio.tts.output as output_mod

    calls = spy_atomic_path(monkeypatch, output_mod)
    info = TranscriptInfo(model_id="m", engine="wav2vec2", device="cpu", precision="fp32", duration_s=1.0,
                          language="en")
    export.write_transcript(tmp_path / "t.srt", [Segment(0.0, 1.0, "hi")], info, "srt")
    atomic_write_json(tmp_path / "m.json", {"a": 1})
    chunk = SpeechChunk(audio=np.zeros(2205, np.float32), sample_rate=22050, text="x", index=0, chars_done=1)
    write_speech([chunk], tmp_path / "s.wav")
    assert calls == ["t.srt", "m.json", "s.wav"]
    with pytest.raises(OutputExistsError):
        write_speech([chunk], tmp_path / "s.wav", overwrite=False)


def test_speak_out_refuses_an_existing_file_before_loading_a_voice(tmp_path, home, capsys):
    from speechstudio import cli

    out = tmp_path / "out.wav"
    out.write_bytes(b"keep")
    code = cli.main(["speak", "hello", "--out", str(out), "--voice", str(tmp_path / "no-such-voice.onnx")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{out}: the file exists (use --overwrite to replace it)" in err
    assert out.read_bytes() == b"keep"


def test_record_save_replaces_only_what_the_dialog_chose(qtbot, tmp_path, home, fake_audio, monkeypatch):
    """Save as… writes over the file chosen in the Save dialog (Qt's dialog asks before replacing it);
    a cancelled dialog writes nothing."""
    import soundfile as sf
    from PySide6.QtWidgets import QFileDialog

    from speechstudio.gui.main_window import MainWindow

    w = MainWindow(audio_backend=fake_audio, start_monitor=False)
    qtbot.addWidget(w)
    page = w.record
    page.recording = np.full(1600, 0.25, np.float32)
    target = tmp_path / "take.wav"
    target.write_bytes(b"old take")
    with pytest.raises(OutputExistsError):
        page.save(target)
    answers = [("", ""), (str(target), "")]  # cancelled (or "No" to replacing), then chosen
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: answers.pop(0)))
    page._save_dialog()
    assert target.read_bytes() == b"old take"
    page._save_dialog()
    assert page.saved_path == target
    audio, rate = sf.read(str(target), dtype="float32")
    assert rate == 16000 and len(audio) == 1600
    assert float(audio[0]) == pytest.approx(0.25, abs=1e-4)

    # a file where the folder should be, a folder by the chosen name: said in the page, nothing raised or left
    (tmp_path / "adir.wav").mkdir()
    answers += [(str(target / "x.wav"), ""), (str(tmp_path / "adir.wav"), "")]
    page._save_dialog()
    assert page.note.text() == f"not saved: {target / 'x.wav'}: file exists"      # (its folder is a file)
    page._save_dialog()
    assert page.note.text() == f"not saved: {tmp_path / 'adir.wav'}: is a directory"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir.wav", "take.wav"]
    assert not any((tmp_path / "adir.wav").iterdir())
    assert page.saved_path == target
    # the suffix chooses the format (a .mp3 once got WAV bytes); none: .wav; an unknown one: said, nothing written
    answers += [(str(tmp_path / "take.mp3"), ""), (str(tmp_path / "take2"), ""), (str(tmp_path / "t.xyz"), "")]
    page._save_dialog()
    from speechstudio.audio.decode import AudioReader

    assert AudioReader(tmp_path / "take.mp3", 16000).info.codec.startswith("mp3")
    page._save_dialog()
    assert page.saved_path == tmp_path / "take2.wav" and (tmp_path / "take2.wav").read_bytes()[:4] == b"RIFF"
    page._save_dialog()
    assert page.note.text().startswith(f"not saved: {tmp_path / 't.xyz'}: ") and "unsupported output format" in \
        page.note.text()
    assert not (tmp_path / "t.xyz").exists()
    w.shutdown()


def test_voice_takes_go_through_atomic_path(tmp_path, monkeypatch):
    """The voice-clone takes had a writer of their own (``os.replace`` on the name: the mode became 0600)."""
    from speechstudio.finetune import recording

    calls = spy_atomic_path(monkeypatch, recording)
    wav = recording._write_wav(tmp_path / "take.wav", np.zeros(1600, np.float32), 16000)
    assert calls == ["take.wav"]
    assert stat.S_IMODE(wav.stat().st_mode) == atomic.new_file_mode()


def test_an_interrupt_just_after_the_temporary_file_is_made_leaves_nothing(tmp_path, monkeypatch):
    """A SIGTERM mid-audiobook (raised as KeyboardInterrupt) left ``.01 - Chapter 1.flac.*.part`` once in CI: it
    landed inside ``tempfile.mkstemp`` after the file was made and before its name was returned."""
    import os

    real_close = os.close
    calls = []

    def interrupted(fd):  # the first close after the temporary file's creation
        real_close(fd)
        if not calls:
            calls.append(fd)
            raise KeyboardInterrupt

    monkeypatch.setattr(os, "close", interrupted)
    with pytest.raises(KeyboardInterrupt), atomic_path(tmp_path / "01 - Chapter 1.flac"):
        pass
    monkeypatch.undo()
    assert calls and sorted(p.name for p in tmp_path.iterdir()) == []
