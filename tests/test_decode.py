"""Decoding: every real recording, many codecs/containers, and bad input."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import REALSPEECH, realspeech_rows
from speechstudio.audio.decode import AudioReader, load_audio
from speechstudio.audio.raw import RawFormat, parse_raw_format
from speechstudio.errors import AudioDecodeError

ROWS = realspeech_rows()


@pytest.mark.parametrize("row", ROWS, ids=[r["filename"] for r in ROWS])
def test_realspeech_duration_rate_mono(row):
    path = REALSPEECH / "files" / row["filename"]
    reader = AudioReader(path, 16000)
    blocks = list(reader.blocks())
    audio = np.concatenate(blocks)
    assert audio.dtype == np.float32 and audio.ndim == 1
    expected = float(row["duration_s"])
    assert abs(audio.shape[0] / 16000 - expected) <= 0.01 * expected
    assert abs(reader.decoded_s - expected) <= 0.01 * expected
    assert reader.info.source_rate == int(row["sample_rate"])
    assert reader.info.channels == int(row["channels"])
    assert 0.001 < np.abs(audio).max() <= 1.5
    assert reader.warnings == []


def test_encodings_of_same_audio_decode_alike(realspeech):
    a = load_audio(realspeech / "speechrecognition_english_stereo_24bit.wav")
    b = load_audio(realspeech / "speechrecognition_english_mono_32bit.wav")
    assert a.shape == b.shape
    assert np.corrcoef(a, b)[0, 1] > 0.99


def test_blocks_are_bounded(realspeech):
    reader = AudioReader(realspeech / "whisper_jfk.flac", 16000, block_s=2.0)
    sizes = [b.shape[0] for b in reader.blocks()]
    assert sizes[:-1] == [32000] * (len(sizes) - 1)
    assert sum(sizes) == 11 * 16000


def test_raw_needs_and_uses_stated_layout(realspeech):
    path = realspeech / "pocketsphinx_goforward.raw"
    default = load_audio(path)                       # .raw -> s16le 16 kHz mono by default
    assert abs(default.shape[0] / 16000 - 2.786) < 0.01
    as_8k = load_audio(path, raw=parse_raw_format("8000:1:s16le"))
    assert abs(as_8k.shape[0] / 16000 - 2 * 2.786) < 0.02
    with pytest.raises(AudioDecodeError, match="unknown raw sample format"):
        RawFormat(16000, 1, "s17le")


@pytest.mark.parametrize("spec, reason", [
    ("16000:1:s16le:junk", "bad raw format '16000:1:s16le:junk': expected RATE"),     # a field too many
    ("16000::s16le", "bad raw format '16000::s16le': expected RATE"),                 # an empty one
    ("1", r"raw sample rate must be 1000 to 768000 Hz \(got 1\)"),                    # days of audio from kilobytes
    ("16000:65", r"raw channel count must be 1 to 64 \(got 65\)"),
])
def test_a_raw_layout_that_cannot_be_meant_is_refused(spec, reason):
    with pytest.raises(AudioDecodeError, match=reason):
        parse_raw_format(spec)


@pytest.mark.parametrize("channels", [8, 9, 64])
def test_eight_or_more_channels_decode_to_mono(tmp_path, channels):
    """PyAV's planar frames of 8 or more channels crashed the process (a segmentation fault)."""
    import soundfile as sf

    x = np.repeat(0.5 * np.sin(2 * np.pi * 440 * np.arange(16000) / 16000)[:, None], channels, axis=1)
    raw = tmp_path / "many.raw"
    raw.write_bytes((x * 32767).astype("<i2").tobytes())
    wav = tmp_path / "many.wav"
    sf.write(wav, x, 16000, subtype="PCM_16")
    for path, layout in ((raw, parse_raw_format(f"16000:{channels}")), (wav, None)):
        reader = AudioReader(path, 16000, raw=layout)
        audio = np.concatenate(list(reader.blocks()))
        assert reader.info.channels == channels and audio.shape == (16000,)
        assert np.abs(audio).max() == pytest.approx(0.5, rel=0.01)     # their mean
        # 8: a tone in the 4th channel, a 7.1 film's LFE (bass only), so no film
        said = "8 channels without names, the 4th with full-band sound" if channels == 8 else \
            f"unknown channel layout '{channels} channels'"
        assert any(said in w for w in reader.warnings)


def _tone(seconds=2.0, rate=44100, channels=2):
    t = np.arange(int(seconds * rate)) / rate
    x = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    return np.stack([x] * channels)


