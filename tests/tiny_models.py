"""Build small models from a config, saved like a real checkpoint, for tests and benchmarks.

The Hugging Face Hub is not reachable from CI, so instead of downloading weights we create a
CTC model (``Wav2Vec2ForCTC`` by default; HuBERT, Data2Vec-Audio or Wav2Vec2-Conformer with
``family=``) with random weights (seeded) plus its processor files, and load it back through the
real loading code.
"""
from __future__ import annotations

import json
from pathlib import Path

# Vocabulary of facebook/wav2vec2-base-960h (model card / vocab.json): CTC blank is <pad> = 0.
VOCAB = ["<pad>", "<s>", "</s>", "<unk>", "|", "E", "T", "A", "O", "N", "I", "H", "S", "R", "D", "L",
         "U", "M", "W", "C", "F", "G", "Y", "P", "B", "V", "K", "'", "X", "J", "Q", "Z"]

#: ``family`` -> (config class, CTC model class) names in transformers.
FAMILIES = {
    "wav2vec2": ("Wav2Vec2Config", "Wav2Vec2ForCTC"),
    "hubert": ("HubertConfig", "HubertForCTC"),
    "data2vec-audio": ("Data2VecAudioConfig", "Data2VecAudioForCTC"),
    "wav2vec2-conformer": ("Wav2Vec2ConformerConfig", "Wav2Vec2ConformerForCTC"),
}

# Tiny settings per family (hidden 32, 2 layers): the layers where the families differ are kept
# (HuBERT's feature-extractor norm, Data2Vec-Audio's stack of positional convolutions,
# the Conformer's rotary / relative position embeddings and its depthwise conv module).
_TINY_COMMON = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                    conv_dim=(32,) * 7)
_TINY = {
    "wav2vec2": dict(num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2),
    "hubert": dict(num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2),
    "data2vec-audio": dict(num_conv_pos_embeddings=3, conv_pos_kernel_size=7, num_conv_pos_embedding_groups=2),
    "wav2vec2-conformer": dict(num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2,
                               position_embeddings_type="rotary", conv_depthwise_kernel_size=7),
}


def make_wav2vec2(path: str | Path, *, size: str = "tiny", seed: int = 0, do_normalize: bool = True,
                  family: str = "wav2vec2", config: dict | None = None) -> Path:
    """Save a random-weight CTC model + processor (``Wav2Vec2Processor``) to ``path``.

    ``size``: ``"tiny"`` (hidden 32, 2 layers; fast tests) or, for ``family="wav2vec2"`` only,
    ``"base"`` (the wav2vec2-base architecture: hidden 768, 12 layers, 95 M parameters; for
    benchmarks) or ``"large"``. ``family``: a key of :data:`FAMILIES`. ``config``: extra config
    fields that override the tiny settings (e.g. ``conv_stride``, ``feat_extract_norm``,
    ``position_embeddings_type``). For the other families the feature extractor returns an
    attention mask when the conv feature encoder uses layer norm, as the released checkpoints of
    that kind do (facebook/hubert-large-ls960-ft, facebook/data2vec-audio-base-960h).
    """
    import torch
    import transformers
    from transformers import Wav2Vec2CTCTokenizer, Wav2Vec2FeatureExtractor, Wav2Vec2Processor

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    config_cls, model_cls = (getattr(transformers, n) for n in FAMILIES[family])
    if size == "tiny":
        kw = dict(_TINY_COMMON, **_TINY[family])
    elif size == "base" and family == "wav2vec2":
        kw = {}  # defaults = wav2vec2-base
    elif size == "large" and family == "wav2vec2":
        kw = dict(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
                  feat_extract_norm="layer", do_stable_layer_norm=True, conv_bias=True)
    else:
        raise ValueError(f"size {size!r} for family {family!r}")
    kw.update(config or {})
    cfg = config_cls(vocab_size=len(VOCAB), pad_token_id=0, **kw)
    torch.manual_seed(seed)
    model = model_cls(cfg).eval()
    model.save_pretrained(path, safe_serialization=True)
    vocab_file = path / "vocab.json"
    vocab_file.write_text(json.dumps({t: i for i, t in enumerate(VOCAB)}))
    tok = Wav2Vec2CTCTokenizer(str(vocab_file), unk_token="<unk>", pad_token="<pad>", word_delimiter_token="|")
    # Data2Vec-Audio has no feat_extract_norm: its conv layers always use layer norm.
    layer_norm = family != "wav2vec2" and getattr(cfg, "feat_extract_norm", "layer") == "layer"
    fe = Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000, padding_value=0.0,
                                  do_normalize=do_normalize, return_attention_mask=layer_norm)
    Wav2Vec2Processor(feature_extractor=fe, tokenizer=tok).save_pretrained(path)
    return path
