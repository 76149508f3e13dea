"""The Whisper family (``whisper``): CTranslate2 Whisper folders run by faster-whisper, streamed with
LocalAgreement-2 (Macháček et al. 2023); 99 languages, translation, prompts and hotwords."""
from __future__ import annotations

from speechstudio.asr.family import AsrCapabilities, AsrFamily, ModelFolder, OptionCheck
from speechstudio.asr.languages import LANGUAGES
from speechstudio.asr.stream_geometry import StreamConfig
from speechstudio.asr.whisper import WhisperRecognizer
from speechstudio.asr.whisper_stream import AgreementConfig, LocalAgreementRecognizer, WhisperHypotheses
from speechstudio.errors import ModelNotFoundError, UsageError

_CT2_TOKENIZER_FILES = ("config.json", "vocabulary.txt", "vocabulary.json", "tokenizer.json")


class WhisperFamily(AsrFamily):
    def detect(self, folder: ModelFolder) -> bool:
        if "model.bin" not in folder.names:
            return False
        if any(n in folder.names for n in _CT2_TOKENIZER_FILES):
            return True
        raise ModelNotFoundError(f"{folder.path} has model.bin but no config.json, vocabulary.txt or tokenizer.json; "
                                 "it is not a complete CTranslate2 Whisper model")

    def load(self, path, model_id, *, device="auto", precision="auto", batch_size=None, chunk_s=None, stride_s=None,
             vocabulary="auto", workers=1):
        return WhisperRecognizer(path, model_id, device=device, precision=precision, workers=workers)

    def english_only(self, recognizer) -> bool:
        return not getattr(recognizer, "multilingual", True)

    def check_options(self, recognizer, options: OptionCheck) -> list[str]:
        if options.language is not None and options.language not in LANGUAGES:
            raise UsageError(f"--language {options.language}: not a Whisper language code (e.g. en, de, fr, ja)")
        notes = super().check_options(recognizer, options)
        if options.chunk_s is not None or options.stride_s is not None:
            notes.append("--chunk-s/--stride-s apply to Wav2Vec2 models only")
        return notes

    def open_stream(self, recognizer, config=None, *, input_rate=None, language=None, task="transcribe",
                    hotwords=None, beam_size=None, backlog_s=None):
        if isinstance(config, StreamConfig):
            config = AgreementConfig.from_stream_config(config)
        decoder = WhisperHypotheses(recognizer, language=language, task=task, beam_size=beam_size, hotwords=hotwords)
        return LocalAgreementRecognizer(decoder, config, input_rate=input_rate, backlog_s=backlog_s)


FAMILY = WhisperFamily("whisper", "Whisper",
                       AsrCapabilities(translate=True, prompt=True, casing=True, streaming="agreement"))
