"""Build a prepared dataset folder from a source: import, cut, check, write (atomically).

``build_dataset`` is the one entry point of both wizards and the CLI: every input is decoded once, long
recordings are cut with Whisper word times, each clip is checked (``finetune.check``) and written as
mono PCM-16 into a hidden work folder that is swapped in before ``manifest.json`` is written, so a
failed run leaves the previous dataset untouched. Memory: a long input is held at its own rate plus a 16
kHz copy (1 h at 44.1 kHz: ~0.9 GB)."""
from __future__ import annotations

import contextlib
import copy
import functools
import io
import os
import shutil
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Callable

import numpy as np

from speechstudio.atomic import atomic_path, install_folder, write_reason
from speechstudio.audio.decode import AudioReader
from speechstudio.errors import AudioDecodeError, UsageError
from speechstudio.finetune import dataset as _ds
from speechstudio.finetune.check import (CheckSettings, NoSpeechError, asr_check, prepare_clip, resample,
                                         whisper_transcriber)
from speechstudio.finetune.manifest import MANIFEST_NAME, Clip, DatasetError, Manifest, Problem
from speechstudio.finetune.recording import CONSENT_AUDIO, CONSENT_TEXT
from speechstudio.audio.vad import VAD_RATE, SileroVad
from speechstudio.finetune.closeness import OUTLIER_SIMILARITY, VoicePrint, speaker_outliers
from speechstudio.finetune.longform import split_recording
from speechstudio.tts.frontend.sayable import remove_invisible

Progress = Callable[[int, int, str], None]
_MARK = ".speechstudio-clips"        # marks a clips/ folder written by us (safe to replace)


#: Read with libsndfile first (a few ms per file, where opening a container with FFmpeg costs
#: 30-50 ms); anything it refuses goes to PyAV (``audio.decode``), which reads every format.
_SNDFILE_EXTENSIONS = (".wav", ".flac", ".ogg", ".oga", ".aif", ".aiff")


def decode_native(path: Path) -> tuple[np.ndarray, int, list[str]]:
    """Decode a whole file at its own rate: ``(audio float32 shape (n,) mono (mean of the
    channels), rate Hz, warnings)``. Raises ``AudioDecodeError`` naming the file and the reason."""
    if path.suffix.lower() in _SNDFILE_EXTENSIONS:
        import soundfile as sf

        try:
            data, rate = sf.read(str(path), dtype="float32", always_2d=True)
        except Exception:          # not a format libsndfile knows (e.g. MP3 inside WAV): PyAV
            data = None
        if data is not None and data.shape[0] > 0:
            mono = data[:, 0] if data.shape[1] == 1 else data.mean(axis=1, dtype=np.float32)
            return np.ascontiguousarray(mono, dtype=np.float32), int(rate), []
    reader = AudioReader(path, None)
    parts = list(reader.blocks())
    audio = np.concatenate(parts) if len(parts) > 1 else parts[0]
    return audio, reader.sample_rate, list(reader.warnings)


@functools.lru_cache(maxsize=1)
def _vad():
    """One Silero VAD session per process (2 CPU threads; loading takes ~1-2 s)."""
    return SileroVad(threads=2)


def _cutter(transcribe, language: str):
    """A WhisperRecognizer for word times: a copy of the cross-check's (same loaded model), else of
    ``whisper_transcriber(language=language)``'s."""
    source = transcribe if hasattr(transcribe, "recognizer") else whisper_transcriber(language=language)
    recognizer = copy.copy(source.recognizer)
    recognizer.word_timestamps = True
    recognizer.beam_size = max(recognizer.beam_size, 5)    # its words become the training texts: beam search
    return recognizer


def _first_reason(problems: list[Problem], clips: list[Clip]) -> str:
    if problems:
        return f"{len(problems)} problems: first {problems[0].source}: {problems[0].reason}"
    flags = sorted({f for c in clips for f in c.flags if f in ("too_short", "too_long", "unsayable")})
    hint = "; build again with split_long=True to cut them at sentence ends" if "too_long" in flags else ""
    return f"{len(clips)} clips, all flagged {', '.join(flags) or 'dropped'}{hint}"


def _install(work: Path, out: Path, manifest: Manifest, root: Path) -> None:
    """Swap ``work/clips`` in as ``out/clips`` and write the manifest; the old manifest goes first, so
    an interrupted swap reads as "not prepared"."""
    (out / MANIFEST_NAME).unlink(missing_ok=True)
    install_folder(work / "clips", out / "clips")
    for name in (CONSENT_TEXT, CONSENT_AUDIO):
        if (root / name).is_file() and (root / name).resolve() != (out / name).resolve():
            with atomic_path(out / name) as tmp:
                shutil.copyfile(root / name, tmp)
    manifest.save(out)


