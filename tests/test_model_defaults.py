"""Issue 29, class 6: adding a model never changes a default unless the user says so, and a model
that writes nothing on speech says so.

Saving an adapted recognition model (``finetune asr``, the Adapt wizard's RegisterJob) used to make
it the Dictate default silently (the first installed CTC model won), even after the wizard said it
was not better than its base; dictating then gave empty text and no warning.
"""
from __future__ import annotations

import argparse

import numpy as np
import pytest

from speechstudio.asr.live import default_dictation_model
from speechstudio.asr.no_text import NO_TEXT_AFTER_S, NoTextWatch
from speechstudio.hub import defaults
from speechstudio.hub.store import import_model

SR = 16000


def _noise(seconds: float, dbfs: float, dtype=np.float32) -> np.ndarray:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(int(seconds * SR)) * (10 ** (dbfs / 20))
    if dtype == np.int16:
        return (x * 32767).astype(np.int16)
    return x.astype(np.float32)


# --------------------------------------------------------------------------------- which model dictates
@pytest.mark.parametrize("added, chosen, expected, why", [
    ([], None, "whisper-tiny.en", "no CTC model is installed"),
    (["my-ctc"], None, "whisper-tiny.en", "a model you added, such as my-ctc, is used only when chosen"),
    (["my-ctc", "other-ctc"], None, "whisper-tiny.en", "used only when chosen"),
    (["my-ctc"], "my-ctc", "my-ctc", "my-ctc: your choice for dictation"),
    (["my-ctc"], "removed-model", "whisper-tiny.en", "used only when chosen"),   # a stale choice is ignored
], ids=["nothing-added", "adapted-model", "two-added", "chosen", "chosen-then-removed"])
def test_an_added_model_is_the_dictation_default_only_when_chosen(home, tiny_w2v_dir, whisper_dir, added, chosen,
                                                                  expected, why):
    for name in added:
        import_model(tiny_w2v_dir, name)
    if chosen:
        defaults.choose("dictation", chosen)
    name, reason = default_dictation_model()
    assert name == expected
    assert why in reason


def test_choice_is_stored_in_the_data_dir_and_can_be_cleared(home, tiny_w2v_dir, whisper_dir):
    import_model(tiny_w2v_dir, "my-ctc")
    defaults.choose("dictation", "my-ctc")
    assert (home / defaults.STATE_FILE).read_text() == '{\n "dictation": "my-ctc"\n}'
    assert default_dictation_model()[0] == "my-ctc"
    defaults.choose("dictation", None)
    assert defaults.choice("dictation") is None and default_dictation_model()[0] == "whisper-tiny.en"
    from speechstudio.errors import UsageError

    with pytest.raises(UsageError, match="unknown default 'transcribe'"):
        defaults.choose("transcribe", "my-ctc")


@pytest.mark.parametrize("tick, expected", [(False, "whisper-tiny.en"), (True, "adapted")])
def test_saving_an_adapted_model_changes_dictation_only_when_ticked(home, tiny_w2v_dir, whisper_dir, tick, expected):
    from speechstudio.worker.adapt_jobs import RegisterJob

    job = RegisterJob(tiny_w2v_dir, "adapted", use_for_dictation=tick)
    list(job.run(None))
    assert job.result.model_id == "adapted"
    assert default_dictation_model()[0] == expected


def test_finetune_asr_flag_is_needed_to_change_dictation():
    from speechstudio.finetune.ctc.cli import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args(["--out", "x"]).use_for_dictation is False
    assert parser.parse_args(["--out", "x", "--use-for-dictation"]).use_for_dictation is True


