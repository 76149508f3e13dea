"""A long document (txt / Markdown / EPUB) as a chaptered audiobook: ``out_dir/NN - Title.<fmt>`` per
chapter (atomic, tagged), ``playlist.m3u8``, ``chapters.json`` and one ``.m4b``; resumable through
``out_dir/.audiobook.json`` (SHA-256 of each chapter's text as spoken, after the user lexicon, and of voice +
settings). docs/tts.md, Audiobooks."""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from speechstudio.atomic import OutputExistsError, atomic_path, atomic_write_text, write_error
from speechstudio.audio.decode import AudioReader
from speechstudio.audio.encode import AudioEncoder, Chapter as ChapterMark, cover_mime, encoder_errors, image_size
from speechstudio.errors import UsageError
from speechstudio.tts.documents import Book, Chapter, read_book
from speechstudio.tts.family import SynthesisSettings
from speechstudio.tts.frontend.text import EmptyTextError
from speechstudio.tts.lexicon import user_lexicon
from speechstudio.tts.output import write_speech
from speechstudio.tts.stream import speech_tags, stream_speech
from speechstudio.tts.textfile import DocumentError

#: Chapter file formats (``audio.encode.OUTPUT_FORMATS`` without the dot; m4b is the whole book).
BOOK_FORMATS = ("flac", "wav", "ogg", "mp3", "opus", "m4a")
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
    """``files`` (chapter files in order), ``durations_s``, ``skipped`` (resumed), ``book_file`` (the
    ``.m4b`` or None), ``warnings``."""

    files: tuple[Path, ...]
    durations_s: tuple[float, ...]
    skipped: int
    book_file: Path | None = None
    warnings: tuple[str, ...] = ()


#: Seconds of silence that end each chapter file, so the book's chapters (those files joined) are heard apart
#: (ACX asks 1-5 s at a chapter's end; the last sentence's 0.1-0.2 s ran one chapter into the next heading).
CHAPTER_END_S = 2.0


def _with_chapter_end(chunks):
    """``chunks`` (``SpeechChunk``), the last with :data:`CHAPTER_END_S` of silence more at its end."""
    import numpy as np

    last, said = None, False
    for chunk in chunks:
        if last is not None:
            yield last
        last, said = chunk, said or len(chunk.audio) > 0
    if last is not None and said:       # nothing said: no chapter (write_speech refuses an empty one)
        pad = np.zeros(int(round(CHAPTER_END_S * last.sample_rate)), np.float32)
        yield replace(last, audio=np.concatenate([last.audio, pad]), pause_s=last.pause_s + CHAPTER_END_S)


def _safe_name(title: str, fallback: str) -> str:
    title = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title)
    return " ".join(title.split()).strip(" .")[:60] or fallback


def chapter_file_name(chapter: Chapter, n_chapters: int, fmt: str) -> str:
    """``"03 - The Storm.flac"``: zero-padded number, title without path-unsafe characters (60 max)."""
    width = max(2, len(str(n_chapters)))
    return f"{chapter.index + 1:0{width}d} - {_safe_name(chapter.title, f'Chapter {chapter.index + 1}')}.{fmt}"


def prepare_cover(data: bytes, name: str = "cover") -> bytes:
    """Cover bytes an MP4 can hold: JPEG / PNG as they are, others to JPEG with Pillow (optional).
    Raises ``UsageError`` naming ``name``."""
    with contextlib.suppress(UsageError):
        cover_mime(data)
        image_size(data)
        return data

    try:
        from PIL import Image
    except ImportError:
        raise UsageError(f"{name}: not a JPEG or PNG image (other image types are converted with Pillow: "
                         f"pip install pillow)") from None
    try:
        with Image.open(io.BytesIO(data)) as img:
            out = io.BytesIO()
            img.convert("RGB").save(out, "JPEG", quality=90)
            return out.getvalue()
    except Exception:  # PIL.UnidentifiedImageError, OSError: not an image
        raise UsageError(f"{name}: not a JPEG or PNG image, nor one Pillow can convert") from None


