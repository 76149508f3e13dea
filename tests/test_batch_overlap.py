"""A local batch decoding several files at once (issue 43 item 3: ``WhisperRecognizer(workers=2)``,
batch.run._overlapped): the same events in the same order and byte-identical outputs as one file at a
time, a bad file reported in its place, resume and cancel as before."""
from __future__ import annotations

import shutil
import threading

import pytest

from speechstudio.batch.request import TranscriptionRequest
from speechstudio.batch.run import batch_workers, collect_inputs, run_batch

# a.wav takes longer than b.wav (b is done first on the other worker and waits for its turn); one Whisper window
# each (speechbrain_spk1_snt1.wav, a.wav before, leaves a 70 ms tail window tiny.en samples five times: 4x the time)
CLIPS = {"a.wav": "pocketsphinx_sense_and_sensibility_0870.wav", "b.wav": "pocketsphinx_cards_005.wav",
         "d.flac": "whisper_jfk.flac", "e.wav": "speechbrain_LJ050-0131.wav"}


@pytest.fixture(scope="module")
def recognizers(whisper_dir):
    from speechstudio.asr.whisper import WhisperRecognizer

    return {n: WhisperRecognizer(whisper_dir, "whisper-tiny.en", device="cpu", workers=n) for n in (1, 2)}


@pytest.fixture
def folder(tmp_path, realspeech):
    src = tmp_path / "in"
    src.mkdir()
    for name, real in CLIPS.items():
        shutil.copy(realspeech / real, src / name)
    (src / "c.wav").write_bytes(b"")            # a bad file between good ones
    return src


def events(recognizer, src, out, **options):
    items, _ = collect_inputs([src])
    request = TranscriptionRequest(language="en", formats=("txt", "srt", "json"), output_dir=str(out), **options)
    return list(run_batch(items, recognizer, request))


def test_two_workers_same_events_and_bytes(recognizers, folder, tmp_path):
    assert recognizers[2].workers == 2 and recognizers[1].workers == 1
    one = events(recognizers[1], folder, tmp_path / "one")
    two = events(recognizers[2], folder, tmp_path / "two")
    kinds = [(ev.kind, ev.item.path.name) for ev in two if ev.kind != "segment"]
    assert kinds == [("start", "a.wav"), ("done", "a.wav"), ("start", "b.wav"), ("done", "b.wav"),
                     ("failed", "c.wav"), ("start", "d.flac"), ("done", "d.flac"), ("start", "e.wav"),
                     ("done", "e.wav")]
    assert [(ev.kind, ev.index, ev.segment) for ev in two] == [(ev.kind, ev.index, ev.segment) for ev in one]
    assert [ev.reason for ev in two if ev.kind == "failed"] == [f"{folder / 'c.wav'}: empty file (0 bytes)"]
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == sorted(f"{s}.{f}" for s in "abde" for f in ("txt", "srt", "json"))
    for name in names:
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes(), name
    assert "ask not what your country can do for you" in (tmp_path / "two" / "d.txt").read_text().lower()
    again = events(recognizers[2], folder, tmp_path / "two")       # resume: the done files are skipped
    assert [(ev.kind, ev.item.path.name) for ev in again] == [
        ("skipped", "a.wav"), ("skipped", "b.wav"), ("failed", "c.wav"), ("skipped", "d.flac"), ("skipped", "e.wav")]


def test_two_workers_cancel_writes_nothing(recognizers, folder, tmp_path):
    items, _ = collect_inputs([folder])
    cancel = threading.Event()
    kinds = []
    request = TranscriptionRequest(language="en", formats=("txt", "json"), output_dir=str(tmp_path / "out"))
    for ev in run_batch(items, recognizers[2], request, cancel=cancel):
        kinds.append(ev.kind)
        if ev.kind == "segment":
            cancel.set()
    assert kinds == ["start", "segment", "cancelled"]
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_batch_workers():
    assert batch_workers(1) == 1
    assert 1 <= batch_workers(200) <= 4
