"""Transcription robustness (issue 12): unattended runs, cancelled channels, decode errors,
stale outputs on resume, pipes. Each test builds its odd input itself."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from speechstudio import cli
from speechstudio.batch.resume import WorkPlan, plan_work


# The clip of the Whisper tests here: one Whisper window (speechbrain_spk1_snt1.wav, used before, leaves a 70 ms
# tail window that Whisper tiny.en samples five times at temperature 0.2, each time it is transcribed).
ONE_WINDOW = "pocketsphinx_sense_and_sensibility_0870.wav"


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- fault 1: unknown totals
def test_rerun_of_finished_folder_without_terminal_reports_skips(tmp_path, realspeech, tiny_w2v_dir, capsys, home):
    """Resume of a finished folder, progress on (stderr is not a terminal under capsys)."""
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / "a.wav")
    argv = ["transcribe", str(tmp_path), "--model", str(tiny_w2v_dir), "--format", "txt"]
    code, _, err = run(argv + ["-q"], capsys)
    assert code == 0
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert "unexpected error" not in err
    assert "Summary: 0 done, 1 skipped, 0 failed, 0 ignored in 0:0" in err and "RTFx" not in err
    assert "  skipped: 1 already transcribed (use --overwrite to transcribe it again)\n" in err


def test_batch_of_one_unreadable_file_without_terminal(tmp_path, tiny_w2v_dir, capsys, home):
    (tmp_path / "text.wav").write_text("not audio\n" * 40)
    code, _, err = run(["transcribe", str(tmp_path / "text.wav"), "--model", str(tiny_w2v_dir)], capsys)
    assert code == 1, err
    assert "unexpected error" not in err
    assert "Summary: 0 done, 0 skipped, 1 failed, 0 ignored" in err
    assert "text.wav: not a recognised audio or video file" in err


def test_progress_counter_reaches_the_last_file_when_it_is_skipped(tmp_path, realspeech, tiny_w2v_dir, capsys, home):
    """A file with no "start" event (skipped, refused) still moves the bar's "N/M name" to its number."""
    for name in ("a.wav", "b.wav"):
        shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / name)
    argv = ["transcribe", str(tmp_path), "--model", str(tiny_w2v_dir), "--format", "txt"]
    assert run(argv + ["-q"], capsys)[0] == 0
    (tmp_path / "a.txt").unlink()          # a is transcribed again, b (last) is skipped
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert "Summary: 1 done, 1 skipped, 0 failed" in err
    assert "2/2 b.wav" in err

def test_audio_bar_draws_with_unknown_and_exceeded_totals(capsys):
    from tqdm import tqdm

    from speechstudio.batch.cli import _audio_bar

    bar = _audio_bar(tqdm, None, quiet=False)
    bar.set_description("1/1 a.wav")
    bar.update(3.0)
    bar.refresh()
    bar.total = 2.0                       # a total tqdm would drop (n > total): still drawn
    bar.update(5.0)
    bar.refresh()
    bar.close()
    err = capsys.readouterr().err
    assert "1/1 a.wav: 8 s audio" in err


# ---------------------------------------------------------------- fault 2: channels that cancel
def _stereo(tmp_path, realspeech, name, second):
    import soundfile as sf

    x, rate = sf.read(realspeech / ONE_WINDOW, dtype="float32")
    path = tmp_path / name
    sf.write(path, np.stack([x, second(x)], axis=1), rate, subtype="PCM_16")
    return path


def test_opposite_polarity_stereo_is_transcribed_from_one_channel(tmp_path, realspeech, whisper_dir, capsys, home):
    f = _stereo(tmp_path, realspeech, "miswired.wav", lambda x: -x)
    code, _, err = run(["transcribe", str(f), "--model", str(whisper_dir), "--language", "en",
                        "--format", "txt,json", "-q"], capsys)
    assert code == 0, err
    assert "john dashwood had then leisure" in (tmp_path / "miswired.txt").read_text().lower()
    assert ("miswired.wav: the 2 channels cancel out when mixed (opposite polarity?); "
            "transcribed channel 1, the strongest") in err
    assert abs(json.loads((tmp_path / "miswired.json").read_text())["audio_duration_s"] - 7.1) < 0.01


def test_in_phase_stereo_is_mixed_without_warning(tmp_path, realspeech):
    from speechstudio.audio.decode import AudioReader, load_audio

    f = _stereo(tmp_path, realspeech, "ok.wav", lambda x: 0.5 * x)
    reader = AudioReader(f, 16000)
    mixed = np.concatenate(list(reader.blocks()))
    assert reader.warnings == []
    mono = load_audio(realspeech / ONE_WINDOW)
    assert np.allclose(mixed, 0.75 * mono, atol=2e-4)


def test_loud_audio_without_text_is_warned_about(tmp_path, realspeech, tiny_w2v_dir, capsys, home, monkeypatch):
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer

    def nothing(self, blocks, *args, **kwargs):       # a recogniser that hears nothing
        for _ in blocks:
            pass
        return iter(())

    monkeypatch.setattr(Wav2Vec2Recognizer, "transcribe_blocks", nothing)
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / "a.wav")
    code, _, err = run(["transcribe", str(tmp_path / "a.wav"), "--model", str(tiny_w2v_dir), "--format", "txt",
                        "-q"], capsys)
    assert code == 0
    assert (tmp_path / "a.txt").read_text().strip() == ""
    assert "Summary: 1 done" in err
    assert "  warning: " in err and "a.wav: no text recognised in" in err


