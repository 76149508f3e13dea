"""SpeechT5 and FastSpeech2-Conformer voices: tiny models from configs through the real loading code
(``family.load_voice`` -> ``families``), the voice store's download faked at the huggingface_hub boundary."""
from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
from tts_fixtures.families import make_tiny_fastspeech2, make_tiny_speecht5


@pytest.fixture(scope="module")
def fs2_dir(tmp_path_factory):
    return make_tiny_fastspeech2(tmp_path_factory.mktemp("fs2") / "fs2")


@pytest.fixture(scope="module")
def t5_dir(tmp_path_factory):
    return make_tiny_speecht5(tmp_path_factory.mktemp("t5") / "t5")


def test_fastspeech2_front_end_durations_and_controls(fs2_dir):
    from speechstudio.tts.fastspeech2 import arpabet
    from speechstudio.tts.family import SynthesisSettings, Voice, load_voice

    voice = load_voice(fs2_dir, device="cpu", name="fs2")
    assert isinstance(voice, Voice)                             # the protocol every family's voice keeps
    assert (type(voice).__name__, voice.family, voice.sample_rate) == ("FastSpeech2Voice", "fastspeech2", 22050)
    assert voice.controls == ("length_scale", "speaker") and voice.defaults["controls"] == voice.controls
    assert arpabet("Hello, world!") == (["HH", "AH0", "L", "OW1", ",", " ", "W", "ER1", "L", "D", "!"], [])
    ids = voice.text_to_ids("Hello, world!")
    vocab = voice.vocab
    assert ids == [vocab[t] for t in ["HH", "AH0", "L", "OW1", ",", "W", "ER1", "L", "D", "!", "<sos/eos>"]]
    audio = voice.synthesize("Hello, world!")
    assert audio.dtype == np.float32 and audio.shape == (len(ids) * 3 * 16,)  # 3 frames x hop 16 per token
    slow = voice.synthesize("Hello, world!", SynthesisSettings(length_scale=2.0, noise_scale=0.3))
    assert slow.shape == (len(ids) * 6 * 16,)
    assert voice.warnings == ["voice fs2 (fastspeech2) has no noise_scale control; ignored"]
    voice.warnings.clear()
    voice.text_to_ids("Zyx.")
    assert voice.warnings == ["voice fs2: Zyx not in the CMU dictionary; spelled (add a respelling to the lexicon)"]


def test_fastspeech2_streams_to_a_file(fs2_dir, tmp_path):
    import soundfile as sf

    from speechstudio.tts.output import write_speech
    from speechstudio.tts.stream import stream_speech
    from speechstudio.tts.family import load_voice

    voice = load_voice(fs2_dir, device="cpu", name="fs2")
    dur, n = write_speech(stream_speech(voice, "It is 3.0.2 now. See you at 10:30!", workers=2), tmp_path / "o.flac")
    info = sf.info(str(tmp_path / "o.flac"))
    assert n == 2 and info.samplerate == 22050 and abs(info.duration - dur) < 1e-3


def test_speecht5_speakers_seed_and_rate(t5_dir):
    from speechstudio.tts.family import SynthesisSettings, UnknownSpeakerError, Voice, load_voice

    voice = load_voice(t5_dir, device="cpu", name="t5")
    assert isinstance(voice, Voice)
    assert (type(voice).__name__, voice.sample_rate, voice.speakers) == ("SpeechT5Voice", 16000, {"awb": 0, "slt": 1})
    assert voice.controls == ("speaker", "seed")
    a = voice.synthesize("Hello world.", SynthesisSettings(speaker="slt", seed=3))
    b = voice.synthesize("Hello world.", SynthesisSettings(speaker="slt", seed=3))
    c = voice.synthesize("Hello world.", SynthesisSettings(speaker="awb", seed=3))
    assert a.dtype == np.float32 and a.ndim == 1 and len(a) > 0 and len(a) % 16 == 0
    assert np.array_equal(a, b) and not np.array_equal(a[: len(c)], c[: len(a)])
    with pytest.raises(UnknownSpeakerError, match="no speaker 'bdl'"):
        voice.synthesize("Hello.", SynthesisSettings(speaker="bdl"))
    voice.warnings.clear()
    voice.synthesize("Hello.", SynthesisSettings(length_scale=1.5))
    assert voice.warnings == ["voice t5 (speecht5) has no length_scale control; ignored"]
    voice.warnings.clear()
    voice.text_to_ids("Hello Zürich.")
    assert voice.warnings == ["voice t5 cannot say characters 'ü'; skipped"]


def test_speecht5_folder_without_vocoder_is_refused(t5_dir, tmp_path):
    import shutil

    from speechstudio.errors import ModelNotFoundError
    from speechstudio.tts.family import load_voice

    bare = tmp_path / "bare"
    shutil.copytree(t5_dir, bare, ignore=shutil.ignore_patterns("vocoder"))
    with pytest.raises(ModelNotFoundError, match="no HiFi-GAN vocoder"):
        load_voice(bare, device="cpu")


