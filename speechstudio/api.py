"""The library API, shaped like faster-whisper's ``transcribe``: ``segments, info =
speechstudio.transcribe("talk.mp3")``; ``speechstudio.synthesize(text, voice=...)`` yields a
``SpeechChunk`` per sentence. One recogniser and one voice are kept between calls."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Iterator

import numpy as np
import soxr

from speechstudio.asr.stream_geometry import to_mono_float32
from speechstudio.asr.types import Segment, TranscriptInfo
from speechstudio.audio.decode import AudioReader
from speechstudio.batch.cluster import transcribe_on
from speechstudio.batch.request import TranscriptionRequest
from speechstudio.batch.run import InputItem, finished_info, transcribe_whole
from speechstudio.errors import UsageError

_lock = threading.Lock()
_recognizer: tuple[tuple, object] | None = None
_voice: tuple[tuple, object] | None = None


def load(model: str | None = None, *, language: str | None = "auto", device: str = "auto",
         precision: str = "auto", allow_download: bool = True):
    """The recogniser ``transcribe`` uses for these settings (loaded once, reused; see
    :func:`speechstudio.asr.load.load_recognizer`)."""
    return _load(TranscriptionRequest.build(model=model, language=language, device=device, precision=precision,
                                            allow_download=allow_download))


def _load(request):
    """The recogniser for ``request``, kept while later requests pick the same one."""
    global _recognizer
    with _lock:
        if _recognizer is not None and _recognizer[0] == request.model_key():
            return _recognizer[1]
        _recognizer = None
        recognizer, _message = request.load()
        _recognizer = (request.model_key(), recognizer)
        return recognizer


def transcribe(audio: str | os.PathLike | np.ndarray, *, model: str | None = None, language: str | None = "auto",
               task: str = "transcribe", device: str = "auto", precision: str = "auto",
               initial_prompt: str | None = None, hotwords: str | None = None, sample_rate: int = 16000,
               allow_download: bool = True, speakers: str | int | None = None, channels: str | None = None,
               audio_track: int | str | None = None, cluster: str | None = None
               ) -> tuple[Iterator[Segment], TranscriptInfo]:
    """Transcribe a file or an array; returns ``(segments, info)``: what ``speechstudio transcribe``
    writes for the file (the same :class:`~speechstudio.batch.request.TranscriptionRequest`).

    Args:
        audio: a path FFmpeg reads (decoded to 16 kHz mono in blocks), or ``np.ndarray[float32]``
            (n_samples,) at ``sample_rate`` Hz in [-1, 1] ((n, channels) is averaged; integer PCM such as
            int16 is scaled to [-1, 1]).
        model: installed name, Hugging Face id or folder; ``None``: chosen by language.
        language: ``"auto"`` (default), a code or a name. task: ``"transcribe"`` | ``"translate"``.
        device / precision: ``auto|cpu|cuda|cuda:N`` / ``auto|fp32|fp16|bf16``.
        initial_prompt / hotwords: words the decoder should prefer (Whisper).
        speakers: ``None``, ``"auto"``, a number or ``"2-4"``: segments and words get a ``speaker``;
            ``info`` carries ``speakers``, ``speaker_turns``.
        channels: ``"mix"`` | ``"split"`` | ``"auto"`` (``None``: ``auto`` with speakers, else ``mix``);
            audio_track: which track of a file with several. Files only.
        cluster: ``"ray"`` (a local Ray) or ``"ray://HOST:PORT"``: the file is transcribed by a Ray
            worker that stays loaded for the next call (:mod:`speechstudio.batch.cluster`; many files:
            its ``RayPool.run``). Files only.

    Returns:
        an iterator of :class:`~speechstudio.asr.types.Segment` (seconds) and a
            :class:`~speechstudio.asr.types.TranscriptInfo`. A file with speakers or channels split is
            transcribed within the call; otherwise segments come as they are decoded and
            ``info.duration_s`` is the container's duration.

    Raises:
        AudioDecodeError, ModelNotFoundError, OfflineError, UsageError."""
    request = TranscriptionRequest.build(model=model, language=language, task=task, device=device,
                                         precision=precision, initial_prompt=initial_prompt, hotwords=hotwords,
                                         allow_download=allow_download, speakers=speakers, channels=channels,
                                         audio_track=audio_track)
    if cluster is not None:
        if isinstance(audio, np.ndarray):
            raise UsageError("cluster: give a file path (arrays are transcribed here)")
        return transcribe_on(cluster, audio, request)
    recognizer = _load(request)
    request.check(recognizer)
    labeller = request.speakers.labeller() if request.speakers is not None else None
    if isinstance(audio, np.ndarray):
        samples = _mono(audio, sample_rate, recognizer.sample_rate)
        segments, info = recognizer.transcribe(samples, **request.decode_options())
        if labeller is None:
            return segments, info
        session = labeller.start()
        session.push(samples)
        segments, info = session.finish().apply(list(segments), info)
        return iter(segments), info
    item = InputItem(Path(audio))
    if labeller is not None or request.channels != "mix":
        done = transcribe_whole(item, recognizer, request, labeller)
        return iter(done.segments), done.info
    reader = AudioReader(item.path, recognizer.sample_rate, track=request.audio_track)
    segments, info = recognizer.transcribe(reader.blocks(), duration_s=reader.info.duration_s,
                                           **request.decode_options())
    known = reader.info.duration_s
    return segments, finished_info(info, reader.info, info.duration_s if known is None else known)


def _mono(audio: np.ndarray, rate: int, target: int) -> np.ndarray:
    """``audio`` as float32 mono at ``target`` Hz (channels averaged, soxr resampling); integer PCM scaled to
    [-1, 1] as soundfile reads it (int16 / 32768; uint8 centred on 128). Raises ``UsageError``."""
    audio = np.asarray(audio)
    if audio.dtype.kind not in "iuf":
        raise UsageError(f"audio: an array of {audio.dtype} samples; give float32 in [-1, 1] or integer PCM")
    if audio.ndim not in (1, 2):
        raise UsageError(f"audio must have shape (n_samples,) or (n_samples, channels), got {audio.shape}")
    x = to_mono_float32(audio)
    if int(rate) != int(target):
        x = soxr.resample(x, int(rate), int(target)).astype(np.float32)
    return x


def synthesize(text: str, *, voice: str | None = None, speaker: int | str | None = None,
               length_scale: float | None = None, noise_scale: float | None = None, noise_w: float | None = None,
               seed: int | None = None, device: str = "auto", allow_download: bool = True,
               pitch: float | None = None):
    """Speak ``text``: one :class:`~speechstudio.tts.stream.SpeechChunk` per sentence (float32
    ``(n_samples,)`` at ``sample_rate`` Hz). ``voice``: name, ``.onnx``, folder or HF id (None: default);
    VITS controls and ``pitch`` in semitones. Raises ``ModelNotFoundError``, ``UsageError``, ``EmptyTextError``."""
    global _voice
    # speech synthesis loads on the first synthesize(): a transcribe-only program never imports it
    from speechstudio.tts.stream import stream_speech
    from speechstudio.tts.family import SynthesisSettings, check_settings
    from speechstudio.tts.voices import load_named

    settings = SynthesisSettings(speaker=speaker, noise_scale=noise_scale, noise_w=noise_w,
                                 length_scale=length_scale, seed=seed, pitch=pitch)
    check_settings(settings)
    key = (voice or None, device)
    with _lock:
        if _voice is None or _voice[0] != key:
            _voice = None
            _voice = (key, load_named(voice, device, allow_download=allow_download)[1])
        loaded = _voice[1]
    return stream_speech(loaded, text, settings,  # SSML <voice name="...">: another installed voice
                         voice_loader=lambda name: load_named(name, device, allow_download=allow_download)[1])