# ---------------------------------------------------------------- fault 4: only FFmpeg errors are "damaged data"
def _failing_after_first_frame(monkeypatch, error):
    from speechstudio.audio import decode

    orig = decode.AudioReader._decode_planes

    def planes(self, stream_index, limit_s=None):
        for i, p in enumerate(orig(self, stream_index, limit_s)):
            if i == 20 and limit_s is None:
                raise error
            yield p

    monkeypatch.setattr(decode.AudioReader, "_decode_planes", planes)


@pytest.mark.parametrize("error,reason", [
    (MemoryError(), "a.wav: out of memory"),
    (RuntimeError("resampler bug"), "a.wav: unexpected error: RuntimeError: resampler bug"),
])
def test_non_ffmpeg_error_mid_file_fails_the_file(error, reason, tmp_path, realspeech, tiny_w2v_dir, capsys, home,
                                                  monkeypatch):
    from speechstudio.audio.decode import load_audio

    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / "a.wav")
    _failing_after_first_frame(monkeypatch, error)
    with pytest.raises(type(error)):
        load_audio(tmp_path / "a.wav")
    code, _, err = run(["transcribe", str(tmp_path / "a.wav"), "--model", str(tiny_w2v_dir), "--format", "txt",
                        "-q"], capsys)
    assert code == 1
    assert "Summary: 0 done, 0 skipped, 1 failed" in err and f"  failed: {tmp_path / reason}" in err
    assert "damaged data" not in err
    assert not (tmp_path / "a.txt").exists()


def test_ffmpeg_error_mid_file_keeps_what_was_decoded(tmp_path, realspeech, monkeypatch):
    import av

    from speechstudio.audio.decode import AudioReader

    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / "a.wav")
    _failing_after_first_frame(monkeypatch, av.error.InvalidDataError(1094995529, "Invalid data found"))
    reader = AudioReader(tmp_path / "a.wav")
    audio = np.concatenate(list(reader.blocks()))
    assert 0 < audio.shape[0] < 2.87 * 16000
    assert [w for w in reader.warnings if "damaged data after" in w and "decoded as far as it was valid" in w]


# ---------------------------------------------------------------- fault 5: resume never keeps a stale file
def test_input_replaced_after_its_transcript_is_transcribed_again(tmp_path, realspeech, tiny_w2v_dir, capsys, home):
    import os

    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    argv = ["transcribe", str(f), "--model", str(tiny_w2v_dir), "--format", "txt,json", "-q"]
    assert run(argv, capsys)[0] == 0
    assert json.loads((tmp_path / "a.json").read_text())["source"]["size"] == f.stat().st_size
    old = (tmp_path / "a.json").stat().st_mtime - 100
    shutil.copy(realspeech / "pocketsphinx_cards_005.wav", f)      # replaced, with an older mtime (cp -p)
    os.utime(f, (old, old))
    code, _, err = run(argv, capsys)
    assert code == 0
    assert "Summary: 1 done, 0 skipped, 0 failed" in err
    assert f"{f}: changed since its transcript was written (size or content differ); transcribed again" in err
    assert json.loads((tmp_path / "a.json").read_text())["audio_duration_s"] == 3.502
    code, _, err = run(argv, capsys)                                 # now current: skipped
    assert "Summary: 0 done, 1 skipped, 0 failed" in err


def _kept_note(f, *names):
    return (f"{f}: modified after {', '.join(names)} {'was' if len(names) == 1 else 'were'} written, and no .json "
            f"transcript shows {'it is' if len(names) == 1 else 'they are'} speechstudio's unedited output (your "
            "own?): kept; not transcribed again, so that its outputs do not mix two versions of it (use --overwrite "
            "to replace them)")


def _age(path, seconds):
    import os

    t = path.stat().st_mtime - seconds
    os.utime(path, (t, t))


def test_changed_input_beside_an_output_no_json_vouches_for_is_not_half_redone(tmp_path, realspeech, tiny_w2v_dir,
                                                                              capsys, home):
    """A .txt of the old input and no .json: a rerun wrote a new .json beside the old .txt ("exists, kept")."""
    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    model = ["--model", str(tiny_w2v_dir), "-q"]
    assert run(["transcribe", str(f), *model, "--format", "txt"], capsys)[0] == 0
    _age(tmp_path / "a.txt", 100)
    old_txt = (tmp_path / "a.txt").read_bytes()
    shutil.copy(realspeech / "pocketsphinx_cards_005.wav", f)      # the input replaced (a newer mtime)
    code, _, err = run(["transcribe", str(f), *model, "--format", "txt,srt,json"], capsys)
    assert code == 0 and "Summary: 0 done, 1 skipped, 0 failed" in err
    assert _kept_note(f, "a.txt") in err.replace("\n  warning: ", "\n").splitlines()
    assert (tmp_path / "a.txt").read_bytes() == old_txt and sorted(p.name for p in tmp_path.iterdir()) == [
        "a.txt", "a.wav"]
    code, _, err = run(["transcribe", str(f), *model, "--format", "txt,srt,json", "--overwrite"], capsys)
    doc = json.loads((tmp_path / "a.json").read_text())
    assert code == 0 and doc["audio_duration_s"] == 3.502 and doc["source"]["outputs"] == ["a.txt", "a.srt", "a.json"]


