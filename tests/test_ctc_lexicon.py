"""Vocabulary-constrained CTC decoding (speechstudio.asr.ctc_lexicon) on hand-made log-prob
matrices, and through the real load path on a tiny model with a vocabulary.txt."""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from speechstudio.asr.ctc import GreedyCTCDecoder
from speechstudio.asr.ctc_lexicon import Lexicon, LexiconCTCDecoder, log_softmax
from tiny_models import VOCAB

ID = {t: i for i, t in enumerate(VOCAB)}
SKIP = frozenset({1, 2, 3})
COMMANDS = ["show", "the", "weather", "window", "on", "off", "two", "please", "call", "music", "work"]


def frames(*spec) -> np.ndarray:
    """A log-prob matrix: each item is a token (probability 0.995) or a dict token -> probability;
    the rest of each frame's mass is spread over the other tokens. ``"-"`` is the blank."""
    rows = []
    for item in spec:
        d = {item: 0.995} if isinstance(item, str) else dict(item)
        d = {("<pad>" if k == "-" else k): v for k, v in d.items()}
        rest = (1.0 - sum(d.values())) / (len(VOCAB) - len(d))
        p = np.full(len(VOCAB), rest)
        for k, v in d.items():
            p[ID[k]] = v
        rows.append(np.log(p))
    return np.array(rows, np.float32)


def spell(text: str, gap: int = 1) -> list:
    """Frames for ``text``: each character two frames then ``gap`` blanks; ``|`` between words."""
    out: list = ["-"]
    for k, word in enumerate(text.split()):
        if k:
            out += ["|", "-"]
        for ch in word:
            out += [ch, ch] + ["-"] * gap
    return out


def lexicon(words=COMMANDS, **kw) -> LexiconCTCDecoder:
    return LexiconCTCDecoder(VOCAB, 0, "|", SKIP, 0.02, words=words, **kw)


def greedy(lp: np.ndarray) -> list:
    d = GreedyCTCDecoder(VOCAB, 0, "|", SKIP, 0.02)
    return d.feed(lp.argmax(-1), 0, np.exp(lp.max(-1))) + d.finish()


def decode(lp: np.ndarray, dec: LexiconCTCDecoder | None = None) -> list:
    dec = dec or lexicon()
    return dec.feed(lp, 0) + dec.finish()


def texts(words) -> list[str]:
    return [w.text for w in words]


# ---------------------------------------------------------------------------------------------- corrections
SOW = frames("-", "S", "S", "-", {"-": 0.6, "H": 0.395}, "O", "O", "-", "W", "W", "-")


def test_missing_character_restored_from_the_lexicon():
    assert texts(greedy(SOW)) == ["SOW"]
    words = decode(SOW)
    assert texts(words) == ["SHOW"]
    w = words[0]
    assert (w.start_s, w.end_s) == (0.02, 0.2)   # first S frame .. after the last W frame (frame 9)
    # S, O, W at 0.995 on their frames; H only emitted on frame 4 at 0.395
    assert w.probability == pytest.approx((0.995 * 3 + 0.395) / 4, abs=1e-4)


def test_merged_words_split_by_the_lexicon():
    lp = frames(*spell("WINDO", gap=1), {"-": 0.6, "W": 0.395}, {"-": 0.6, "|": 0.395}, {"-": 0.6, "O": 0.395},
                "N", "N", "-")
    assert texts(greedy(lp)) == ["WINDON"]
    assert texts(decode(lp)) == ["WINDOW", "ON"]


def test_lowercase_and_mixed_case_words_emit_the_vocabulary_tokens():
    assert texts(decode(SOW, lexicon(["ShOw"]))) == ["SHOW"]
    lex = Lexicon(["Show", "naïve"], VOCAB, "|", SKIP, 0)
    assert lex.size == 1 and lex.unspellable == ["naïve"]    # no Ï token


def test_oov_word_with_strong_acoustics_survives_soft_and_is_replaced_strict():
    sure = {"Z": 1 - 5e-5 - 3e-6 * 30, "W": 5e-5}           # W: log 5e-5 = -9.9 nats < -8 (the penalty)
    lp = frames("-", sure, "-", *spell("ORK")[1:])
    assert texts(greedy(lp)) == ["ZORK"]
    assert texts(decode(lp, lexicon(token_prune=-12.0))) == ["ZORK"]
    assert texts(decode(lp, lexicon(token_prune=-12.0, oov_penalty=math.inf))) == ["WORK"]
    # a cheaper penalty than the swap: soft mode also corrects
    assert texts(decode(lp, lexicon(token_prune=-12.0, oov_penalty=12.0))) == ["WORK"]


def test_clean_in_vocabulary_speech_equals_greedy_words_times_and_probabilities():
    lp = frames(*spell("SHOW THE WEATHER PLEASE"), "-", "-")
    g, d = greedy(lp), decode(lp)
    assert texts(d) == ["SHOW", "THE", "WEATHER", "PLEASE"]
    assert d == g