def _samples(path: Path) -> tuple[int, int]:
    """``(n_samples, sample_rate)`` of a chapter file as ``AudioReader(path, None)`` decodes it (libsndfile's
    count, the same, unless MP3 or a format it cannot read)."""
    import soundfile as sf

    with contextlib.suppress(sf.LibsndfileError, RuntimeError):
        info = sf.info(str(path))
        if info.format != "MP3":
            return int(info.frames), int(info.samplerate)
    reader = AudioReader(path, None)
    return sum(len(b) for b in reader.blocks()), reader.sample_rate


def write_book_file(path: Path, files: list[Path], titles: list[str], tags: dict[str, str],
                    cover: bytes | None = None) -> list[float]:
    """Join chapter ``files`` into one ``.m4b`` at ``path`` atomically with chapter marks (``titles``),
    ``tags`` and ``cover``; returns chapter start times (s). Raises ``OutputWriteError``."""
    lengths = [_samples(f) for f in files]
    rate = lengths[0][1]
    starts, total = [], 0
    for n, r in lengths:
        starts.append(total / rate)
        total += n if r == rate else int(round(n * rate / r))
    marks = [ChapterMark(t, s) for t, s in zip(titles, starts)]
    try:
        with atomic_path(path) as tmp:
            with AudioEncoder(tmp, rate, tags, suffix=".m4b", chapters=marks, cover=cover,
                              duration_s=total / rate) as enc:
                for f in files:
                    for block in AudioReader(f, rate).blocks():  # a chapter at another rate is resampled
                        enc.write(block)
    except encoder_errors() as e:  # disk full, folder gone: one line, exit 2
        raise write_error(path, e) from None
    return starts