def test_output_of_an_older_input_left_by_a_json_only_run_is_not_taken_as_current(tmp_path, realspeech, tiny_w2v_dir,
                                                                                 capsys, home):
    """The input changed and a `--format json` run redid only the JSON: a later txt,json run skipped silently, the
    .txt of the old input taken as current. The JSON lists the .txt as its own (unedited): it is written again."""
    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    model = ["--model", str(tiny_w2v_dir), "-q"]
    assert run(["transcribe", str(f), *model, "--format", "txt,json"], capsys)[0] == 0
    for name in ("a.txt", "a.json"):
        _age(tmp_path / name, 100)
    old_txt = (tmp_path / "a.txt").read_text()
    shutil.copy(realspeech / "pocketsphinx_cards_005.wav", f)
    code, _, err = run(["transcribe", str(f), *model, "--format", "json"], capsys)
    assert code == 0 and "Summary: 1 done, 0 skipped" in err
    assert json.loads((tmp_path / "a.json").read_text())["source"]["outputs"] == ["a.json", "a.txt"]
    assert (tmp_path / "a.txt").read_text() != old_txt
    code, _, err = run(["transcribe", str(f), *model, "--format", "txt,json"], capsys)
    assert code == 0 and "Summary: 0 done, 1 skipped" in err and "kept" not in err


def test_overwrite_with_fewer_formats_leaves_no_output_of_the_run_before(tmp_path, realspeech, tiny_w2v_dir,
                                                                          capsys, home):
    """`--overwrite --format srt` after a txt,vtt,json run wrote a.srt beside the earlier a.txt and a.json, and a
    later srt,json run took that mix as "already transcribed". The earlier transcript's other outputs (those its
    JSON lists, unedited) are written again with it; an output edited since is kept."""
    import time

    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    model = ["--model", str(tiny_w2v_dir), "-q"]
    assert run(["transcribe", str(f), *model, "--format", "txt,vtt,json"], capsys)[0] == 0
    for name in ("a.txt", "a.vtt", "a.json"):
        _age(tmp_path / name, 100)
    (tmp_path / "a.vtt").write_text("WEBVTT\n\nmy edit\n")            # edited after its transcript: the user's
    before = time.time() - 1
    code, _, err = run(["transcribe", str(f), *model, "--format", "srt", "--overwrite"], capsys)
    assert code == 0 and f"warning: {f}: a.txt, a.json (its earlier transcript's other formats) written again " \
        "too, so that all its outputs are of this run\n" in err
    assert json.loads((tmp_path / "a.json").read_text())["source"]["outputs"] == ["a.srt", "a.txt", "a.json"]
    assert all((tmp_path / n).stat().st_mtime > before for n in ("a.srt", "a.txt", "a.json"))
    assert (tmp_path / "a.vtt").read_text() == "WEBVTT\n\nmy edit\n"
    kept = "kept as they are (edited since, or not listed by its JSON transcript): they may be of an earlier run"
    assert f"warning: {f}: a.vtt {kept}\n" in err
    code, _, err = run(["transcribe", str(f), *model, "--format", "srt,json"], capsys)
    assert code == 0 and "Summary: 0 done, 1 skipped" in err and "already transcribed" in err
    g = tmp_path / "b" / "b.wav"                  # no JSON: the other formats are not known as its own; said so
    g.parent.mkdir()
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", g)
    assert run(["transcribe", str(g), *model, "--format", "txt,srt"], capsys)[0] == 0
    code, _, err = run(["transcribe", str(g), *model, "--format", "vtt", "--overwrite"], capsys)
    assert code == 0 and f"warning: {g}: b.txt, b.srt {kept}\n" in err


def test_output_edited_after_its_transcript_is_not_overwritten_when_the_input_changes(tmp_path, realspeech,
                                                                                     tiny_w2v_dir, capsys, home):
    import os

    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    argv = ["transcribe", str(f), "--model", str(tiny_w2v_dir), "-q", "--format", "txt,srt,json"]
    assert run(argv, capsys)[0] == 0
    t0 = (tmp_path / "a.json").stat().st_mtime
    (tmp_path / "a.txt").write_text("My own corrections.\n")
    os.utime(tmp_path / "a.txt", (t0 + 10, t0 + 10))                # edited after the run
    shutil.copy(realspeech / "pocketsphinx_cards_005.wav", f)
    os.utime(f, (t0 + 20, t0 + 20))                                  # then the input replaced
    code, _, err = run(argv, capsys)
    assert code == 0 and "Summary: 0 done, 1 skipped" in err and _kept_note(f, "a.txt") in err
    assert (tmp_path / "a.txt").read_text() == "My own corrections.\n"
    assert json.loads((tmp_path / "a.json").read_text())["audio_duration_s"] == 2.87      # still all of the old one