def test_word_times_in_frames_times_seconds_per_frame():
    lp = frames("-", "-", "T", "W", "W", "O", "-", "|", "O", "-", "F", "F", "-", "F", "-")
    dec = LexiconCTCDecoder(VOCAB, 0, "|", SKIP, 0.04, words=COMMANDS)
    words = decode(lp, dec)
    # TWO: T on frame 2 .. O on frame 5; OFF: O on frame 8 .. the second F on frame 13
    assert [(w.text, w.start_s, w.end_s) for w in words] == [("TWO", 0.08, 0.24), ("OFF", 0.32, 0.56)]


def test_strict_mode_drops_a_trailing_non_word():
    lp = frames(*spell("SHOW WIN"))
    assert texts(decode(lp, lexicon(oov_penalty=math.inf))) == ["SHOW"]
    assert texts(decode(lp)) == ["SHOW", "WIN"]


# ---------------------------------------------------------------------------------------------- streaming
def _long() -> np.ndarray:
    rng = np.random.default_rng(0)
    lp = frames(*spell("CALL MUSIC PLEASE SHOW THE WEATHER TWO WINDOW ON OFF"), "-")
    noisy = np.exp(lp) + rng.uniform(0, 0.3, lp.shape)      # ambiguous frames: the beam must work
    return log_softmax(np.log(noisy / noisy.sum(-1, keepdims=True)))


def test_feeding_in_pieces_equals_one_piece_and_fed_words_never_change():
    lp = _long()
    whole = decode(lp)
    assert len(whole) >= 8
    for cuts in ([1], [7, 8, 30], list(range(0, lp.shape[0], 3)), [50, 51, 52, 100]):
        dec, got, edges = lexicon(), [], [0, *cuts, lp.shape[0]]
        for a, b in zip(edges, edges[1:]):
            new = dec.feed(lp[a:b], a)
            assert got + new == whole[:len(got) + len(new)]      # final words are a prefix of the result
            got += new
        got += dec.finish()
        assert got == whole


def test_feed_returns_words_before_the_end():
    lp = frames(*spell("SHOW THE WEATHER"), "-")
    dec = lexicon()
    early = dec.feed(lp, 0)
    assert texts(early) == ["SHOW", "THE"] and texts(dec.finish()) == ["WEATHER"]


def test_deepcopy_decodes_the_tail_without_touching_the_original():
    lp = _long()
    whole = decode(lp)
    dec = lexicon()
    got = dec.feed(lp[:60], 0)
    tail = copy.deepcopy(dec)
    preview = tail.feed(lp[60:90], 60) + tail.finish()
    assert tail.lexicon is dec.lexicon                             # the trie is shared, not copied
    rest = dec.feed(lp[60:], 60) + dec.finish()
    assert got + rest == whole
    assert texts(got + preview)[:len(got)] == texts(whole)[:len(got)]


def test_skip_tokens_act_as_blank_and_bad_shapes_are_refused():
    lp = frames("-", "S", "S", "<unk>", "S", "S", "H", "O", "W", "-")
    assert texts(greedy(lp)) == ["SSHOW"]
    assert texts(decode(lp)) == ["SSHOW"]             # <unk> separates the two S like a blank
    assert texts(decode(lp, lexicon(oov_penalty=math.inf))) == ["SHOW"]
    with pytest.raises(ValueError, match="shape"):
        lexicon().feed(np.zeros((3, 5), np.float32), 0)
    assert lexicon().feed(np.zeros((0, len(VOCAB)), np.float32), 0) == []


# ---------------------------------------------------------------------------------------------- real load path
@pytest.fixture(scope="module")
def so_model(tmp_path_factory):
    """A tiny Wav2Vec2ForCTC whose CTC head ignores the audio: every frame is blank 0.47 and
    S, O, | 0.17 each (weights 0, biases set), so greedy hears nothing and the lexicon decoder
    spells the words of its vocabulary.txt ("so") from the same frames; saved and loaded like a
    real checkpoint."""
    import torch
    from safetensors.torch import load_file, save_file

    from tiny_models import make_wav2vec2

    path = make_wav2vec2(tmp_path_factory.mktemp("models") / "so")
    state = load_file(path / "model.safetensors")
    state["lm_head.weight"].zero_()
    bias = torch.full((len(VOCAB),), -20.0)
    for tok, v in {"<pad>": 2.0, "S": 1.0, "O": 1.0, "|": 1.0}.items():
        bias[ID[tok]] = v
    state["lm_head.bias"] = bias
    save_file(state, path / "model.safetensors", metadata={"format": "pt"})
    (path / "vocabulary.txt").write_text("so\n", encoding="utf-8")
    return path


def _noise(seconds: float = 2.0) -> np.ndarray:
    return (np.random.default_rng(0).standard_normal(int(16000 * seconds)) * 0.1).astype(np.float32)