def _encode(path, codec, rate=44100, layout="stereo", seconds=2.0, streams=1, silent_first=False):
    import av

    x = _tone(seconds, 44100, 2)
    with av.open(str(path), "w") as c:
        outs = []
        for i in range(streams):
            s = c.add_stream(codec, rate=rate)
            s.layout = layout
            outs.append(s)
        for i, s in enumerate(outs):
            fmt = s.codec_context.codec.audio_formats[0].name
            r = av.AudioResampler(format=fmt, layout=layout, rate=rate)
            data = x * (0.0 if (silent_first and i == 0) else 1.0)
            frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(data), format="fltp", layout="stereo")
            frame.sample_rate = 44100
            for g in r.resample(frame):
                for p in s.encode(g):
                    c.mux(p)
            for p in s.encode():
                c.mux(p)


@pytest.mark.parametrize("name,codec,rate", [
    ("a.ogg", "libopus", 48000), ("a.opus", "libopus", 48000), ("a.m4a", "aac", 44100),
    ("a.aiff", "pcm_s16be", 44100), ("a.webm", "libopus", 48000), ("a.mov", "aac", 44100),
    ("a.mp3", "libmp3lame", 44100), ("mulaw.wav", "pcm_mulaw", 8000), ("u8.wav", "pcm_u8", 8000),
    ("float.wav", "pcm_f32le", 22050), ("s24.wav", "pcm_s24le", 48000), ("a.flac", "flac", 96000),
    ("a.mkv", "libopus", 48000),
])
def test_codecs_and_containers(tmp_path, name, codec, rate):
    path = tmp_path / name
    _encode(path, codec, rate)
    audio = load_audio(path, 16000)
    assert abs(audio.shape[0] / 16000 - 2.0) < 0.06  # AAC/Opus priming may add a few ms
    spectrum = np.abs(np.fft.rfft(audio[4000:20000]))
    assert abs(np.argmax(spectrum) * 16000 / 16000 - 440) < 3   # the tone survives at 440 Hz


def test_picks_the_stream_that_carries_signal(tmp_path):
    path = tmp_path / "two tracks.mkv"
    _encode(path, "libopus", 48000, streams=2, silent_first=True)
    reader = AudioReader(path, 16000)
    assert reader.info.stream_index == 1
    assert np.abs(load_audio(path)).max() > 0.2


def test_mp4_with_index_at_end(tmp_path):
    path = tmp_path / "movie.mp4"            # PyAV writes the moov atom at the end
    _encode(path, "aac", 44100)
    assert abs(load_audio(path).shape[0] / 16000 - 2.0) < 0.06


def test_bad_inputs(tmp_path, realspeech):
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    with pytest.raises(AudioDecodeError, match=r"empty\.wav: empty file \(0 bytes\)"):
        AudioReader(empty)
    text = tmp_path / "notes.wav"
    text.write_text("this is not audio\n" * 50)
    with pytest.raises(AudioDecodeError, match=r"notes\.wav: not a recognised audio or video file"):
        AudioReader(text)
    with pytest.raises(AudioDecodeError, match="file not found"):
        AudioReader(tmp_path / "missing.wav")


def test_an_mp4_without_its_index_and_a_flac_cut_after_its_header_are_called_so(tmp_path, realspeech):
    import soundfile as sf

    whole = tmp_path / "whole.mp4"                 # PyAV writes the moov index last, as a camera does
    _encode(whole, "aac", 44100)
    data = whole.read_bytes()
    cut = tmp_path / "interrupted.mp4"
    cut.write_bytes(data[: data.index(b"moov") - 4])
    with pytest.raises(AudioDecodeError) as e:
        AudioReader(cut)
    assert str(e.value) == f"{cut}: damaged or unfinished MP4 (no index: the recording may have been interrupted)"
    audio, rate = sf.read(realspeech / "vosk_test.wav", dtype="float32")
    sf.write(tmp_path / "whole.flac", audio, rate)
    data = (tmp_path / "whole.flac").read_bytes()
    end = 4
    while not data[end] & 0x80:                     # the metadata blocks: (last flag, type, 24-bit length)
        end += 4 + int.from_bytes(data[end + 1:end + 4], "big")
    end += 4 + int.from_bytes(data[end + 1:end + 4], "big")
    for n in (end, 20):                             # right after the header; inside STREAMINFO
        cut = tmp_path / f"cut{n}.flac"
        cut.write_bytes(data[:n])
        with pytest.raises(AudioDecodeError) as e:
            list(AudioReader(cut).blocks())
        assert str(e.value) == f"{cut}: truncated FLAC: no audio after the header"
    assert np.array_equal(load_audio(tmp_path / "whole.flac", None), audio)     # whole ones are untouched


