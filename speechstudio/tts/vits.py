"""VITS synthesis (PyTorch ``VitsModel``; Piper voices too, runtime ``onnx`` on CPU); loading:
:mod:`.family_vits`. Controls (Kim et al. 2021 sec. 2.5; Piper's ``inference``): ``noise_scale`` (0.667),
``noise_w`` (0.8), ``length_scale`` (> 1 slower), ``seed``. FP16 on CUDA, FP32 on CPU."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from speechstudio.tts.family import SynthesisSettings
from speechstudio.tts.voice_text import VoiceText, _SharedLoad


#: Longest audio one sentence may produce (s); a guard against runaway durations.
MAX_SENTENCE_AUDIO_S = 300.0


@dataclass
class VitsVoice(VoiceText):
    """A loaded VITS voice (fields, text -> ids and ``synthesize``: ``voice_text.VoiceText``; ``model`` built on
    first use by ``model_loader`` for runtime "onnx")."""

    runtime: str = "torch"  # "torch" (VitsModel) or "onnx" (Piper's graph in onnxruntime, CPU)
    runner: object = field(default=None, repr=False, compare=False)  # piper_onnx.OnnxPiperRunner
    model_loader: object = field(default=None, repr=False, compare=False)  # builds ``model`` on first use

    family = "vits"  # the voice family (``speechstudio.tts.family``)

    def __post_init__(self):
        if self.model is None and self.model_loader is not None:
            del self.__dict__["model"]  # ``__getattr__`` builds it on first use
            self.model_loader = _SharedLoad(self.model_loader)  # copies of the voice share one model

    def __getattr__(self, name: str):
        loader = self.__dict__.get("model_loader")
        if name == "model" and loader is not None:
            model = loader()
            self.__dict__["model"] = model
            return model
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def hop_length(self) -> int:
        """Audio samples per latent frame (product of the decoder's upsample rates)."""
        if self.runtime == "onnx":
            return self.runner.hop_length
        return int(np.prod(self.model.config.upsample_rates))

    @property
    def bucketed(self) -> bool:
        """True when sentences run through ``bucketed.synthesize_bucketed`` (CPU, optimized load)."""
        from speechstudio.tts.decoder import ChannelsLastDecoder

        return isinstance(getattr(self.model, "decoder", None), ChannelsLastDecoder)

    # ------------------------------------------------------------------ synthesis
    def _run_ids(self, ids: list[int], settings: SynthesisSettings) -> np.ndarray:
        """The model's own float32 ``(n_samples,)`` for one id sequence (a hop multiple); seeded on onnx: the
        PyTorch model."""
        sid = self.speaker_id(settings.speaker)
        noise_scale, noise_w, length_scale = (  # the settings', else the voice's defaults
            self.defaults[k] if getattr(settings, k) is None else float(getattr(settings, k))
            for k in ("noise_scale", "noise_w", "length_scale"))
        if self.runtime == "onnx" and settings.seed is None:
            return self.runner.run(ids, sid, noise_scale, length_scale, noise_w)
        import torch

        from speechstudio.tts.bucketed import synthesize_bucketed

        model = self.model
        x = torch.tensor([ids], dtype=torch.long, device=self.device)
        if self.bucketed:
            # Own RNG and noise controls as arguments: no shared state, so no lock (stream.py).
            generator = torch.Generator(device=self.device)
            if settings.seed is not None:
                generator.manual_seed(int(settings.seed) % 2**64)
            else:
                generator.seed()
            with torch.inference_mode():
                wav = synthesize_bucketed(model, x, sid, noise_scale, noise_w, length_scale, generator,
                                          max_frames=int(MAX_SENTENCE_AUDIO_S * self.sample_rate / self.hop_length))
            return wav.float().cpu().numpy().astype(np.float32, copy=False)
        # The plain VitsModel.forward (GPU, or a CPU voice loaded with optimize=False): its noise
        # controls live on the shared model and its noise comes from torch's global RNG, so one
        # sentence at a time (stream.stream_workers gives this path one worker).
        with _PLAIN_FORWARD_LOCK:
            model.noise_scale = noise_scale
            model.noise_scale_duration = noise_w
            if settings.seed is not None:
                torch.manual_seed(int(settings.seed) % 2**64)
            with torch.inference_mode():
                out = model(input_ids=x, speaker_id=sid, speaking_rate=1.0 / length_scale)
                wav = out.waveform[0, : int(out.sequence_lengths[0])]
        return wav.float().cpu().numpy().astype(np.float32, copy=False)


#: Serialises the plain ``VitsModel.forward`` path (shared noise attributes, torch's process-wide RNG).
_PLAIN_FORWARD_LOCK = threading.Lock()
