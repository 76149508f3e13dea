"""Spoken punctuation meant or not: the 40 sentences of ``bench/dictation_commands.tsv`` through the
dictation composer (English commands, CTC-style words: no casing, no punctuation, no times; each
sentence fed in two updates, the second final). A line counts when the composed text equals the
expected one. Prints the share of lines that use a command word as a word ("word" + "both") and as
punctuation ("punct" + "both"); issue 41 asks >= 95 % each.

    python bench/dictation_commands.py [--show]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

SET = Path(__file__).with_name("dictation_commands.tsv")


def read_set(path: Path = SET) -> list[tuple[str, str, str]]:
    """``[(use, spoken words, expected text), ...]`` (``#`` lines are comments; ``\\n`` in the text: a line break)."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            use, words, text = line.split("\t")
            rows.append((use, words, text.replace("\\n", "\n")))
    return rows


def compose(words: str) -> str:
    """The text the composer makes of ``words`` said as one utterance (two updates)."""
    from speechstudio.dictation.commands import DEFAULT_COMMANDS
    from speechstudio.dictation.composer import Composer

    comp = Composer(DEFAULT_COMMANDS["en"], casing="sentence")
    said = words.upper().split()
    half = len(said) // 2
    comp.feed_words(said[:half])
    comp.feed_words(said[half:], final=True)
    return comp.text


def measure(rows) -> dict[str, tuple[int, int]]:
    """``{"word": (right, lines), "punct": (right, lines)}``."""
    out = {"word": [0, 0], "punct": [0, 0]}
    for use, words, text in rows:
        right = compose(words) == text
        for kind in ("word", "punct"):
            if use in (kind, "both"):
                out[kind][0] += right
                out[kind][1] += 1
    return {k: (a, b) for k, (a, b) in out.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", action="store_true", help="print every line that misses")
    args = ap.parse_args(argv)
    rows = read_set()
    if args.show:
        for _use, words, text in rows:
            got = compose(words)
            if got != text:
                print(f"MISS {words!r}\n  got      {got!r}\n  expected {text!r}")
    for kind, (right, n) in measure(rows).items():
        print(f"command words as {kind:5s}: {right}/{n} lines = {right / n:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
