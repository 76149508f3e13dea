"""Batch transcription through the CLI: mixed good/bad folders, summary, exit codes, resume."""
from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path

import pytest

from speechstudio import cli
from speechstudio.batch.request import TranscriptionRequest
from speechstudio.batch.run import BatchEvent, BatchSummary, InputItem, collect_inputs, run_batch


@pytest.fixture
def mixed(tmp_path, realspeech):
    src = tmp_path / "in"
    (src / "sub dir" / "deeper").mkdir(parents=True)
    good = {
        "with space.wav": "speechbrain_spk1_snt1.wav",
        "hash#1.wav": "pocketsphinx_cards_005.wav",
        "sub dir/ünïcödé.flac": "lhotse_librispeech_2412-153948-0000.flac",
        "sub dir/deeper/emoji 🎤.wav": "deepspeech_LDC93S1_8k.wav",
        "talk.v2.final.mp3": "lhotse_common_voice_en_651325.mp3",
    }
    for name, real in good.items():
        shutil.copy(realspeech / real, src / name)
    (src / "empty.wav").write_bytes(b"")
    (src / "text.wav").write_text("not audio\n" * 40)
    data = (realspeech / "vosk_test.wav").read_bytes()
    (src / "truncated.wav").write_bytes(data[: len(data) // 2])
    (src / "notes.txt").write_text("my notes")
    (src / "meeting.rttm").write_text("SPEAKER meeting 1 0.00 2.50 <NA> <NA> spk1 <NA> <NA>\n")  # a speaker timeline
    (src / "cover.jpg").write_bytes(b"\xff\xd8\xff")
    (src / ".hidden.wav").write_bytes(b"junk")
    return src, sorted(good)


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_mixed_folder(mixed, tmp_path, tiny_w2v_dir, capsys, home):
    src, good = mixed
    out_dir = tmp_path / "out"
    argv = ["transcribe", str(src), "--model", str(tiny_w2v_dir), "--device", "cpu",
            "--format", "txt,json,srt", "--output-dir", str(out_dir), "-q"]
    code, out, err = run(argv, capsys)
    assert code == 1
    assert "Summary: 6 done, 0 skipped, 2 failed, 1 ignored" in err
    assert "empty.wav: empty file (0 bytes)" in err
    assert "text.wav: not a recognised audio or video file" in err
    assert "truncated.wav: the WAV header announces 132957 more bytes of audio than the file holds (file truncated?)" in err
    assert "cover.jpg: not a media file" in err
    assert (src / "notes.txt").read_text() == "my notes"
    assert "Traceback" not in err
    for name in good + ["truncated.wav"]:
        stem = name[: name.rfind(".")]
        for fmt in ("txt", "json", "srt"):
            assert (out_dir / f"{stem}.{fmt}").is_file(), (name, fmt)
            assert str(out_dir / f"{stem}.{fmt}") in out        # output paths printed on stdout
    meta = json.loads((out_dir / "sub dir" / "ünïcödé.json").read_text(encoding="utf-8"))
    assert meta["model_id"] == "tiny" or meta["model_id"].endswith("tiny-w2v")
    assert meta["engine"] == "wav2vec2" and abs(meta["audio_duration_s"] - 11.66) < 0.01
    assert not (out_dir / "empty.txt").exists() and not (out_dir / "text.txt").exists()
    leftovers = [p for p in out_dir.rglob("*") if p.is_file() and p.suffix not in (".txt", ".json", ".srt")]
    assert leftovers == []
    assert not list(out_dir.rglob(".*"))                                # no temp files

    code, out, err = run(argv, capsys)                                  # resume: nothing redone
    assert code == 1
    assert "Summary: 0 done, 6 skipped, 2 failed" in err
    code, out, err = run(argv + ["--overwrite"], capsys)
    assert "Summary: 6 done, 0 skipped, 2 failed" in err


def test_folder_passes_over_files_that_are_not_audio_or_video_whatever_their_name(tmp_path, realspeech, tiny_w2v_dir,
                                                                                   capsys, home):
    """A file of an unknown kind beside a recording (talk.notes) failed the batch and moved the recording's outputs
    to talk.wav.txt (their names clashed): now FFmpeg's probe passes it over, and a recording with an odd name is
    still transcribed. A file named on the command line is tried: one line says why it failed, the rest go on."""
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", src / "talk.wav")
    shutil.copy(realspeech / "pocketsphinx_cards_005.wav", src / "call.rec")
    (src / "talk.notes").write_text("my notes\n")
    code, out, err = run(["transcribe", str(src), "--model", str(tiny_w2v_dir), "--format", "txt", "-q"], capsys)
    assert code == 0 and "Summary: 2 done, 0 skipped, 0 failed, 1 ignored" in err
    assert f"ignored: {src / 'talk.notes'}: not an audio or video file (Invalid data found when processing input)" \
        in err
    assert sorted(p.name for p in src.iterdir()) == ["call.rec", "call.txt", "talk.notes", "talk.txt", "talk.wav"]
    assert (src / "talk.notes").read_text() == "my notes\n"
    code, out, err = run(["transcribe", str(src / "talk.notes"), str(src / "talk.wav"), "--model", str(tiny_w2v_dir),
                          "--format", "srt", "-q"], capsys)
    assert code == 1 and "Summary: 1 done, 0 skipped, 1 failed, 0 ignored" in err
    assert err.count("talk.notes") == 2 and f"failed: {src / 'talk.notes'}: not a recognised audio or video file " \
        "(Invalid data found when processing input)\n" in err


def test_all_good_exits_zero_and_writes_next_to_input(tmp_path, realspeech, tiny_w2v_dir, capsys, home):
    f = tmp_path / "a.b.c.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    code, out, err = run(["transcribe", str(f), "--model", str(tiny_w2v_dir), "--format", "vtt", "-q"], capsys)
    assert code == 0
    assert (tmp_path / "a.b.c.vtt").read_text().startswith("WEBVTT")
    assert "Summary: 1 done, 0 skipped, 0 failed" in err


def test_same_stem_inputs_do_not_overwrite_each_other(tmp_path, realspeech, tiny_w2v_dir, capsys, home):
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / "talk.wav")
    shutil.copy(realspeech / "lhotse_common_voice_en_651325.mp3", tmp_path / "talk.mp3")
    code, out, err = run(["transcribe", str(tmp_path), "--model", str(tiny_w2v_dir), "--format", "json", "-q"], capsys)
    assert code == 0
    a = json.loads((tmp_path / "talk.wav.json").read_text())
    b = json.loads((tmp_path / "talk.mp3.json").read_text())
    assert abs(a["audio_duration_s"] - 2.87) < 0.01 and abs(b["audio_duration_s"] - 2.376) < 0.01


@pytest.mark.parametrize("argv,message", [
    (["transcribe", "x.wav", "--format", "docx"], "docx"),
    (["transcribe", "does-not-exist.wav"], "no input files"),
    (["transcribe", "x.wav", "--batch-size", "0"], "must be at least 1"),
    (["transcribe"], "required"),
])
def test_usage_errors_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.wav").write_bytes(b"RIFF")
    with pytest.raises(SystemExit) as exc:
        code = cli.main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_a_folder_without_media_is_named_in_the_error(tmp_path, capsys, monkeypatch):
    """An empty folder, or one with only documents, said "no input files to transcribe" without naming it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.pdf").write_text("x")
    assert cli.main(["transcribe", "empty", "docs"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [f"ignored {Path('docs', 'notes.pdf')}: not a media file (by its extension)",
                                "speechstudio: error: no audio or video files in empty, docs"]


@pytest.mark.parametrize("model", ["no-such-model", "./no/such/folder"])
def test_unknown_model_is_a_usage_error_in_one_line(model, tmp_path, realspeech, capsys, home):
    """A model neither installed, in the catalog nor a folder: exit 2 (usage), one line naming it and `speechstudio models`."""
    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    code, out, err = run(["transcribe", str(f), "--model", model, "-q"], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("speechstudio: error: ") and model in lines[0]
    assert "`speechstudio models list`" in lines[0] and not (tmp_path / "a.txt").exists()


def test_cancel_mid_file_writes_nothing(tmp_path, realspeech, tiny_w2v_dir):
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer

    f = tmp_path / "long.flac"
    shutil.copy(realspeech / "lhotse_librispeech_2412-153948-0000.flac", f)
    recognizer = Wav2Vec2Recognizer(tiny_w2v_dir, "tiny", device="cpu", chunk_s=1.0, stride_s=0.2, batch_size=1)
    cancel = threading.Event()
    kinds = []
    from speechstudio.audio import decode

    orig = decode.AudioReader.blocks

    def small_blocks(self):              # 0.5 s blocks so that cancel lands mid-file
        self.block_s = 0.5
        return orig(self)

    decode.AudioReader.blocks = small_blocks
    try:
        for ev in run_batch([InputItem(f)], recognizer, TranscriptionRequest(formats=("txt", "json")), cancel=cancel):
            kinds.append(ev.kind)
            if ev.kind == "segment":
                cancel.set()
    finally:
        decode.AudioReader.blocks = orig
    assert kinds[0] == "start" and kinds[-1] == "cancelled"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long.flac"]


def test_a_folder_that_refuses_outputs_fails_its_files_and_the_batch_goes_on(tmp_path, realspeech, tiny_w2v_dir,
                                                                              monkeypatch):
    """One read-only subfolder stopped the whole batch ("cannot write outputs", the rest never mentioned). Now its
    files fail, the ones not yet started without being transcribed, and the other folders' files are done; a full
    disk still stops the batch (test_transcribe_robustness)."""
    import errno

    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from speechstudio.batch import resume

    (tmp_path / "ro").mkdir()
    files = [tmp_path / "ro" / f"{k}.wav" for k in (1, 2, 3, 4, 5)] + [tmp_path / "b.wav"]
    for f in files:
        shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    write_json = resume.write_json

    def refuse(target, *a, **k):
        if Path(target).parent.name == "ro":
            raise PermissionError(errno.EACCES, "Permission denied", str(target))
        return write_json(target, *a, **k)

    monkeypatch.setattr(resume, "write_json", refuse)
    recognizer = Wav2Vec2Recognizer(tiny_w2v_dir, "tiny", device="cpu")
    ends = [(ev.item.path.name, ev.kind, ev.reason) for ev in run_batch(
        [InputItem(f) for f in files], recognizer, TranscriptionRequest(formats=("txt", "json")))
        if ev.kind not in ("start", "segment")]
    why = f"cannot write in {tmp_path / 'ro'}: Permission denied"
    assert ends == [("1.wav", "failed", why), ("2.wav", "failed", why),     # the 2nd was read ahead: transcribed
                    ("3.wav", "failed", f"{why} (not transcribed)"), ("4.wav", "failed", f"{why} (not transcribed)"),
                    ("5.wav", "failed", f"{why} (not transcribed)"), ("b.wav", "done", "")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json", "b.txt", "b.wav", "ro"]


def test_an_output_folder_that_cannot_be_made_fails_its_files_before_they_are_transcribed(tmp_path, realspeech,
                                                                                         tiny_w2v_dir):
    """--output-dir holding a file named like an input subfolder: its files were transcribed, then failed with
    "cannot write .../sub: File exists" (the first) or "Not a directory" (a deeper one). Now none is transcribed
    and each says which path is a file."""
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer

    src, out = tmp_path / "in", tmp_path / "out"
    (src / "sub" / "deeper").mkdir(parents=True)
    out.mkdir()
    (out / "sub").write_text("not a folder")
    for f in ("a.wav", "sub/b.wav", "sub/deeper/c.wav"):
        shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", src / f)
    recognizer = Wav2Vec2Recognizer(tiny_w2v_dir, "tiny", device="cpu")
    items, _ = collect_inputs([src])
    events = list(run_batch(items, recognizer, TranscriptionRequest(formats=("txt",), output_dir=str(out))))
    why = f"cannot write there ({out / 'sub'} is a file, not a folder) (not transcribed)"
    assert [(ev.item.path.name, ev.kind, ev.reason) for ev in events if ev.kind not in ("start", "segment")] == [
        ("a.wav", "done", ""), ("b.wav", "failed", f"{out / 'sub'}: {why}"),
        ("c.wav", "failed", f"{out / 'sub' / 'deeper'}: {why}")]
    assert [ev.item.path.name for ev in events if ev.kind == "start"] == ["a.wav"]
    assert sorted(p.name for p in out.iterdir()) == ["a.txt", "sub"]


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_folder_where_an_output_goes_fails_the_file_before_it_is_transcribed(tmp_path, realspeech, tiny_w2v_dir,
                                                                               overwrite):
    """A folder named like an output (talk.txt/): without --overwrite it said "talk.txt: exists, kept (use
    --overwrite to replace it)" and wrote the rest; with it, the file was transcribed and then failed. Now both
    fail the file before its transcription, naming the folder."""
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer

    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / "talk.wav")
    (tmp_path / "talk.txt").mkdir()
    recognizer = Wav2Vec2Recognizer(tiny_w2v_dir, "tiny", device="cpu")
    events = list(run_batch([InputItem(tmp_path / "talk.wav")], recognizer,
                            TranscriptionRequest(formats=("txt", "srt"), overwrite=overwrite)))
    assert [(ev.kind, ev.reason) for ev in events] == [
        ("failed", f"cannot write {tmp_path / 'talk.txt'}: a folder of that name is there (not transcribed)")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["talk.txt", "talk.wav"]


def test_a_folder_scan_follows_linked_folders_and_says_what_it_cannot_read(tmp_path, realspeech, monkeypatch):
    """A linked folder was not followed, an unreadable subfolder and a named pipe in a folder were passed over
    without a word ("no input files to transcribe"). Now linked folders are read (each real folder once: a link
    back up is no loop; one to a folder above is not followed), and what cannot be read is listed with its reason."""
    import os

    src, other = tmp_path / "in", tmp_path / "card"
    (src / "locked").mkdir(parents=True)
    other.mkdir()
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", src / "good.wav")
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", src / "locked" / "x.wav")
    shutil.copy(realspeech / "pocketsphinx_cards_005.wav", other / "linked.wav")
    (src / "card").symlink_to(other, target_is_directory=True)
    (other / "back").symlink_to(src, target_is_directory=True)        # a loop
    (other / "up").symlink_to(tmp_path, target_is_directory=True)     # up -> ..: it took in every file around
    shutil.copy(realspeech / "pocketsphinx_cards_005.wav", tmp_path / "beside.wav")
    os.mkfifo(src / "pipe.wav")
    scandir = os.scandir

    def no_permission(path="."):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", no_permission)
    items, ignored = collect_inputs([src])
    assert [i.path for i in items] == [src / "card" / "linked.wav", src / "good.wav"]
    assert sorted(ignored) == [(src / "card" / "up", "a link to a folder above the one given: not followed"),
                               (src / "locked", "cannot read the folder (Permission denied)"),
                               (src / "pipe.wav", "not a regular file (a pipe, socket or device: name it to read "
                                                  "from it)")]


def test_collect_inputs_recursive_flag(mixed):
    src, good = mixed
    items, ignored = collect_inputs([src], recursive=False)
    names = sorted(i.path.name for i in items)
    assert "ünïcödé.flac" not in names and "with space.wav" in names and ".hidden.wav" not in names
    items, _ = collect_inputs([src, src / "with space.wav"])          # de-duplicated
    assert len(items) == 8


def test_never_clobbers_files_it_did_not_write(tmp_path, realspeech, tiny_w2v_dir, capsys, home):
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / "movie.wav")
    (tmp_path / "movie.srt").write_text("1\n00:00:00,000 --> 00:00:01,000\nmy own subtitles\n")
    code, out, err = run(["transcribe", str(tmp_path), "--model", str(tiny_w2v_dir), "--format", "srt,json", "-q"], capsys)
    assert code == 0
    assert "my own subtitles" in (tmp_path / "movie.srt").read_text()
    assert (tmp_path / "movie.json").is_file()
    assert "movie.srt: exists, kept (use --overwrite to replace it)" in err


def test_same_name_from_two_folders_into_one_output_dir(tmp_path, realspeech, tiny_w2v_dir, capsys, home):
    for sub, real in (("a", "speechbrain_spk1_snt1.wav"), ("b", "pocketsphinx_cards_005.wav")):
        (tmp_path / sub).mkdir()
        shutil.copy(realspeech / real, tmp_path / sub / "x.wav")
    out = tmp_path / "out"
    code, _, err = run(["transcribe", str(tmp_path / "a" / "x.wav"), str(tmp_path / "b" / "x.wav"),
                        "--output-dir", str(out), "--model", str(tiny_w2v_dir), "--format", "json", "-q"], capsys)
    assert code == 0 and "Summary: 2 done, 0 skipped" in err
    durations = sorted(json.loads(p.read_text())["audio_duration_s"] for p in out.glob("*.json"))
    assert sorted(p.name for p in out.glob("*.json")) == ["a_x.wav.json", "b_x.wav.json"]
    assert durations == [2.87, 3.502]


def test_a_name_too_long_for_its_outputs_is_shortened_and_the_batch_goes_on(tmp_path, realspeech, tiny_w2v_dir, capsys,
                                                                              home):
    """A 255-byte input name ("y" * 251 + ".wav"; a video title of 85 Japanese characters) made ".json" one byte
    too many: "unexpected error: OSError: [Errno 36] File name too long" and nothing transcribed."""
    long = "y" * 251 + ".wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / long)
    shutil.copy(realspeech / "pocketsphinx_cards_005.wav", tmp_path / "ok.wav")
    argv = ["transcribe", str(tmp_path), "--model", str(tiny_w2v_dir), "--format", "srt,json", "-q"]
    code, _, err = run(argv, capsys)
    assert code == 0 and "Summary: 2 done, 0 skipped, 0 failed" in err
    made = sorted((p.name for p in tmp_path.iterdir() if p.name.startswith("y") and p.name != long), key=len)
    assert made[0] == "y" * 251 + ".srt" and re.fullmatch("y{241}~[0-9a-f]{8}[.]json", made[1])  # 255 bytes each
    assert json.loads((tmp_path / made[1]).read_text())["audio_duration_s"] == 2.87
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []   # no .part left
    code, _, err = run(argv, capsys)
    assert code == 0 and "Summary: 0 done, 2 skipped" in err                     # the same names on a rerun


def test_a_full_disk_stops_the_batch_and_says_how_many_were_not_started(tmp_path, realspeech, tiny_w2v_dir, capsys,
                                                                        home, monkeypatch):
    """The summary of a batch a full disk ended counted 2 done and 1 failed of 4 inputs: the last was in no count."""
    import errno
    import os

    from speechstudio.batch import resume

    for name in ("a", "b", "c", "d"):
        shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / f"{name}.wav")
    write_json = resume.write_json

    def fill_after_two(target, *a, **k):
        if Path(target).name.startswith(".c."):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))
        return write_json(target, *a, **k)

    monkeypatch.setattr(resume, "write_json", fill_after_two)
    code, _, err = run(["transcribe", str(tmp_path), "--model", str(tiny_w2v_dir), "--format", "json", "-q"], capsys)
    assert code == 1 and "Summary: 2 done, 0 skipped, 1 failed" in err
    assert f"failed: {tmp_path / 'c.wav'}: cannot write outputs: {tmp_path}: No space left on device" in err
    assert "  stopped: 1 input not started (the failure above would repeat); rerun to resume\n" in err


def test_raw_format_applies_to_raw_files_only(tmp_path, realspeech, tiny_w2v_dir, capsys, home):
    shutil.copy(realspeech / "pocketsphinx_goforward.raw", tmp_path / "go.raw")
    shutil.copy(realspeech / "whisper_jfk.flac", tmp_path / "jfk.flac")
    code, _, err = run(["transcribe", str(tmp_path), "--raw-format", "16000:1:s16le", "--model", str(tiny_w2v_dir),
                        "--format", "json", "-q"], capsys)
    assert code == 0 and "Summary: 2 done" in err
    assert json.loads((tmp_path / "jfk.json").read_text())["audio_duration_s"] == 11.0


def test_a_raw_files_warning_is_said_once_when_its_channels_are_split(tmp_path, realspeech, tiny_w2v_dir, capsys,
                                                                      home):
    import numpy as np

    go = np.frombuffer((realspeech / "pocketsphinx_goforward.raw").read_bytes(), "<i2")
    (tmp_path / "call.raw").write_bytes(np.stack([go, go[::-1]], axis=1).tobytes() + b"\x00\x00\x00")  # 3 bytes over
    code, _, err = run(["transcribe", str(tmp_path / "call.raw"), "--raw-format", "16000:2", "--channels", "split",
                        "--model", str(tiny_w2v_dir), "--format", "json", "-q"], capsys)
    warning = f"{tmp_path / 'call.raw'}: raw file size is not a whole number of frames; last 3 bytes ignored"
    live, summary = err.split("Summary:")
    assert code == 0 and live.count(warning) == 1 and summary.count(warning) == 1, err      # once, not per channel


def test_missing_path_among_good_ones_exits_1(tmp_path, realspeech, tiny_w2v_dir, capsys, home):
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / "a.wav")
    code, _, err = run(["transcribe", str(tmp_path / "a.wav"), str(tmp_path / "typo.wav"),
                        "--model", str(tiny_w2v_dir), "--format", "txt", "-q"], capsys)
    assert code == 1
    assert "typo.wav: no such file or folder" in err and "Summary: 1 done, 0 skipped, 1 failed" in err


@pytest.mark.parametrize("extra,message", [
    (["--chunk-s", "3"], "--stride-s 2 is too long for --chunk-s 3"),
    (["--stride-s", "10"], "--stride-s 10 is too long for --chunk-s 20"),
    (["--chunk-s", "0.03", "--stride-s", "0.001"], "too short"),
    (["--chunk-s", "inf"], "positive number of seconds"),
    (["--raw-format", "abc"], "--raw-format"),
    (["--output-dir", "__FILE__"], "--output-dir __FILE__: cannot write there (__FILE__ is a file, not a folder)"),
])
def test_bad_options_exit_2(extra, message, tmp_path, realspeech, capsys, home):
    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    extra = [str(f) if e == "__FILE__" else e for e in extra]
    message = message.replace("__FILE__", str(f))
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(cli.main(["transcribe", str(f), "-q", *extra]))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_english_only_model_with_other_language_is_a_usage_error(tmp_path, realspeech, whisper_dir, capsys, home):
    f = tmp_path / "a.wav"
    # one Whisper window (speechbrain_spk1_snt1.wav, used before, leaves a 70 ms tail window tiny.en samples 5 times)
    shutil.copy(realspeech / "pocketsphinx_sense_and_sensibility_0870.wav", f)
    code, _, err = run(["transcribe", str(f), "--model", str(whisper_dir), "--language", "German", "-q"], capsys)
    assert code == 2 and "English-only model" in err
    code, _, err = run(["transcribe", str(f), "--model", str(whisper_dir), "--language", "EN", "-q",
                        "--format", "txt"], capsys)
    assert code == 0 and "john dashwood had then leisure" in (tmp_path / "a.txt").read_text().lower()


@pytest.mark.parametrize("debug", [False, True])
def test_unexpected_engine_error_fails_the_file_with_at_most_one_traceback(debug, tmp_path, realspeech,
                                                                            tiny_w2v_dir, capsys, home, monkeypatch):
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer

    def broken(self, *args, **kwargs):
        raise ZeroDivisionError("model bug")

    monkeypatch.setattr(Wav2Vec2Recognizer, "transcribe_blocks", broken)
    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    argv = ["transcribe", str(f), "--model", str(tiny_w2v_dir), "-q"] + (["--debug"] if debug else [])
    code, out, err = run(argv, capsys)
    assert code == 1
    assert "a.wav: unexpected error: ZeroDivisionError: model bug" in err
    assert err.count("Traceback (most recent call last)") == (1 if debug else 0), err


def test_every_failed_line_names_the_file(tmp_path, realspeech, tiny_w2v_dir, capsys, home, monkeypatch):
    """A failure whose message does not name the input (an engine's refusal) is said with the file, live and in the summary."""
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from speechstudio.errors import SpeechStudioError

    def refuse(self, *args, **kwargs):
        raise SpeechStudioError("the model refused this audio")

    monkeypatch.setattr(Wav2Vec2Recognizer, "transcribe_blocks", refuse)
    files = [tmp_path / "a.wav", tmp_path / "b.wav"]
    for f in files:
        shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    code, _, err = run(["transcribe", *map(str, files), "--model", str(tiny_w2v_dir), "-q"], capsys)
    assert code == 1
    failed = [line.strip() for line in err.splitlines() if line.strip().startswith("failed:")]
    assert failed == [f"failed: {f}: the model refused this audio" for f in files] * 2, err


def test_progress_off_a_terminal_is_a_line_at_start_and_end_not_per_file(tmp_path, realspeech, tiny_w2v_dir, capsys,
                                                                         home, monkeypatch):
    """README: off a terminal the bar writes a line when it starts, at most one every 30 s, one when it ends."""
    import speechstudio.progress as progress

    monkeypatch.setattr(progress, "LOG_INTERVAL_S", 3600.0)         # no periodic line in this short run
    for name in ("a.wav", "b.wav", "c.wav"):
        shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / name)
    code, _, err = run(["transcribe", str(tmp_path), "--model", str(tiny_w2v_dir), "--format", "txt"], capsys)
    assert code == 0
    bar_lines = [line for line in err.splitlines() if "s audio [" in line]
    assert len(bar_lines) == 2 and "3/3 c.wav" in bar_lines[-1] and "done 3" in bar_lines[-1], err
    assert "\r" not in err


