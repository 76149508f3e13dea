"""Sentence-by-sentence synthesis as a generator (``stream_speech``; on the bucketed CPU path later sentences run
ahead on a thread pool, same output; files: ``tts.output.write_speech``). Figures: docs/tts.md, "Long texts"."""
from __future__ import annotations

import copy
import dataclasses
import itertools
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor, wait as wait_futures
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import numpy as np

import speechstudio
from speechstudio.asr.device import cpu_cores
from speechstudio.errors import UsageError
from speechstudio.tts.family import CONTROL_RANGES
from speechstudio.tts.ssml import SpeechPart, speech_parts
from speechstudio.tts.frontend.text import EmptyTextError
from speechstudio.tts.vits import SynthesisSettings, VitsVoice


@dataclass(frozen=True)
class SpeechChunk:
    """One synthesized sentence: ``audio`` float32 ``(n_samples,)`` at ``sample_rate`` Hz in [-1, 1] with
    its trailing ``pause_s``; ``index``, ``chars_done``, ``warnings``, ``voice`` / ``clone_of`` (tags)."""

    index: int
    text: str
    audio: np.ndarray
    sample_rate: int
    chars_done: int
    warnings: tuple[str, ...] = ()
    voice: str = ""
    clone_of: str | None = None
    pause_s: float = 0.0  # seconds of silence at the end of ``audio`` (sentence pause or SSML <break>)

    @property
    def duration_s(self) -> float:
        return len(self.audio) / self.sample_rate


#: Most sentence workers ``stream_speech`` uses on its own (``workers=None``).
MAX_AUTO_WORKERS = 4


