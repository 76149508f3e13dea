"""A long document as a chaptered audiobook: one audio file per chapter, resumable.

``make_audiobook(voice, document, out_dir, fmt)`` reads the document (``documents.read_document``:
txt / Markdown / EPUB), synthesizes each chapter with ``stream.stream_speech`` and writes
``out_dir/NN - Title.<fmt>`` (``wav`` 16-bit PCM, ``flac`` 16-bit, ``ogg`` Vorbis, ``mp3`` MPEG layer
III through libsndfile >= 1.1), each atomically (``speechstudio.atomic``: temp file in the same folder, fsync, rename).
Every file carries title / album / track number tags and the synthetic-speech tag
(``stream.speech_tags``). ``out_dir/playlist.m3u8`` lists the chapters in order with their
durations, and ``chapters.json`` their start times in the whole book (the chapter marks).

Resume: ``out_dir/.audiobook.json`` records, per finished chapter, the SHA-256 of its text and of
the voice + settings. A rerun after an interruption (Ctrl+C, crash, power loss) skips every
chapter whose file is there with the same text, voice and settings, and synthesizes the rest; a
chapter cut off half way left only a temp file, which is removed.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from speechstudio.atomic import atomic_path, atomic_write_text
from speechstudio.errors import UsageError
from speechstudio.tts.documents import Chapter, read_document

__all__ = [
    "BOOK_FORMATS",
    "STATE_FILE",
    "AudiobookProgress",
    "AudiobookResult",
    "chapter_file_name",
    "make_audiobook",
    "write_chunks",
]

#: Output formats: extension -> (libsndfile format, subtype).
BOOK_FORMATS = {"wav": ("WAV", "PCM_16"), "flac": ("FLAC", "PCM_16"), "ogg": ("OGG", "VORBIS"),
                "mp3": ("MP3", "MPEG_LAYER_III")}
STATE_FILE = ".audiobook.json"


@dataclass(frozen=True)
class AudiobookProgress:
    """One progress event: characters done of ``chars_total`` (all chapters), the chapter working
    on, and ``skipped`` True when that chapter was already done (resume)."""

    chars_done: int
    chars_total: int
    chapter: int
    chapters: int
    title: str
    skipped: bool = False


@dataclass(frozen=True)
class AudiobookResult:
    """``files``: the chapter files in order; ``durations_s``: their lengths (s); ``skipped``: how
    many were already done (resume)."""

    files: tuple[Path, ...]
    durations_s: tuple[float, ...]
    skipped: int


def chapter_file_name(chapter: Chapter, n_chapters: int, fmt: str) -> str:
    """``"03 - The Storm.flac"``: zero-padded number, title without path-unsafe characters (60 max)."""
    width = max(2, len(str(n_chapters)))
    title = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", chapter.title)
    title = " ".join(title.split()).strip(" .")[:60] or f"Chapter {chapter.index + 1}"
    return f"{chapter.index + 1:0{width}d} - {title}.{fmt}"


def write_chunks(chunks: Iterable, path: Path, fmt: str, tags: dict[str, str],
                 on_chunk: Callable | None = None) -> float:
    """Write ``SpeechChunk``s to ``path`` in ``fmt`` (``BOOK_FORMATS``) atomically; returns seconds
    written. The first chunk's voice decides the synthetic-speech tag; ``tags`` (soundfile string
    fields: title, album, tracknumber ...) are added. Nothing is left at ``path`` on error."""
    import soundfile as sf

    from speechstudio.tts.stream import speech_tags
    from speechstudio.tts.text import EmptyTextError

    from speechstudio.atomic import write_error
    from speechstudio.tts.stream import SynthesisOSError, synthesis_errors_apart

    major, subtype = BOOK_FORMATS[fmt]
    handle = None
    samples = 0
    try:
        with atomic_path(path) as tmp:
            try:
                for chunk in synthesis_errors_apart(chunks):
                    if handle is None:
                        handle = sf.SoundFile(str(tmp), "w", samplerate=chunk.sample_rate, channels=1, format=major,
                                              subtype=subtype)
                        for key, value in {**speech_tags(chunk.voice, chunk.clone_of), **tags}.items():
                            setattr(handle, key, value)
                    handle.write(np.clip(chunk.audio, -1.0, 1.0))
                    samples += len(chunk.audio)
                    if on_chunk is not None:
                        on_chunk(chunk)
                if handle is None:
                    raise EmptyTextError(f"{path.name}: nothing was synthesized")
                rate = handle.samplerate
            finally:
                if handle is not None:
                    handle.close()
    except SynthesisOSError as e:
        raise e.__cause__ from None
    except (OSError, sf.LibsndfileError) as e:  # disk full, folder gone or read-only: one line, exit 2
        raise write_error(path, e) from None
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()  # a stopped write: cancel the sentences ahead, wait for those running
    return samples / rate


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:32]


def _write_json(path: Path, data) -> None:
    _write_text(path, json.dumps(data, indent=2, ensure_ascii=False))


def _write_text(path: Path, text: str) -> None:
    """``atomic_write_text``; a failing write is one ``OutputWriteError`` line naming ``path``."""
    from speechstudio.atomic import write_error

    try:
        atomic_write_text(path, text)
    except OSError as e:
        raise write_error(path, e) from None


def make_audiobook(voice, document: str | Path, out_dir: str | Path, fmt: str = "flac", settings=None,
                   progress: Callable[[AudiobookProgress], None] | None = None, restart: bool = False,
                   workers: int | None = None, voice_loader=None) -> AudiobookResult:
    """Synthesize ``document`` (txt / md / epub) into one ``fmt`` file per chapter in ``out_dir``.

    ``voice``: a loaded voice (``vits.load_voice``); ``settings``: ``vits.SynthesisSettings``;
    ``progress`` is called after every sentence and for each skipped chapter; ``restart=True``
    ignores earlier runs. Raises ``UsageError`` (unknown format, out_dir is a file),
    ``DocumentError``, and whatever synthesis raises (the chapter being written is then discarded;
    finished chapters stay and a rerun resumes after them).
    """
    from speechstudio.tts.stream import stream_speech
    from speechstudio.tts.vits import SynthesisSettings

    fmt = fmt.lower().lstrip(".")
    if fmt not in BOOK_FORMATS:
        raise UsageError(f"unsupported audiobook format {fmt!r} (use {', '.join(BOOK_FORMATS)})")
    settings = settings or SynthesisSettings()
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"{out_dir}: exists and is not a folder (an audiobook is a folder of chapter files)")
    title, chapters = read_document(document)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"{out_dir}: cannot create the folder ({e.strerror or e})") from None
    state_path = out_dir / STATE_FILE
    state = {}
    if state_path.is_file() and not restart:
        try:
            state = json.loads(state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            state = {}
    done = state.get("chapters", {}) if isinstance(state.get("chapters"), dict) else {}
    voice_key = _digest(voice.name, voice.family if hasattr(voice, "family") else "vits",
                        json.dumps(asdict(settings), sort_keys=True), fmt)
    total = sum(len(c.text) for c in chapters)
    chars_before = 0
    files: list[Path] = []
    durations: list[float] = []
    skipped = 0
    for ch in chapters:
        path = out_dir / chapter_file_name(ch, len(chapters), fmt)
        key = _digest(ch.title, ch.text)
        prev = done.get(str(ch.index))
        if (isinstance(prev, dict) and prev.get("text") == key and prev.get("voice") == voice_key
                and prev.get("file") == path.name and path.is_file()):
            chars_before += len(ch.text)
            files.append(path)
            durations.append(float(prev.get("duration_s", 0.0)))
            skipped += 1
            if progress is not None:
                progress(AudiobookProgress(chars_before, total, ch.index, len(chapters), ch.title, True))
            continue

        def on_chunk(chunk, ch=ch, base=chars_before) -> None:
            if progress is not None:
                progress(AudiobookProgress(base + min(chunk.chars_done, len(ch.text)), total, ch.index,
                                           len(chapters), ch.title))

        tags = {"title": ch.title, "album": title, "tracknumber": str(ch.index + 1)}
        chunks = stream_speech(voice, ch.text, settings, workers=workers, ssml=False, voice_loader=voice_loader)
        duration = write_chunks(chunks, path, fmt, tags, on_chunk)
        chars_before += len(ch.text)
        if progress is not None:  # the chapter is complete (sentence counts skip blank lines)
            progress(AudiobookProgress(chars_before, total, ch.index, len(chapters), ch.title))
        files.append(path)
        durations.append(duration)
        done[str(ch.index)] = {"file": path.name, "text": key, "voice": voice_key, "duration_s": round(duration, 3)}
        _write_json(state_path, {"document": str(Path(document).resolve()), "title": title, "chapters": done})
    _write_index(out_dir, title, chapters, files, durations)
    return AudiobookResult(tuple(files), tuple(durations), skipped)


def _write_index(out_dir: Path, title: str, chapters: list[Chapter], files: list[Path],
                 durations: list[float]) -> None:
    """``playlist.m3u8`` (extended M3U, UTF-8) and ``chapters.json`` (start times in the whole book)."""
    lines = ["#EXTM3U", f"#PLAYLIST:{title}"]
    marks = []
    start = 0.0
    for ch, f, d in zip(chapters, files, durations):
        lines += [f"#EXTINF:{int(round(d))},{ch.title}", f.name]
        marks.append({"chapter": ch.index + 1, "title": ch.title, "file": f.name, "start_s": round(start, 3),
                      "duration_s": round(d, 3)})
        start += d
    _write_text(out_dir / "playlist.m3u8", "\n".join(lines) + "\n")
    _write_json(out_dir / "chapters.json", {"title": title, "chapters": marks})
