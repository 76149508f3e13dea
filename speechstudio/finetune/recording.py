"""Write the takes of a recording session as an LJSpeech folder, imported like any other
(``build.build_dataset``).

``FOLDER/metadata.csv`` (``ID|TEXT``, UTF-8, sorted, rewritten atomically per take), ``wavs/ID.wav``
(mono PCM-16 at the microphone's rate), ``consent.txt`` / ``consent.wav`` (prompt index 0, not a
training clip). IDs ``take0001`` ... follow ``prompts.script(name)``; a re-take replaces its WAV and
line."""
from __future__ import annotations

import os
import threading
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from speechstudio.atomic import atomic_path, atomic_write_text
from speechstudio.audio.encode import AudioEncoder
from speechstudio.errors import UsageError

METADATA_NAME = "metadata.csv"
CONSENT_TEXT = "consent.txt"
CONSENT_AUDIO = "consent.wav"
_LOCK = threading.Lock()      # one metadata.csv rewrite at a time within the process


def take_id(prompt_index: int) -> str:
    """``take0001`` for prompt index 1 (index 0 is the consent take)."""
    return f"take{int(prompt_index):04d}"


def _check_audio(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    a = np.asarray(audio, dtype=np.float32)
    if a.ndim == 2 and 1 in a.shape:
        a = a.reshape(-1)
    if a.ndim != 1:
        raise UsageError(f"a take must be mono audio, shape (n,); got shape {a.shape}")
    if a.size == 0:
        raise UsageError("the take is empty (no audio recorded)")
    if not np.isfinite(a).all():
        raise UsageError("the take contains NaN or infinite samples")
    if int(sample_rate) < 8000:
        raise UsageError(f"sample rate {sample_rate} Hz is too low for a voice dataset (need >= 8000 Hz)")
    return np.clip(a, -1.0, 1.0)


def _clean_text(text: str) -> str:
    text = " ".join(str(text).replace("|", " ").split())
    if not text:
        raise UsageError("the take has no text")
    return text


def _write_wav(path: Path, audio: np.ndarray, sample_rate: int) -> Path:
    with atomic_path(path) as tmp, AudioEncoder(tmp, sample_rate, suffix=".wav") as out:
        out.write(audio)
    return path


def _read_metadata(folder: Path) -> dict[str, str]:
    path = folder / METADATA_NAME
    if not path.exists():
        return {}
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    return {ident: text.split("|", 1)[0] for ident, text in (line.split("|", 1) for line in lines if "|" in line)}


def save_take(dataset_dir: str | os.PathLike, prompt_index: int, text: str, audio: np.ndarray,
              sample_rate: int) -> Path:
    """Write take ``prompt_index`` (1.., into ``prompts.script(name)``) to ``wavs/takeNNNN.wav`` and its
    ``metadata.csv`` line (``|`` and newlines become spaces), each atomically; return the WAV path.

    ``audio``: float32 mono (n,) at ``sample_rate`` Hz, clipped to [-1, 1]. Raises ``UsageError`` for a
    negative index, empty / non-mono / non-finite audio, or empty text. Take 0 is the consent take:
    ``consent.wav`` and ``consent.txt`` (the sentence, the name it says, the UTC time)."""
    if int(prompt_index) < 0:
        raise UsageError(f"prompt index {prompt_index} is negative")
    folder = Path(dataset_dir)
    a = _check_audio(audio, sample_rate)
    text = _clean_text(text)
    if int(prompt_index) == 0:
        name = text[3:].split(",", 1)[0].strip() if text.startswith("I, ") and "," in text[3:] else None
        wav = _write_wav(folder / CONSENT_AUDIO, a, sample_rate)
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        body = f"{text}\nspeaker: {name or ''}\nrecorded: {stamp}\naudio: {CONSENT_AUDIO}\n"
        atomic_write_text(folder / CONSENT_TEXT, body)
        return wav
    ident = take_id(prompt_index)
    with _LOCK:
        wav = _write_wav(folder / "wavs" / f"{ident}.wav", a, sample_rate)
        rows = _read_metadata(folder)
        rows[ident] = text
        atomic_write_text(folder / METADATA_NAME, "".join(f"{k}|{rows[k]}\n" for k in sorted(rows)))
    return wav


def recorded_takes(dataset_dir: str | os.PathLike) -> dict[int, str]:
    """Prompt index -> text of the takes already in ``dataset_dir`` (index 0: the consent take),
    so the wizard can resume at the first prompt not yet recorded."""
    folder = Path(dataset_dir)
    out = {int(ident[4:]): text for ident, text in _read_metadata(folder).items()
           if ident.startswith("take") and ident[4:].isdigit() and (folder / "wavs" / f"{ident}.wav").exists()}
    if (folder / CONSENT_TEXT).exists() and (folder / CONSENT_AUDIO).exists():
        out[0] = (folder / CONSENT_TEXT).read_text(encoding="utf-8").splitlines()[0]
    return dict(sorted(out.items()))