def test_ctrl_c_while_the_command_starts_is_one_line_and_130(tmp_path, capsys, monkeypatch):
    """Ctrl+C while the subcommand's modules load (the first ~0.5 s): status 130 and one line, no traceback."""
    def interrupted_import(command=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted_import)
    code, out, err = run(["transcribe", str(tmp_path / "a.wav")], capsys)
    assert (code, out, err) == (130, "", "interrupted\n")


def test_s16_raw_read_as_f32_says_our_warnings_not_numpys(tmp_path, realspeech, whisper_dir, capsys, home):
    """--raw-format f32 on s16 data leaked numpy RuntimeWarnings (overflow in the Whisper features)."""
    import warnings

    f = tmp_path / "go.raw"
    shutil.copy(realspeech / "pocketsphinx_goforward.raw", f)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, _, err = run(["transcribe", str(f), "--raw-format", "16000:1:f32le", "--model", str(whisper_dir),
                            "--language", "en", "--format", "txt", "-q"], capsys)
    assert code == 0, err
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
    assert f"warning: {f}: " in err and "samples are far out of range" in err and "RuntimeWarning" not in err


def test_rtfx_is_audio_seconds_per_wall_second_of_the_run():
    """One RTFx (issue 42): the summary divides by the run's wall clock, not the files' summed processing time."""
    s = BatchSummary(audio_s=120.0, wall_s=40.0)
    s.add(BatchEvent("done", InputItem(Path("a.wav")), 0, duration_s=60.0, wall_s=30.0))
    assert (s.audio_s, s.rtfx, BatchSummary(audio_s=60.0).rtfx) == (180.0, 4.5, 0.0)