def test_speaker_labels_asked_after_a_transcript_without_them_transcribe_again(tmp_path, realspeech, whisper_dir,
                                                                              capsys, home):
    f = tmp_path / "a.wav"
    shutil.copy(realspeech / ONE_WINDOW, f)
    argv = ["transcribe", str(f), "--model", str(whisper_dir), "--format", "txt,json", "-q"]
    assert run(argv, capsys)[0] == 0 and "speaker_count" not in json.loads((tmp_path / "a.json").read_text())
    code, _, err = run(argv + ["--speakers", "auto"], capsys)
    assert code == 0 and "Summary: 1 done, 0 skipped, 0 failed" in err
    assert f"{f}: its transcript has no speaker labels; transcribed again with them" in err
    assert json.loads((tmp_path / "a.json").read_text())["speaker_count"]["found"] == 1
    assert "Summary: 0 done, 1 skipped, 0 failed" in run(argv + ["--speakers", "auto"], capsys)[2]
    assert "Summary: 0 done, 1 skipped, 0 failed" in run(argv, capsys)[2]      # labels kept without asking


def test_speaker_labels_asked_without_a_json_output_say_why_the_transcript_is_kept(tmp_path):
    """Only the JSON records whether a transcript has labels: txt/srt alone are kept, with the reason."""

    f = tmp_path / "a.wav"
    f.write_bytes(b"RIFF")
    targets = {fmt: tmp_path / f"a.{fmt}" for fmt in ("txt", "srt")}
    for t in targets.values():
        t.write_text("Hello.\n")
    assert plan_work(f, targets, overwrite=False, asked={"speakers": "auto"}) == WorkPlan(
        {}, (f"{f}: kept its transcript; without a .json output it is not known to have speaker labels (add json to "
             "--format, or use --overwrite to redo it with them)",), "already transcribed")
    assert plan_work(f, targets, overwrite=False, asked={}) == WorkPlan({}, (), "already transcribed")


def test_a_rerun_with_another_model_transcribes_again_naming_it_and_keeps_an_edited_output(tmp_path, realspeech,
                                                                                           tiny_w2v_dir, capsys, home):
    """A rerun with another --model skipped every file as "already transcribed": the unedited outputs its JSON
    lists are written again, the edited one kept, and the note names the model; the same request still skips."""
    import os

    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    argv = ["transcribe", str(f), "--model", str(tiny_w2v_dir), "--format", "txt,srt,json"]
    assert run(argv + ["-q"], capsys)[0] == 0
    assert "Summary: 0 done, 1 skipped" in run(argv, capsys)[2]               # the same request: kept
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["model_id"] == str(tiny_w2v_dir.resolve())
    assert doc["source"]["request"] == {"task": "transcribe", "speakers": None}
    (tmp_path / "a.json").write_text(json.dumps({**doc, "model_id": "whisper-tiny.en"}))   # as an earlier run's
    t0 = (tmp_path / "a.json").stat().st_mtime
    (tmp_path / "a.txt").write_text("the tiny.en text\n")
    os.utime(tmp_path / "a.txt", (t0 - 50, t0 - 50))
    (tmp_path / "a.srt").write_text("1\n00:00:00,000 --> 00:00:01,000\nMy edit.\n")
    os.utime(tmp_path / "a.srt", (t0 + 10, t0 + 10))                           # edited after the run
    code, _, err = run(argv, capsys)
    assert code == 0 and "Summary: 1 done, 0 skipped" in err, err
    assert f"{f}: its transcript was made with model whisper-tiny.en; transcribed again with {tiny_w2v_dir}" in err
    assert f"{tmp_path / 'a.srt'}: exists, kept (use --overwrite to replace it)" in err
    assert (tmp_path / "a.txt").read_text() != "the tiny.en text\n"
    assert (tmp_path / "a.srt").read_text() == "1\n00:00:00,000 --> 00:00:01,000\nMy edit.\n"
    assert json.loads((tmp_path / "a.json").read_text())["model_id"] == str(tiny_w2v_dir.resolve())
    assert "Summary: 0 done, 1 skipped" in run(argv, capsys)[2]


def _plan_against(tmp_path, asked, request=True, **doc):
    """``plan_work`` for a.wav beside a.txt and a.json, a transcript made with tiny.en, task transcribe,
    language en, speakers auto (``request``: recorded, as now), track 1; ``doc``: other fields of the JSON
    (``None``: left out)."""
    from speechstudio.batch.resume import fingerprint

    f = tmp_path / "a.wav"
    f.write_bytes(b"RIFF" * 100)
    targets = {"txt": tmp_path / "a.txt", "json": tmp_path / "a.json"}
    targets["txt"].write_text("Hello.\n")
    source = {**fingerprint(f), "outputs": ["a.txt", "a.json"]}
    source.update({"request": {"task": "transcribe", "speakers": "auto"}} if request else {})
    doc = {"model_id": "whisper-tiny.en", "task": "transcribe", "language": "en", "segments": [{"text": "Hello."}],
           "speaker_count": {"found": 1}, "audio": {"track": 1}, "source": source, **doc}
    targets["json"].write_text(json.dumps({k: v for k, v in doc.items() if v is not None}))
    same = {"models": {"whisper-tiny.en", "whisper-base"}, "model": "the default model", "task": "transcribe",
            "language": None, "speakers": None, "track": None}
    return plan_work(f, targets, overwrite=False, asked={**same, **asked}), f, targets


