"""Shared set-up of the latent experiments: joe's decoder (frozen) and (latents, joe +N semitones)
pairs of the first prompts of the recording script."""
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import clone_check as cc  # noqa: E402


def joe_pairs(count: int, semitones: float = 4.0):
    """(model, fc, pairs): joe's ``VitsModel`` with every parameter frozen, its ``FeatureConfig``,
    and for prompts 0..count-1 (seed = index) the latents (1, 192, frames) joe's decoder got and
    joe's audio pitch-shifted by ``semitones`` (librosa ``effects.pitch_shift``, float32 tensor,
    22050 Hz)."""
    import librosa

    from speechstudio.finetune.prompts import load_prompts
    from speechstudio.finetune.vits.features import FeatureConfig
    from speechstudio.finetune.vits.trainer import _load_base
    from speechstudio.tts.vits import load_voice

    torch.set_num_threads(2)
    prompts = [p for p in load_prompts() if len(p.split()) >= 5]
    voice = load_voice(cc.joe_onnx(), device="cpu", precision="fp32", optimize=False)
    model = _load_base(str(cc.joe_onnx())).model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    model.noise_scale, model.noise_scale_duration = 0.667, 0.8
    cap = []
    hook = model.decoder.register_forward_hook(lambda m, i, o: cap.append((i[0].detach(), o.detach())))
    pairs = []
    with torch.no_grad():
        for i, text in enumerate(prompts[:count]):
            torch.manual_seed(i)
            model(input_ids=torch.tensor([voice.text_to_ids(text)]))
            z, wav = cap.pop()
            tgt = librosa.effects.pitch_shift(wav.squeeze().numpy(), sr=cc.SR, n_steps=semitones).astype(np.float32)
            pairs.append((z, torch.from_numpy(tgt)))
    hook.remove()
    return model, FeatureConfig.for_model(model.config), pairs
