"""Audio at a rate no encoder or sound card takes (a clone that speaks at its own rate, e.g.
26515 Hz: finetune.vits.voice_rate) is written and played, resampled where the format or the
device needs a standard rate, with its length and pitch kept."""
import time

import numpy as np
import pytest

from speechstudio.audio.devices import PLAYBACK_RATES, Player
from speechstudio.audio.decode import AudioReader
from speechstudio.audio.encode import AudioEncoder

from fake_audio_backend import FakeBackend

RATE = 26515  # 22050 x 1.2025: the matthes clone's rate


def _tone(seconds: float = 1.0, hz: float = 220.0, rate: int = RATE) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (0.3 * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def _peak_hz(audio: np.ndarray, rate: int) -> float:
    spec = np.abs(np.fft.rfft(audio * np.hanning(len(audio))))
    return float(np.fft.rfftfreq(len(audio), 1 / rate)[int(np.argmax(spec))])


@pytest.mark.parametrize("suffix, file_rate", [
    (".wav", RATE), (".flac", RATE), (".ogg", RATE), (".mp3", 32000), (".opus", 48000), (".m4a", 32000),
    (".m4b", 32000),
])
def test_every_output_format_writes_audio_at_an_odd_rate_with_its_length_and_pitch(tmp_path, suffix, file_rate):
    path = tmp_path / f"out{suffix}"
    with AudioEncoder(path, RATE) as enc:
        for block in np.array_split(_tone(), 7):  # block by block, as speak writes
            enc.write(block)
    assert enc.file_rate == (RATE if suffix == ".opus" else file_rate)  # Opus: libopus resamples to 48 kHz
    assert enc.samples == RATE and enc.duration_s == pytest.approx(1.0)
    reader = AudioReader(path, None)
    audio, rate = np.concatenate(list(reader.blocks())), reader.sample_rate
    assert rate == file_rate
    assert len(audio) / rate == pytest.approx(1.0, abs=0.06)  # MP3 / AAC add encoder padding
    assert _peak_hz(audio, rate) == pytest.approx(220.0, abs=3.0)


def test_a_standard_rate_is_written_as_it_is(tmp_path):
    with AudioEncoder(tmp_path / "a.mp3", 22050) as enc:
        enc.write(_tone(rate=22050))
    assert enc.file_rate == 22050 and AudioReader(tmp_path / "a.mp3", None).sample_rate == 22050


@pytest.mark.parametrize("stream", [False, True])
def test_the_player_opens_the_next_standard_rate_and_plays_the_whole_clip(stream):
    backend = FakeBackend(speed=20.0)
    player = Player(backend)
    audio = _tone(0.5)
    if stream:
        player.begin(RATE)
        for block in np.array_split(audio, 5):
            player.feed(block)
        player.finish()
    else:
        player.play(audio, RATE)
    deadline = time.time() + 10
    while player.is_playing and time.time() < deadline:
        time.sleep(0.01)
    assert not player.is_playing
    assert backend.played_rate == 32000 and 32000 in PLAYBACK_RATES and player.sample_rate == 32000
    played = backend.played_audio()
    voiced = played[np.flatnonzero(np.abs(played) > 1e-4)[0]:]  # a stream starts with silence while it waits
    assert len(voiced) / 32000 == pytest.approx(0.5, abs=0.03)
    assert player.position_s == pytest.approx(0.5, abs=0.01)  # the clip's samples, at the device's rate
    assert _peak_hz(voiced[: 16000], 32000) == pytest.approx(220.0, abs=3.0)


def test_the_player_plays_standard_rates_as_they_are():
    backend = FakeBackend(speed=20.0)
    player = Player(backend)
    player.play(_tone(0.3, rate=22050), 22050)
    deadline = time.time() + 10
    while player.is_playing and time.time() < deadline:
        time.sleep(0.01)
    assert backend.played_rate == 22050 and len(backend.played_audio()) == pytest.approx(0.3 * 22050, abs=441)