@pytest.mark.parametrize("asked, differs", [
    ({"models": {"whisper-base"}, "model": "base"}, "model whisper-tiny.en; transcribed again with base"),
    ({"task": "translate", "language": "fr"},
     "task transcribe and language en; transcribed again with translate and fr"),
    ({"speakers": "3"}, "speakers auto; transcribed again with 3"),
    ({"track": 2, "speakers": "2-4"}, "speakers auto and track 1; transcribed again with 2-4 and 2"),
])
def test_a_request_other_than_the_json_records_transcribes_again_naming_the_difference(tmp_path, asked, differs):
    plan, f, targets = _plan_against(tmp_path, asked)
    assert plan == WorkPlan(targets, (f"{f}: its transcript was made with {differs}",))


@pytest.mark.parametrize("asked, recorded", [
    ({}, True),                                             # a default run after a default run
    ({"models": {"whisper-tiny.en"}, "model": "tiny.en", "language": "en", "speakers": "auto", "track": 1}, True),
    ({"models": set(), "model": "x"}, True),                # the model not known here: not compared
    ({"speakers": "3"}, False),                             # an older JSON: the speakers asked not recorded
])
def test_a_request_the_json_records_or_does_not_say_keeps_the_transcript(tmp_path, asked, recorded):
    assert _plan_against(tmp_path, asked, recorded)[0] == WorkPlan({}, (), "already transcribed")


def test_a_redo_with_fewer_formats_writes_the_earlier_formats_again(tmp_path):
    """--format all, then txt,json with other speakers: the .srt (listed by the JSON, unedited) was left with the
    old speakers, and a later --format all took the mix as "already transcribed"; an edited one is kept, said."""
    import os

    _, f, targets = _plan_against(tmp_path, {})
    srt, vtt = tmp_path / "a.srt", tmp_path / "a.vtt"
    doc = json.loads(targets["json"].read_text())
    doc["source"]["outputs"] += ["a.srt", "a.vtt"]
    targets["json"].write_text(json.dumps(doc))
    srt.write_text("1\n00:00:00,000 --> 00:00:01,000\nSpeaker 3: Hello.\n")
    vtt.write_text("WEBVTT\n\nmy edit\n")
    at = targets["json"].stat().st_mtime + 10
    os.utime(vtt, (at, at))                                                 # edited after the run
    plan = plan_work(f, targets, overwrite=False, asked={"speakers": "2"})
    assert plan == WorkPlan({**targets, "srt": srt}, (
        f"{f}: its transcript was made with speakers auto; transcribed again with 2",
        f"{f}: a.srt (its earlier transcript's other formats) written again too, so that all its outputs are of "
        "this run",
        f"{f}: a.vtt kept as they are (edited since, or not listed by its JSON transcript): they may be of an "
        "earlier run"))

def test_an_output_edited_after_its_transcript_is_kept_when_another_model_redoes_it(tmp_path):
    import os

    _, f, targets = _plan_against(tmp_path, {}, speaker_count=None)        # no labels
    at = targets["json"].stat().st_mtime + 10
    os.utime(targets["txt"], (at, at))                                      # edited after the run
    plan = plan_work(f, targets, overwrite=False,
                     asked={"models": {"whisper-base"}, "model": "base", "speakers": "auto"})
    assert plan == WorkPlan({"json": targets["json"]}, (
        f"{f}: its transcript was made with model whisper-tiny.en; transcribed again with base",
        f"{f}: its transcript has no speaker labels; transcribed again with them",
        f"{targets['txt']}: exists, kept (use --overwrite to replace it)"))


def test_what_a_rerun_asks_is_resolved_so_an_alias_or_the_default_model_is_no_difference(whisper_dir, home):
    """The model ids a transcript of the request may record, as it would load them (nothing loaded)."""
    from types import SimpleNamespace

    from speechstudio.batch.request import TranscriptionRequest
    from speechstudio.batch.resume import asked

    assert asked(TranscriptionRequest(model="tiny.en"))["models"] == {"whisper-tiny.en"}
    assert "whisper-tiny.en" in asked(TranscriptionRequest())["models"]      # a default run after a default run
    assert asked(TranscriptionRequest(model="no-such-model"))["models"] == {"no-such-model"}   # load says why
    router = SimpleNamespace(engine="auto", english_name="whisper-tiny.en", multilingual=None, model_id="auto (…)")
    assert asked(TranscriptionRequest(), router)["models"] == {"whisper-tiny.en"}
    got = [asked(TranscriptionRequest.build(speakers=s, audio_track=t), router)
           for s, t in (("auto", 1), ("3", None), ("2-4", "fr"), (None, 2))]
    assert [(a["speakers"], a["track"]) for a in got] == [("auto", 1), ("3", None), ("2-4", None), (None, 2)]