def build_dataset(source: str | os.PathLike, out_dir: str | os.PathLike, sample_rate: int, *,
                  language: str = "en", trim: bool = True, transcribe: Callable[[np.ndarray], str] | None = None,
                  text_ok: Callable[[str], str | None] | None = None, progress: Progress | None = None,
                  min_s: float = 0.5, max_s: float = 20.0, keep_mismatched: bool = False, split_long: bool = False,
                  speaker: str | None = None, speaker_check: bool = False) -> Manifest:
    """Import ``source``, check every clip, write ``out_dir`` (``manifest.json`` + ``clips/``, replacing
    a previous build); returns the saved ``Manifest``, bad inputs in ``Manifest.problems``.

    ``source``: a folder (LJSpeech / wav+txt / long recordings, ``finetune.dataset``) or one long file;
    ``sample_rate``: Hz of the clips; ``language``: ISO code; ``trim`` (``check.CheckSettings``);
    ``transcribe(audio16k) -> str``: ASR cross-check (not for clips cut from long recordings);
    ``text_ok(text) -> None | str`` flags ``unsayable``; ``progress(done, total, message)``; ``min_s`` /
    ``max_s`` (seconds); a clip whose text the recogniser hears differently (``check.CER_THRESHOLD``) is
    flagged ``asr_mismatch`` and left out of training unless ``keep_mismatched`` (``notes``);
    ``split_long`` cuts clips over ``max_s`` (with the cross-check's Whisper, else ``whisper_transcriber``'s);
    ``speaker``: the one to keep from a multi-speaker ``metadata.csv``; ``speaker_check``: flag ``other_speaker`` clips
    (Resemblyzer; skipped without it, ``notes["speaker_check"]`` says why).

    Raises ``DatasetError`` (no usable clip, missing source, ``out_dir/clips`` not ours, several
    speakers and no ``speaker``), ``UsageError`` (bad ``sample_rate``), ``ModelNotFoundError`` (Whisper
    needed, not installed)."""
    src, out = Path(source), Path(out_dir)
    if not 8000 <= int(sample_rate) <= 96000:
        raise UsageError(f"sample rate {sample_rate} Hz: expected 8000-96000")
    if (out / "clips").exists() and not (out / MANIFEST_NAME).exists() and not (out / "clips" / _MARK).exists():
        raise DatasetError(f"{out}: holds a clips/ folder that is not from a prepared dataset; "
                           "choose an empty or new output folder")
    scan = _ds.scan_source(src, exclude=(out / "clips",), speaker=speaker)
    settings = CheckSettings(int(sample_rate), trim=trim, min_s=min_s, max_s=max_s)
    vad = _vad()
    report = progress or (lambda done, total, message: None)
    clips: list[Clip] = []
    problems = list(scan.problems)
    notes: dict = {"source": str(src.resolve()), "mode": scan.mode, "settings": asdict(settings),
                   **({"layout": scan.layout} if scan.layout else {}),
                   **({"speaker": scan.speaker, "speakers": scan.speakers} if scan.speakers else {}),
                   "keep_mismatched": bool(keep_mismatched), "built": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                   "clip_stats": {}, "unsayable": {}, "warnings": []}
    recognizer = None
    voiceprint, embeddings = _voiceprint(notes) if speaker_check else (None, {})
    taken = {e.id.casefold() for e in scan.entries}   # ids in use (case-insensitive file systems)
    total = len(scan.entries)
    done = 0
    try:
        out.mkdir(parents=True, exist_ok=True)
        for stale in out.glob(".build-*"):        # left by a build that was killed
            shutil.rmtree(stale, ignore_errors=True)
        work = Path(tempfile.mkdtemp(prefix=".build-", dir=out))
    except OSError as exc:
        raise _write_error(out, exc) from exc
    try:
        (work / "clips").mkdir()
        (work / "clips" / _MARK).write_text("clips written by speechstudio.finetune.build\n", encoding="utf-8")
        for entry in scan.entries:
            report(done, total, f"decoding {entry.source}")
            try:
                audio, rate, warns = decode_native(entry.path)
            except AudioDecodeError as exc:
                problems.append(Problem(entry.source, str(exc)))
                done += 1
                continue
            notes["warnings"] += warns
            pieces = [(entry.id, entry.text, audio, entry.source, entry.text is not None)]
            if entry.text is None or (split_long and audio.shape[0] / rate > max_s):
                report(done, total, f"recognising {entry.source} to cut it into sentences")
                recognizer = recognizer or _cutter(transcribe, language)
                longest = min(15.0, max_s)      # clips of 2-15 s (longform), never over max_s
                length = audio.shape[0] / rate

                def on_words(t: float, where=entry.source, length=length) -> None:
                    report(done, total, f"recognising {where}: {t:.0f} of {length:.0f} s")

                cut = split_recording(recognizer, resample(audio, rate, 16000), language,
                                      min_s=min(2.0, longest / 2), max_s=longest, progress=on_words)
                if not cut:
                    problems.append(Problem(entry.source, "the recogniser found no words to cut clips at"))
                pieces = []
                for k, p in enumerate(cut, 1):
                    ident = f"{entry.id}_{k:04d}"
                    while ident.casefold() in taken:    # named like another input
                        ident += "_"
                    taken.add(ident.casefold())
                    pieces.append((ident, p.text, audio[int(p.start_s * rate):int(p.end_s * rate)],
                                   f"{entry.source} {p.start_s:.2f}-{p.end_s:.2f} s", False))
                total += len(pieces) - 1
            for ident, text, piece, where, check_text in pieces:
                report(done, total, f"checking {where}")
                done += 1
                try:
                    prep = prepare_clip(piece, rate, settings, vad)
                except NoSpeechError as exc:
                    problems.append(Problem(where, str(exc)))
                    continue
                flags = list(prep.flags)
                if text is not None and remove_invisible(text) != text:  # zero-width space & co.: normalised
                    text = remove_invisible(text)
                    flags.append("text_normalised")
                bad = text_ok(text) if text_ok is not None else None
                if bad:
                    flags.append("unsayable")
                    notes["unsayable"][ident] = bad
                score = heard = None
                if transcribe is not None and check_text:
                    score, heard, mismatch = asr_check(text, prep.audio16k, transcribe, language, settings.cer_threshold)
                    if mismatch:
                        flags.append("asr_mismatch")
                    score = None if score is None else round(score, 4)
                if voiceprint is not None:
                    with contextlib.suppress(ValueError):  # too little speech to tell a voice: no vote either way
                        embeddings[len(clips)] = voiceprint.embed(prep.audio16k, VAD_RATE)
                _write_wav(work / "clips" / f"{ident}.wav", prep.audio, settings.sample_rate)
                notes["clip_stats"][ident] = prep.stats
                clips.append(Clip(ident, f"clips/{ident}.wav", text, round(prep.duration_s, 4), tuple(flags),
                                  score, heard, where))
        if voiceprint is not None:
            clips = _flag_other_speakers(clips, embeddings, notes)
        report(done, total, "writing the manifest")
        manifest = Manifest(settings.sample_rate, clips, problems, language, notes)
        if not replace(manifest, notes={**notes, "keep_mismatched": True}).usable():  # mismatches can be fixed
            raise DatasetError(f"{src}: no usable clip ({_first_reason(problems, clips)})")
        notes["consent"] = (scan.root / CONSENT_TEXT).is_file()
        _install(work, out, manifest, scan.root)
        report(done, total, f"{len(clips)} clips written to {out}")
        return manifest
    except OSError as exc:    # disk full, folder made read-only while building
        raise _write_error(out, exc) from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _voiceprint(notes: dict):
    """(``VoicePrint``, {}) for the speaker check, or (None, {}) with the reason in ``notes``."""
    try:
        return VoicePrint(), {}
    except ImportError as exc:
        notes["speaker_check"] = f"skipped: {exc.name or 'resemblyzer'} is not installed"
    except (OSError, RuntimeError) as exc:  # installed without its weights (e.g. a trimmed bundle)
        notes["speaker_check"] = f"skipped: the speaker encoder could not load ({exc})"
    return None, {}