def test_model_with_vocabulary_decodes_with_the_lexicon_and_off_is_greedy(so_model):
    from speechstudio.asr.load import load_model
    from speechstudio.asr.wav2vec2 import max_softmax

    rec, message = load_model(str(so_model), device="cpu", allow_download=False, progress=False)
    assert rec.lexicon is not None and rec.lexicon.size == 1 and "1-word vocabulary" in message
    assert isinstance(rec.new_decoder(), LexiconCTCDecoder)
    audio = _noise()
    lg = rec.logits(audio)
    assert lg.shape == (99, len(VOCAB))
    words = list(rec.words([audio]))
    assert words == decode(log_softmax(lg), lexicon(["so"]))
    assert texts(words) == ["SO"] * 8
    assert (words[0].start_s, words[0].end_s) == (0.0, 0.04)          # S on frame 0, O on frame 1
    assert all(a.end_s <= b.start_s for a, b in zip(words, words[1:]))
    off, _ = load_model(str(so_model), device="cpu", allow_download=False, progress=False, vocabulary="off")
    assert off.lexicon is None and isinstance(off.new_decoder(), GreedyCTCDecoder)
    greedy_words = list(off.words([audio]))
    ref = GreedyCTCDecoder(VOCAB, 0, "|", off.skip_ids, 0.02)
    assert greedy_words == ref.feed(lg.argmax(-1), 0, max_softmax(lg)) + ref.finish() == []


def test_model_without_vocabulary_decodes_greedily_bit_for_bit(tiny_w2v_dir):
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer, max_softmax

    assert not (tiny_w2v_dir / "vocabulary.txt").exists()
    rec = Wav2Vec2Recognizer(tiny_w2v_dir, "tiny", device="cpu", chunk_s=1.0, stride_s=0.2)
    assert rec.lexicon is None
    audio = _noise(3.0)
    ref = GreedyCTCDecoder(rec.id_to_token, rec.blank_id, rec.word_delimiter, rec.skip_ids, rec.seconds_per_frame)
    expected = []
    for first, lg in rec.stream_logits([audio]):          # the decoding loop before lexicons existed
        expected += ref.feed(lg.argmax(axis=-1), first, max_softmax(lg))
    expected += ref.finish()
    assert list(rec.words([audio])) == expected and len(expected) >= 2


def test_bad_vocabulary_mode_is_a_usage_error(so_model):
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from speechstudio.errors import UsageError

    with pytest.raises(UsageError, match="vocabulary 'on'"):
        Wav2Vec2Recognizer(so_model, "so", device="cpu", vocabulary="on")


def test_streaming_decodes_with_the_lexicon_and_its_tail(so_model):
    from speechstudio.asr.streaming import StreamConfig, StreamingRecognizer
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer

    rec = Wav2Vec2Recognizer(so_model, "so", device="cpu")
    stream = StreamingRecognizer(rec, StreamConfig(chunk_s=0.5, left_context_s=0.5, lookahead_s=0.24, endpoint_s=None),
                                 runner=lambda w: rec.window_logits([w])[0])
    updates = list(stream.run([_noise(3.0)]))
    assert isinstance(stream.segments[0].words, tuple) and stream.segments
    assert set(stream.text.split()) == {"SO"} and len(stream.text.split()) >= 10
    assert any(u.tail_text.startswith("SO") for u in updates if u.kind != "final")


def test_cli_transcribe_uses_the_vocabulary_and_no_vocabulary_is_greedy(so_model, home, tmp_path):
    import soundfile as sf

    from speechstudio.cli import main

    wav = tmp_path / "talk.wav"
    sf.write(wav, _noise(), 16000, subtype="PCM_16")
    for flags, out in (([], "lex"), (["--no-vocabulary"], "greedy")):
        code = main(["transcribe", str(wav), "--model", str(so_model), "--device", "cpu", "--format", "txt",
                     "--output-dir", str(tmp_path / out), "--no-download", "-q", *flags])
        assert code == 0
    assert (tmp_path / "lex" / "talk.txt").read_text().split() == ["SO"] * 8
    assert (tmp_path / "greedy" / "talk.txt").read_text().split() == []


def test_cli_dictate_uses_the_vocabulary_and_no_vocabulary_is_greedy(so_model, home, tmp_path, capsys):
    import soundfile as sf

    from speechstudio.cli import main

    wav = tmp_path / "talk.wav"
    sf.write(wav, _noise(3.0), 16000, subtype="PCM_16")
    heard = {}
    for flags in ([], ["--no-vocabulary"]):
        code = main(["dictate", "--file", str(wav), "--fast", "--model", str(so_model), "--device", "cpu",
                     "--endpoint-s", "0", "--no-download", *flags])
        out, err = capsys.readouterr()
        assert code == 0, err
        heard[bool(flags)] = out.strip().splitlines()[-1].split() if out.strip() else []
    assert set(heard[False]) == {"SO"} and len(heard[False]) >= 10
    assert heard[True] == []
