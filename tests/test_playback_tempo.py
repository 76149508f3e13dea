"""Playback speed with the pitch kept (audio/tempo.py: Praat's "Lengthen (overlap-add)") and the
waveform peaks (audio/waveform.py), Qt-free: the length changes by the speed factor, a tone keeps
its frequency, the piece-by-piece stream maps what was played back to source seconds."""
from __future__ import annotations

import numpy as np
import pytest

from speechstudio.audio.tempo import SPEEDS, TempoError, TempoStream, stretch
from speechstudio.audio.waveform import load_with_peaks, peaks, regroup

SR = 16000


def tone(seconds: float, freq: float = 220.0) -> np.ndarray:
    t = np.arange(int(seconds * SR)) / SR
    return (0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def dominant_hz(audio: np.ndarray) -> float:
    spec = np.abs(np.fft.rfft(audio * np.hanning(len(audio))))
    return float(np.fft.rfftfreq(len(audio), 1 / SR)[spec.argmax()])


@pytest.mark.parametrize("speed", SPEEDS)
def test_stretch_changes_the_length_by_the_factor_and_keeps_the_pitch(speed):
    x = tone(4.0)
    y = stretch(x, SR, speed)
    assert y.dtype == np.float32
    assert abs(len(y) / SR - 4.0 / speed) <= 0.05 * 4.0 / speed, len(y) / SR
    assert abs(dominant_hz(y) - 220.0) <= 0.03 * 220.0, dominant_hz(y)


@pytest.mark.parametrize("speed", [0.5, 1.5, 2.0])
def test_the_stream_stretches_piece_by_piece_and_maps_back_to_source_time(speed):
    x = tone(12.0, 180.0)
    stream = TempoStream(x, SR, speed, start_s=1.0, chunk_s=3.0, first_chunk_s=1.0)
    out = []
    while (piece := stream.next_piece()) is not None:
        out.append(piece)
    y = np.concatenate(out)
    assert stream.done and len(stream.pieces) == 5   # 1 s, then 3 s chunks over 11 s of source
    assert [(p.source_start_s, p.source_end_s) for p in stream.pieces] == [(1.0, 2.0), (2.0, 5.0), (5.0, 8.0),
                                                                          (8.0, 11.0), (11.0, 12.0)]
    assert abs(len(y) / SR - 11.0 / speed) <= 0.05 * 11.0 / speed
    assert abs(dominant_hz(y) - 180.0) <= 0.03 * 180.0
    assert stream.source_time(0) == 1.0 and stream.source_time(len(y)) == 12.0
    p = stream.pieces[2]  # halfway through the third piece: halfway through its source
    assert stream.source_time(p.out_start + p.out_len // 2) == pytest.approx(6.5, abs=1e-3)
    # the seams do not click: around each, no sample-to-sample jump larger than the tone's own steepest step
    steepest = np.abs(np.diff(x)).max()
    for p in stream.pieces[1:]:
        around = y[p.out_start - 320:p.out_start + 320]
        assert np.abs(np.diff(around)).max() <= 1.5 * steepest, p


def test_speed_one_passes_the_audio_through_and_bad_speeds_say_so_in_one_line():
    x = tone(1.0)
    assert np.array_equal(stretch(x, SR, 1.0), x)
    stream = TempoStream(x, SR, 1.0, start_s=0.5)
    assert np.array_equal(stream.next_piece(), x[SR // 2:]) and stream.next_piece() is None
    assert len(stretch(x[:200], SR, 2.0)) == 100  # 12.5 ms: too short for Praat, still played
    for bad, said in ((0.1, "playback speed 0.1x is out of range (0.25x to 4x)"),
                      ("fast", "playback speed 'fast' is not a number")):
        with pytest.raises(TempoError) as e:
            stretch(x, SR, bad)
        assert str(e.value) == said


def test_peaks_are_the_min_and_max_of_each_column_and_regroup_to_any_width(tmp_path):
    x = np.zeros(1000, np.float32)
    x[10], x[990] = 0.9, -0.7
    p = peaks(x, 10)
    assert p.shape == (10, 2)
    assert p[0].tolist() == pytest.approx([0.0, 0.9]) and p[9].tolist() == pytest.approx([-0.7, 0.0])
    assert np.all(p[1:9] == 0)
    r = regroup(p, 3)
    assert r.shape == (3, 2)
    assert r[0].tolist() == pytest.approx([0.0, 0.9]) and r[2].tolist() == pytest.approx([-0.7, 0.0])
    wide = regroup(p, 25)
    assert wide.shape == (25, 2) and wide[0, 1] == pytest.approx(0.9) and wide[-1, 0] == pytest.approx(-0.7)
    assert peaks(np.zeros(0, np.float32), 4).tolist() == [[0, 0]] * 4
    import soundfile as sf

    sf.write(str(tmp_path / "t.wav"), tone(2.0), SR)
    audio, rate, pk = load_with_peaks(tmp_path / "t.wav")
    assert rate == SR and len(audio) == 2 * SR and pk.shape == (4000, 2)
    assert pk[:, 1].max() == pytest.approx(0.3, abs=0.01) and pk[:, 0].min() == pytest.approx(-0.3, abs=0.01)