def test_a_file_changed_after_its_kept_outputs_is_skipped_as_changed_not_as_transcribed(tmp_path):
    """The queue said "skipped: already transcribed" for an input newer than the outputs it kept; it says why."""
    from speechstudio.batch.run import InputItem
    from speechstudio.gui.queue_table import status_text
    from speechstudio.gui.transcript_view import QueueRow

    f = tmp_path / "a.wav"
    f.write_bytes(b"RIFF")
    targets = {"txt": tmp_path / "a.txt", "json": tmp_path / "a.json"}
    targets["txt"].write_text("Hello.\n")
    _age(targets["txt"], 100)
    plan = plan_work(f, targets, overwrite=False)
    assert plan == WorkPlan({}, (_kept_note(f, "a.txt"),), "changed after its transcript was written")
    row = QueueRow(InputItem(f), status="skipped", reason="\n".join((plan.skip, *plan.notes)))
    assert status_text(row) == ("skipped: changed after its transcript was written", row.reason)
    assert plan_work(f, targets, overwrite=True) == WorkPlan(targets)


def test_input_replaced_by_one_of_the_same_size_and_mtime_is_transcribed_again(tmp_path, realspeech, tiny_w2v_dir,
                                                                              capsys, home):
    """Only the content hash can tell: same size, same mtime (cp -p of another take), other samples."""
    import os

    import soundfile as sf

    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    argv = ["transcribe", str(f), "--model", str(tiny_w2v_dir), "--format", "txt,json", "-q"]
    assert run(argv, capsys)[0] == 0
    st = f.stat()
    first = json.loads((tmp_path / "a.json").read_text())
    x, rate = sf.read(f, dtype="int16")
    sf.write(f, np.ascontiguousarray(x[::-1]), rate, subtype="PCM_16")       # the take played backwards
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (f.stat().st_size, f.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    code, _, err = run(argv, capsys)
    assert code == 0
    assert "Summary: 1 done, 0 skipped, 0 failed" in err
    assert f"{f}: changed since its transcript was written (size or content differ); transcribed again" in err
    again = json.loads((tmp_path / "a.json").read_text())
    assert again["source"]["sha256_first_mib"] != first["source"]["sha256_first_mib"]


def test_output_names_stable_when_a_same_stem_file_joins(tmp_path, realspeech, tiny_w2v_dir, capsys, home):
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", tmp_path / "talk.wav")
    argv = ["transcribe", str(tmp_path), "--model", str(tiny_w2v_dir), "--format", "json", "-q"]
    assert run(argv, capsys)[0] == 0
    shutil.copy(realspeech / "lhotse_common_voice_en_651325.mp3", tmp_path / "talk.mp3")
    code, _, err = run(argv, capsys)
    assert code == 0 and "Summary: 1 done, 1 skipped, 0 failed" in err
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["talk.json", "talk.mp3.json"]
    assert json.loads((tmp_path / "talk.json").read_text())["audio_duration_s"] == 2.87
    assert json.loads((tmp_path / "talk.mp3.json").read_text())["audio_duration_s"] == 2.376


def test_output_names_compared_case_insensitively(tmp_path):
    from speechstudio.batch.run import InputItem, plan_outputs

    (tmp_path / "Talk.wav").write_bytes(b"x")
    (tmp_path / "talk.mp3").write_bytes(b"y")
    plan = plan_outputs([InputItem(tmp_path / "Talk.wav"), InputItem(tmp_path / "talk.mp3")], ("txt",), None)
    assert [p["txt"].name for p in plan] == ["Talk.wav.txt", "talk.mp3.txt"]


def test_inputs_whose_names_and_folders_match_get_numbered_names_never_one_name(tmp_path):
    """Two camera cards (card1/DCIM/100CANON/MVI_0001.wav, card2/...): the names and the folders above them match,
    and both inputs were written to one 100CANON_MVI_0001.wav~5.txt (one transcript lost, the other rewritten on
    every rerun). Now the first free number each, in input order; the same plan on a rerun."""
    from speechstudio.batch.run import InputItem, plan_outputs

    items = [InputItem(tmp_path / f"card{k}" / "DCIM" / "100CANON" / "MVI_0001.wav", tmp_path / f"card{k}")
             for k in (1, 2)]
    items += [InputItem(tmp_path / "x" / "A.WAV"), InputItem(tmp_path / "x" / "a.wav")]
    plans = [plan_outputs(items, ("txt", "json"), tmp_path / "out") for _ in range(2)]
    assert plans[0] == plans[1]
    assert [p["txt"].name for p in plans[0]] == ["100CANON_MVI_0001.wav~2.txt", "100CANON_MVI_0001.wav~3.txt",
                                                "x_A.WAV~2.txt", "x_a.wav~3.txt"]
    assert len({str(p[f]).casefold() for p in plans[0] for f in p}) == 8


# ---------------------------------------------------------------- fault 10: pipes and FIFOs
def _feed_fifo(fifo: Path, data: bytes):
    import threading

    def feed():
        with open(fifo, "wb") as f:
            for i in range(0, len(data), 4096):      # a slow writer: small pieces
                f.write(data[i:i + 4096])
                f.flush()

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("name", ["speechbrain_spk1_snt1.wav", "lhotse_common_voice_en_651325.mp3"])
def test_fifo_is_decoded_as_a_stream(name, tmp_path, realspeech):
    import os

    from speechstudio.audio.decode import load_audio

    fifo = tmp_path / f"pipe{Path(name).suffix}"
    os.mkfifo(fifo)
    feeder = _feed_fifo(fifo, (realspeech / name).read_bytes())
    audio = load_audio(fifo)
    feeder.join(5)
    assert np.allclose(audio, load_audio(realspeech / name), atol=1e-4)


def test_fifo_and_stdin_through_the_cli(tmp_path, realspeech, tiny_w2v_dir, capsys, home, monkeypatch):
    import io
    import os
    import sys

    fifo = tmp_path / "live.wav"
    os.mkfifo(fifo)
    data = (realspeech / "speechbrain_spk1_snt1.wav").read_bytes()
    feeder = _feed_fifo(fifo, data)
    out = tmp_path / "out"
    code, _, err = run(["transcribe", str(fifo), "--model", str(tiny_w2v_dir), "--format", "json",
                        "--output-dir", str(out)], capsys)
    feeder.join(5)
    assert code == 0, err
    assert "Summary: 1 done, 0 skipped, 0 failed" in err
    assert json.loads((out / "live.json").read_text())["audio_duration_s"] == 2.87

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, _, err = run(["transcribe", "-", "--model", str(tiny_w2v_dir), "--format", "json",
                        "--output-dir", str(out), "-q"], capsys)
    assert code == 0, err
    assert json.loads((out / "stdin.json").read_text())["audio_duration_s"] == 2.87
    # headerless PCM on standard input (arecord -t raw | speechstudio transcribe - --raw-format 16000): it was
    # refused as "not a recognised audio or video file", --raw-format applying to .raw/.pcm names only
    pcm = (realspeech / "pocketsphinx_goforward.raw").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(pcm)))
    code, _, err = run(["transcribe", "-", "--model", str(tiny_w2v_dir), "--format", "json", "--raw-format", "16000",
                        "--output-dir", str(out), "-q"], capsys)
    assert code == 0, err
    assert json.loads((out / "stdin.json").read_text())["audio_duration_s"] == 2.786        # 89,160 bytes of s16le
    # without --raw-format: the hint; nothing at all: said so (both were "not a recognised audio or video file")
    for given, said in ((pcm, "-: not a recognised audio or video file (Invalid data found when processing input); "
                              "headerless PCM on standard input needs --raw-format RATE[:CH[:FMT]] (e.g. 16000:1:s16le)"),
                        (b"", "-: empty input (0 bytes on standard input)")):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(given))))
        code, _, err = run(["transcribe", "-", "--model", str(tiny_w2v_dir), "--format", "json", "--output-dir",
                            str(out), "-q"], capsys)
        assert code == 1 and f"failed: {said}\n" in err


