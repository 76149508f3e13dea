"""Make ``fixtures/tts_fixtures/piper_parity.npz``: what Piper itself says for the 20 Harvard sentences.

Run with Piper's own package in a separate venv (it must not share a venv with SpeechStudio)::

    python3.11 -m venv /work/piper12-venv && /work/piper12-venv/bin/pip install piper-tts==1.2.0
    /work/piper12-venv/bin/python bench/make_piper_parity_fixture.py MODEL.onnx [NEWER_PIPER_PYTHON]

piper-tts 1.2.0 (rhasspy/piper, 2023) phonemizes with piper-phonemize 1.1.0, the phonemizer
``piper_train`` used to train the released voices (en_US-joe-medium: ``piper_version`` 1.0.0);
its espeak-ng is rhasspy/espeak-ng, upstream espeak-ng data as of 2023-05-20. The ids come from
``piper_phonemize.phoneme_ids_espeak``, the function ``piper_train`` used (BOS, PAD, then each
phoneme and a PAD, EOS); piper-tts 1.2.0's own Python ``PiperVoice.phonemes_to_ids`` drops the PAD
after BOS (fixed in piper-tts 1.3), so it is not used. For each sentence the fixture stores the
phonemes (joined string), phoneme ids, and the voice's audio from ``PiperVoice.synthesize_ids_to_raw`` with
``noise_scale = noise_w = 0`` (deterministic), as Piper returns it: int16, peak-normalised
(``piper.util.audio_float_to_int16``). With a second interpreter (a venv with a newer piper-tts,
e.g. 1.8.0, upstream espeak-ng of 2025-03-22) its phonemes are stored too, as
``phonemes_newer``, to document where the two Piper releases differ. ``$PIPER_PARITY_OUT``: write
there instead (``bench/bench_tts_cold.py --parity-python`` compares live that way).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fixtures"))
from tts_fixtures.harvard import HARVARD

_VERSION = "from importlib.metadata import version; print(version('piper-tts'))"
_NEWER = """
import json, sys
from piper.phonemize_espeak import EspeakPhonemizer
p = EspeakPhonemizer()
print(json.dumps(["".join(sum(p.phonemize("en-us", s), [])) for s in json.loads(sys.argv[1])]))
"""


def main() -> None:
    import piper
    from piper import PiperVoice
    from piper_phonemize import phoneme_ids_espeak

    model = sys.argv[1]
    voice = PiperVoice.load(model, config_path=model + ".json")
    phonemes, ids, audio = [], [], []
    for sentence in HARVARD:
        sents = voice.phonemize(sentence)
        assert len(sents) == 1, sentence
        ph_ids = phoneme_ids_espeak(sents[0])
        assert voice.config.phoneme_type == "espeak"
        raw = voice.synthesize_ids_to_raw(ph_ids, length_scale=1.0, noise_scale=0.0, noise_w=0.0)
        phonemes.append("".join(sents[0]))
        ids.append(np.array(ph_ids, dtype=np.int16))
        audio.append(np.frombuffer(raw, dtype=np.int16))
    newer = []
    if len(sys.argv) > 2:
        out = subprocess.run([sys.argv[2], "-c", _NEWER, json.dumps(HARVARD)], check=True, capture_output=True,
                             text=True).stdout
        newer = json.loads(out)
    from importlib.metadata import version

    meta = {"piper-tts": version("piper-tts"), "piper-phonemize": version("piper-phonemize"),
            "model": Path(model).name, "noise_scale": 0.0, "noise_w": 0.0, "length_scale": 1.0,
            "newer_piper": subprocess.run([sys.argv[2], "-c", _VERSION], capture_output=True, text=True,
                                          check=True).stdout.strip() if newer else ""}
    out = Path(os.environ.get("PIPER_PARITY_OUT") or ROOT / "fixtures" / "tts_fixtures" / "piper_parity.npz")
    np.savez_compressed(out, phonemes=np.array(phonemes), phonemes_newer=np.array(newer),
                        ids=np.array(ids, dtype=object), audio=np.array(audio, dtype=object),
                        meta=np.array(json.dumps(meta)))
    print(f"wrote {out} ({out.stat().st_size // 1024} KB) with {meta}; piper at {piper.__file__}")
    for s, a, b in zip(HARVARD, phonemes, newer):
        if a != b:
            print(f"differs: {s!r}: {a} | {b}")


if __name__ == "__main__":
    main()
