"""Batch transcription on a Ray cluster (issue 43 item 4): a local 2-CPU Ray gives the local batch's
outputs byte for byte; a worker killed mid-run loses no file and writes none twice; bad input is one
line, exit 2."""
from __future__ import annotations

import os
import shutil
import signal
import sys

import pytest

from speechstudio import cli
from speechstudio.batch import cluster
from speechstudio.batch.request import TranscriptionRequest
from speechstudio.batch.run import collect_inputs

from conftest import realspeech_file

ray = pytest.importorskip("ray", reason="pip install 'speechstudio[cluster]'")

# Short English clips (2-7 s): seven real recordings (WAV at 8 to 44.1 kHz, 16 to 32 bit, mono and stereo; MP3)
# and a FLAC of the matthes voice: enough for every property checked here (both workers hold files when one is
# killed; each file costs a Whisper window in each of the three runs that transcribe the folder).
REAL = ["deepspeech_LDC93S1_8k.wav", "lhotse_common_voice_en_651325.mp3", "pocketsphinx_cards_005.wav",
        "speechbrain_spk1_snt1.wav", "speechrecognition_english_mono_32bit.wav",
        "speechrecognition_english_stereo_24bit.wav", "pocketsphinx_sense_and_sensibility_0870.wav"]
MATTHES = ["LJ001-0045.flac"]
N = len(REAL) + len(MATTHES)
CLI_SUBSET = ["deepspeech_LDC93S1_8k.wav", "lhotse_common_voice_en_651325.mp3", "speechrecognition_english_stereo_24bit.wav"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """8 clips (28 s of speech) and one broken file."""
    realspeech = realspeech_file()
    d = tmp_path_factory.mktemp("cluster") / "in"
    d.mkdir()
    for name in REAL:
        shutil.copy(realspeech / name, d / name)
    wavs = realspeech.parent.parent / "voices" / "matthes" / "wavs"
    for name in MATTHES:
        shutil.copy(wavs / name, d / name)
    (d / "broken.wav").write_bytes(b"RIFF\x00\x00\x00\x00WAVEnot audio at all" * 10)
    return d


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray with 2 CPUs for the module (the pool uses the Ray this process started)."""
    import logging

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    yield ray
    cluster._pools.clear()
    ray.shutdown()


def _flags(whisper_dir, out):
    return ["--model", str(whisper_dir), "--language", "en", "--device", "cpu", "--format", "txt,srt,json",
            "--output-dir", str(out), "--no-download", "-q"]


def _tree(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def local_outputs(folder, whisper_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    assert cli.main(["transcribe", str(folder), *_flags(whisper_dir, out)]) == 1       # broken.wav failed
    return out


def test_a_local_ray_cluster_writes_what_the_local_batch_writes(folder, local_outputs, local_ray, whisper_dir,
                                                              tmp_path, capsys):
    local = _tree(local_outputs)
    assert len(local) == N * 3 and "broken.json" not in local
    assert b"ask not" not in b"".join(local.values())           # sanity: not the JFK clip
    assert local["pocketsphinx_cards_005.txt"].startswith(b"Eight of spades")

    # The command line on three of the clips (8 kHz WAV, MP3, 24-bit stereo) and the broken file: every clip of
    # the folder goes through the same pool.run, byte for byte against the local batch, in the test below.
    capsys.readouterr()
    out = tmp_path / "cluster"
    inputs = [str(folder / name) for name in CLI_SUBSET + ["broken.wav"]]
    assert cli.main(["transcribe", *inputs, *_flags(whisper_dir, out), "--cluster", "ray"]) == 1
    err = capsys.readouterr().err
    stems = {name.rsplit(".", 1)[0] for name in CLI_SUBSET}
    subset = {name: data for name, data in local.items() if name.rsplit(".", 1)[0] in stems}
    assert len(subset) == len(CLI_SUBSET) * 3
    assert _tree(out) == subset                                 # byte for byte, every format
    assert f"failed: {folder / 'broken.wav'}:" in err          # reported like a local failure
    assert f"Summary: {len(CLI_SUBSET)} done, 0 skipped, 1 failed" in err

    # a rerun skips every transcribed file (the local batch's resume); only the broken one is tried again
    assert cli.main(["transcribe", *inputs, *_flags(whisper_dir, out), "--cluster", "ray"]) == 1
    assert f"Summary: 0 done, {len(CLI_SUBSET)} skipped, 1 failed" in capsys.readouterr().err


def test_a_worker_killed_mid_run_loses_no_file_and_writes_none_twice(folder, local_outputs, local_ray,
                                                                     whisper_dir, tmp_path, monkeypatch):
    writes: list[str] = []
    real_write = cluster.write_outputs

    def counted(item, *args, **kwargs):
        writes.append(item.path.name)
        return real_write(item, *args, **kwargs)

    monkeypatch.setattr(cluster, "write_outputs", counted)
    out = tmp_path / "killed"
    request = TranscriptionRequest.build(model=str(whisper_dir), language="en", device="cpu",
                                         formats=("txt", "srt", "json"), output_dir=str(out), allow_download=False)
    items, _ = collect_inputs([folder])
    killed = []
    events = []
    # the module's pool (local_ray closes it): the library test below finds its workers loaded
    pool = cluster._pools.setdefault(None, cluster.RayPool())
    for ev in pool.run(items, request):
        events.append(ev)
        if ev.kind == "done" and not killed:                    # both workers hold files now
            pid = next(iter(pool.workers.values()))[0]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    done = sorted(ev.item.path.name for ev in events if ev.kind == "done")
    assert len(killed) == 1 and len(done) == N and len(set(done)) == N
    assert sorted(writes) == done                               # each file written once
    assert [ev.item.path.name for ev in events if ev.kind == "failed"] == ["broken.wav"]
    assert _tree(out) == _tree(local_outputs)


def test_the_library_transcribes_a_file_on_a_worker_kept_loaded(folder, local_ray, whisper_dir):
    import speechstudio

    settings = dict(model=str(whisper_dir), language="en", device="cpu", allow_download=False)
    segments, info = speechstudio.transcribe(folder / "pocketsphinx_cards_005.wav", cluster="ray", **settings)
    text = " ".join(s.text.strip() for s in segments)
    assert text == "Eight of spades, four of close, seven of hearts."
    assert (info.language, info.duration_s) == ("en", 3.502)
    workers = dict(cluster._pools[None].workers)
    segments, _ = speechstudio.transcribe(folder / "deepspeech_LDC93S1_8k.wav", cluster="ray", **settings)
    local, _ = speechstudio.transcribe(folder / "deepspeech_LDC93S1_8k.wav", **settings)
    assert [s.text for s in segments] == [s.text for s in local] != []
    assert cluster._pools[None].workers == workers                # the same loaded worker
    with pytest.raises(speechstudio.errors.SpeechStudioError, match="broken.wav: not a recognised audio"):
        speechstudio.transcribe(folder / "broken.wav", cluster="ray", **settings)


def test_bad_cluster_input_is_one_line_and_exit_2(folder, whisper_dir, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    assert cli.main(["transcribe", str(folder), *_flags(whisper_dir, out), "--cluster", "ray://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["speechstudio: error: --cluster ray://127.0.0.1:1: cannot reach the Ray cluster "
                   "(Connection refused)"]
    assert not out.exists() or not any(out.iterdir())          # nothing written

    assert cli.main(["transcribe", str(folder), *_flags(whisper_dir, out), "--cluster", "spark"]) == 2
    assert capsys.readouterr().err.strip() == ("speechstudio: error: --cluster spark: expected ray (a local Ray on "
                                               "this machine) or ray://HOST:PORT")

    monkeypatch.setitem(sys.modules, "ray", None)               # Ray not installed
    assert cli.main(["transcribe", str(folder), *_flags(whisper_dir, out), "--cluster", "ray"]) == 2
    assert capsys.readouterr().err.strip() == ("speechstudio: error: --cluster needs Ray: "
                                               "pip install 'speechstudio[cluster]'")
