"""Issue 45: a clone's checkpoint is never much less natural than its base voice without the user's choice.

Tiny transformers VITS voice and tone dataset (tests/test_clone_stop.py); the clone judge is replaced by
one that returns scripted (similarity, naturalness) per evaluation, so the guard, the early stop, the
table and the save of another checkpoint / a WiSE-FT blend are checked on known numbers."""
import argparse
import json

import pytest
import torch

from conftest import torch_threads
from speechstudio.finetune import closeness
from speechstudio.finetune.closeness import Closeness, PitchProfile
from speechstudio.finetune.vits.events import DoneEvent, EvalEvent, StageEvent
from speechstudio.finetune.vits.trainer import train_voice

from tts_fixtures.dataset import make_dataset, tiny_config
from tts_fixtures.tiny import make_tiny_vits

# judged in this order: the base (step 0), then the evaluations at steps 2, 4 (warm-up, discriminator), 6, 8, 10
SCRIPT = [(0.60, 4.40), (0.60, 4.40), (0.60, 4.40), (0.66, 4.20), (0.75, 3.00), (0.755, 2.50)]


class ScriptedJudge:
    def __init__(self, reference, sample_rate, hop_length=256):
        self.calls = 0
        self.base_similarity = None
        self.mos = self

    def score(self, audio, sample_rate):  # the base as it ships (same rate here: not called)
        raise AssertionError("a base at the run's own rate is judged once")

    def judge(self, clips):
        sim, nat = SCRIPT[self.calls]
        self.calls += 1
        return Closeness(sim, nat, PitchProfile(100.0, 90.0, 110.0, 3.5, 0.0, 86.13, 100), 105.0, self.base_similarity)


@pytest.fixture(autouse=True)
def one_thread():
    with torch_threads(1):
        yield


def test_guard_early_stop_table_and_blend(tmp_path, home, monkeypatch):
    from speechstudio.finetune import cli
    from speechstudio.finetune.blend import blend_states
    from speechstudio.finetune.trade import format_table, load_trade
    from speechstudio.finetune.vits.trained import load_checkpoint_state

    monkeypatch.setattr(closeness, "CloneJudge", ScriptedJudge)
    base = make_tiny_vits(tmp_path / "tiny", stochastic=True)
    data = make_dataset(tmp_path / "data")
    run = tmp_path / "run"
    config = tiny_config(steps=12, warmup_steps=2, disc_warmup_steps=2, eval_every=2, checkpoint_every=100,
                         judge_clone=True)
    events = list(train_voice(run, data, base, config))

    evals = [e for e in events if isinstance(e, EvalEvent)]
    assert [(e.step, e.best) for e in evals] == [(2, False), (4, False), (6, True), (8, False), (10, False)]
    assert "not recommended" in evals[3].closeness_text  # 3.0 < 4.4 - 0.6, though the most similar
    # 0.60 before training, then 0.66, 0.75: closer; 0.755 at step 10 is too little evidence either way
    assert ["getting closer" in e.closeness_text for e in evals] == [False, False, True, True, False]
    assert "Still getting closer" in evals[2].closeness_text and "no longer" not in evals[4].closeness_text
    stops = [e.message for e in events if isinstance(e, StageEvent) and e.message.startswith("stopping early")]
    assert stops == ["stopping early at step 10: the voice has become much less natural than the base and no "
                     "closer to yours; the best checkpoint (step 6) is kept"]
    done = events[-1]
    assert isinstance(done, DoneEvent) and (done.reason, done.step) == ("finished", 10)
    assert load_checkpoint_state(run, "best")["step"] == 6
    assert sorted(p.name for p in (run / "checkpoints").glob("step_*.pt")) == [
        f"step_{n}.pt" for n in (0, 10, 2, 4, 6, 8)]

    # past step 0 a snapshot holds only what changed (the frozen text encoder, flow, ... come from step_0)
    full = load_checkpoint_state(run, "step_0")["generator"]
    stored = torch.load(run / "checkpoints" / "step_8.pt", weights_only=True)["generator"]
    assert 0 < len(stored) < len(full) and not any(k.startswith("text_encoder.") for k in stored)
    assert load_checkpoint_state(run, "step_8")["generator"].keys() == full.keys()

    trade = load_trade(run)
    assert [r.step for r in trade.rows] == [0, 2, 4, 6, 8, 10]
    assert trade.base_naturalness == pytest.approx(4.4) and trade.floor == pytest.approx(3.8)
    assert trade.rows[trade.recommended].checkpoint == "step_6"
    series = trade.series()
    assert series["natural_enough"] == [True, True, True, True, False, False] and series["recommended_step"] == 6
    table = format_table(trade).splitlines()
    assert table[4].startswith("step_6") and table[4].endswith("<- recommended")
    assert table[5].startswith("step_8") and "0.750" in table[5] and "3.00" in table[5] and "below the floor" in table[5]

    # the user's explicit choice: step 8 (below the floor), blended halfway with the base
    args = argparse.Namespace(run=str(run), out="halfway", checkpoint="step_8", blend=0.5, overwrite=False,
                              match_pitch=False)
    assert cli.save_command(args) == 0
    summary = json.loads((home / "voices" / "halfway" / "voice.json").read_text(encoding="utf-8"))
    assert "blend_0.5_step_8" in json.dumps(summary)
    s0, s8 = (load_checkpoint_state(run, w)["generator"] for w in ("step_0", "step_8"))
    mixed = blend_states(s0, s8, 0.5)
    name = next(k for k, v in s8.items() if v.is_floating_point() and not torch.equal(v, s0[k]))
    assert torch.allclose(mixed[name], (s0[name] + s8[name]) / 2)
    with pytest.raises(ValueError, match="between 0 .the base voice. and 1"):
        blend_states(s0, s8, 1.5)


