"""One transcription request (issue 42): the CLI, the GUI's worker job and ``speechstudio.transcribe``
build the same :class:`TranscriptionRequest` and give byte-identical JSON for the same file."""
from __future__ import annotations

import json
import shutil

import pytest

import speechstudio
from speechstudio import cli
from speechstudio.batch.request import TranscriptionRequest
from speechstudio.batch.run import InputItem
from speechstudio.errors import UsageError
from speechstudio.transcript.model import render_json
from speechstudio.worker.jobs import TranscribeBatchJob

# Module fixtures: Whisper loads once per model settings (the load's arguments) and decodes each distinct audio
# (the same samples, the same options) once; the diarizer's networks run once per distinct input. The three
# paths still build their own request, read and resample the file, diarize, merge and write: a path that fed
# other samples, options or model settings would get its own decoding and show in the comparison.
from test_diarize import _one_decoding_per_audio, _one_network_run_per_input  # noqa: E402,F401


@pytest.mark.parametrize("speakers", [None, "auto"])
def test_cli_worker_and_library_give_the_same_json(speakers, realspeech, whisper_dir, home, tmp_path):
    from speechstudio.worker.worker import ModelCache

    f = tmp_path / "jfk.flac"                     # 44.1 kHz FLAC, resampled to 16 kHz by all three
    shutil.copy(realspeech / "whisper_jfk.flac", f)
    flags = ["--speakers", speakers] if speakers else []
    assert cli.main(["transcribe", str(f), "--model", str(whisper_dir), "--device", "cpu", "--format", "json",
                     "--output-dir", str(tmp_path / "cli"), "--no-download", "-q", *flags]) == 0

    request = TranscriptionRequest.build(model=str(whisper_dir), device="cpu", formats=("json",),
                                         output_dir=str(tmp_path / "worker"), speakers=speakers, allow_download=False)
    job = TranscribeBatchJob([InputItem(f)], request)
    kinds = [getattr(ev, "kind", None) for ev in job.run(ModelCache())]
    assert kinds.count("done") == 1 and job.result == 1

    segments, info = speechstudio.transcribe(f, model=str(whisper_dir), device="cpu", allow_download=False,
                                             speakers=speakers)
    library = render_json(list(segments), info)

    from_cli = (tmp_path / "cli" / "jfk.json").read_bytes()
    assert (tmp_path / "worker" / "jfk.json").read_bytes() == from_cli
    doc = json.loads(from_cli)
    assert doc["source"]["outputs"] == ["jfk.json"]           # the file's own record, beside the transcript
    del doc["source"]
    assert library.encode("utf-8") == (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    assert "ask not what your country can do for you" in doc["text"].lower()
    assert doc["audio_duration_s"] == 11.0 and doc["audio"]["source_rate"] == 44100
    assert [s["name"] for s in doc.get("speakers", [])] == (["Speaker 1"] if speakers else [])


def test_the_request_is_checked_before_any_model_loads():
    with pytest.raises(UsageError, match="--speakers many: expected auto"):
        TranscriptionRequest.build(speakers="many")
    with pytest.raises(UsageError, match="--diarizer needs --speakers"):
        TranscriptionRequest.build(diarizer="pyannote")
    with pytest.raises(UsageError, match="--channels both: expected one of mix, split, auto"):
        TranscriptionRequest.build(channels="both")
    with pytest.raises(UsageError, match="--stride-s 5 is too long for --chunk-s 8"):
        TranscriptionRequest.build(chunk_s=8, stride_s=5)
    r = TranscriptionRequest.build(language="French", speakers="2-3", hotwords="  ")
    assert (r.language, r.channels, r.hotwords) == ("fr", "auto", None)
    assert (r.speakers.count.min_speakers, r.speakers.count.max_speakers) == (2, 3)
    assert TranscriptionRequest.build().channels == "mix"
    with pytest.raises(AttributeError):
        r.language = "de"                              # frozen: changed with replace()
    assert r.replace(language="de").language == "de" and r.language == "fr"
