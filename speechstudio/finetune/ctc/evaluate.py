"""WER / CER of a CTC model on a list of items, greedy decoding; diagnoses of the usual failures.

WER and CER are jiwer's (Levenshtein edits / reference words or characters, corpus level) after
``speechstudio.metrics.normalize_text`` on both sides, so casing, punctuation and "8" vs "eight"
do not count as errors.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

from speechstudio.finetune.ctc.data import Collator, Item
from speechstudio.finetune.ctc.model import autocast, output_frames
from speechstudio.metrics import normalize_text


@dataclass(frozen=True)
class Decoding:
    """What greedy decoding needs from a tokenizer: tokens by id, the blank (pad) id, the word
    delimiter and ids to drop (``<s>``, ``</s>``, ``<unk>``)."""

    id_to_token: tuple[str, ...]
    blank_id: int
    delimiter: str
    skip_ids: frozenset[int]

    @classmethod
    def from_tokenizer(cls, tokenizer, vocab_size: int) -> "Decoding":
        tokens = tokenizer.convert_ids_to_tokens(list(range(vocab_size)))
        skip = {tokenizer.convert_tokens_to_ids(t) for t in
                (tokenizer.bos_token, tokenizer.eos_token, tokenizer.unk_token) if t}
        blank = int(tokenizer.pad_token_id)
        return cls(tuple(t if t is not None else "" for t in tokens), blank,
                   tokenizer.word_delimiter_token or "|", frozenset(i for i in skip if i is not None and i != blank))

    def texts(self, logits, frames: Sequence[int]) -> list[str]:
        """Greedy CTC decoding of ``logits`` (B, T, V) over the first ``frames[b]`` frames: repeats merged,
        blank and ``skip_ids`` dropped, the delimiter -> space (Graves et al., 2006)."""
        texts, drop = [], {self.blank_id, *self.skip_ids}
        for row, n in zip(logits.argmax(dim=-1).cpu().tolist(), frames):
            kept = [self.id_to_token[t] for t, _run in itertools.groupby(row[:n]) if t not in drop]
            texts.append(" ".join("".join(" " if t == self.delimiter else t for t in kept).split()))
        return texts


@dataclass(frozen=True)
class EvalResult:
    wer: float
    cer: float
    refs: tuple[str, ...]
    hyps: tuple[str, ...]


def score(refs: Sequence[str], hyps: Sequence[str], language: str = "en") -> tuple[float, float]:
    """``(wer, cer)`` over pairs after ``normalize_text``; an empty reference set scores 0."""
    import jiwer

    pairs = [(normalize_text(r, language), normalize_text(h, language)) for r, h in zip(refs, hyps)]
    pairs = [(r, h) for r, h in pairs if r]
    if not pairs:
        return 0.0, 0.0
    r, h = [p[0] for p in pairs], [p[1] for p in pairs]
    return float(jiwer.wer(r, h)), float(jiwer.cer(r, h))


def evaluate(model, items: Sequence[Item], collator: Collator, decoding: Decoding, *, device: str,
             precision: str, batch_size: int, language: str = "en") -> EvalResult:
    """Transcribe ``items`` greedily (eval mode, no SpecAugment / dropout) and score them: batched by length,
    padded frames cut with the conv arithmetic; one clip at a time when the feature extractor takes no
    attention mask (group-norm encoders: docs/finetune_asr.md, "Differences from transformers' example")."""
    import torch

    batch_size = batch_size if collator.with_mask else 1
    was_training = model.training
    model.eval()
    order = sorted(range(len(items)), key=lambda i: items[i].n_samples)
    hyps: dict[int, str] = {}
    try:
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                idx = order[start:start + batch_size]
                inputs, _labels, lengths = collator.on(device, [items[i] for i in idx])
                with autocast(device, precision):
                    logits = model(**inputs).logits.float()
                frames = [output_frames(model, n) for n in lengths.tolist()]
                hyps.update(zip(idx, decoding.texts(logits, frames)))
    finally:
        model.train(was_training)
    refs = tuple(it.text for it in items)
    out = tuple(hyps[i] for i in range(len(items)))
    wer, cer = score(refs, out, language)
    return EvalResult(wer, cer, refs, out)


def diagnose(result: EvalResult, history: Sequence[float], step: int, steps_per_epoch: int) -> tuple[str, str]:
    """``(kind, note)``: a one-line diagnosis for the usual CTC failures, of kind ``"blank_early"``, ``"blank"``
    or ``"stuck"`` (an interface words it itself); ``("", "")`` when nothing looks wrong.

    ``history``: WERs of the fine-tuned evaluations so far (this one last). A new CTC head
    outputs only blanks for a while (the first few hundred steps, or epochs on small data)."""
    early = step < max(3 * steps_per_epoch, 200)
    if result.hyps and not any(h.strip() for h in result.hyps):
        if early:
            return "blank_early", ("all outputs are blank so far: normal for the first epochs of a new CTC head; "
                                   "it should start emitting characters soon")
        return "blank", ("all outputs are still blank (the model only predicts the CTC blank): try a higher --lr, "
                         "more steps, or check that the texts match the audio")
    if len(history) >= 3 and all(w >= 0.999 for w in history[-3:]) and not early:
        return "stuck", ("WER stuck at 1.0 for 3 evaluations: check that the texts match the audio and the sample "
                         "rate, try a higher --lr or unfreezing the feature encoder")
    return "", ""