def test_rules_on_rows():
    rows = [{"step": 0, "similarity": 0.60, "naturalness": 4.4, "score": 0.60},
            {"step": 300, "similarity": 0.64, "naturalness": 3.9, "score": 0.64},
            {"step": 600, "similarity": 0.65, "naturalness": 1.7, "score": 0.47}]
    assert closeness.recommend(rows, 4.4) == 1
    assert closeness.recommend(rows[2:], 4.4) is None  # nothing natural enough: no recommendation
    assert closeness.recommend(rows, None) == 2 - 1  # no base naturalness: the highest score (step 300 here)
    assert closeness.trade_stalled(rows[1:], 4.4)  # fell to 1.7 and 0.01 closer: stop
    assert not closeness.trade_stalled(rows[1:], None)
    assert not closeness.trade_stalled([rows[1], dict(rows[2], similarity=0.70)], 4.4)  # still getting closer


def test_the_base_as_it_ships_is_a_row_and_a_checkpoint():
    """A Piper base trained at the speaker's pitch (voice_rate: 26582 Hz instead of 22050) starts from
    the base at that rate (step_0); the base as it ships is its own row, saved with its own rate and tempo."""
    from speechstudio.finetune.trade import Trade, TradeRow, format_table
    from speechstudio.finetune.vits.trained import shipped_base

    state = {"model_config": json.dumps({"sampling_rate": 26582, "speaking_rate": 0.8}),
             "base": {"sample_rate": 22050}, "step": 0}
    shipped = shipped_base(state)
    cfg = json.loads(shipped["model_config"])
    assert cfg["sampling_rate"] == 22050 and cfg["speaking_rate"] == pytest.approx(0.8 * 26582 / 22050)
    assert shipped["checkpoint"] == "base" and json.loads(state["model_config"])["sampling_rate"] == 26582

    trade = Trade(4.35, [TradeRow(0, 0.585, 4.35, 89.0, -3.0, 0.58, "base"),
                         TradeRow(0, 0.478, 4.19, 107.0, -0.3, 0.47, "step_0"),
                         TradeRow(300, 0.56, 3.60, 106.0, -0.2, 0.54, "step_300"),
                         TradeRow(600, 0.61, 1.70, 107.0, 0.0, 0.43, "step_600")])
    assert trade.rows[trade.recommended].checkpoint == "base"  # nothing beat the base: it is what is saved
    table = format_table(trade, "base")
    assert "base: the base voice as it ships; step_0: the base at your pitch" in table
    assert [ln.split()[0] for ln in table.splitlines() if "below the floor" in ln] == ["step_300", "step_600"]
    assert "<- recommended, saved" in table.splitlines()[1]


def test_no_longer_getting_closer_needs_evidence():
    from speechstudio.finetune.vits.trainer import closeness_advice

    # the reported run: the base, then two trained checkpoints a little below it: too early to say anything
    assert closeness.getting_closer([0.62, 0.615]) is None
    assert closeness.getting_closer([0.62, 0.615, 0.618]) is None
    assert closeness_advice([0.62, 0.615], 20.0) == ""
    assert closeness.getting_closer([0.62, 0.70]) is True
    assert closeness_advice([0.62, 0.70], 20.0) == "still getting closer: more steps should help"
    # three trained checkpoints, the last two within 0.01 of the best before them: stalled
    assert closeness.getting_closer([0.62, 0.70, 0.705, 0.70]) is False
    assert closeness_advice([0.62, 0.70, 0.705, 0.70], 20.0) == "no longer getting closer: more steps will not change much"
    # one noisy dip after a gain is not a stall; a gain in the last window is not either
    assert closeness.getting_closer([0.62, 0.66, 0.70, 0.69]) is None
    assert closeness_advice([0.62], 5.0, changing=False) == ("the voice itself starts learning after this stage; "
                                                              "more recordings would (5 min now; 15-30 min is better)")
