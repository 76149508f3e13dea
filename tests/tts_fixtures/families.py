"""Tiny SpeechT5 and FastSpeech2-Conformer voices built from configs (no download), saved with
``save_pretrained`` in the folder layouts ``speecht5.load`` / ``fastspeech2.load`` read, so tests go
through the real loading code (``vits.load_voice`` -> ``families.load_family_voice``)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

SPEAKERS = ("awb", "slt")


def make_tiny_speecht5(folder: Path, speakers=SPEAKERS) -> Path:
    """SpeechT5ForTextToSpeech (hidden 16, 1 layer) + a char SentencePiece tokenizer trained here +
    a tiny SpeechT5HifiGan in ``vocoder/`` + ``speakers.npz`` (8-dim x-vectors). 16 kHz."""
    import sentencepiece as spm
    import torch
    from transformers import (
        SpeechT5Config,
        SpeechT5ForTextToSpeech,
        SpeechT5HifiGan,
        SpeechT5HifiGanConfig,
        SpeechT5Tokenizer,
    )

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    corpus = ["the quick brown fox jumps over the lazy dog", "Hello World, how are you? Yes! It's fine.",
              "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG"] * 20
    spm.SentencePieceTrainer.train(sentence_iterator=iter(corpus), model_prefix=str(folder / "spm_char"),
                                   model_type="char", vocab_size=70, hard_vocab_limit=False, bos_id=0, pad_id=1,
                                   eos_id=2, unk_id=3, minloglevel=2)
    tok = SpeechT5Tokenizer(str(folder / "spm_char.model"))
    cfg = SpeechT5Config(vocab_size=len(tok), hidden_size=16, encoder_layers=1, decoder_layers=1,
                         encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
                         decoder_ffn_dim=32, num_mel_bins=8, speech_decoder_prenet_units=16,
                         speech_decoder_postnet_units=16, speech_decoder_postnet_layers=2, speaker_embedding_dim=8,
                         reduction_factor=2, max_speech_positions=600, max_text_positions=200,
                         pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2)
    torch.manual_seed(0)
    model = SpeechT5ForTextToSpeech(cfg).eval()
    with torch.no_grad():  # stop-token logit fixed high after a few frames is not possible; keep it low
        model.speech_decoder_postnet.prob_out.weight.zero_()
        model.speech_decoder_postnet.prob_out.bias.fill_(-10.0)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    voc = SpeechT5HifiGan(SpeechT5HifiGanConfig(model_in_dim=8, upsample_initial_channel=16, upsample_rates=[4, 4],
                                                upsample_kernel_sizes=[8, 8], resblock_kernel_sizes=[3],
                                                resblock_dilation_sizes=[[1, 3, 5]], sampling_rate=16000))
    voc.save_pretrained(folder / "vocoder")
    rng = np.random.default_rng(0)
    np.savez(folder / "speakers.npz", **{s: rng.standard_normal(8).astype(np.float32) for s in speakers})
    return folder


ARPABET = ["AA1", "AH0", "AY1", "EH1", "ER0", "ER1", "HH", "L", "OW1", "W", "D", "DH", "IH1", "S", "T", "EY1", "R", "N",
           "IY1", "K", "Z", ",", ".", "?", "!"]


def make_tiny_fastspeech2(folder: Path, num_speakers: int | None = None) -> Path:
    """FastSpeech2ConformerWithHifiGan (hidden 16, 1 layer each) + an ARPAbet ``vocab.json``. The
    duration predictor is set to 3 frames per token (zero weights, bias log(3 + 1)), so the output
    length is exact: 3 frames x hop 16 samples x tokens."""
    import math

    import torch
    from transformers import (
        FastSpeech2ConformerConfig,
        FastSpeech2ConformerHifiGanConfig,
        FastSpeech2ConformerWithHifiGan,
        FastSpeech2ConformerWithHifiGanConfig,
    )

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab = {"<blank>": 0, "<unk>": 1}
    for t in ARPABET:
        vocab[t] = len(vocab)
    vocab["<sos/eos>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({"should_strip_spaces": True}), encoding="utf-8")
    mc = FastSpeech2ConformerConfig(
        hidden_size=16, vocab_size=len(vocab), num_mel_bins=8, encoder_layers=1, decoder_layers=1,
        encoder_linear_units=16, decoder_linear_units=16, speech_decoder_postnet_layers=1,
        speech_decoder_postnet_units=16, duration_predictor_layers=1, duration_predictor_channels=8,
        energy_predictor_layers=1, energy_predictor_channels=8, pitch_predictor_layers=1,
        pitch_predictor_channels=8, encoder_kernel_size=3, decoder_kernel_size=3, num_speakers=num_speakers)
    vc = FastSpeech2ConformerHifiGanConfig(model_in_dim=8, upsample_initial_channel=16, upsample_rates=[4, 4],
                                           upsample_kernel_sizes=[8, 8], resblock_kernel_sizes=[3],
                                           resblock_dilation_sizes=[[1, 3, 5]])
    cfg = FastSpeech2ConformerWithHifiGanConfig(model_config=mc.to_dict(), vocoder_config=vc.to_dict())
    torch.manual_seed(0)
    model = FastSpeech2ConformerWithHifiGan(cfg).eval()
    with torch.no_grad():
        lin = model.model.duration_predictor.linear
        lin.weight.zero_()
        lin.bias.fill_(math.log(3 + 1.0))  # exp(.) - log_domain_offset (1.0) = 3 frames
    model.save_pretrained(folder)
    return folder
