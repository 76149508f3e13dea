"""One transcription request: what the CLI, the GUI's worker and ``speechstudio.transcribe`` ask for,
built once (:meth:`TranscriptionRequest.build`), checked once against the recogniser's family
(:meth:`~TranscriptionRequest.check`, the registry's option check) and handed to
:func:`speechstudio.batch.run.run_batch`."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from speechstudio.asr import family
from speechstudio.asr.family_ctc import check_window
from speechstudio.asr.languages import normalize_language
from speechstudio.asr.wav2vec2 import DEFAULT_CHUNK_S, DEFAULT_STRIDE_S
from speechstudio.audio.raw import RawFormat
from speechstudio.batch.channels import MODES as CHANNEL_MODES
from speechstudio.batch.subtitles import SubtitleOptions
from speechstudio.diarize.family import get as diarizer_family
from speechstudio.diarize.speakers import DiarizeOptions, parse_speakers
from speechstudio.errors import UsageError


@dataclass(frozen=True)
class TranscriptionRequest:
    """How to transcribe (the inputs travel beside it).

    ``model`` (name, Hugging Face id or folder; ``None``: chosen by language), ``device``,
    ``precision``; ``language`` (ISO code, ``None``: detect), ``task``, ``initial_prompt``,
    ``hotwords``; ``speakers`` (``None``: no labels); ``channels`` (``mix`` | ``split`` | ``auto``,
    :mod:`speechstudio.batch.channels`); ``audio_track`` (1-based number or language code, ``None``:
    the default track); ``formats``, ``output_dir`` (``None``: next to each input), ``overwrite``,
    ``subtitles`` (cue layout), ``raw`` (layout of headerless inputs); the CTC window
    ``chunk_s`` / ``stride_s`` (seconds), ``batch_size``, ``vocabulary`` (``auto`` | ``off``);
    ``allow_download``."""

    model: str | None = None
    device: str = "auto"
    precision: str = "auto"
    language: str | None = None
    task: str = "transcribe"
    initial_prompt: str | None = None
    hotwords: str | None = None
    speakers: DiarizeOptions | None = None
    channels: str = "mix"
    audio_track: int | str | None = None
    formats: tuple[str, ...] = ("txt",)
    output_dir: str | None = None
    overwrite: bool = False
    subtitles: SubtitleOptions | None = None
    raw: RawFormat | None = None
    batch_size: int | None = None
    chunk_s: float | None = None
    stride_s: float | None = None
    vocabulary: str = "auto"
    allow_download: bool = True

    @classmethod
    def build(cls, *, language: str | None = "auto", speakers: str | int | None = None, diarizer: str | None = None,
              known_voices: bool = True, channels: str | None = None, hotwords: str | None = None,
              initial_prompt: str | None = None, **fields) -> TranscriptionRequest:
        """A request from what a user gave: ``language`` a code, a name or ``auto``; ``speakers``
        ``auto`` / ``N`` / ``MIN-MAX`` / ``None``; ``channels`` ``None``: ``auto`` with speakers, else
        ``mix``; empty ``hotwords`` / ``initial_prompt`` are none. Raises ``UsageError`` (an unknown
        language, speaker count or channel mode, a diarizer that cannot run here, a CTC window that
        cannot run) before any model loads."""
        count = parse_speakers(None if speakers is None else str(speakers))
        if count is None and diarizer:
            raise UsageError("--diarizer needs --speakers (auto, N or MIN-MAX)")
        if count is not None:
            diarizer_family(diarizer)   # UsageError with the reason when it cannot run here
        mode = channels or ("auto" if count is not None else "mix")
        if mode not in CHANNEL_MODES:
            raise UsageError(f"--channels {mode}: expected one of {', '.join(CHANNEL_MODES)}")
        request = cls(language=normalize_language(language), channels=mode,
                      speakers=DiarizeOptions(count, diarizer, known_voices) if count is not None else None,
                      hotwords=(hotwords or "").strip() or None, initial_prompt=(initial_prompt or "").strip() or None,
                      **fields)
        if request.chunk_s is not None or request.stride_s is not None:
            check_window(request.chunk_s or DEFAULT_CHUNK_S,
                         DEFAULT_STRIDE_S if request.stride_s is None else request.stride_s)
        return request

    def replace(self, **changes) -> TranscriptionRequest:
        """A copy with ``changes`` (e.g. another ``output_dir``)."""
        return dataclasses.replace(self, **changes)

    def load(self, *, progress: bool = False, workers: int = 1):
        """``(recognizer, message)``: :func:`speechstudio.asr.load.load_recognizer` for this request;
        ``workers``: inputs the recogniser may decode at once (:func:`speechstudio.batch.run.batch_workers`)."""
        from speechstudio.asr.load import load_recognizer  # engines load with the first file, not the window

        return load_recognizer(self.model, language=self.language, device=self.device, precision=self.precision,
                               batch_size=self.batch_size, chunk_s=self.chunk_s, stride_s=self.stride_s,
                               allow_download=self.allow_download, progress=progress, vocabulary=self.vocabulary,
                               workers=workers)

    def model_key(self) -> tuple:
        """What picks the recogniser (model, device, precision, language mode): equal keys, same one."""
        mode = "auto" if self.language is None else ("en" if self.language == "en" else "other")
        return (self.model or None, self.device, self.precision, mode)

    def check(self, recognizer) -> list[str]:
        """The registry's option check (:func:`speechstudio.asr.family.check_options`) for the loaded
        ``recognizer``: one-line notes on ignored options. Raises ``UsageError`` naming the option."""
        return family.check_options(recognizer, family.OptionCheck(
            language=self.language, task=self.task, hotwords=self.hotwords, initial_prompt=self.initial_prompt,
            chunk_s=self.chunk_s, stride_s=self.stride_s))

    def decode_options(self) -> dict:
        """The keyword arguments of ``Recognizer.transcribe``."""
        return dict(language=self.language, task=self.task, initial_prompt=self.initial_prompt,
                    hotwords=self.hotwords)