def test_truncated_wav_decodes_what_is_there_with_warning(tmp_path, realspeech):
    data = (realspeech / "vosk_test.wav").read_bytes()
    path = tmp_path / "cut.wav"
    path.write_bytes(data[: len(data) // 2])
    reader = AudioReader(path)
    audio = np.concatenate(list(reader.blocks()))
    assert abs(audio.shape[0] / 16000 - 8.308 / 2) < 0.05
    assert len(reader.warnings) == 1 and "truncated" in reader.warnings[0]


def test_a_flac_damaged_mid_file_is_named_in_a_warning(tmp_path, realspeech):
    """20 kB of noise at 40 % of a FLAC decoded without a word, 1 s longer than its header (words after the damage
    1 s late; a new user's file)."""
    data = bytearray((realspeech / "lhotse_librispeech_2412-153948-0000.flac").read_bytes())
    at = int(len(data) * 0.4)
    data[at:at + 20000] = np.random.default_rng(0).integers(0, 256, 20000, dtype=np.uint8).tobytes()
    path = tmp_path / "mid.flac"
    path.write_bytes(bytes(data))
    reader = AudioReader(path)
    audio = np.concatenate(list(reader.blocks()))
    assert round(audio.shape[0] / 16000, 2) == 12.68
    assert reader.warnings == [f"{path}: decoded 12.68 s where the header announces 11.66 s (damaged data?); times "
                               "after the damage may be late"]


def test_nan_and_infinite_samples_are_read_as_silence_with_a_warning(tmp_path, realspeech):
    """A float WAV with 10 NaN and one Inf among 176k samples came out as no text at all: the NaN spread
    through resampling and the features (a new user's file)."""
    import soundfile as sf

    audio = load_audio(realspeech / "whisper_jfk.flac", 16000)
    audio[[100, 5000, 80000]] = np.nan
    audio[90000] = np.inf
    f = tmp_path / "nan.wav"
    sf.write(f, audio, 16000, subtype="FLOAT")
    reader = AudioReader(f, 16000)
    got = np.concatenate(list(reader.blocks()))
    assert np.isfinite(got).all() and got.shape == audio.shape
    assert got[[100, 5000, 80000, 90000]].tolist() == [0.0] * 4
    assert np.array_equal(got[:100], audio[:100])
    assert reader.warnings == [f"{f}: 4 samples are not numbers (NaN or infinite); read as silence"]


def test_s16_raw_read_as_f32_gives_finite_bounded_audio_and_our_warnings(tmp_path, realspeech):
    """--raw-format f32 on s16 data: read as asked, but NaN/Inf and huge values (which overflowed the Whisper
    features with numpy RuntimeWarnings) are silence, counted in two warnings of ours."""
    import shutil
    import warnings

    f = tmp_path / "go.raw"
    shutil.copy(realspeech / "pocketsphinx_goforward.raw", f)
    data = np.frombuffer(f.read_bytes(), "<f4")
    nonfinite = int((~np.isfinite(data)).sum())
    too_loud = int((np.isfinite(data) & (np.abs(data) > 100)).sum())
    assert nonfinite > 100 and too_loud > 100                  # the real file really holds both
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reader = AudioReader(f, 16000, raw=RawFormat(16000, 1, "f32le"))
        got = np.concatenate(list(reader.blocks()))
    assert got.shape == data.shape and np.isfinite(got).all() and np.abs(got).max() <= 100
    assert reader.warnings == [f"{f}: {nonfinite} samples are not numbers (NaN or infinite); read as silence",
                               f"{f}: {too_loud} samples are far out of range (beyond +-100, not float audio?); "
                               "read as silence"]


def test_mp3_cut_mid_frame(tmp_path, realspeech):
    data = (realspeech / "lhotse_common_voice_en_651325.mp3").read_bytes()
    path = tmp_path / "cut.mp3"
    path.write_bytes(data[: len(data) * 2 // 3 + 37])
    audio = load_audio(path)
    assert 1.2 < audio.shape[0] / 16000 < 2.0


def test_video_without_audio(tmp_path):
    import av

    path = tmp_path / "silent film.mp4"
    with av.open(str(path), "w") as c:
        s = c.add_stream("mpeg4", rate=10)
        s.width, s.height, s.pix_fmt = 64, 64, "yuv420p"
        for _ in range(5):
            for p in s.encode(av.VideoFrame.from_ndarray(np.zeros((64, 64, 3), np.uint8), format="rgb24")):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    with pytest.raises(AudioDecodeError, match=r"silent film\.mp4: no audio stream \(the file holds video\)"):
        AudioReader(path)
    # a long text file: FFmpeg's ANSI-art demuxer read it as "video" ("no audio stream (the file holds video)")
    notes = tmp_path / "notes.txt"
    notes.write_text("A few lines of notes about the meeting, long enough to look like a file.\n" * 20)
    with pytest.raises(AudioDecodeError, match=r"notes\.txt: not an audio or video file \(it holds text\)$"):
        AudioReader(notes)