def test_two_channels_never_share_a_known_voices_name():
    """An interview split by channel, one saved voice: the other person's channel (the saved voice's crosstalk
    in it) matched it at 0.81 and both channels were named after it, merged into one speaker. The closer
    channel keeps the name; the other keeps its channel's label."""
    from types import SimpleNamespace

    import numpy as np

    from speechstudio.asr.types import Segment, TranscriptInfo, Word
    from speechstudio.audio.levels import LevelMeter
    from speechstudio.batch.channels import merge
    from speechstudio.batch.run import ChannelPass
    from speechstudio.diarize.family import SpeakerInfo

    def channel(ch: int, at: float, similarity: float) -> ChannelPass:
        meter = LevelMeter(16000)
        level = np.zeros(16000 * 4, np.float32)
        level[int(at * 16000): int((at + 1) * 16000)] = 0.3          # its own speech, loud on its channel only
        meter.push(level)
        words = (Word(at, at + 0.5, "hello"), Word(at + 0.5, at + 1.0, "there"))
        found = SimpleNamespace(speakers=[SpeakerInfo("Matthes", 1.0, True, similarity, "sure")])
        return ChannelPass(ch, [Segment(at, at + 1.0, "hello there", words)],
                           TranscriptInfo(4.0, "en", "m", "whisper"), found, SimpleNamespace(levels=meter))

    segments, info, _ = merge([channel(0, 0.5, 0.97), channel(1, 2.5, 0.81)], 2)
    assert [(s.speaker, s.start_s) for s in segments] == [("Matthes", 0.5), ("Right", 2.5)]
    assert [(i.name, i.known, i.similarity) for i in info.speakers] == [("Matthes", True, 0.97), ("Right", False, None)]
    segments, info, _ = merge([channel(0, 0.5, 0.80), channel(1, 2.5, 0.93)], 2)
    assert [s.speaker for s in segments] == ["Left", "Matthes"]