def test_fifo_nothing_writes_to_is_refused_naming_it_not_waited_on(tmp_path, tiny_w2v_dir, capsys, home,
                                                                    monkeypatch):
    """A FIFO with no writer hung the batch (its open waits for one): refused after FIFO_WAIT_S, with the reason."""
    import os
    import threading

    from speechstudio.audio import decode

    monkeypatch.setattr(decode, "FIFO_WAIT_S", 0.5)
    fifo = tmp_path / "live.wav"
    os.mkfifo(fifo)
    result = []
    t = threading.Thread(target=lambda: result.append(run(["transcribe", str(fifo), "--model", str(tiny_w2v_dir),
                                                             "--format", "json", "-q"], capsys)), daemon=True)
    t.start()
    t.join(60)
    if t.is_alive():                     # unblock the hung open, so the test ends
        with open(fifo, "wb"):
            pass
        pytest.fail("transcribing a FIFO without a writer hung")
    code, _, err = result[0]
    assert code == 1
    assert (f"failed: {fifo}: a named pipe (FIFO) that nothing wrote to in 0.5 s; start the program that writes "
            "to it first, or give a file") in err
    assert not (tmp_path / "live.json").exists()


# ---------------------------------------------------------------- fault 3: rate change mid-stream
def _mp3(rate, seconds, freq):
    import io

    import av

    buf = io.BytesIO()
    with av.open(buf, "w", format="mp3") as c:
        s = c.add_stream("libmp3lame" if "libmp3lame" in av.codecs_available else "mp3", rate=rate)
        s.layout = "mono"
        x = (0.3 * np.sin(2 * np.pi * freq * np.arange(int(rate * seconds)) / rate)).astype(np.float32)[None]
        frame = av.AudioFrame.from_ndarray(x, format="fltp", layout="mono")
        frame.sample_rate = rate
        for packet in [*s.encode(frame), *s.encode(None)]:
            c.mux(packet)
    return buf.getvalue()


