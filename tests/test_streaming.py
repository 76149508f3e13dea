"""Streaming dictation (speechstudio.asr.streaming) on CPU.

Two kinds of model:
* a tiny random-weight Wav2Vec2ForCTC built from a config and loaded by the real code: the stream
  must equal an offline computation that cuts the same 16 kHz audio into the same windows;
* a fake "model" whose logits are written into the audio itself (frame f's first sample =
  token id / 100), so boundary cases (a repeat straddling a chunk boundary, Stop mid-chunk) have
  an exact expected text.
"""
from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import torch_threads
from speechstudio.asr import cuda_graph
from speechstudio.asr.cuda_graph import CudaGraphWindowRunner, StaticWindowRunner, window_runner
from speechstudio.asr.streaming import (BlockResampler, StreamConfig, StreamingRecognizer, WindowGeometry,
                                        to_mono_float32)
from speechstudio.errors import UsageError
from streaming_reference import Collect, greedy_text, offline_logits

ROOT = Path(__file__).resolve().parents[1]
JFK = "whisper_jfk.flac"            # 44.1 kHz stereo FLAC, 11.0 s
NO_EP = dict(endpoint_s=None)       # endpointing off: the whole stream is one utterance
G = dict(chunk_s=0.5, left_context_s=1.5, lookahead_s=0.24)   # the CUDA default window (W = 2.24 s)