def test_a_channel_that_says_nothing_is_no_speaker():
    """--channels split on a stereo file with speech on its left only said "2 speakers: Left (2.7 s), Right (0.0 s)"
    (and the JSON listed Right): a channel without a word is not listed."""
    from types import SimpleNamespace

    import numpy as np

    from speechstudio.asr.types import Segment, TranscriptInfo, Word
    from speechstudio.audio.levels import LevelMeter
    from speechstudio.batch.channels import merge
    from speechstudio.batch.run import ChannelPass
    from speechstudio.diarize.family import Diarization

    meter = LevelMeter(16000)
    meter.push(np.full(16000 * 2, 0.3, np.float32))
    words = (Word(0.5, 1.0, "hello"), Word(1.0, 1.5, "there"))
    said = ChannelPass(0, [Segment(0.5, 1.5, "hello there", words)], TranscriptInfo(2.0, "en", "m", "whisper"), None,
                       SimpleNamespace(levels=meter))
    silent = ChannelPass(1, [], TranscriptInfo(2.0, "en", "m", "whisper"), None, SimpleNamespace(levels=LevelMeter(16000)))
    segments, info, _ = merge([said, silent], 2)
    assert [s.speaker for s in segments] == ["Left"] and [i.name for i in info.speakers] == ["Left"]
    assert Diarization([], list(info.speakers)).summary() == "1 speaker: Left (1.0 s)"