def _xvector_zip(tmp_path, dim=8):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for spk, val in (("slt", 1.0), ("awb", 2.0)):
            for utt in ("a0002", "a0001"):
                arr = io.BytesIO()
                np.save(arr, np.full(dim, val + (utt == "a0002"), dtype=np.float32))
                zf.writestr(f"spkrec-xvect/cmu_us_{spk}_arctic-wav-arctic_{utt}.npy", arr.getvalue())
    path = tmp_path / "spkrec-xvect.zip"
    path.write_bytes(buf.getvalue())
    return path


def test_download_assembles_speecht5_and_fastspeech2_voices(home, tmp_path, monkeypatch, t5_dir, fs2_dir):
    import shutil

    import huggingface_hub

    from speechstudio.tts import voices
    from speechstudio.tts.family import load_voice

    # Hub repos as the real ones are split: model, vocoder, tokenizer files, x-vector dataset.
    model_only = tmp_path / "hub-t5"
    shutil.copytree(t5_dir, model_only, ignore=shutil.ignore_patterns("vocoder", "speakers.npz"))
    fs2_model = tmp_path / "hub-fs2"
    shutil.copytree(fs2_dir, fs2_model, ignore=shutil.ignore_patterns("vocab.json", "tokenizer_config.json"))
    fs2_tok = tmp_path / "hub-fs2-tok"
    fs2_tok.mkdir()
    for f in ("vocab.json", "tokenizer_config.json"):
        shutil.copyfile(fs2_dir / f, fs2_tok / f)
    repos = {"microsoft/speecht5_tts": model_only, "microsoft/speecht5_hifigan": t5_dir / "vocoder",
             "espnet/fastspeech2_conformer_with_hifigan": fs2_model, "espnet/fastspeech2_conformer": fs2_tok}
    calls = []
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda repo, **kw: calls.append(repo) or str(repos[repo]))
    monkeypatch.setattr(huggingface_hub, "list_repo_files",
                        lambda repo, repo_type=None: ["README.md", "spkrec-xvect.zip"])
    zpath = _xvector_zip(tmp_path)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", lambda repo, f, repo_type=None: str(zpath))

    ref = voices.download_voice("microsoft/speecht5_tts")
    assert (ref.name, ref.family, calls) == ("speecht5_tts", "speecht5",
                                            ["microsoft/speecht5_tts", "microsoft/speecht5_hifigan"])
    got = voices.resolve_voice("speecht5")
    assert got.family == "speecht5" and got.location == str(home / "voices" / "speecht5_tts")
    voice = load_voice(got.location, device="cpu", name=got.name)
    assert voice.speakers == {"awb": 0, "slt": 1}
    assert voice.xvectors[0].tolist() == [2.0] * 8  # awb, its first utterance (a0001)

    ref = voices.download_voice("espnet/fastspeech2_conformer")  # alias of the with_hifigan checkpoint
    assert (ref.name, ref.family) == ("fastspeech2_conformer_with_hifigan", "fastspeech2")
    assert calls[-2:] == ["espnet/fastspeech2_conformer_with_hifigan", "espnet/fastspeech2_conformer"]
    assert load_voice(ref.location, device="cpu").synthesize("Hello.").shape == (6 * 3 * 16,)  # HH AH0 L OW1 . eos
    assert {v.name: v.family for v in voices.list_voices() if v.origin == "store"} == {"speecht5_tts": "speecht5",
                                                              "fastspeech2_conformer_with_hifigan": "fastspeech2"}


def test_mms_shorthand_and_unknown_model_type(home, tmp_path, monkeypatch):
    import huggingface_hub
    from tts_fixtures.tiny import make_tiny_vits

    from speechstudio.errors import ModelNotFoundError, UsageError
    from speechstudio.tts import voices

    tiny = make_tiny_vits(tmp_path / "mms", is_uroman=True)
    other = tmp_path / "bert"
    other.mkdir()
    (other / "config.json").write_text('{"model_type": "bert"}')
    calls = []
    monkeypatch.setattr(huggingface_hub, "snapshot_download",
                        lambda repo, **kw: calls.append(repo) or str(other if "bert" in repo else tiny))
    assert voices.hub_id("mms:deu") == "facebook/mms-tts-deu"
    ref = voices.download_voice("mms:rus")
    assert (ref.name, ref.family, calls) == ("mms-tts-rus", "vits", ["facebook/mms-tts-rus"])
    with pytest.raises(UsageError, match="ISO 639-3"):
        voices.hub_id("mms:russian")
    with pytest.raises(ModelNotFoundError, match="model_type 'bert'"):
        voices.download_voice("someone/bert")
