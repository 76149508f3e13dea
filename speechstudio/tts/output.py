"""Where synthesized speech goes: ``write_speech`` encodes a ``SpeechChunk`` stream into any
``audio.encode`` format, atomically and tagged as synthetic; ``write_raw`` writes s16le mono PCM at the
voice's rate, flushed per sentence (Piper's ``--output-raw``)."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from speechstudio.atomic import atomic_path, write_error
from speechstudio.audio.encode import AudioEncoder, check_output_suffix, encoder_errors, float_to_pcm16
from speechstudio.errors import UsageError
from speechstudio.tts.frontend.text import EmptyTextError
from speechstudio.tts.stream import SynthesisOSError, speech_tags, synthesis_errors_apart


def write_speech(chunks: Iterable, out_path: str | os.PathLike, on_chunk: Callable | None = None,
                 tags: dict[str, str] | None = None, *, overwrite: bool = True,
                 mkdir: bool = False) -> tuple[float, int]:
    """Encode ``SpeechChunk``s into ``out_path`` (format by suffix) atomically; the first chunk sets the
    rate and ``speech_tags`` (updated with ``tags``); ``on_chunk`` after each. Returns ``(seconds,
    chunks)``. Raises ``UsageError``, ``EmptyTextError``, synthesis errors; the target is untouched."""
    out_path = Path(out_path)
    check_output_suffix(out_path)
    suffix = out_path.suffix.lower()
    folder = out_path.parent if str(out_path.parent) else Path(".")
    if not mkdir and not folder.is_dir():
        raise UsageError(f"{out_path}: output folder {folder} does not exist")
    encoder = None
    n = samples = 0
    try:
        with atomic_path(out_path, overwrite=overwrite, mkdir=mkdir) as tmp:
            try:
                for chunk in synthesis_errors_apart(chunks):
                    if encoder is None:
                        encoder = AudioEncoder(tmp, chunk.sample_rate,
                                               {**speech_tags(chunk.voice, chunk.clone_of), **(tags or {})},
                                               suffix=suffix)
                    encoder.write(chunk.audio)
                    n, samples = n + 1, samples + len(chunk.audio)
                    if on_chunk is not None:
                        on_chunk(chunk)
                if not samples:             # no sentence, or none the voice could say: no empty file
                    raise EmptyTextError(f"{out_path.name}: nothing was synthesized")
                encoder.close()
            except BaseException:
                if encoder is not None:
                    encoder.abort()
                raise
    except SynthesisOSError as e:  # an OSError of the synthesis itself is not a write error
        raise e.__cause__ from None
    except encoder_errors() as e:  # disk full, folder gone, read-only: one line, exit 2
        raise write_error(out_path, e) from None
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()  # a stopped write: cancel the sentences ahead, wait for those running
    return encoder.duration_s, n


def write_raw(chunks: Iterable, out: BinaryIO, on_chunk: Callable | None = None) -> tuple[float, int]:
    """Write ``SpeechChunk``s to ``out`` as raw s16le mono PCM, flushed per sentence; returns ``(seconds,
    chunks)``. ``BrokenPipeError`` (the player quit) is left to the caller."""
    samples, n, rate = 0, 0, 0
    for n, chunk in enumerate(chunks, 1):
        out.write(float_to_pcm16(chunk.audio).tobytes())
        out.flush()
        samples += len(chunk.audio)
        rate = chunk.sample_rate
        if on_chunk is not None:
            on_chunk(chunk)
    return (samples / rate if rate else 0.0), n
