"""Window planning (stride chunking) and greedy CTC decoding across window boundaries."""
from __future__ import annotations

import numpy as np
import pytest

from speechstudio.asr.chunking import WindowPlanner
from speechstudio.asr.ctc import GreedyCTCDecoder, group_segments
from speechstudio.asr.types import Word

FL = 320  # samples per CTC frame (Wav2Vec2 conv stride)


def n_frames(n):  # Wav2Vec2 feature encoder output length (kernel 400, stride 320 overall)
    return (n - 400) // 320 + 1


def plan_windows(blocks, chunk, stride_left, stride_right):
    planner = WindowPlanner(chunk, stride_left, stride_right)
    return [w for b in blocks for w in planner.push(b)] + list(planner.finish())


def kept_frames(windows):
    out = []
    for w in windows:
        base = w.start // FL
        end = base + n_frames(w.n_samples) if w.keep_to is None else w.keep_to
        out.extend(range(w.keep_from, end))
    return out


@pytest.mark.parametrize("total", [100, 5000, 48000, 48001, 96000 - 1, 96000, 123457, 16000 * 60 + 17])
@pytest.mark.parametrize("block", [320, 441, 16000, 10 ** 7])
def test_every_frame_kept_exactly_once(total, block):
    audio = np.arange(total, dtype=np.float32)
    blocks = [audio[i:i + block] for i in range(0, total, block)]
    wins = list(plan_windows(blocks, chunk=48000, stride_left=8000, stride_right=8000))
    frames = kept_frames(wins)
    last = wins[-1]
    assert frames == list(range(0, last.start // FL + n_frames(last.n_samples))) or total < 400
    assert last.final and all(not w.final for w in wins[:-1])
    for w in wins:                                   # windows carry the right audio
        assert w.audio[0] == w.start and w.start % FL == 0
    if total > 48000:
        assert all(w.n_samples == 48000 for w in wins[:-1])   # equal length: batch without padding
        assert 48000 <= last.n_samples < 48000 + FL             # end-aligned tail keeps full context
        assert last.start + last.n_samples == total


def test_short_clip_is_single_full_window():
    wins = list(plan_windows([np.ones(30000, np.float32)], 48000, 8000, 8000))
    assert len(wins) == 1 and wins[0].start == 0 and wins[0].n_samples == 30000 and wins[0].keep_to is None


def test_centre_frames_have_context():
    wins = list(plan_windows([np.zeros(200000, np.float32)], 48000, 8000, 8000))
    for w in wins[1:]:
        assert w.keep_from * FL - w.start >= 8000       # at least the left stride before kept frames
    for w in wins[:-1]:
        assert w.start + w.n_samples - w.keep_to * FL >= 8000


def test_bad_stride():
    with pytest.raises(ValueError, match="must be shorter than the chunk"):
        WindowPlanner(16000, 8000, 8000)


VOCAB = ["<pad>", "<s>", "</s>", "<unk>", "|", "E", "T", "L", "O"]
B, D = 0, 4


def ids(text):
    return np.array([VOCAB.index(c) if c not in "_ " else (B if c == "_" else D) for c in text])


def decode_in_pieces(seq, cuts):
    dec = GreedyCTCDecoder(VOCAB, blank_id=0, skip_ids=frozenset({1, 2, 3}), seconds_per_frame=0.02)
    words, pos = [], 0
    for cut in list(cuts) + [len(seq)]:
        words += dec.feed(seq[pos:cut], pos)
        pos = cut
    return words + dec.finish()


def test_greedy_ctc_merges_repeats_and_blanks():
    seq = ids("__TT_EE_LL_L_O__ TT_O")
    words = decode_in_pieces(seq, [])
    assert [w.text for w in words] == ["TELLO", "TO"]
    assert words[0].start_s == pytest.approx(2 * 0.02) and words[0].end_s == pytest.approx(14 * 0.02)
    assert words[1].start_s == pytest.approx(17 * 0.02) and words[1].end_s == pytest.approx(21 * 0.02)


@pytest.mark.parametrize("cut", range(1, 21))
def test_boundary_anywhere_gives_same_words(cut):
    seq = ids("__TT_EE_LL_L_O__ TT_O")
    assert decode_in_pieces(seq, [cut]) == decode_in_pieces(seq, [])


def test_repeated_char_straddling_boundary_is_one_char():
    seq = ids("_LLLL_")
    assert [w.text for w in decode_in_pieces(seq, [3])] == ["L"]
    seq = ids("_L_L_")   # a blank between: two L's, even when the cut falls on the blank
    assert [w.text for w in decode_in_pieces(seq, [2])] == ["LL"]


def test_group_segments_on_pauses():
    words = [Word(0.0, 0.3, "A"), Word(0.4, 0.6, "B"), Word(2.0, 2.2, "C")]
    segs = list(group_segments(words, max_gap_s=0.6))
    assert [s.text for s in segs] == ["A B", "C"]
    assert (segs[0].start_s, segs[0].end_s, segs[1].start_s) == (0.0, 0.6, 2.0)
