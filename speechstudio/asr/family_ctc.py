"""The CTC family (``wav2vec2``): transformers ``*ForCTC`` checkpoints of raw-waveform models (Wav2Vec2,
HuBERT, Data2Vec-Audio, WavLM, UniSpeech, SEW...), run by ``Wav2Vec2Recognizer``, streamed by
``StreamingRecognizer``. Bases without a CTC head and filter-bank models are refused with the reason."""
from __future__ import annotations

from speechstudio.asr.ctc_checkpoint import FAMILY_NAMES
from speechstudio.asr.family import AsrCapabilities, AsrFamily, ModelFolder, OptionCheck
from speechstudio.asr.streaming import StreamConfig, StreamingRecognizer
from speechstudio.asr.wav2vec2 import DEFAULT_CHUNK_S, Wav2Vec2Recognizer
from speechstudio.asr.whisper_stream import AgreementConfig
from speechstudio.errors import ModelNotFoundError, UsageError

#: transformers ``model_type`` values whose ``*ForCTC`` heads our CTC recogniser can run: the
#: raw-waveform models with a conv feature encoder in transformers' ``MODEL_FOR_CTC_MAPPING_NAMES``
#: (kept in step with it by tests/test_ctc_families.py).
WAV2VEC2_MODEL_TYPES = frozenset(FAMILY_NAMES)

_FILTERBANK = "reads filter-bank features, not the raw waveform the CTC engine feeds"

#: Other ``AutoModelForCTC`` model types (``_`` written as ``-``) and why the CTC recogniser cannot run them.
OTHER_CTC_MODEL_TYPES = {
    "wav2vec2-bert": _FILTERBANK,
    "mctct": _FILTERBANK,
    "parakeet-ctc": _FILTERBANK,
    "lasr-ctc": _FILTERBANK,
    "granite-speech5-ctc": _FILTERBANK,
    "omniasr-ctc": "keeps its encoder settings in audio_config, which the CTC engine does not read",
}


class CtcFamily(AsrFamily):
    def detect(self, folder: ModelFolder) -> bool:
        config, p = folder.config, folder.path
        if config is None:
            return False
        model_type = str(config.get("model_type", "")).lower().replace("_", "-")
        architectures = config.get("architectures") or []
        if not isinstance(architectures, list):
            architectures = []
        has_ctc_head = any(isinstance(a, str) and a.endswith("ForCTC") for a in architectures)
        if model_type in OTHER_CTC_MODEL_TYPES:
            raise ModelNotFoundError(f"{p} is a {model_type} CTC model that {OTHER_CTC_MODEL_TYPES[model_type]}; "
                                     "SpeechStudio's CTC engine runs Wav2Vec2, HuBERT, Data2Vec-Audio, "
                                     "Wav2Vec2-Conformer, WavLM, UniSpeech or SEW checkpoints")
        if model_type in WAV2VEC2_MODEL_TYPES and architectures and not has_ctc_head:
            raise ModelNotFoundError(f"{p} is a {model_type} checkpoint without a CTC head (architectures "
                                     f"{architectures}); a pre-trained base must be fine-tuned for CTC before it can "
                                     "transcribe")
        if not (model_type in WAV2VEC2_MODEL_TYPES or has_ctc_head):
            return False
        if not any(n.endswith(".safetensors") or n == "model.safetensors.index.json" or (
                n.startswith("pytorch_model") and n.endswith((".bin", ".bin.index.json"))) for n in folder.names):
            raise ModelNotFoundError(f"{p} has a {model_type or 'CTC'} config.json but no weights "
                                     "(model.safetensors or pytorch_model.bin)")
        return True

    def load(self, path, model_id, *, device="auto", precision="auto", batch_size=None, chunk_s=None, stride_s=None,
             vocabulary="auto", workers=1):
        return Wav2Vec2Recognizer(path, model_id, device=device, precision=precision,
                                  chunk_s=chunk_s or DEFAULT_CHUNK_S, stride_s=stride_s, batch_size=batch_size,
                                  vocabulary=vocabulary)

    def describe(self, recognizer) -> tuple[str, str]:
        note = ""
        if recognizer.lexicon is not None:
            note = f"decoding with its {recognizer.lexicon.size}-word vocabulary (--no-vocabulary: greedy)"
        return f"{recognizer.family_name} CTC", note

    def check_options(self, recognizer, options: OptionCheck) -> list[str]:
        notes = super().check_options(recognizer, options)
        if options.language:
            notes.append(f"--language is ignored by {recognizer.model_id}: a CTC model has one fixed vocabulary")
        return notes

    def open_stream(self, recognizer, config=None, *, input_rate=None, language=None, task="transcribe",
                    hotwords=None, beam_size=None, backlog_s=None):
        super().check_options(recognizer, OptionCheck(task=task, hotwords=hotwords))
        if isinstance(config, AgreementConfig):
            config = StreamConfig(endpoint_s=config.endpoint_s, threshold_db=config.threshold_db,
                                  min_speech_s=config.min_speech_s, preroll_s=config.preroll_s)
        return StreamingRecognizer(recognizer, config, input_rate=input_rate)


def check_window(chunk: float, stride: float) -> None:
    """Refuse a CTC window the recogniser cannot run: ``chunk`` and ``stride`` in seconds. Raises ``UsageError``."""
    if chunk < 1.0:
        raise UsageError(f"--chunk-s {chunk:g} is too short: Wav2Vec2 windows need at least 1 s")
    if chunk > 600:
        raise UsageError(f"--chunk-s {chunk:g} is too long: at most 600 s per window")
    if stride < 0:
        raise UsageError(f"--stride-s {stride:g}: must be 0 or more")
    if 2 * stride >= chunk:
        raise UsageError(f"--stride-s {stride:g} is too long for --chunk-s {chunk:g} (need 2 x stride < chunk)")


FAMILY = CtcFamily("wav2vec2", "Wav2Vec2-family CTC", AsrCapabilities(streaming="windows", trainable=True))