def _flag_other_speakers(clips: list[Clip], embeddings: dict, notes: dict) -> list[Clip]:
    """``clips`` with ``other_speaker`` added to the outliers among ``embeddings`` (clip index ->
    GE2E embedding); similarities (leave-one-out) stored in ``notes["speaker_similarity"]``."""
    order = sorted(embeddings)
    vectors = [embeddings[i] for i in order]
    total = np.sum(np.stack(vectors), axis=0) if vectors else None
    notes["speaker_similarity"] = {clips[i].id: round(VoicePrint.similarity(e, total - e), 4)
                                   for i, e in zip(order, vectors)} if len(vectors) >= 3 else {}
    notes["speaker_check"] = f"{len(vectors)} clips compared (threshold {OUTLIER_SIMILARITY})"
    out = list(clips)
    for k, _sim in speaker_outliers(vectors):
        i = order[k]
        out[i] = replace(out[i], flags=tuple(out[i].flags) + ("other_speaker",))
    return out


def _write_error(out: Path, exc: OSError) -> DatasetError:
    why = write_reason(exc)
    return DatasetError(f"{out}: could not write the prepared dataset ({why})")


def _write_wav(path: Path, audio: np.ndarray, sample_rate: int) -> None:
    import soundfile as sf

    # encoded in memory, then written by Python: a full disk raises OSError(ENOSPC), where
    # libsndfile writing the file itself only says "System error."
    buf = io.BytesIO()
    sf.write(buf, np.clip(audio, -1.0, 1.0), int(sample_rate), subtype="PCM_16", format="WAV")
    path.write_bytes(buf.getbuffer())
