"""CPU cost of vocabulary-constrained CTC decoding against greedy, on the same log-probs.

Frames are synthetic but shaped like a trained CTC model's output: a transcript of words from the
vocabulary spelled at ~12 characters per second of 50 Hz frames (2-4 frames per character, blanks
between), each frame's top token at probability U(0.6, 0.999), two other random tokens sharing
most of the rest, every other token 1e-6. Both decoders read the same logits; greedy as
``Wav2Vec2Recognizer.words`` runs it (arg-max + max softmax + ``GreedyCTCDecoder.feed``), lexicon
as ``feed_decoder`` runs it (log-softmax + ``LexiconCTCDecoder.feed``). RTF = decode seconds /
audio seconds (lower is better), in CPU time of this process (``time.process_time``: other load on
the machine does not count); the model's own forward pass is not included. WER of each decoder
against the words the frames spell (``speechstudio.metrics.wer``; a word cut by the end of the
audio is not in the reference): greedy loses a doubled letter spelled with no blank between.

    python bench/ctc_lexicon_rtf.py [--seconds 120] [--words 40]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from speechstudio.asr.ctc import GreedyCTCDecoder
from speechstudio.asr.ctc_lexicon import LexiconCTCDecoder, log_softmax
from speechstudio.asr.wav2vec2 import max_softmax
from speechstudio.metrics import wer

VOCAB = ["<pad>", "<s>", "</s>", "<unk>", "|", *"ETAONIHSRDLUMWCFGYPBVK'XJQZ"]


def make_logits(seconds: float, words: list[str], rng) -> tuple[np.ndarray, list[str]]:
    """Logits shape (seconds x 50, len(VOCAB)) float32 and the words they spell (those that end
    before the cut)."""
    idx = {t: i for i, t in enumerate(VOCAB)}
    path: list[int] = []
    spoken: list[str] = []
    while len(path) < seconds * 50:
        word = rng.choice(words)
        for ch in word:
            path += [idx[ch.upper()]] * int(rng.integers(2, 5)) + [0] * int(rng.integers(0, 3))
        if len(path) <= seconds * 50:
            spoken.append(str(word))
        path += [idx["|"], 0, 0]
    path = path[:int(seconds * 50)]
    p = np.full((len(path), len(VOCAB)), 1e-6)
    for t, tok in enumerate(path):
        top = rng.uniform(0.6, 0.999)
        others = rng.choice(len(VOCAB), 2, replace=False)
        p[t, others] = (1 - top) * 0.45
        p[t, tok] = top
    p /= p.sum(1, keepdims=True)
    return np.log(p).astype(np.float32), spoken   # logits (any shift of these is the same softmax)


def words_list(n: int, rng) -> list[str]:
    letters = np.array(list("ETAONIHSRDLUMWCFGYPBVK"))
    return sorted({"".join(rng.choice(letters, int(rng.integers(2, 9)))) for _ in range(n)})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--words", type=int, nargs="+", default=[40, 1000, 20000])
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    for n in args.words:
        vocab_words = words_list(n, rng)
        lg, spoken = make_logits(args.seconds, vocab_words[:40], rng)
        t0 = time.process_time()
        g = GreedyCTCDecoder(VOCAB, 0, "|", frozenset({1, 2, 3}), 0.02)
        heard = []
        for a in range(0, lg.shape[0], 1000):          # 20 s windows, as transcribe feeds them
            heard += g.feed(lg[a:a + 1000].argmax(-1), a, max_softmax(lg[a:a + 1000]))
        heard += g.finish()
        t_greedy = time.process_time() - t0
        t0 = time.process_time()
        dec = LexiconCTCDecoder(VOCAB, 0, "|", frozenset({1, 2, 3}), 0.02, words=vocab_words)
        t_build = time.process_time() - t0
        t0 = time.process_time()
        out = []
        for a in range(0, lg.shape[0], 1000):
            out += dec.feed(log_softmax(lg[a:a + 1000]), a)
        out += dec.finish()
        t_lex = time.process_time() - t0
        ref = [" ".join(spoken)]
        print(f"{n:6d} words (trie {t_build * 1000:.0f} ms): greedy RTF {t_greedy / args.seconds:.5f} "
              f"WER {wer(ref, [' '.join(w.text for w in heard)]):.4f}, "
              f"lexicon RTF {t_lex / args.seconds:.5f} ({t_lex / args.seconds * 1000:.1f} ms per s of audio) "
              f"WER {wer(ref, [' '.join(w.text for w in out)]):.4f} ({len(out)} words, {len(spoken)} spoken)")


if __name__ == "__main__":
    main()