def _stamp(path: Path) -> list[int]:
    """``[size, mtime_ns]`` of a file we wrote, recorded to tell later whether it is still that file."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _kept_file_problem(path: Path, record: dict) -> str:
    """Why a chapter file done before cannot be kept ("" when it can): unchanged since written (its stamp), or
    it decodes to the recorded duration (a copy, an old record without a stamp). A damaged file is made again."""
    if record.get("stamp") == _stamp(path):
        return ""
    expected = float(record.get("duration_s", 0.0))
    try:
        reader = AudioReader(path, None)
        seconds = sum(len(b) for b in reader.blocks()) / reader.sample_rate
    except Exception:  # any decoder failure (garbage, truncated, not audio: AudioDecodeError, ValueError, ...)
        return "changed since it was made and cannot be decoded"
    if abs(seconds - expected) > 0.02:
        return f"changed since it was made ({seconds:.2f} s of audio, {expected:.2f} s were written)"
    return ""


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:32]


def _write_json(path: Path, data) -> None:
    _write_text(path, json.dumps(data, indent=2, ensure_ascii=False))


def _write_text(path: Path, text: str) -> None:
    """``atomic_write_text``; a failing write is one ``OutputWriteError`` line naming ``path``."""
    try:
        atomic_write_text(path, text)
    except OSError as e:
        raise write_error(path, e) from None


def make_audiobook(voice, document: str | Path, out_dir: str | Path, fmt: str = "flac", settings=None,
                   progress: Callable[[AudiobookProgress], None] | None = None, restart: bool = False,
                   workers: int | None = None, voice_loader=None, book_file: bool = True,
                   cover: bytes | None = None) -> AudiobookResult:
    """Synthesize ``document`` into one ``fmt`` file per chapter in ``out_dir`` and (``book_file``) an
    ``.m4b``; ``progress`` after every sentence, ``restart`` ignores earlier runs, ``cover``: JPEG / PNG bytes.
    Raises ``UsageError``, ``DocumentError`` and synthesis errors (finished chapters stay)."""
    fmt = fmt.lower().lstrip(".")
    settings = settings or SynthesisSettings()
    out_dir = Path(out_dir)
    book: Book = read_book(document)
    state, m4b = check_outputs(book, out_dir, fmt, restart, book_file, document=document)
    title, chapters = book.title, book.chapters
    notes: list[str] = list(book.warnings)
    if cover is None and book.cover is not None and book_file:
        try:
            cover = prepare_cover(book.cover, f"{Path(document).name}: cover image")
        except UsageError as exc:
            notes.append(f"{exc}; the .m4b has no cover")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"{out_dir}: cannot create the folder ({e.strerror or e})") from None
    state_path = out_dir / STATE_FILE
    done = state.get("chapters", {}) if isinstance(state.get("chapters"), dict) else {}
    voice_key = _digest(voice.name, voice.family, json.dumps(asdict(settings), sort_keys=True), fmt)
    artist = {"artist": book.author} if book.author else {}
    report = progress or (lambda _event: None)
    total = sum(len(c.text) for c in chapters)
    # a chapter is redone when its spoken form changes: the text after the user lexicon (an entry added or
    # removed since), not only the text as written; the voice applies the same lexicon (tts.lexicon)
    lexicon = user_lexicon(getattr(voice, "language", None) or "en")
    chars_before, skipped, files, durations = 0, 0, [], []
    # chapter files written before in this format (another format's files stay: the user may want both)
    earlier = {r.get("file") for r in done.values() if isinstance(r, dict) and str(r.get("file")).endswith(f".{fmt}")}
    if m4b is not None and isinstance(state.get("book_file"), dict):
        earlier |= {state["book_file"].get("file")} - {None}
    for ch in chapters:
        path = out_dir / chapter_file_name(ch, len(chapters), fmt)
        key = _digest(ch.title, lexicon.apply(ch.text) if lexicon is not None else ch.text)
        prev = done.get(str(ch.index))
        keep = (isinstance(prev, dict) and prev.get("text") == key and prev.get("voice") == voice_key
                and prev.get("file") == path.name and path.is_file())
        if keep:
            problem = _kept_file_problem(path, prev)
            if problem:
                notes.append(f"{path.name}: {problem}; made again")
                keep = False
            elif prev.get("stamp") != _stamp(path):  # decoded to the same length (a copy, a touch): record it
                done[str(ch.index)] = {**prev, "stamp": _stamp(path)}
                state = {**state, "chapters": done}
                _write_json(state_path, state)
        if keep:
            duration = float(prev.get("duration_s", 0.0))
            skipped += 1
        else:
            def on_chunk(chunk, ch=ch, base=chars_before) -> None:
                for warning in chunk.warnings:  # what the voice left out, once per chapter (speak says it too)
                    if (note := f"chapter {ch.index + 1} ({ch.title}): {warning}") not in notes:
                        notes.append(note)
                report(AudiobookProgress(base + min(chunk.chars_done, len(ch.text)), total, ch.index, len(chapters),
                                         ch.title))

            tags = {"title": ch.title, "album": title, "tracknumber": str(ch.index + 1), **artist}
            chunks = _with_chapter_end(stream_speech(voice, ch.text, settings, workers=workers, ssml=False,
                                                     voice_loader=voice_loader))
            try:
                duration, _n = write_speech(chunks, path, on_chunk, tags, mkdir=True)
            except EmptyTextError:
                raise DocumentError(f"{document}: chapter {ch.index + 1} ({ch.title}) has nothing the voice can say "
                                    "(another language or script?)") from None
        chars_before += len(ch.text)
        # the chapter is complete, or kept (sentence counts skip blank lines)
        report(AudiobookProgress(chars_before, total, ch.index, len(chapters), ch.title, keep))
        files.append(path)
        durations.append(duration)
        if not keep:
            if isinstance(prev, dict) and isinstance(prev.get("file"), str) and prev["file"] != path.name:
                # another format's file stays, and stays ours: a run back in that format may replace it
                state = {**state, "other_files": sorted({*_names(state.get("other_files")), prev["file"]})}
            done[str(ch.index)] = {"file": path.name, "text": key, "voice": voice_key, "duration_s": round(duration, 3),
                                   "stamp": _stamp(path), "made": _stamp(path)}
            state = {**state, "document": str(Path(document).resolve()), "title": title, "chapters": done}
            _write_json(state_path, state)
    _write_index(out_dir, title, chapters, files, durations)
    if len(done) > len(chapters):  # chapters the book no longer has
        done = {str(c.index): done[str(c.index)] for c in chapters}
        state = {**state, "chapters": done}
        _write_json(state_path, state)
    if m4b is not None:
        # rebuilt when any chapter's audio changed (a chapter made again: "made", the stamp of its file when
        # written), its titles, tags or cover did, or the .m4b itself is missing or not the file written (its stamp)
        key = _digest(voice_key, title, book.author, *(done[str(c.index)]["text"] for c in chapters),
                      *(json.dumps(done[str(c.index)].get("made")) for c in chapters),
                      hashlib.sha256(cover or b"").hexdigest())
        prev = state.get("book_file") if isinstance(state.get("book_file"), dict) else {}
        if not (prev.get("file") == m4b.name and prev.get("key") == key and m4b.is_file()
                and prev.get("stamp") == _stamp(m4b)):
            tags = {**speech_tags(voice.name, getattr(voice, "clone_of", None)), "title": title, "album": title,
                    "genre": "Audiobook", **artist}
            write_book_file(m4b, files, [c.title for c in chapters], tags, cover)
            state = {**state, "chapters": done, "book_file": {"file": m4b.name, "key": key, "stamp": _stamp(m4b)}}
            _write_json(state_path, state)
    # our files of chapters the book lost or renamed (and of its old title's .m4b) go: the folder is this book
    for name in earlier - {f.name for f in files} - {m4b.name if m4b is not None else None}:
        with contextlib.suppress(OSError, TypeError):
            (out_dir / Path(name).name).unlink()
    return AudiobookResult(tuple(files), tuple(durations), skipped, m4b, tuple(notes))


def check_outputs(book: Book, out_dir: str | Path, fmt: str = "flac", restart: bool = False,
                  book_file: bool = True, *, document: str | Path | None = None) -> tuple[dict, Path | None]:
    """What ``make_audiobook`` checks before any work, and callers before loading a voice (a refusal is then
    immediate): the format, ``out_dir`` (a folder or nothing yet; not created here), and, unless ``restart``,
    that ``out_dir`` holds no other ``document``'s audiobook and no file the book would write (chapter files,
    ``.m4b``, index files) is a file of the user's own. Returns ``(resume record, the .m4b path or None)``.
    Raises ``UsageError``, ``OutputExistsError`` naming the file."""
    fmt = fmt.lower().lstrip(".")
    if fmt not in BOOK_FORMATS:
        raise UsageError(f"unsupported audiobook format {fmt!r} (use {', '.join(BOOK_FORMATS)})")
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"{out_dir}: exists and is not a folder (an audiobook is a folder of chapter files)")
    state_path = out_dir / STATE_FILE
    state = {}
    if state_path.is_file() and not restart:
        with contextlib.suppress(OSError, ValueError):
            state = json.loads(state_path.read_text(encoding="utf-8"))
    state = state if isinstance(state, dict) else {}
    done = state.get("chapters", {}) if isinstance(state.get("chapters"), dict) else {}
    m4b = out_dir / f"{_safe_name(book.title, 'audiobook')}.m4b" if book_file else None
    made_from = state.get("document")
    if not restart and document is not None and isinstance(made_from, str) and made_from != str(
            Path(document).resolve()):  # two books' chapters and indexes in one folder: neither playlist is right
        raise OutputExistsError(f"{out_dir}: holds the audiobook of {made_from}; choose another folder, or use "
                                "--restart to replace it with this book")
    if not restart:  # a file of the user's own with a name we write is never replaced
        _refuse_files_not_ours(state_path, state, done, [out_dir / chapter_file_name(c, len(book.chapters), fmt)
                                                         for c in book.chapters] + ([m4b] if m4b else []))
    return state, m4b


def _refuse_files_not_ours(state_path: Path, state: dict, done: dict, paths: list[Path]) -> None:
    """``OutputExistsError`` naming the first of ``paths`` (or ``playlist.m3u8`` / ``chapters.json``) that exists
    but is not in the resume record (``STATE_FILE``): not written by an earlier run for this folder."""
    ours = {r.get("file") for r in done.values() if isinstance(r, dict)} | _names(state.get("other_files"))
    if isinstance(state.get("book_file"), dict):
        ours.add(state["book_file"].get("file"))
    if not state_path.is_file():  # our index files are only ours in a folder we made
        paths = paths + [state_path.parent / "playlist.m3u8", state_path.parent / "chapters.json"]
    for path in paths:
        if path.name not in ours and os.path.lexists(path):
            raise OutputExistsError(f"{path}: exists and was not written by an earlier audiobook run here (move it "
                                    "away, or use --restart to redo the book and replace it)")


def _names(value) -> set[str]:
    """The file names of a resume record's list (anything else in a hand-edited record: none)."""
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


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
