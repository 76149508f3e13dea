"""CUDA check of the CTC engine on every family it loads (HuBERT, Data2Vec-Audio, Wav2Vec2-Conformer
rotary / relative, Wav2Vec2 for reference), random-weight models built from a config.

Per family, in FP16 on CUDA (FP32 with ``--fp32``):
  * offline chunked transcription: batch 1 vs batch 8 logits (max abs difference) and text;
  * dictation: the streaming runner must be a captured CUDA Graph; graph replay vs the eager
    runner on the same windows (max abs logit difference); the stream's committed logits vs the
    offline windows (``fixtures/streaming_reference.py: offline_logits``) and the text; ms per window for
    graph replay and eager.
Without CUDA it runs the same code on the CPU (eager runners) so the script stays alive.

Pass/fail is on the logits (FP16: max |d| <= 5e-2; FP32 on CUDA: 5e-3, since cuDNN convolutions
use TF32 by default; CPU: 1e-4) and on the runner being a CUDA Graph. Equal text is reported but
not required: a random-weight model's logits are nearly flat, so rounding flips near-tied argmaxes
(the plain Wav2Vec2 model shows the same). Measured on one H200 (hidden 256, 4 layers): every
family captured; FP16 graph vs eager <= 1.8e-3, FP32 <= 5e-4; graph replay 0.9-1.2 ms vs eager
3-8 ms per 2.24 s window.

Usage: ``python bench/gpu_ctc_families_check.py [--hidden 256 --layers 4] [--fp32]``
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fixtures"))
sys.path.insert(0, str(ROOT))

FAMILIES = {
    "wav2vec2": dict(family="wav2vec2"),
    "hubert-layer": dict(family="hubert", config=dict(feat_extract_norm="layer", do_stable_layer_norm=True,
                                                      conv_bias=True)),
    "data2vec-audio": dict(family="data2vec-audio"),
    "conformer-rotary": dict(family="wav2vec2-conformer"),
    "conformer-relative": dict(family="wav2vec2-conformer", config=dict(position_embeddings_type="relative")),
}


def _ms(fn, n: int, cuda: bool) -> float:
    import torch

    fn()
    if cuda:
        torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    if cuda:
        torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1000


def check(name: str, kw: dict, root: Path, device: str, precision: str, hidden: int, layers: int) -> bool:
    import numpy as np

    from speechstudio.asr.cuda_graph import StaticWindowRunner, window_runner
    from speechstudio.asr.streaming import StreamConfig, StreamingRecognizer
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
    from streaming_reference import Collect, greedy_text, offline_logits
    from tiny_models import make_wav2vec2

    cfg = dict(kw.get("config", {}), hidden_size=hidden, num_hidden_layers=layers,
               num_attention_heads=max(2, hidden // 64), intermediate_size=4 * hidden, conv_dim=(max(32, hidden),) * 7)
    path = make_wav2vec2(root / name, family=kw["family"], config=cfg)
    rng = np.random.default_rng(0)
    t = np.arange(16000 * 30) / 16000
    audio = (0.1 * np.sin(2 * np.pi * 220 * t * (1 + 0.3 * np.sin(t))) + 0.05 * rng.standard_normal(t.size)).astype(np.float32)
    cuda = device.startswith("cuda")
    tol = 5e-2 if precision == "fp16" else (5e-3 if cuda else 1e-4)
    ok = True

    offline = {}
    for bs in (1, 8):
        e = Wav2Vec2Recognizer(path, name, device=device, precision=precision, chunk_s=4.0, stride_s=0.5, batch_size=bs)
        offline[bs] = (e.logits(audio), " ".join(s.text for s in e.transcribe_blocks([audio])))
    d_batch = float(np.abs(offline[1][0] - offline[8][0]).max())
    same_text = offline[1][1] == offline[8][1]
    ok &= d_batch <= tol
    print(f"[{name}] {type(e.model).__name__} {precision}: offline {offline[1][0].shape} batch1 vs batch8 max|d| "
          f"{d_batch:.2e}, same text {same_text}", flush=True)

    e = Wav2Vec2Recognizer(path, name, device=device, precision=precision)
    conf = StreamConfig(chunk_s=0.5, left_context_s=1.5, lookahead_s=0.24, endpoint_s=None)
    col = Collect()
    rec = StreamingRecognizer(e, conf, input_rate=16000, on_logits=col)
    clip = audio[:16000 * 12]
    list(rec.run(np.split(clip, range(320, len(clip), 320))))
    ref = offline_logits(e, clip, rec.geometry)
    d_stream = float(np.abs(col.logits - ref).max())
    text_ok = rec.text == greedy_text(e, ref)
    kind = rec.runner.kind
    ok &= (kind == "cuda-graph" or not cuda) and d_stream <= tol
    w = clip[:rec.geometry.window]
    eager = StaticWindowRunner(e, rec.geometry.window)
    d_graph = float(np.abs(rec.runner(w) - eager(w)).max())
    runner = window_runner(e, rec.geometry.window, conf.use_cuda_graph)
    ms_graph, ms_eager = _ms(lambda: runner(w), 50, cuda), _ms(lambda: eager(w), 50, cuda)
    ok &= d_graph <= tol
    print(f"[{name}] stream runner {kind}: stream vs offline max|d| {d_stream:.2e}, same text {text_ok}; "
          f"graph vs eager max|d| {d_graph:.2e}; window {rec.geometry.window} samples: {kind} {ms_graph:.2f} ms, "
          f"eager {ms_eager:.2f} ms; text {len(rec.text.split())} words", flush=True)
    return bool(ok)


def main() -> int:
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--fp32", action="store_true")
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    precision = "fp32" if args.fp32 or device == "cpu" else "fp16"
    print(f"torch {torch.__version__}, device {device}"
          + (f" ({torch.cuda.get_device_name()})" if device == "cuda" else ""), flush=True)
    results = {}
    with tempfile.TemporaryDirectory() as d:
        for name, kw in FAMILIES.items():
            try:
                results[name] = check(name, kw, Path(d), device, precision, args.hidden, args.layers)
            except Exception as exc:  # report every family, then fail
                print(f"[{name}] FAILED: {type(exc).__name__}: {exc}", flush=True)
                results[name] = False
    print("summary:", ", ".join(f"{k} {'ok' if v else 'FAIL'}" for k, v in results.items()))
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
