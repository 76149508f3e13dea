"""Issue 40: film and multi-channel audio taken as players take it (audio/downmix.py). The 5.1 file is
constructed with PyAV: a real recording in the centre, chords and noise in the fronts and surrounds."""
from __future__ import annotations

import fractions

import av
import numpy as np
import pytest

from conftest import realspeech_file
from speechstudio.audio.decode import AudioReader, load_audio
from speechstudio.audio.downmix import choose
from speechstudio.metrics import wer

RATE = 16000
FILM = ["FL", "FR", "FC", "LFE", "BL", "BR"]


def write(path, planes: np.ndarray, layout: str, codec: str = "flac", tracks: list | None = None) -> None:
    """``planes`` (channels, n) float32 as one audio track of ``path`` (or ``tracks``: several
    ``(planes, layout, default)``), FLAC in Matroska."""
    with av.open(str(path), "w") as c:
        items = tracks or [(planes, layout, True)]
        streams = []
        for k, (_p, lay, default) in enumerate(items):
            st = c.add_stream(codec, rate=RATE, layout=lay)
            st.disposition = av.stream.Disposition.default if default else 0
            streams.append(st)
        for st, (p, lay, _d) in zip(streams, items):
            x = (np.clip(p, -1, 1) * 32767).astype(np.int16)
            for i in range(0, x.shape[1], 4096):
                f = av.AudioFrame.from_ndarray(np.ascontiguousarray(x[:, i:i + 4096].T.reshape(1, -1)), format="s16",
                                               layout=lay)
                f.sample_rate, f.pts, f.time_base = RATE, i, fractions.Fraction(1, RATE)
                for pkt in st.encode(f):
                    c.mux(pkt)
            for pkt in st.encode(None):
                c.mux(pkt)


def film(speech: np.ndarray, seed: int = 1) -> np.ndarray:
    """5.1 planes: ``speech`` in the centre; a swelling five-note chord and noise in the fronts (each
    about as loud as the speech), a 50 Hz hum in the LFE, noise in the surrounds."""
    t = np.arange(speech.size) / RATE
    music = sum(0.15 * np.sin(2 * np.pi * f * t + k) for k, f in enumerate([220, 277, 330, 440, 554]))
    music *= 0.6 + 0.4 * np.sin(2 * np.pi * 0.5 * t)
    noise = np.random.default_rng(seed).standard_normal(speech.size) * 0.05
    return np.stack([music + noise, music - noise, speech, 0.3 * np.sin(2 * np.pi * 50 * t),
                     noise * 0.5, noise * 0.5]).astype(np.float32)


def test_the_centre_of_a_film_is_taken_else_a_bs775_downmix_with_the_centre_at_full_level():
    loud = np.ones(6)
    d = choose(FILM, "5.1", loud, 0.2)
    assert d.channel == 2 and d.note.startswith("5.1 audio: transcribed the centre channel")
    quiet_centre = np.array([1, 1, 1e-4, 1, 1, 1], float)
    d = choose(FILM, "5.1", quiet_centre, 0.2)
    assert d.channel is None and d.weights.tolist() == pytest.approx([0.7071, 0.7071, 1.0, 0.0, 0.5, 0.5])
    assert choose(["FL", "FR"], "stereo").weights is None                        # stereo: the mean


def test_speech_in_one_channel_of_many_loses_nothing_and_an_unnamed_layout_is_named():
    one = np.zeros((4, RATE), np.float32)
    one[1] = 0.1 * np.sin(np.arange(RATE) / 5)
    energy, mixed = (one ** 2).mean(axis=1), float((one.mean(axis=0) ** 2).mean())
    d = choose(["FL", "FR", "BL", "BR"], "quad", energy, mixed)
    assert d.note is None
    assert 20 * np.log10(np.abs(d.mono(one)).max() / 0.1) == pytest.approx(0.0, abs=0.01)   # the mean: -12 dB
    five = np.concatenate([energy, [0.0]])
    d = choose(["NONE"] * 5, "5 channels", five, mixed)
    assert d.note == ("unknown channel layout '5 channels' (5 channels without names): transcribed as one mono "
                      "mix (--channels split for each channel)")


@pytest.mark.parametrize("n,layout,names", [(6, "5.1", FILM), (8, "7.1", FILM + ["SL", "SR"])])
def test_six_or_eight_unnamed_channels_are_read_in_ffmpegs_default_order(n, layout, names):
    d = choose(["NONE"] * n, f"{n} channels", np.ones(n), 0.2)
    assert d.channel == 2 and d.note == (f"{n} channels without names: read as {layout} ({' '.join(names)}); "
                                         f"{layout} audio: transcribed the centre channel, where films carry the "
                                         "dialogue (--channels split for every channel)")


def test_a_six_channel_wav_without_a_channel_mask_gives_its_centre_channel(tmp_path):
    """A plain PCM WAV of a film's six channels (libsndfile writes no mask): FFmpeg says "6 channels"."""
    import soundfile as sf

    speech = load_audio(realspeech_file("lhotse_librispeech_2412-153948-0000.flac"), RATE)
    path = tmp_path / "film51.wav"
    sf.write(path, film(speech).T, RATE)                       # PCM_16, speech only in channel 3
    reader = AudioReader(path)
    audio = np.concatenate(list(reader.blocks()))
    assert (reader.info.layout, reader.info.channels) == ("6 channels", 6)
    centre = sf.read(path, dtype="float32")[0][:, 2]
    assert audio.shape == centre.shape and np.array_equal(audio, centre)    # the centre, sample for sample
    assert reader.warnings == [f"{path}: 6 channels without names: read as 5.1 (FL FR FC LFE BL BR); 5.1 audio: "
                               "transcribed the centre channel, where films carry the dialogue (--channels split "
                               "for every channel)"]


