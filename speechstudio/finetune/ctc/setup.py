"""Everything a CTC run needs before its first step: split, vocabulary, model, items.

Fresh run: resolve the base, keep its vocabulary or build one (``CTCConfig.vocab``), normalise the
texts (casing policy), check coverage, load the model, turn clips into items (refusals with reasons).
Resumed run: the same from the latest checkpoint and the run's ``config.json``. ``RUN/processor/``
holds the train-ready model config (pad id = blank, ``ctc_zero_infinity``, vocabulary size) and
``vocabulary.txt``, the sorted words of the usable transcripts, exported with the model for
:mod:`speechstudio.asr.ctc_lexicon`."""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from speechstudio.asr.ctc_lexicon import VOCABULARY_FILE
from speechstudio.atomic import atomic_write_text
from speechstudio.errors import UsageError
from speechstudio.finetune.ctc import vocab as V
from speechstudio.finetune.ctc.checkpoint import PROCESSOR, model_from_state, save_model_files
from speechstudio.finetune.ctc.data import Item, prepare_items
from speechstudio.finetune.ctc.events import CTCConfig
from speechstudio.finetune.ctc.model import load_for_training, output_frames, resolve_base
from speechstudio.finetune.manifest import DatasetError, Manifest


@dataclass
class Prepared:
    """The model (FP32, on CPU), processor, items and findings of one run."""

    model: object
    feature_extractor: object
    tokenizer: object
    vocab: dict
    train: list[Item]
    val: list[Item]
    refused: list[tuple[str, str]] = field(default_factory=list)
    uncovered: dict = field(default_factory=dict)
    rare: dict = field(default_factory=dict)
    flagged: list[tuple[str, str]] = field(default_factory=list)   # (clip id, flags) the manifest excludes
    info: dict = field(default_factory=dict)   # the run's config.json (without "train")
    new_head: bool = False


def prepare(run_dir: Path, dataset_dir: Path, base: str | None, config: CTCConfig, *, resumed: dict | None = None,
            model_state: dict | None = None, main: bool = True) -> Prepared:
    """Build the run's inputs (see module docstring). ``resumed``: the run's ``config.json`` and
    ``model_state`` the latest checkpoint's weights when continuing a run; ``None`` for a fresh one;
    ``main``: this process writes ``RUN/processor``. Raises ``UsageError`` / ``ModelNotFoundError``
    for a bad base or option, ``DatasetError`` for unusable data (uncovered characters when
    ``config.uncovered == "error"``, too few clips)."""
    import torch
    from transformers import AutoConfig, AutoFeatureExtractor

    if config.vocab not in ("auto", "base", "data"):
        raise UsageError(f"vocab {config.vocab!r}: expected auto, base or data")
    if config.casing not in V.CASINGS:
        raise UsageError(f"casing {config.casing!r}: expected one of {', '.join(V.CASINGS)}")
    manifest = Manifest.load(dataset_dir)
    if resumed is not None:
        info = {k: v for k, v in resumed.items() if k not in ("train", "history")}
        fe, tok = V.load_processor(run_dir / PROCESSOR)
        model_path, new_head = run_dir / PROCESSOR, False
    else:
        if not base:
            raise UsageError("no --base model given")
        b = resolve_base(base)
        use_base_vocab = config.vocab == "base" or (config.vocab == "auto" and b.has_vocab)
        if use_base_vocab and not b.has_vocab:
            raise UsageError(f"{base} has no CTC vocabulary (vocab.json with a *ForCTC head); "
                             "build one from the data instead (vocab='data')", value=base)
        fe = (AutoFeatureExtractor.from_pretrained(b.path) if (b.path / "preprocessor_config.json").is_file()
              else V.default_feature_extractor(AutoConfig.from_pretrained(b.path)))
        if use_base_vocab:
            from transformers import Wav2Vec2CTCTokenizer

            tok = Wav2Vec2CTCTokenizer.from_pretrained(b.path)
            casing = V.vocab_casing(tok.get_vocab()) if config.casing == "auto" else config.casing
        else:
            tok = None
            casing = "lower" if config.casing == "auto" else config.casing
        info = {"base": b.model_id, "base_path": str(b.path), "model_type": b.model_type,
                "dataset": str(Path(dataset_dir).resolve()), "vocab_source": "base" if use_base_vocab else "data",
                "casing": casing, "language": manifest.language or "en", "seed": config.seed,
                "val_count": config.val_count}
        model_path, new_head = b.path, not use_base_vocab

    train_clips, val_clips = manifest.split(info["val_count"], seed=info["seed"])
    targets = {c.id: V.normalize_transcript(c.text, info["casing"], info["language"]) for c in train_clips + val_clips}
    if tok is None:
        with tempfile.TemporaryDirectory() as tmp:
            tok = V.make_tokenizer(V.build_vocab(targets.values()), tmp)
    vocab = dict(tok.get_vocab())
    delimiter = tok.word_delimiter_token or V.DELIMITER
    uncovered = V.find_uncovered(targets, vocab, delimiter)
    rare = V.rare_characters(targets) if info["vocab_source"] == "data" and len(targets) >= 20 else {}

    if resumed is None:
        vocab_size = len(vocab) if new_head else int(AutoConfig.from_pretrained(model_path).vocab_size)
        if not new_head and vocab_size < len(vocab):
            raise UsageError(f"{base}: tokenizer has {len(vocab)} tokens but the CTC head {vocab_size}", value=base)
        torch.manual_seed(info["seed"])  # the new head's initial weights
        model = load_for_training(model_path, vocab_size=vocab_size, pad_token_id=int(tok.pad_token_id),
                                  new_head=new_head)
        if main:
            save_model_files(run_dir / PROCESSOR, model.config, fe, tok)
    else:
        model = model_from_state(run_dir / PROCESSOR, model_state)

    refused = [(i, f"character {char!r} outside the vocabulary") for char, ids in uncovered.items() for i in ids]
    bad_ids = {i for i, _why in refused}
    train_clips = [c for c in train_clips if c.id not in bad_ids]
    val_clips = [c for c in val_clips if c.id not in bad_ids]

    cfg = model.config
    min_frames = int(cfg.mask_time_length) + 1 if getattr(cfg, "mask_time_prob", 0) > 0 else 1
    rate = int(fe.sampling_rate)
    frames = lambda n: output_frames(model, n)  # noqa: E731
    enc = lambda t: V.encode(t, vocab, delimiter)  # noqa: E731
    train, r1 = prepare_items(train_clips, dataset_dir, targets, enc, rate, config.max_clip_s, frames, min_frames)
    val, r2 = prepare_items(val_clips, dataset_dir, targets, enc, rate, config.max_clip_s, frames, min_frames)
    refused += r1 + r2
    if not train:
        shown = "; ".join(f"{i}: {why}" for i, why in refused[:5])
        raise DatasetError(f"{Path(dataset_dir) / 'manifest.json'}: no usable training clips"
                           + (f" ({shown})" if shown else ""))
    if main:  # the distinct words of the normalised targets, sorted, one per line
        words = sorted({w for it in train + val for w in it.target.split()})
        atomic_write_text(run_dir / PROCESSOR / VOCABULARY_FILE, "".join(f"{w}\n" for w in words))
    usable = {c.id for c in manifest.usable()}
    flagged = [(c.id, ", ".join(c.flags)) for c in manifest.clips if c.id not in usable and not c.dropped]
    return Prepared(model, fe, tok, vocab, train, val, refused=refused, uncovered=uncovered, rare=rare,
                    flagged=flagged, info=info, new_head=new_head)