# ---------------------------------------------------------------------------------------- helpers
@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Tiny models run as fast on one thread, and one thread does not stall when other processes
    share the CPU (OpenMP workers spin waiting for each other)."""
    with torch_threads(1):
        yield


@pytest.fixture(scope="module")
def recognizer(tiny_w2v_dir):
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer

    return Wav2Vec2Recognizer(tiny_w2v_dir, "tiny", device="cpu")


@pytest.fixture(scope="module")
def jfk44(request):
    from conftest import realspeech_file

    from speechstudio.audio.decode import load_audio

    path = realspeech_file(JFK)
    return load_audio(path, 44100)  # the file's own rate: no resampling, mono mean of the channels


def blocks_of(audio: np.ndarray, rate: int, ms: float) -> list[np.ndarray]:
    block = int(round(ms * rate / 1000))
    return np.split(audio, range(block, len(audio), block))


def resampled(blocks: list[np.ndarray], rate: int) -> np.ndarray:
    """The 16 kHz audio the stream produces from ``blocks`` (same resampler, same calls)."""
    rs = BlockResampler(rate, 16000)
    return np.concatenate([rs(b) for b in blocks] + [rs(np.zeros(0, np.float32), last=True)])


def stream(recognizer, blocks, rate, config, runner=None):
    col = Collect()
    rec = StreamingRecognizer(recognizer, config, input_rate=rate, on_logits=col, runner=runner)
    updates = list(rec.run(blocks))
    return rec, updates, col


# ---------------------------------------------------------------------------------------- real model
@pytest.mark.parametrize("window", ["cuda-default", "cpu-default"])
def test_stream_equals_offline_windows_44k(recognizer, jfk44, window):
    cfg = StreamConfig(**(G if window == "cuda-default" else {}), **NO_EP)
    blocks = blocks_of(jfk44, 44100, 20)
    rec, updates, col = stream(recognizer, blocks, 44100, cfg)
    audio16 = resampled(blocks, 44100)
    ref = offline_logits(recognizer, audio16, rec.geometry)
    if window == "cuda-default":
        assert col.parts[0].shape[0] == 100      # first window commits chunks 0..3 (L = 3 chunks)
    else:
        assert rec.geometry.window == 1.74 * 16000 and col.parts[0].shape[0] == 50
    assert col.logits.shape == ref.shape == (rec.geometry.n_frames(audio16.shape[0]), 32)
    assert np.abs(col.logits - ref).max() <= 1e-4
    assert rec.text == greedy_text(recognizer, ref) and rec.text
    assert updates[-1].kind == "final" and updates[-1].stable_text == rec.text
    # the stable pieces add up to the final text
    assert " ".join(w.text for u in updates for w in u.words) == rec.text
    assert rec.received == audio16.shape[0]


def test_window_longer_than_clip_is_one_full_pass(recognizer, jfk44):
    cfg = StreamConfig(left_context_s=12.0, **NO_EP)   # W = 12.76 s > 11.0 s clip
    blocks = blocks_of(jfk44, 44100, 20)
    rec, updates, col = stream(recognizer, blocks, 44100, cfg)
    audio16 = resampled(blocks, 44100)
    full = recognizer.window_logits([audio16])[0]
    assert len(col.parts) == 1 and np.abs(col.logits - full).max() <= 1e-4
    assert rec.text == greedy_text(recognizer, full)
    assert [u.kind for u in updates] == ["final"]        # no chunk ran, no preview for long windows


@pytest.mark.parametrize("cfg", [dict(chunk_s=0.5, left_context_s=1.0, lookahead_s=0.3),
                                 dict(chunk_s=0.64, left_context_s=0.3, lookahead_s=0.1)])
def test_block_size_independence(recognizer, jfk44, cfg):
    texts, logits = {}, {}
    for ms in (10, 20, 37):   # 441, 882, 1632 samples at 44.1 kHz: none divides the chunk
        clip = jfk44[:int(5.5 * 44100)]
        rec, _, col = stream(recognizer, blocks_of(clip, 44100, ms), 44100, StreamConfig(**cfg, **NO_EP))
        texts[ms], logits[ms] = rec.text, col.logits
    assert texts[10] == texts[20] == texts[37] and texts[20]
    assert logits[10].shape == logits[20].shape == logits[37].shape
    assert np.abs(logits[10] - logits[37]).max() <= 1e-4


def test_stop_mid_chunk_keeps_the_tail(recognizer, jfk44):
    cut = int(3.37 * 44100)   # mid-chunk, not frame aligned
    blocks = blocks_of(jfk44[:cut], 44100, 20)
    rec, updates, col = stream(recognizer, blocks, 44100, StreamConfig(**NO_EP))
    audio16 = resampled(blocks, 44100)
    ref = offline_logits(recognizer, audio16, rec.geometry)
    assert col.logits.shape[0] == rec.geometry.n_frames(audio16.shape[0]) == ref.shape[0]
    assert np.abs(col.logits - ref).max() <= 1e-4
    assert rec.text == greedy_text(recognizer, ref)
    assert updates[-1].kind == "final" and updates[-1].stable_s == pytest.approx(ref.shape[0] * 0.02)


def test_16k_input_needs_no_resampler(recognizer, jfk44):
    audio16 = resampled([jfk44[:3 * 44100]], 44100)
    rec, _, col = stream(recognizer, blocks_of(audio16, 16000, 20), 16000, StreamConfig(**NO_EP))
    ref = offline_logits(recognizer, audio16, rec.geometry)
    assert np.abs(col.logits - ref).max() <= 1e-4


def test_preview_before_first_window_commits_nothing(recognizer, jfk44):
    col = Collect()
    rec = StreamingRecognizer(recognizer, StreamConfig(**G, **NO_EP), input_rate=44100, on_logits=col)
    ups = []
    for b in blocks_of(jfk44[:int(2.1 * 44100)], 44100, 20):   # < W = 2.24 s
        ups += rec.push(b)
    assert len(ups) == 4 and all(u.words == () and u.stable_text == "" for u in ups)   # 0.5, 1.0, 1.5, 2.0 s
    assert any(u.tail_text for u in ups) and col.parts == []
    assert rec.stop()[-1].kind == "final" and col.parts


def test_silence_gives_no_text_and_no_model_calls(recognizer):
    calls = []
    runner = window_runner(recognizer, StreamingRecognizer(recognizer).geometry.window)

    def counting(w):
        calls.append(1)
        return runner(w)

    rng = np.random.default_rng(0)
    for audio in (np.zeros(3 * 44100, np.float32),
                  (rng.standard_normal(3 * 44100) * 10 ** (-70 / 20)).astype(np.float32)):
        rec, updates, col = stream(recognizer, blocks_of(audio, 44100, 20), 44100, StreamConfig(), runner=counting)
        assert rec.text == "" and updates == [] and col.parts == [] and calls == []


def test_endpointing_splits_utterances_and_skips_silence(recognizer, jfk44):
    speech = resampled([jfk44[:int(2.5 * 44100)]], 44100)
    assert 20 * np.log10(np.sqrt(np.mean(speech ** 2))) > -40
    sil = np.zeros(int(1.7 * 16000), np.float32)
    audio = np.concatenate([sil, speech, sil, speech, sil[:8000]])
    rec = StreamingRecognizer(recognizer, StreamConfig(endpoint_s=0.8), input_rate=16000)
    finals = [u for b in blocks_of(audio, 16000, 20) for u in rec.push(b) if u.kind == "final"]
    assert [u.utterance for u in finals] == [0]            # the first ended by 0.8 s of silence
    finals += [u for u in rec.stop() if u.kind == "final"]
    assert [u.utterance for u in finals] == [0, 1]         # the second by Stop
    assert len(rec.segments) == 2 and rec.text == " ".join(s.text for s in rec.segments)
    # leading silence: the first utterance starts at most preroll + onset before the speech
    first_frame = rec.segments[0].words[0].start_s
    assert first_frame >= 1.7 - 0.3 - 0.1
    assert rec.segments[1].start_s >= 1.7 + 2.5 + 0.8


# ---------------------------------------------------------------------------------------- fake model
class FakeRecognizer:
    """Logits written into the audio: frame f (samples [320 f, 320 f + 400)) reads token id
    round(100 * x[320 f]). Zero padding reads as the blank."""

    engine = "wav2vec2"
    model_id = "fake"
    sample_rate, frame_len, receptive_field, seconds_per_frame = 16000, 320, 400, 0.02
    blank_id, word_delimiter, skip_ids = 0, "|", frozenset({1, 2, 3})

    def __init__(self) -> None:
        from tiny_models import VOCAB

        self.id_to_token = VOCAB

    def logits(self, w: np.ndarray) -> np.ndarray:
        nf = 0 if w.shape[0] < 400 else (w.shape[0] - 400) // 320 + 1
        ids = np.rint(w[np.arange(nf) * 320] * 100).astype(int)
        return np.eye(len(self.id_to_token), dtype=np.float32)[ids]

    def window_logits(self, windows):
        return [self.logits(w) for w in windows]

    def new_decoder(self):
        from speechstudio.asr.ctc import GreedyCTCDecoder

        return GreedyCTCDecoder(self.id_to_token, self.blank_id, self.word_delimiter, self.skip_ids, 0.02)


def fake_audio(n_samples: int, marks: dict[tuple[int, int], str]) -> np.ndarray:
    """Blank everywhere except ``marks``: {(first_frame, last_frame_inclusive): token}."""
    from tiny_models import VOCAB

    ids = np.zeros(n_samples // 320 + 2, int)
    for (a, b), tok in marks.items():
        ids[a:b + 1] = VOCAB.index(tok)
    return (np.repeat(ids, 320)[:n_samples] / 100.0).astype(np.float32)


def test_fake_repeats_across_chunk_boundaries_and_stop_mid_chunk():
    fake = FakeRecognizer()
    cfg = StreamConfig(chunk_s=0.5, left_context_s=1.5, lookahead_s=0.26, **NO_EP)
    geo = WindowGeometry.from_seconds(0.5, 1.5, 0.26)
    assert (geo.chunk, geo.left, geo.lookahead, geo.window) == (8000, 24000, 4160, 36160)
    n = 187 * 320 + 123                  # Stop mid-chunk (chunk 7 = frames 175..199), not frame aligned
    last = geo.n_frames(n) - 1           # 186
    marks = {
        (110, 110): "H", (114, 114): "E", (123, 127): "L", (129, 130): "L", (135, 135): "O", (140, 140): "|",
        # "BOOK": an O ends exactly at chunk end 149, a blank at 150 separates the next O
        (142, 142): "B", (146, 149): "O", (151, 151): "O", (155, 155): "K", (160, 160): "|",
        # "TO": the O spans chunk boundary 175 (windows [1.5 s, 3.76 s) and [2.0 s, 4.26 s))
        (170, 170): "T", (173, 176): "O", (178, 178): "|",
        # "GO": in the part of the last chunk that only Stop can flush
        (last - 4, last - 4): "G", (last - 1, last): "O",
    }
    audio = fake_audio(n, marks)
    for block in (160, 320, 592, 8000, 8123, n):   # 10 ms, 20 ms, 37 ms, one chunk, odd, all at once
        col = Collect()
        rec = StreamingRecognizer(fake, cfg, input_rate=16000, runner=fake.logits, on_logits=col)
        updates = list(rec.run(np.split(audio, range(block, len(audio), block))))
        assert rec.text == "HELLO BOOK TO GO", block
        assert col.logits.shape[0] == last + 1
        assert " ".join(w.text for u in updates for w in u.words) == rec.text
    words = rec.segments[0].words
    assert [(w.text, w.start_s, w.end_s) for w in words] == [
        ("HELLO", 2.2, 2.72), ("BOOK", 2.84, 3.12), ("TO", 3.4, 3.54), ("GO", 3.64, 3.74)]


def test_fake_tail_shows_lookahead_and_unfinished_word():
    fake = FakeRecognizer()
    cfg = StreamConfig(chunk_s=0.5, left_context_s=1.5, lookahead_s=0.26, **NO_EP)
    # "HI" is complete by frame 99 (committed by the first window); "THERE" straddles 100
    audio = fake_audio(120 * 320, {(90, 90): "H", (92, 92): "I", (94, 94): "|", (97, 97): "T", (99, 99): "H",
                                   (102, 102): "E", (105, 105): "R"})
    rec = StreamingRecognizer(fake, cfg, input_rate=16000, runner=fake.logits)
    ups = [u for u in rec.push(audio) if u.stable_text]
    assert ups[0].stable_text == "HI" and ups[0].tail_text == "THER" and ups[0].stable_s == 2.0
    assert rec.stop()[-1].stable_text == "HI THER"


def test_fake_endpoint_final_update_and_preroll():
    fake = FakeRecognizer()
    loud = fake_audio(40 * 320, {(0, 39): "E"})            # token 5 -> amplitude 0.05 (-26 dBFS)
    audio = np.concatenate([np.zeros(32000, np.float32), loud, np.zeros(32000, np.float32)])
    rec = StreamingRecognizer(fake, StreamConfig(endpoint_s=0.5, preroll_s=0.2), input_rate=16000,
                              runner=fake.logits)
    updates = list(rec.run(np.split(audio, range(320, len(audio), 320))))
    finals = [u for u in updates if u.kind == "final"]
    assert len(finals) == 1 and finals[0].stable_text == "E" and rec.text == "E"
    assert rec.segments[0].start_s == 2.0 and finals[0].audio_s == pytest.approx(2.0 + 0.8 + 0.5, abs=0.03)


# ---------------------------------------------------------------------------------------- geometry
def test_geometry_rounds_to_frames_and_rejects_bad_values():
    g = WindowGeometry.from_seconds(0.5, 1.5, 0.25)
    assert (g.chunk, g.left, g.lookahead) == (8000, 24000, 4160)      # 0.25 s = 12.5 frames -> 13
    assert g.n_frames(399) == 0 and g.n_frames(400) == 1 and g.n_frames(36160) == 112
    assert g.window_start(0) == g.window_start(3) == 0 and g.window_start(4) == 8000
    assert g.final_window_start(36160) == 0 and g.final_window_start(36161) == 320
    with pytest.raises(UsageError, match="lookahead"):
        WindowGeometry.from_seconds(0.5, 1.5, 0.0)
    with pytest.raises(UsageError):
        WindowGeometry.from_seconds(0.0, 1.5, 0.25)


def test_to_mono_float32():
    st = np.array([[0, 16384], [-32768, 0]], np.int16)
    assert np.allclose(to_mono_float32(st), [0.25, -0.5])
    assert to_mono_float32(np.ones((5, 1), np.float64)).dtype == np.float32


def test_whisper_recognizer_is_refused():
    class W:
        engine, model_id = "whisper", "tiny.en"

    with pytest.raises(UsageError, match="needs a Wav2Vec2 CTC model"):
        StreamingRecognizer(W())


# ---------------------------------------------------------------------------------------- runners
def test_static_runner_buffers_and_shapes(recognizer):
    W = 36160
    r = StaticWindowRunner(recognizer, W)
    assert r.n_frames == 112 and tuple(r.static_input.shape) == (1, W) and r.kind == "eager"
    rng = np.random.default_rng(1)
    ptr = r.static_input.data_ptr()
    for _ in range(2):
        w = (rng.standard_normal(W) * 0.1).astype(np.float32)
        out = r(w)
        assert out.shape == (112, 32) and out.dtype == np.float32
        assert np.abs(out - recognizer.window_logits([w])[0]).max() <= 1e-5
        assert r.static_input.data_ptr() == ptr                         # filled in place
        assert np.allclose(r.static_input[0].numpy(), recognizer.normalize(w), atol=1e-6)
    with pytest.raises(ValueError, match="shape"):
        r(np.zeros(W - 320, np.float32))
    with pytest.raises(ValueError, match="receptive field"):
        StaticWindowRunner(recognizer, 399)
    with pytest.raises(RuntimeError, match="CUDA"):
        CudaGraphWindowRunner(recognizer, W)


def test_window_runner_cache_and_capture_fallback(recognizer, monkeypatch, caplog):
    a = window_runner(recognizer, 36160)
    assert window_runner(recognizer, 36160) is a and window_runner(recognizer, 36480) is not a
    assert window_runner(recognizer, 36160, use_cuda_graph=True).kind == "eager"   # CPU: never captured

    class OnCuda:  # an engine that claims CUDA (model still on CPU) and whose capture fails
        def __init__(self, e):
            self.__dict__.update({k: v for k, v in e.__dict__.items() if not k.startswith("_speechstudio")})
            self.device = "cuda"

        def normalize(self, x):
            return recognizer.normalize(x)

    class Boom(CudaGraphWindowRunner):
        def __init__(self, *a, **k):
            raise RuntimeError("operation not permitted when stream is capturing")

    monkeypatch.setattr(cuda_graph, "CudaGraphWindowRunner", Boom)
    fake = OnCuda(recognizer)
    with caplog.at_level(logging.WARNING, logger="speechstudio.asr.cuda_graph"):
        r = window_runner(fake, 36160)
    assert r.kind == "eager" and "CUDA Graph capture failed" in caplog.text and "not permitted" in caplog.text
    assert window_runner(fake, 36160) is r                                      # capture tried once
    w = np.zeros(36160, np.float32)
    w[::7] = 0.1
    assert np.abs(r(w) - recognizer.window_logits([w])[0]).max() <= 1e-5


# ---------------------------------------------------------------------------------------- sources
def test_file_source_blocks_pacing_and_stop(realspeech, jfk44):
    import threading
    import time

    from speechstudio.asr.sources import FileSource

    src = FileSource(realspeech / JFK, block_ms=20, realtime=False)
    blocks = list(src.blocks())
    assert src.sample_rate == 44100 and {b.shape[0] for b in blocks[:-1]} == {882}
    assert np.array_equal(np.concatenate(blocks), jfk44)
    live = FileSource(realspeech / JFK, block_ms=20, realtime=True)
    got, t0 = 0, None
    for b in live.blocks():  # the fake microphone starts with its first block (decoding comes before)
        if t0 is None:
            t0 = time.perf_counter()
            threading.Timer(0.4, live.stop).start()
        got += b.shape[0]
    got /= 44100
    took = time.perf_counter() - t0
    assert 0.3 <= got <= 0.5 and took >= got - 0.05          # real-time pace, stopped early


def test_file_source_is_the_same_path(recognizer, realspeech, jfk44):
    from speechstudio.asr.sources import FileSource

    src = FileSource(realspeech / JFK, block_ms=20, realtime=False)
    seen = list(src.blocks())
    rec = StreamingRecognizer(recognizer, StreamConfig(**NO_EP), input_rate=src.sample_rate)
    list(rec.run(seen))
    ref, _, _ = stream(recognizer, blocks_of(jfk44, 44100, 20), 44100, StreamConfig(**NO_EP))
    assert rec.text == ref.text and sum(b.shape[0] for b in seen) == jfk44.shape[0]


def test_microphone_without_portaudio_is_a_clear_error(monkeypatch):
    import builtins

    from speechstudio.asr import sources
    from speechstudio.audio import backends

    real_import = builtins.__import__

    def no_portaudio(name, *a, **k):
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_portaudio)
    with pytest.raises(backends.AudioUnavailableError, match="PortAudio"):
        sources.MicSource(backend=backends._make_backend(""))


# ---------------------------------------------------------------------------------------- CLI
def _dictate(args, tmp_path):
    env = dict(os.environ, SPEECHSTUDIO_HOME=str(tmp_path / "home"), HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "speechstudio", "dictate", *args], capture_output=True,
                          text=True, env=env, timeout=300, cwd=ROOT)


def test_cli_dictate_file_on_a_pipe(recognizer, jfk44, tiny_w2v_dir, realspeech, tmp_path):
    p = _dictate(["--file", str(realspeech / JFK), "--fast", "--model", str(tiny_w2v_dir), "--device", "cpu",
                  "--endpoint-s", "0", "--chunk-s", "0.5", "--left-context-s", "1.5", "--lookahead-s", "0.25"],
                 tmp_path)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    blocks = blocks_of(jfk44, 44100, 20)
    ref = greedy_text(recognizer, offline_logits(recognizer, resampled(blocks, 44100), WindowGeometry.from_seconds(0.5, 1.5, 0.25)))
    assert len(lines) > 2 and lines[-1] == ref
    assert " ".join(lines[:-1]) == ref                         # stable pieces, then the final text
    assert "eager runner" in p.stderr and "compute per chunk" in p.stderr


def _dictate_here(args, capsys, monkeypatch, tmp_path):
    """In-process (saves a Python start-up): ``(exit status, stdout, stderr)``; stdout is not a TTY."""
    from speechstudio.cli import main

    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    rc = main(["dictate", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_dictate_long_window_equals_offline_transcription(tiny_w2v_dir, realspeech, tmp_path, capsys,
                                                              monkeypatch):
    rc, out, err = _dictate_here(["--file", str(realspeech / JFK), "--fast", "--model", str(tiny_w2v_dir),
                                  "--device", "cpu", "--endpoint-s", "0", "--left-context-s", "12",
                                  "--block-ms", "37"], capsys, monkeypatch, tmp_path)
    assert rc == 0, err
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from speechstudio.audio.decode import load_audio

    # `speechstudio transcribe` of an 11 s clip is one full pass (default 20 s windows)
    offline = Wav2Vec2Recognizer(tiny_w2v_dir, "tiny", device="cpu")
    text = " ".join(s.text for s in offline.transcribe_blocks([load_audio(realspeech / JFK, 16000)]))
    # whole-file soxr vs the streaming resampler differ by float rounding only; same argmax here
    assert out.splitlines()[-1] == text and text


def test_cli_dictate_a_truncated_recording_says_so_as_transcribe_does(tiny_w2v_dir, realspeech, tmp_path, capsys,
                                                                      monkeypatch):
    """dictate --file of a cut-off FLAC said nothing; transcribe warned: "decoded 1.28 s of the 11.66 s ..." """
    cut = tmp_path / "cut.flac"
    cut.write_bytes((realspeech / "lhotse_librispeech_2412-153948-0000.flac").read_bytes()[:30000])
    rc, _, err = _dictate_here(["--file", str(cut), "--fast", "--model", str(tiny_w2v_dir), "--device", "cpu"],
                               capsys, monkeypatch, tmp_path)
    assert rc == 0, err
    assert err.splitlines()[-1] == (f"warning: {cut}: decoded 1.28 s of the 11.66 s the header announces "
                                    "(file truncated?)")

def test_cli_dictate_errors(tmp_path, tiny_w2v_dir, capsys, monkeypatch):
    rc, out, err = _dictate_here(["--file", str(tmp_path / "missing.wav"), "--model", str(tiny_w2v_dir)],
                                 capsys, monkeypatch, tmp_path)
    assert rc == 1 and "file not found" in err and "Traceback" not in err
    rc, out, err = _dictate_here(["--fast", "--model", str(tiny_w2v_dir)], capsys, monkeypatch, tmp_path)
    assert rc == 2 and "--fast only applies to --file" in err
    rc, out, err = _dictate_here(["--file", str(tmp_path / "x.wav"), "--lookahead-s", "0"], capsys, monkeypatch,
                                 tmp_path)
    assert rc == 2 and "lookahead" in err
    # --threshold-db nan read every block as silence: nothing came out, without a word; 5 dBFS is over full scale
    for bad in ("nan", "5"):
        rc, out, err = _dictate_here(["--file", str(tmp_path / "x.wav"), "--threshold-db", bad], capsys, monkeypatch,
                                     tmp_path)
        assert (rc, err.strip()) == (2, f"speechstudio: error: --threshold-db {float(bad)}: expected -120..0 dBFS")
    # --endpoint-s -1 was taken as 0 (an utterance never ends) without a word
    rc, out, err = _dictate_here(["--file", str(tmp_path / "x.wav"), "--endpoint-s", "-1"], capsys, monkeypatch,
                                 tmp_path)
    assert (rc, err.strip()) == (2, "speechstudio: error: --endpoint-s -1.0: expected 0..600 s (0 = never)")


def test_sources_report_their_backlog(realspeech, monkeypatch):
    """Whisper dictation waits while the source has audio queued (one decode covers it all), so
    the CLI's microphone and real-time file sources must say how much audio is waiting."""
    import time

    import numpy as np

    from speechstudio.asr import sources

    live = sources.FileSource(realspeech / JFK, block_ms=20.0, realtime=True)
    assert live.backlog_s == 0.0  # not playing yet
    it = live.blocks()
    next(it)
    time.sleep(0.3)  # a recogniser busy for 0.3 s: the "microphone" went on
    assert 0.2 <= live.backlog_s <= 0.5
    next(it)  # the next block comes at once (it is overdue); the backlog only shrinks by one block
    assert 0.2 <= live.backlog_s <= 0.5
    live.stop()
    fast = sources.FileSource(realspeech / JFK, block_ms=20.0, realtime=False)
    next(fast.blocks())
    time.sleep(0.05)
    assert fast.backlog_s == 0.0  # --fast: the audio is all there, nothing is "behind"

    from fake_audio_backend import FakeBackend

    mic = sources.MicSource(block_ms=20.0, backend=FakeBackend(input_rate=16000))
    for _ in range(50):  # 50 blocks of 20 ms captured, none taken yet
        mic._queue.put(np.zeros(320, np.float32))
    assert mic.backlog_s == pytest.approx(1.0)