READERS = ["lhotse_librispeech_2412-153948-0000.flac", "whisper_jfk.flac", "speechbrain_LJ050-0131.wav",
           "pocketsphinx_sense_and_sensibility_0870.wav", "vosk_test.wav", "pyroomacoustics_cmu_arctic_us_aew_a0001.wav"]


def multitrack(n: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """``n`` microphones, one reader each (real recordings, at most 4 s, in turns 0.25 s apart), every reader
    heard 20 dB down on the others' microphones: float32 (n, samples) and each turn's ``(start, end)``."""
    clips = [load_audio(realspeech_file(READERS[k % len(READERS)]), RATE)[: 4 * RATE] for k in range(n)]
    own = np.zeros((n, sum(c.size + RATE // 4 for c in clips) + RATE), np.float32)
    turns, at = [], RATE // 2
    for k, clip in enumerate(clips):
        own[k, at:at + clip.size] = clip
        turns.append((at, at + clip.size))
        at += clip.size + RATE // 4
    return own + 0.1 * (own.sum(axis=0) - own), turns


@pytest.mark.parametrize("n", [6, 8])
def test_six_or_eight_microphones_without_names_are_not_taken_for_a_film(tmp_path, n):
    """A multitrack recorder's WAV (no channel mask, a reader per microphone) was read as 5.1 / 7.1 and only its
    3rd channel transcribed: the other readers' words were lost. Its 4th channel sounds full-band, which a film's
    LFE (bass only) never does: the channels are mixed, every reader at their level, and split for speakers."""
    import soundfile as sf

    from speechstudio.batch.channels import plan

    planes, turns = multitrack(n)
    path = tmp_path / f"meeting{n}.wav"
    sf.write(path, planes.T, RATE)
    reader = AudioReader(path)
    mix = np.concatenate(list(reader.blocks()))
    assert reader.info.channels == n and reader.warnings == [
        f"{path}: {n} channels without names, the 4th with full-band sound (a film's 4th is its LFE, bass only): a "
        "recording of several microphones, transcribed as one mono mix (--channels split for each channel)"]
    db = [10 * np.log10(np.mean(mix[a:b] ** 2) / np.mean(planes[k, a:b] ** 2)) for k, (a, b) in enumerate(turns)]
    assert max(db) - min(db) < 3.0, db              # every reader at about one level (the film reading: -20 dB)
    assert plan(AudioReader(path, RATE), "auto") == (list(range(n)), [
        f"the {n} channels hold different voices: each was transcribed on its own and labelled (--channels mix to "
        "transcribe the mix)"])


def test_a_film_is_transcribed_from_its_centre_channel(tmp_path, whisper_dir):
    from speechstudio.asr.whisper import WhisperRecognizer

    speech = load_audio(realspeech_file("lhotse_librispeech_2412-153948-0000.flac"), RATE)
    planes = film(speech)
    write(tmp_path / "film.mka", planes, "5.1")
    reader = AudioReader(tmp_path / "film.mka")
    assert (reader.info.layout, reader.info.channel_names) == ("5.1", FILM)
    audio = np.concatenate(list(reader.blocks()))
    assert np.abs(audio - speech[: audio.size]).max() < 1e-3                       # the centre, at full level
    m = WhisperRecognizer(whisper_dir, "whisper-tiny.en", device="cpu", cpu_threads=2)
    ours = " ".join(s.text for s in m.transcribe(audio, language="en")[0])
    centre = " ".join(s.text for s in m.transcribe(speech, language="en")[0])
    assert wer([centre], [ours]) <= 0.05
    assert ours.startswith("If the reader will excuse me")


# ------------------------------------------------------------------ the track with the speech
def test_a_silent_default_track_gives_way_to_the_track_with_speech(tmp_path, whisper_dir):
    from speechstudio.asr.whisper import WhisperRecognizer

    speech = load_audio(realspeech_file("whisper_jfk.flac"), RATE)
    hum = (0.001 * np.sin(2 * np.pi * 50 * np.arange(speech.size) / RATE)).astype(np.float32)
    path = tmp_path / "two.mkv"
    write(path, None, "", tracks=[(np.stack([hum, hum]), "stereo", True), (speech[None], "mono", False)])
    reader = AudioReader(path)
    assert reader.info.track == 2
    assert reader.warnings == [f"{path}: 2 audio tracks; transcribed track 2 (language not set, track 1, marked as "
                               "the default, has no speech); choose another with --audio-track N or a language code"]
    m = WhisperRecognizer(whisper_dir, "whisper-tiny.en", device="cpu", cpu_threads=2)
    text = " ".join(s.text for s in m.transcribe(np.concatenate(list(reader.blocks())), language="en")[0])
    assert "my fellow Americans ask not what your country can do for you" in text
    asked = AudioReader(path, track=1)                     # an explicit --audio-track is obeyed
    assert asked.info.track == 1 and np.abs(np.concatenate(list(asked.blocks()))).max() < 0.002
