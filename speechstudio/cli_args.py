"""What every subcommand's parser shares: exit codes (0, 1 some inputs failed, 2 usage, 130
interrupted) and argument types."""
from __future__ import annotations

import argparse
import math

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def int_at_least(low: int):
    """An argparse type: a whole number >= ``low``."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if v < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {v}")
        return v
    return parse


def positive_number(what: str = "a number"):
    """An argparse type: a finite float > 0 (``what`` names it in the message: "a number of seconds")."""
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not (v > 0 and math.isfinite(v)):
            raise argparse.ArgumentTypeError(f"must be a positive {what.removeprefix('a ')}, got {text!r}")
        return v
    return parse


positive_int = int_at_least(1)
positive_float = positive_number("a number of seconds")