def stream_workers(voice: VitsVoice, workers: int | None = None) -> tuple[int, int]:
    """``(sentence workers, intra-op threads each)`` for ``stream_speech``: bucketed CPU one per torch thread
    (at most ``MAX_AUTO_WORKERS``), onnx one single-threaded session per CPU, else 1."""
    if getattr(voice, "runtime", "torch") == "onnx":
        threads = cpu_cores()
        workers = min(threads, MAX_AUTO_WORKERS) if workers is None else max(1, int(workers))
        return workers, 1 if workers > 1 else threads
    import torch

    threads = max(1, torch.get_num_threads())
    if workers is None:
        parallel = str(voice.device).startswith("cpu") and getattr(voice, "bucketed", False)
        workers = min(threads, MAX_AUTO_WORKERS) if parallel else 1
    workers = max(1, int(workers))
    return workers, max(1, threads // workers)


_POOLS: dict[tuple[int, int, bool], ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _pool(workers: int, intra: int, torch_threads: bool = True) -> ThreadPoolExecutor:
    """A shared pool of ``workers`` threads, each set to ``intra`` torch intra-op threads
    (``torch_threads=False``: plain threads, torch not imported; for the onnx runtime)."""
    key = (workers, intra, torch_threads)
    with _POOLS_LOCK:
        if key in _POOLS:
            return _POOLS[key]
        pool = ThreadPoolExecutor(workers, thread_name_prefix="speechstudio-tts")
        if torch_threads:
            import torch

            main_threads = torch.get_num_threads()
            barrier = threading.Barrier(workers)

            def setup():
                torch.get_num_threads()  # torch's lazy per-thread init first, so it won't undo the next line
                torch.set_num_threads(intra)  # this thread's OpenMP / MKL thread count
                barrier.wait(timeout=60)  # one setup per thread

            for f in [pool.submit(setup) for _ in range(workers)]:
                f.result()
            torch.set_num_threads(main_threads)  # set_num_threads also changed the process-wide default
        _POOLS[key] = pool
        return pool


def _synthesize_job(voice: VitsVoice, sentence: str, settings: SynthesisSettings):
    """Worker: one sentence -> ``(audio, warnings)``; a shallow copy keeps warnings per sentence."""
    own = copy.copy(voice)  # same model; own warnings list
    own.warnings = []
    if getattr(own, "runtime", "torch") == "onnx":
        own.runner = voice.runner.single_threaded()  # one sentence per worker, one thread each
    audio = own.synthesize(sentence, settings) if sentence else np.zeros(0, dtype=np.float32)
    return audio, tuple(own.warnings)


class _PartVoices:
    """Voice and settings for each ``SpeechPart``: SSML ``<voice name>`` (a speaker of the main voice,
    or another voice through ``voice_loader``, loaded once) and ``<prosody rate>`` (length_scale)."""

    def __init__(self, voice: VitsVoice, settings: SynthesisSettings, voice_loader):
        self.voice, self.settings, self.loader = voice, settings, voice_loader
        self.loaded: dict[str, VitsVoice] = {}

    def __call__(self, part: SpeechPart) -> tuple[VitsVoice, SynthesisSettings]:
        voice, settings = self.voice, self.settings
        if part.voice:
            if part.voice in voice.speakers:
                settings = dataclasses.replace(settings, speaker=part.voice)
            elif part.voice != voice.name:
                if part.voice not in self.loaded:
                    if self.loader is None:
                        raise UsageError(f"SSML <voice name={part.voice!r}>: voice {voice.name} has no such "
                                         f"speaker and no other voices can be loaded here")
                    self.loaded[part.voice] = self.loader(part.voice)
                voice = self.loaded[part.voice]
                settings = dataclasses.replace(settings, speaker=None)
        if part.length_scale != 1.0:
            base = settings.length_scale if settings.length_scale is not None else voice.defaults["length_scale"]
            high = CONTROL_RANGES["length_scale"][1]
            settings = dataclasses.replace(settings, length_scale=min(max(base * part.length_scale, 0.05), high))
        return voice, settings


def _chunk(index: int, part: SpeechPart, voice: VitsVoice, audio: np.ndarray, rate: int, chars_done: int,
           warnings: tuple[str, ...]) -> SpeechChunk:
    """The chunk of one part: audio from another ``<voice>`` resampled to the stream's rate (soxr), its pause
    appended."""
    if voice.sample_rate != rate and len(audio):
        import soxr

        audio = soxr.resample(audio, voice.sample_rate, rate).astype(np.float32)
    n = int(round(part.pause_s * rate))
    audio = np.concatenate([audio, np.zeros(n, dtype=np.float32)]) if n else audio
    return SpeechChunk(index, part.text, audio, rate, chars_done, part.warnings + warnings, voice.name, voice.clone_of,
                       part.pause_s)


def stream_speech(
    voice: VitsVoice,
    text: str | Iterable[str],
    settings: SynthesisSettings = SynthesisSettings(),
    workers: int | None = None,
    ssml: bool | None = None,
    voice_loader: Callable[[str], VitsVoice] | None = None,
) -> Iterator[SpeechChunk]:
    """Synthesize ``text`` (string or lines) lazily, one ``SpeechChunk`` per sentence in order. ``ssml``
    None: text starting with ``<speak>`` is SSML (``voice_loader`` for ``<voice name>``); ``workers``
    ahead after the first, same output for any count; closing cancels. Raises ``EmptyTextError``,
    ``UnknownSpeakerError``, ``UnsayableTextError``, ``SsmlError``."""
    voice.speaker_id(settings.speaker)  # fail fast on an unknown speaker
    lang = (voice.language or "en").split("-")[0]
    parts = speech_parts(text, lang, ssml=ssml)
    rate = voice.sample_rate
    resolve = _PartVoices(voice, settings, voice_loader)
    done = 0
    index = 0
    current = next(parts, None)
    if current is None:
        raise EmptyTextError("text is empty or has nothing a voice can say")
    n_workers, intra = stream_workers(voice, workers)
    if n_workers > 1 and getattr(voice, "runtime", "torch") == "onnx":
        following = next(parts, None)
        if following is not None:  # more than one sentence: open the workers' session meanwhile
            voice.runner.single_threaded()
            parts = itertools.chain([following], parts)
    while current is not None:
        part_voice, part_settings = resolve(current)
        part_voice.warnings.clear()
        audio = (part_voice.synthesize(current.text, part_settings) if current.text
                 else np.zeros(0, dtype=np.float32))
        done += len(current.text) + 1
        yield _chunk(index, current, part_voice, audio, rate, done, tuple(part_voice.warnings))
        index += 1
        current = next(parts, None)
        if n_workers > 1:
            break
    if current is None:
        return
    # The rest: synthesized ahead on the pool, yielded in order.
    pool = _pool(n_workers, intra, torch_threads=getattr(voice, "runtime", "torch") != "onnx")
    pending: deque = deque()  # (index, part, part voice, chars_done, future)
    try:
        while current is not None or pending:
            while current is not None and len(pending) < n_workers + 1:
                part_voice, part_settings = resolve(current)
                done += len(current.text) + 1
                pending.append((index, current, part_voice, done,
                                pool.submit(_synthesize_job, part_voice, current.text, part_settings)))
                index += 1
                current = next(parts, None)
            i, part, part_voice, chars_done, future = pending.popleft()
            audio, warnings = future.result()
            yield _chunk(i, part, part_voice, audio, rate, chars_done, warnings)
    finally:
        futures: list[Future] = [p[-1] for p in pending]
        for f in futures:
            f.cancel()
        wait_futures(futures)


def speech_tags(voice: str, clone_of: str | None = None) -> dict[str, str]:
    """``{"software": "SpeechStudio <version>", "comment": "synthetic speech (voice NAME)" | "synthetic
    speech, cloned voice NAME (base BASE)"}`` (soundfile string attributes)."""
    name = voice or "unknown"
    comment = (f"synthetic speech, cloned voice {name} (base {clone_of})" if clone_of
               else f"synthetic speech (voice {name})")
    return {"software": f"SpeechStudio {speechstudio.__version__}", "comment": comment}


class SynthesisOSError(Exception):
    """Carries (as ``__cause__``) an ``OSError`` raised by the chunk source, so a writer does not
    report it as a write error."""


def synthesis_errors_apart(chunks: Iterable[SpeechChunk]) -> Iterator[SpeechChunk]:
    """Yield ``chunks``; an ``OSError`` raised while synthesizing comes out as ``SynthesisOSError``."""
    try:
        yield from chunks
    except OSError as e:
        raise SynthesisOSError(str(e)) from e
