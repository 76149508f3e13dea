"""Videos as users have them: several audio tracks (the default one taken and named, or the one
asked for by number or language), audio that starts after the video (cue times follow the video),
a video longer than its audio (no false "truncated" warning), a track that is not there."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import realspeech_file
from media_builder import make_video
from speechstudio import cli
from speechstudio.audio.decode import AudioDecodeError, AudioReader, load_audio


@pytest.fixture(scope="module")
def film(tmp_path_factory):
    """15 s of video; track 1: English-tagged silence; track 2 (the default, French-tagged, titled
    "commentary"): the JFK recording, starting 2.0 s after the video."""
    speech = load_audio(realspeech_file("whisper_jfk.flac"), 16000)
    path = tmp_path_factory.mktemp("film") / "film.mkv"
    return make_video(path, [dict(audio=np.zeros(16000 * 3, np.float32), language="eng", title="silence"),
                             dict(audio=speech, language="fre", title="commentary", default=True, start_s=2.0)],
                      video_s=15.0)


def test_the_default_track_is_read_and_named(film):
    r = AudioReader(film, 16000)
    assert (r.info.track, r.info.start_offset_s) == (2, 2.0)
    assert [(t["number"], t["language"], t["title"], t["default"]) for t in r.info.tracks] == [
        (1, "eng", "silence", False), (2, "fre", "commentary", True)]
    assert r.warnings == [f"{film}: 2 audio tracks; transcribed track 2 (fre, 'commentary', marked as the default); "
                          "choose another with --audio-track N or a language code"]


# "fra": the other ISO 639-2 code of a track tagged "fre" (--audio-track deu once missed a "ger" track)
@pytest.mark.parametrize("choice, track", [("1", 1), ("2", 2), ("eng", 1), ("en", 1), ("fr", 2), ("FRE", 2),
                                           ("fra", 2)])
def test_a_track_is_chosen_by_number_or_language(film, choice, track):
    r = AudioReader(film, 16000, track=choice)
    assert r.info.track == track and r.warnings == []     # asked for: no "2 audio tracks; ... choose another"


def test_cues_follow_the_video_and_no_false_truncation(film, whisper_dir, tmp_path, capsys):
    plain = tmp_path / "jfk.flac"
    plain.write_bytes(realspeech_file("whisper_jfk.flac").read_bytes())
    out = tmp_path / "out"
    assert cli.main(["transcribe", str(film), str(plain), "--model", str(whisper_dir), "--format", "srt,json",
                     "--output-dir", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "transcribed track 2" in err and "truncated" not in err
    doc = json.loads((out / "film.json").read_text())
    assert doc["audio"]["track"] == 2 and doc["audio"]["start_offset_s"] == 2.0
    assert doc["segments"][0]["text"].strip().replace(",", "").startswith("And so my fellow Americans")

    def fellow(d):
        return next(w["start_s"] for s in d["segments"] for w in s["words"] if w["text"] == "fellow")

    # the same words 2.0 s later than in the recording alone: the video's times (were the recording's)
    assert fellow(doc) - fellow(json.loads((out / "jfk.json").read_text())) == pytest.approx(2.0, abs=0.1)
    assert json.loads((out / "jfk.json").read_text())["audio"] == {
        "track": 1, "tracks": [{"number": 1, "language": None, "title": None, "default": False, "channels": 2,
                                "codec": "flac"}], "start_offset_s": 0.0, "channels": 2, "source_rate": 44100,
        "codec": "flac"}


def test_a_missing_track_fails_that_file_and_the_batch_goes_on(film, whisper_dir, tmp_path, capsys):
    other = tmp_path / "jfk.flac"
    other.write_bytes(realspeech_file("whisper_jfk.flac").read_bytes())
    out = tmp_path / "out"
    assert cli.main(["transcribe", str(film), str(other), "--model", str(whisper_dir), "--audio-track", "3",
                     "--format", "txt", "--output-dir", str(out), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"{film}: no audio track '3' (the file has 2: 1: eng, 'silence'; 2: fre, 'commentary')" in err
    assert (out / "jfk.txt").read_text().replace(",", "").startswith("And so my fellow Americans")
    with pytest.raises(AudioDecodeError, match="no audio track 'de'"):
        AudioReader(film, 16000, track="de")


def test_the_transcribe_page_reads_the_chosen_track(film, whisper_dir, qtbot, tmp_path, request):
    """The app's Audio track choice reaches the batch: track 1 (silence) gives no text, the default
    (track 2) the speech; the row's warning names the track it chose, not the one asked for."""
    pytest.importorskip("PySide6")
    win = request.getfixturevalue("win")
    page = win.transcribe
    page.model_box.setCurrentText(str(whisper_dir))
    page.device_box.setCurrentText("cpu")
    for f, c in page.format_checks.items():
        c.setChecked(f == "json")
    page.language_options.track_box.setCurrentIndex(1)          # "1"
    page.output_dir = str(tmp_path / "one")
    page.add_paths([film])
    with qtbot.waitSignal(page.queue_finished, timeout=120000):
        page.start()
    assert json.loads((tmp_path / "one" / "film.json").read_text())["audio"]["track"] == 1
    assert "audio tracks" not in page.rows[0].reason        # the user's own choice needs no warning
    page.language_options.track_box.setCurrentIndex(0)          # default
    page.output_dir = str(tmp_path / "default")
    again = tmp_path / "film.mkv"
    again.write_bytes(film.read_bytes())
    page.add_paths([again])
    with qtbot.waitSignal(page.queue_finished, timeout=120000):
        page.start()
    doc = json.loads((tmp_path / "default" / "film.json").read_text())
    assert doc["audio"]["track"] == 2 and "fellow Americans" in doc["text"]


from test_gui_support import fake_audio, win  # noqa: E402,F401 - fixtures
