"""Transcription robustness (issue 12): unattended runs, cancelled channels, decode errors,
stale outputs on resume, pipes. Each test builds its odd input itself."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from speechstudio import cli


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
    assert "Summary: 0 done, 1 skipped, 0 failed, 0 ignored" in err


def test_batch_of_one_unreadable_file_without_terminal(tmp_path, tiny_w2v_dir, capsys, home):
    (tmp_path / "text.wav").write_text("not audio\n" * 40)
    code, _, err = run(["transcribe", str(tmp_path / "text.wav"), "--model", str(tiny_w2v_dir)], capsys)
    assert code == 1, err
    assert "unexpected error" not in err
    assert "Summary: 0 done, 0 skipped, 1 failed, 0 ignored" in err
    assert "text.wav: not a recognised audio or video file" in err


def test_audio_bar_draws_with_unknown_and_exceeded_totals(capsys):
    from tqdm import tqdm

    bar = cli._audio_bar(tqdm, None, quiet=False)
    bar.set_description("1/1 a.wav")
    bar.update(3.0)
    bar.refresh()
    bar.total = 2.0                       # a total tqdm would drop (n > total): still drawn
    bar.update(5.0)
    bar.refresh()
    bar.close()
    err = capsys.readouterr().err
    assert "1/1 a.wav: 8 s audio" in err
