"""Build small models from a config, saved like a real checkpoint, for tests and benchmarks.

The Hugging Face Hub is not reachable from CI, so instead of downloading weights we create a
``Wav2Vec2ForCTC`` with random weights (seeded) plus its processor files, and load it back
through the real loading code.
"""
from __future__ import annotations

import json
from pathlib import Path

# Vocabulary of facebook/wav2vec2-base-960h (model card / vocab.json): CTC blank is <pad> = 0.
VOCAB = ["<pad>", "<s>", "</s>", "<unk>", "|", "E", "T", "A", "O", "N", "I", "H", "S", "R", "D", "L",
         "U", "M", "W", "C", "F", "G", "Y", "P", "B", "V", "K", "'", "X", "J", "Q", "Z"]


def make_wav2vec2(path: str | Path, *, size: str = "tiny", seed: int = 0, do_normalize: bool = True) -> Path:
    """Save a random-weight Wav2Vec2ForCTC + processor to ``path``.

    ``size``: ``"tiny"`` (hidden 32, 2 layers; fast tests) or ``"base"`` (the wav2vec2-base
    architecture: hidden 768, 12 layers, 95 M parameters; for benchmarks).
    """
    import torch
    from transformers import (Wav2Vec2Config, Wav2Vec2CTCTokenizer, Wav2Vec2FeatureExtractor,
                              Wav2Vec2ForCTC, Wav2Vec2Processor)

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    if size == "tiny":
        cfg = Wav2Vec2Config(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2,
                             num_attention_heads=2, intermediate_size=64,
                             conv_dim=(32,) * 7, num_conv_pos_embeddings=16,
                             num_conv_pos_embedding_groups=2, pad_token_id=0)
    elif size == "base":
        cfg = Wav2Vec2Config(vocab_size=len(VOCAB), pad_token_id=0)  # defaults = wav2vec2-base
    elif size == "large":
        cfg = Wav2Vec2Config(vocab_size=len(VOCAB), pad_token_id=0, hidden_size=1024, num_hidden_layers=24,
                             num_attention_heads=16, intermediate_size=4096, feat_extract_norm="layer",
                             do_stable_layer_norm=True, conv_bias=True)
    else:
        raise ValueError(size)
    torch.manual_seed(seed)
    model = Wav2Vec2ForCTC(cfg).eval()
    model.save_pretrained(path, safe_serialization=True)
    vocab_file = path / "vocab.json"
    vocab_file.write_text(json.dumps({t: i for i, t in enumerate(VOCAB)}))
    tok = Wav2Vec2CTCTokenizer(str(vocab_file), unk_token="<unk>", pad_token="<pad>", word_delimiter_token="|")
    fe = Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000, padding_value=0.0,
                                  do_normalize=do_normalize, return_attention_mask=False)
    Wav2Vec2Processor(feature_extractor=fe, tokenizer=tok).save_pretrained(path)
    return path
