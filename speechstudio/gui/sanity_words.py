"""The Adapt wizard's quick check before training, in plain words: an empty or repeated output, or
more than half the words wrong on a clip just trained on, is a warning. Qt-free."""
from __future__ import annotations

import re
from dataclasses import dataclass

#: a sample with more than this word error rate (on a clip it just trained on) is a warning: the
#: threshold is a judgment (half the words wrong), not a published figure
MAX_SAMPLE_WER = 0.5
_REPEATED = re.compile(r"(\S)\1{4,}")  # a character five times in a row ("AAAAA", "eeeee")


@dataclass(frozen=True)
class Verdict:
    """``level``: ``"ok"`` | ``"warning"`` | ``"problem"``; ``headline``: one plain sentence for the
    page; ``details``: the trainer's own lines (for the tooltip / Details); ``sample_wer``: the
    sample's word error rate (``None`` without a sample)."""

    level: str
    headline: str
    details: str
    sample_wer: float | None


def sample_wer(ref: str, hyp: str) -> float | None:
    """Word error rate of ``hyp`` against ``ref`` (case-insensitive, punctuation kept as the model
    writes it); ``None`` when ``ref`` has no words."""
    import jiwer

    ref, hyp = " ".join(ref.lower().split()), " ".join(hyp.lower().split())
    if not ref:
        return None
    return float(jiwer.wer(ref, hyp or "<empty>"))


def gibberish(ref: str, hyp: str) -> str:
    """Why ``hyp`` reads as gibberish for ``ref`` (``""`` when it does not): empty, one character
    repeated, or word error rate above :data:`MAX_SAMPLE_WER`."""
    if not hyp.strip():
        return "it writes nothing yet"
    if _REPEATED.search(hyp) or len(set(hyp.replace(" ", ""))) <= 2 < len(hyp.replace(" ", "")):
        return "it repeats one letter"
    wer = sample_wer(ref, hyp)
    if wer is not None and wer > MAX_SAMPLE_WER:
        return f"it got {min(wer, 1.0):.0%} of the words wrong"
    return ""


def judge(ev) -> Verdict:
    """Judge a :class:`~speechstudio.finetune.ctc.events.SanityEvent`."""
    details = f"{ev.train_clips} training clips, {ev.val_clips} held back for checks\n" + \
        "\n".join(f"• {m}" for m in ev.messages)
    if not ev.ok:
        return Verdict("problem", "The quick check found a problem: training cannot start. Hover here for what "
                                  "to fix.", details, None)
    ref, hyp = ev.sample_ref or "", ev.sample_hyp or ""
    wer = sample_wer(ref, hyp) if ref else None
    if not ref:
        return Verdict("ok", "Quick check done: your recordings and texts are ready for training.", details, None)
    why = gibberish(ref, hyp)
    heard = f"“{hyp.strip()[:60]}”" if hyp.strip() else "nothing"
    if why:
        return Verdict("warning", f"Quick check: after a few practice steps the model still writes gibberish ({why}: "
                                  f"{heard} for “{ref[:60]}”). "
                                  + ("That is normal for a new alphabet" if ev.vocab_source == "data" else
                                     "Training may still fix it")
                                  + "; if the checks during training stay this bad, make sure the texts match the "
                                    "recordings.",
                       details, wer)
    return Verdict("ok", f"Quick check passed: after a few practice steps the model writes {heard} for "
                         f"“{ref[:60]}”.", details, wer)
