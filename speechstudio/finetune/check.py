"""Check one clip: resample, trim silence, normalise loudness, set flags; the ASR cross-check.

``prepare_clip``: clipping at the file's rate, soxr "HQ" to the target rate and 16 kHz, Silero VAD trim
keeping ``pad_s``, ITU-R BS.1770-4 loudness to ``target_lufs`` (EBU R128 -23) unless a peak would pass
``peak_dbfs``, flags (``manifest.FLAGS``). ``asr_check`` flags ``asr_mismatch`` above ``cer_threshold``
(jiwer CER to Whisper). Why each threshold: ``docs/finetune_voice.md``, "Dataset checks"."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from speechstudio.asr.whisper import WhisperRecognizer
from speechstudio.audio.levels import is_clipping
from speechstudio.finetune.manifest import DatasetError
from speechstudio.audio.vad import VAD_RATE, SileroVad
from speechstudio.hub.resolve import resolve_model
from speechstudio.metrics import normalize_text

#: CER (Whisper against a clip's text) above which the text is taken as wrong, not misheard: between the
#: worst right text and the best swapped one (the figures: docs/finetune_voice.md, "Dataset checks").
CER_THRESHOLD = 0.45

class NoSpeechError(DatasetError):
    """The voice activity detector found no speech in a clip."""


@dataclass(frozen=True)
class CheckSettings:
    """What ``prepare_clip`` does; rates in Hz, times in seconds, levels in LUFS / dBFS / dB / LU."""

    sample_rate: int
    trim: bool = True
    pad_s: float = 0.15
    target_lufs: float = -23.0
    peak_dbfs: float = -1.0
    min_s: float = 0.5
    max_s: float = 20.0
    low_level_lu: float = 20.0
    noisy_snr_db: float = 20.0
    cer_threshold: float = CER_THRESHOLD


@dataclass
class PreparedClip:
    """``audio``: float32 (n,) at ``sample_rate`` Hz, trimmed and normalised; ``audio16k``: the same at
    16 kHz; ``flags``; ``stats``: ``source_lufs``, ``gain_db``, ``snr_db``, ``peak_dbfs``,
    ``trimmed_s``."""

    audio: np.ndarray
    audio16k: np.ndarray
    sample_rate: int
    flags: tuple[str, ...]
    stats: dict = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        return self.audio.shape[0] / self.sample_rate


def resample(audio: np.ndarray, rate: int, target: int) -> np.ndarray:
    """soxr "HQ" resampling of ``np.ndarray[float32]`` shape (n,) from ``rate`` to ``target`` Hz."""
    a = np.ascontiguousarray(audio, dtype=np.float32)
    if int(rate) == int(target) or a.size == 0:
        return a
    import soxr

    return soxr.resample(a, int(rate), int(target), quality="HQ").astype(np.float32, copy=False)


def measure_lufs(audio: np.ndarray, rate: int) -> float:
    """BS.1770-4 integrated loudness (LUFS, pyloudnorm) of float32 ``(n,)`` at ``rate`` Hz; clips under
    one 400 ms gating block are repeated to fill it. ``-inf`` for silence."""
    import pyloudnorm

    a = np.asarray(audio, dtype=np.float64).reshape(-1)
    if a.size == 0 or not np.any(a):
        return float("-inf")
    block = int(0.4 * rate) + 1
    if a.size < block:
        a = np.tile(a, block // a.size + 1)
    return float(pyloudnorm.Meter(int(rate)).integrated_loudness(a))


def normalise_loudness(audio: np.ndarray, rate: int, target_lufs: float = -23.0,
                       peak_dbfs: float = -1.0) -> tuple[np.ndarray, float, float]:
    """``(audio * gain, measured_lufs, gain_db)``: gain to reach ``target_lufs``, lowered so the
    sample peak stays at or below ``peak_dbfs``. Silence is returned unchanged (gain 0 dB)."""
    measured = measure_lufs(audio, rate)
    if not np.isfinite(measured):
        return np.asarray(audio, np.float32), measured, 0.0
    gain_db = target_lufs - measured
    peak = float(np.max(np.abs(audio))) if audio.size else 0.0
    if peak > 0:
        gain_db = min(gain_db, peak_dbfs - 20.0 * np.log10(peak))
    out = (np.asarray(audio, np.float32) * np.float32(10.0 ** (gain_db / 20.0))).astype(np.float32)
    return out, measured, float(gain_db)


def prepare_clip(audio: np.ndarray, rate: int, settings: CheckSettings, vad: SileroVad) -> PreparedClip:
    """The signal checks of the module docstring on one mono float32 ``(n,)`` clip at its own ``rate``
    Hz in [-1, 1]. Raises ``NoSpeechError`` when the VAD finds no speech."""
    x = np.asarray(audio, dtype=np.float32).reshape(-1)
    sr = int(settings.sample_rate)
    flags: list[str] = []
    if is_clipping(x):
        flags.append("clipping")
    y = resample(x, rate, sr)
    y16 = y if sr == VAD_RATE else resample(x, rate, VAD_RATE)
    # The VAD sees a loudness-normalised copy, so quiet recordings are judged like loud ones.
    level = measure_lufs(y16, VAD_RATE)
    vad_gain = 10.0 ** ((settings.target_lufs - level) / 20.0) if np.isfinite(level) else 1.0
    found = vad(np.clip(y16 * np.float32(vad_gain), -1.0, 1.0))
    if not found.spans:
        raise NoSpeechError("no speech found by the voice activity detector (silence, noise or music only?)")
    a16, b16 = 0, y16.shape[0]
    if settings.trim:
        pad16 = int(round(settings.pad_s * VAD_RATE))
        a16, b16 = max(0, found.start - pad16), min(y16.shape[0], found.end + pad16)
    a, b = a16, b16
    if sr != VAD_RATE:
        a, b = int(round(a16 * sr / VAD_RATE)), min(y.shape[0], int(round(b16 * sr / VAD_RATE)))
    z = y[a:b]
    z, source_lufs, gain_db = normalise_loudness(z, sr, settings.target_lufs, settings.peak_dbfs)
    if not np.isfinite(source_lufs) or source_lufs < settings.target_lufs - settings.low_level_lu:
        flags.append("low_level")
    if found.snr_db is not None and found.snr_db < settings.noisy_snr_db:
        flags.append("noisy")
    duration = z.shape[0] / sr
    if duration < settings.min_s:
        flags.append("too_short")
    if duration > settings.max_s:
        flags.append("too_long")
    z16 = (y16[a16:b16] * np.float32(10.0 ** (gain_db / 20.0))).astype(np.float32)
    peak = float(np.max(np.abs(z))) if z.size else 0.0
    stats = {"source_lufs": round(float(source_lufs), 2) if np.isfinite(source_lufs) else None,
             "gain_db": round(float(gain_db), 2),
             "snr_db": None if found.snr_db is None else round(float(found.snr_db), 1),
             "peak_dbfs": round(float(20 * np.log10(peak)), 2) if peak > 0 else None,
             "trimmed_s": round((y.shape[0] - z.shape[0]) / sr, 3)}
    return PreparedClip(z, z16, sr, tuple(flags), stats)


# ------------------------------------------------------------------------------ ASR cross-check
def cer(reference: str, hypothesis: str, language: str = "en") -> float | None:
    """Character error rate (jiwer) between texts normalised as for WER (``metrics.normalize_text``); None when
    the reference has no letters. Can exceed 1.0 when the hypothesis is much longer."""
    import jiwer

    lang = language.split("-")[0]
    ref, hyp = normalize_text(reference, lang), normalize_text(hypothesis, lang)
    if not ref:
        return None
    return float(jiwer.cer(ref, hyp)) if hyp else 1.0


def asr_check(text: str, audio16k: np.ndarray, transcribe: Callable[[np.ndarray], str], language: str = "en",
              threshold: float = CER_THRESHOLD) -> tuple[float | None, str, bool]:
    """``(cer, asr_text, mismatch)`` for one clip: ``audio16k`` is ``np.ndarray[float32]`` shape
    (n,), 16 kHz; ``mismatch`` when CER > ``threshold``."""
    heard = " ".join(str(transcribe(audio16k)).split())
    score = cer(text, heard, language)
    return score, heard, score is not None and score > threshold


def whisper_transcriber(model: str | None = None, language: str = "en", *, device: str = "cpu",
                        cpu_threads: int = 2, beam_size: int = 1) -> Callable[[np.ndarray], str]:
    """A ``transcribe(audio16k) -> str`` for the cross-check: ``WhisperRecognizer`` greedy, ``model``
    resolved locally (default ``tiny.en`` for English, else ``base``). Raises ``ModelNotFoundError``."""
    lang = language.split("-")[0]
    found = resolve_model(model or ("tiny.en" if lang == "en" else "base"), allow_download=False, progress=False)
    recognizer = WhisperRecognizer(found.path, found.model_id, device=device, cpu_threads=cpu_threads, beam_size=beam_size,
                           word_timestamps=False)

    def transcribe(audio16k: np.ndarray) -> str:
        return " ".join(s.text for s in recognizer.transcribe_audio(np.asarray(audio16k, np.float32), lang))

    transcribe.recognizer = recognizer  # type: ignore[attr-defined]  # reused for cutting long recordings
    return transcribe