def test_two_mp3s_joined_keep_their_speed(tmp_path):
    from speechstudio.audio.decode import AudioReader

    f = tmp_path / "joined.mp3"
    f.write_bytes(_mp3(22050, 2.0, 440) + _mp3(44100, 2.0, 440))     # the rate doubles at 2 s
    reader = AudioReader(f, 16000)
    audio = np.concatenate(list(reader.blocks()))
    assert 4.0 <= audio.shape[0] / 16000 < 4.15
    assert not [w for w in reader.warnings if "truncated" in w]
    second = audio[-16000:]                                          # 1 s of the second half
    peak_hz = np.argmax(np.abs(np.fft.rfft(second * np.hanning(second.size))))
    assert abs(peak_hz - 440) <= 2


def test_timestamp_gap_is_kept_as_silence(tmp_path):
    from fractions import Fraction

    import av

    from speechstudio.audio.decode import AudioReader

    rate, f = 16000, tmp_path / "paused.mka"
    with av.open(str(f), "w") as c:
        s = c.add_stream("pcm_s16le", rate=rate)
        s.layout = "mono"
        for start in (0.0, 3.0):                 # 1 s of tone at 0 s and at 3 s: a 2 s pause between
            x = (0.3 * np.sin(2 * np.pi * 440 * np.arange(rate) / rate) * 32767).astype(np.int16)[None]
            frame = av.AudioFrame.from_ndarray(x, format="s16", layout="mono")
            frame.sample_rate, frame.pts, frame.time_base = rate, int(start * rate), Fraction(1, rate)
            for packet in s.encode(frame):
                c.mux(packet)
        for packet in s.encode(None):
            c.mux(packet)
    reader = AudioReader(f, 16000)
    audio = np.concatenate(list(reader.blocks()))
    assert audio.shape[0] == 4 * rate and reader.warnings == []
    assert np.abs(audio[rate + 800:3 * rate - 800]).max() < 1e-3       # the pause is silence
    assert np.abs(audio[3 * rate + 800:]).max() > 0.25                 # the tone is back at 3 s


def _vbr_mp3_without_xing(path: Path) -> Path:
    """5 s: 2 s of silence (the lowest bitrate) then 3 s of noise (high), VBR, no Xing/Info frame,
    so FFmpeg's length estimate from the first frame's bitrate is far too long."""
    import av

    rate = 44100
    with av.open(str(path), "w", format="mp3", options={"write_xing": "0"}) as c:
        s = c.add_stream("libmp3lame", rate=rate)
        s.layout = "mono"
        s.codec_context.qscale = True                       # VBR (lame -V 0)
        s.codec_context.global_quality = 0
        noise = 0.3 * np.random.default_rng(0).standard_normal(rate * 3)
        x = np.concatenate([np.zeros(rate * 2), noise]).astype(np.float32)[None]
        frame = av.AudioFrame.from_ndarray(x, format="fltp", layout="mono")
        frame.sample_rate = rate
        for packet in [*s.encode(frame), *s.encode(None)]:
            c.mux(packet)
    return path


def test_vbr_mp3_without_xing_header_is_not_called_truncated(tmp_path, monkeypatch):
    import av

    from speechstudio.audio import decode, diagnose

    f = _vbr_mp3_without_xing(tmp_path / "vbr.mp3")
    with av.open(str(f)) as c:
        assert c.duration / 1e6 > 2 * 5.0                   # the header-less estimate is wrong
    reader = decode.AudioReader(f, 16000)
    audio = np.concatenate(list(reader.blocks()))
    assert abs(audio.shape[0] / 16000 - 5.0) < 0.1
    assert reader.warnings == []
    monkeypatch.setattr(diagnose, "has_vbr_header", lambda path: True)   # trusting the estimate
    reader = decode.AudioReader(f, 16000)
    list(reader.blocks())
    assert [w for w in reader.warnings if "file truncated?" in w]


def test_a_failed_write_under_overwrite_leaves_the_last_runs_outputs_not_a_mix(tmp_path, realspeech, tiny_w2v_dir,
                                                                               capsys, home, monkeypatch):
    """Redoing a file whose .srt name was taken by a folder replaced its .txt, then failed: a new .txt beside the
    old .vtt and .json. Now every output is written to a temporary file first and all are put in place at the
    end: a failure (a folder in the way, the disk full at the JSON) leaves the previous run's outputs whole."""
    import errno
    import os

    from speechstudio.batch import resume

    f = tmp_path / "a.wav"
    shutil.copy(realspeech / "speechbrain_spk1_snt1.wav", f)
    argv = ["transcribe", str(f), "--model", str(tiny_w2v_dir), "-q", "--format", "txt,srt,json"]
    assert run(argv, capsys)[0] == 0
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()}
    (tmp_path / "a.srt").unlink()
    (tmp_path / "a.srt").mkdir()
    code, _, err = run(argv + ["--overwrite"], capsys)
    assert code == 1 and f"failed: {f}: cannot write {tmp_path / 'a.srt'}: a folder of that name is there" in err
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir() if p.is_file()} == {
        k: v for k, v in before.items() if k != "a.srt"}
    (tmp_path / "a.srt").rmdir()

    def disk_full(target, *a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))

    monkeypatch.setattr(resume, "write_json", disk_full)
    code, _, err = run(argv + ["--overwrite"], capsys)
    assert code == 1 and "No space left on device" in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == {k: v[0] for k, v in before.items()
                                                                    if k != "a.srt"}   # no .part left either