def test_the_progress_bar_ends_full_when_a_header_promised_more_audio(tmp_path, realspeech, tiny_w2v_dir, capsys,
                                                                      home):
    data = (realspeech / "vosk_test.wav").read_bytes()
    (tmp_path / "truncated.wav").write_bytes(data[: len(data) // 2])      # its header says twice the audio
    code, _, err = run(["transcribe", str(tmp_path / "truncated.wav"), "--model", str(tiny_w2v_dir), "--format", "txt",
                        "--output-dir", str(tmp_path / "out")], capsys)
    bars = [line for line in err.splitlines() if "s audio [" in line]     # not a terminal: plain lines
    assert code == 0 and "100%|" in bars[-1], bars


def test_an_interruption_names_the_file_left_unwritten(tmp_path, realspeech, tiny_w2v_dir, capsys, home, monkeypatch):
    from speechstudio.batch import cli as batch_cli
    from speechstudio.batch.run import BatchEvent

    shutil.copy(realspeech / "vosk_test.wav", tmp_path / "talk.wav")

    def interrupted(items, recognizer, request, cancel=None, debug=False):
        yield BatchEvent("start", items[0], 0, duration_s=1.0)
        raise KeyboardInterrupt                                          # Ctrl+C while it is decoded

    monkeypatch.setattr(batch_cli, "run_batch", interrupted)
    code, _, err = run(["transcribe", str(tmp_path / "talk.wav"), "--model", str(tiny_w2v_dir), "-q"], capsys)
    assert code == 130 and f"  interrupted: {tmp_path / 'talk.wav'} was not written; rerun to resume\n" in err


def _parsers(parser):
    """Every parser under ``parser`` (itself included), depth first."""
    yield parser
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        for sub in dict.fromkeys(action.choices.values()):
            yield from _parsers(sub)


def test_help_examples_are_one_per_line_and_parse(capsys, monkeypatch):
    """`--help` ends with examples, one per line (argparse would run them into one paragraph), and every
    example parses with the command it documents."""
    import shlex

    monkeypatch.setenv("COLUMNS", "100")
    parser = cli.build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["transcribe", "--help"])
    assert ("\nexamples:\n  speechstudio transcribe interview.mp3 (interview.txt, .srt, .vtt, .json beside it)\n"
            "  speechstudio transcribe meeting.m4a --speakers auto --format txt,srt\n") in capsys.readouterr().out
    examples = [line.split("(")[0] for p in _parsers(parser) for line in (p.epilog or "").splitlines()
                if line.startswith("  speechstudio ")]
    assert len(examples) >= 16
    for line in examples:
        args = parser.parse_args(shlex.split(line)[1:])
        assert args.command in line, line