# --------------------------------------------------------------------------------- a model that writes nothing
@pytest.mark.parametrize("blocks, text, warns", [
    ([_noise(10, -20)], "", True),                       # 10 s of loud sound, no text
    ([_noise(10, -20, np.int16)], "", True),             # integer PCM is scaled
    ([_noise(10, -20)], "hello", False),                 # text came
    ([_noise(30, -70)], "", False),                      # a quiet room: not speech
    ([_noise(NO_TEXT_AFTER_S - 1, -20)], "", False),     # not long enough yet
], ids=["sound-no-text", "int16", "text", "quiet-room", "short"])
def test_no_text_watch(blocks, text, warns):
    watch = NoTextWatch("adapted")
    got = []
    for audio in blocks:
        for start in range(0, len(audio), SR // 10):
            w = watch.push(audio[start:start + SR // 10], SR, text)
            if w:
                got.append(w)
    # music or noise first: the warning blamed the model for a song (a new user's run)
    assert got == (["adapted has written nothing for 8 s of sound: music or noise, or a model that does not "
                    "recognise this speech (an adapted model that did not learn?: try another model)"] if warns else [])


def test_no_text_watch_at_the_end_of_a_short_session():
    watch = NoTextWatch("adapted")
    watch.push(_noise(5, -20), SR, "")
    assert watch.final("") == ("adapted has written nothing for 5 s of sound: music or noise, or a model that does "
                               "not recognise this speech (an adapted model that did not learn?: try another model)")
    assert watch.final("") is None                       # once
    other = NoTextWatch("adapted")
    other.push(_noise(5, -20), SR, "")
    assert other.final("yes") is None


class _Source:
    """6 blocks a second of loud noise for ``seconds`` (a speaker the model does not understand)."""

    name, sample_rate = "test input", SR

    def __init__(self, seconds: float) -> None:
        self.audio = _noise(seconds, -20)

    def blocks(self):
        for start in range(0, len(self.audio), SR // 5):
            yield self.audio[start:start + SR // 5]

    def stop(self) -> None:
        pass


class _Silent:
    """A streaming recogniser that never writes anything (a model that learned only blanks)."""

    text, segments = "", []

    def describe(self) -> str:
        return "test"

    def push(self, block):
        return []

    def stop(self):
        return []


class _Models:
    def has_asr(self, *a):
        return True

    def asr(self, spec, device, precision):
        class Rec:
            model_id, device, engine = spec, "cpu", "wav2vec2"

        return Rec(), f"using {spec}"


def test_dictation_job_warns_when_the_model_writes_nothing(monkeypatch):
    import speechstudio.worker.dictation as dictation
    from speechstudio.worker.dictation import DictateJob, DictateResult, DictateWarning

    monkeypatch.setattr(dictation, "open_recognizer", lambda *a, **k: _Silent())
    monkeypatch.setattr(dictation, "dictation_stats", lambda rec, lat: dict.fromkeys(
        ("compute_p50_s", "compute_p95_s", "latency_p50_s", "latency_p90_s", "rtf", "language",
         "language_probability")))
    job = DictateJob(_Source(12), model="adapted")
    warnings = [p for p in job.run(_Models()) if isinstance(p, DictateWarning)]
    assert warnings == ["adapted has written nothing for 8 s of sound: music or noise, or a model that does not "
                        "recognise this speech (an adapted model that did not learn?: try another model)"]
    assert isinstance(job.result, DictateResult) and job.result.text == ""
    assert job.result.warning == warnings[0]


def test_dictate_page_summary_shows_the_warning():
    pytest.importorskip("PySide6", reason="the Dictate page needs PySide6")
    from speechstudio.gui.dictate_page import DictatePage
    from speechstudio.worker.dictation import DictateResult

    quiet = DictateResult("", (), 12.0, 0.0, 0.0, warning="adapted has written nothing for 8 s of sound")
    assert DictatePage.plain_summary(quiet) == "12 s dictated.\nWarning: adapted has written nothing for 8 s of sound."
    fine = DictateResult("hello", (), 12.0, 0.0, 0.0)
    assert DictatePage.plain_summary(fine) == "12 s dictated."
