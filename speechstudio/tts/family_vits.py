"""The ``vits`` voice family: transformers ``VitsModel`` checkpoints (MMS-TTS, kakao-enterprise/vits-*)
and Piper voices (``NAME.onnx`` + ``NAME.onnx.json``, run by onnxruntime on the CPU or imported into
``VitsModel`` by ``piper_import``). The synthesis itself is :class:`speechstudio.tts.vits.VitsVoice`."""
from __future__ import annotations

from pathlib import Path

from speechstudio.errors import ModelNotFoundError, UsageError
from speechstudio.tts.family import VITS_CONTROLS, TtsCapabilities, TtsFamily, VoiceSource

__all__ = ["FAMILY", "VitsFamily"]


def _is_piper(source: VoiceSource) -> bool:
    p = source.path
    return p is not None and (p.suffix == ".onnx" or (p.is_dir() and source.config is None
                                                       and any(n.endswith(".onnx") for n in source.names)))


class VitsFamily(TtsFamily):
    def detect(self, source: VoiceSource) -> bool:
        return _is_piper(source) or source.model_type == "vits"

    def describe(self, ref) -> str:
        return ref.kind  # "piper" or "transformers": the two file formats of the family

    def load(self, source: VoiceSource, *, device: str, precision: str, name: str | None,
             local_files_only: bool = True, optimize: bool = True, engine: str = "auto"):
        if _is_piper(source):
            return _load_piper(source.path, device, precision, name, optimize, engine)
        return _load_transformers(source, device, precision, name, local_files_only, optimize)


def _load_piper(src: Path, device: str, precision: str, name: str | None, optimize: bool, engine: str):
    """A Piper voice: ``src`` is the ``.onnx`` file or a folder holding one (the first by name)."""
    from speechstudio.tts.piper_import import read_piper_config
    from speechstudio.tts.vits import VitsVoice, _clone_base, _clone_meta, _clone_pitch, _finish

    onnx_path = src if src.suffix == ".onnx" else sorted(src.glob("*.onnx"))[0]
    if engine == "onnx" and device != "cpu":
        raise UsageError("engine onnx runs on the CPU only; use engine torch for a GPU")
    if engine == "auto":
        from speechstudio.tts.piper_onnx import onnxruntime_available

        engine = "onnx" if device == "cpu" and optimize and onnxruntime_available() else "torch"

    def build():
        from speechstudio.tts.piper_import import load_piper_model

        return _finish(load_piper_model(onnx_path)[0], device, precision, optimize)

    piper = read_piper_config(onnx_path)
    clone = _clone_meta(onnx_path.parent, piper.config_path)
    runner = None
    if engine == "onnx":
        from speechstudio.tts.piper_onnx import OnnxPiperRunner

        runner = OnnxPiperRunner(piper.onnx_path)
    return VitsVoice(
        engine=engine, runner=runner, model_loader=build if engine == "onnx" else None,
        model=None if engine == "onnx" else build(),
        clone_of=_clone_base(clone), pitch_semitones=_clone_pitch(clone),
        name=name or onnx_path.stem, kind="piper", sample_rate=piper.sample_rate,
        num_speakers=piper.num_speakers, speakers=dict(piper.speaker_id_map),
        language=(piper.language or piper.espeak_voice).lower().replace("_", "-"), piper=piper,
        device=device, dtype=precision,
        defaults={"noise_scale": piper.noise_scale, "noise_w": piper.noise_w, "length_scale": piper.length_scale},
    )


def _load_transformers(source: VoiceSource, device: str, precision: str, name: str | None,
                       local_files_only: bool, optimize: bool):
    """A transformers ``VitsModel`` checkpoint (folder or Hugging Face id in the HF cache)."""
    from transformers import AutoConfig, VitsModel, VitsTokenizer

    from speechstudio.tts.checkpoint import load_folded_checkpoint, needs_plain_load
    from speechstudio.tts.piper_import import fold_weight_norm
    from speechstudio.tts.vits import VitsVoice, _clone_base, _clone_meta, _clone_pitch, _finish

    spec, src = source.spec, source.path
    try:
        config = AutoConfig.from_pretrained(spec, local_files_only=local_files_only)
        if src is not None and src.is_dir() and needs_plain_load(src, config):
            model = load_folded_checkpoint(src, config)
        else:
            model = VitsModel.from_pretrained(spec, local_files_only=local_files_only)
        tokenizer = VitsTokenizer.from_pretrained(spec, local_files_only=local_files_only)
    except (OSError, ValueError) as exc:
        raise ModelNotFoundError(f"{spec}: VITS checkpoint incomplete ({str(exc).splitlines()[0][:120]})") from exc
    fold_weight_norm(model)
    _finish(model, device, precision, optimize)
    lang = getattr(tokenizer, "language", None) or "en"
    speakers = dict(getattr(config, "speaker_id_map", None) or {})
    clone = _clone_meta(src) if src is not None and src.is_dir() else {}
    return VitsVoice(
        clone_of=_clone_base(clone), pitch_semitones=_clone_pitch(clone),
        name=name or spec, kind="transformers", model=model, sample_rate=int(config.sampling_rate),
        num_speakers=int(config.num_speakers), speakers=speakers,
        language={"eng": "en"}.get(lang, lang), tokenizer=tokenizer, device=device, dtype=precision,
        defaults={"noise_scale": float(config.noise_scale), "noise_w": float(config.noise_scale_duration),
                  "length_scale": 1.0 / float(config.speaking_rate)},
    )


FAMILY = VitsFamily("vits", "VITS", TtsCapabilities(languages=("multi",), speakers=True, trainable=True,
                                                             controls=VITS_CONTROLS))
