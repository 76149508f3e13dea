"""``speechstudio finetune asr``: fine-tune a CTC recogniser and register the result as a model.

``--data``: a prepared dataset (``manifest.json``) or a raw folder (LJSpeech, wav+txt) prepared at 16 kHz
into ``RUN/data`` (``finetune.build.build_dataset``). Run folder ``<data dir>/finetune/runs/NAME``
(``--run-dir``); Ctrl+C stops with a checkpoint, ``--resume`` continues; several GPUs under
``accelerate launch --multi_gpu``."""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from dataclasses import fields
from pathlib import Path

from speechstudio.asr.device import resolve_device
from speechstudio.cli_args import EXIT_INTERRUPTED, EXIT_OK, int_at_least, positive_number
from speechstudio.errors import SpeechStudioError, UsageError
from speechstudio.finetune.ctc.events import CTCConfig
from speechstudio.finetune.events import stop_on_signals
from speechstudio.progress import clock
from speechstudio.finetune.manifest import MANIFEST_NAME
from speechstudio.finetune.parallel import launcher_world
from speechstudio.finetune.run import RunFolder


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``finetune asr`` options to ``parser`` (defaults: ``CTCConfig``'s)."""
    d = CTCConfig()
    parser.add_argument("--base", metavar="MODEL",
                        help="model to start from: a store name, Hugging Face id or folder; a CTC model keeps its "
                             "vocabulary, a pretrained encoder (e.g. facebook/wav2vec2-base) gets one from the data")
    parser.add_argument("--data", metavar="DIR", help="prepared dataset (manifest.json) or LJSpeech / wav+txt folder")
    parser.add_argument("--speaker", metavar="NAME",
                        help="with a multi-speaker metadata.csv (Piper's ID|SPEAKER|TEXT): the speaker to train on")
    parser.add_argument("--out", required=True, metavar="NAME", help="name of the new model (speechstudio models list)")
    parser.add_argument("--epochs", type=int_at_least(1), default=d.epochs, help=f"passes over the data (default {d.epochs})")
    parser.add_argument("--max-steps", type=int_at_least(1), help="optimizer steps (overrides --epochs)")
    parser.add_argument("--lr", type=positive_number(), default=d.lr, help=f"peak learning rate (default {d.lr:g})")
    parser.add_argument("--batch-size", type=int_at_least(1), default=d.batch_size,
                        help=f"clips per micro-batch (default {d.batch_size})")
    parser.add_argument("--grad-accum", type=int_at_least(1), default=d.grad_accum,
                        help="micro-batches per optimizer step (default 1)")
    parser.add_argument("--precision", default="auto", choices=("auto", "fp32", "fp16", "bf16"),
                        help="auto: BF16 (or FP16) on a GPU, FP32 on CPU")
    parser.add_argument("--freeze-feature-encoder", action=argparse.BooleanOptionalAction, default=True,
                        help="keep the convolutional feature encoder frozen (default yes, as in wav2vec 2.0)")
    parser.add_argument("--gradient-checkpointing", action="store_true", help="less GPU memory, ~30%% slower")
    parser.add_argument("--resume", action="store_true", help="continue the run NAME from its last checkpoint")
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    parser.add_argument("--run-dir", metavar="DIR", help="run folder (default: <data dir>/finetune/runs/NAME)")
    parser.add_argument("--val-count", type=int_at_least(0),
                        help="held-out clips for WER/CER (default 5%%, 1-20; 0: score the training clips)")
    parser.add_argument("--eval-every", type=int_at_least(1), help="steps between evaluations (default: one epoch, <= 500)")
    parser.add_argument("--patience", type=int_at_least(0), default=d.patience,
                        help=f"stop after this many evaluations without a better WER (default {d.patience}; 0: never)")
    parser.add_argument("--new-vocab", action="store_true", help="build a character vocabulary from the data even "
                                                                 "when the base has one (new CTC head)")
    parser.add_argument("--casing", default="auto", choices=("auto", "lower", "upper", "keep"),
                        help="case of the targets (auto: the base vocabulary's; lower for a new one)")
    parser.add_argument("--drop-uncovered", action="store_true",
                        help="leave out clips with characters outside the base vocabulary (default: stop and list them)")
    parser.add_argument("--max-clip-s", type=positive_number(), default=d.max_clip_s,
                        help=f"refuse longer clips (default {d.max_clip_s:g} s)")
    parser.add_argument("--seed", type=int, default=d.seed, help="random seed (default 0)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing model NAME at the end")
    parser.add_argument("--use-for-dictation", action="store_true",
                        help="make the new model the one dictation uses when none is chosen (default: saving a model "
                             "changes no default)")
    parser.add_argument("--quiet", "-q", action="store_true", help="only evaluation and result lines")


def _dataset_dir(data: str, run_dir: Path, max_clip_s: float, main: bool, speaker: str | None = None) -> Path:
    """A prepared dataset folder for ``--data``: as given, or built into ``RUN/data`` at 16 kHz."""
    src = Path(data).expanduser()
    if src.is_file() and src.name == MANIFEST_NAME:
        return src.parent
    if (src / MANIFEST_NAME).is_file():
        return src
    if not src.exists():
        raise UsageError(f"--data {data}: no such folder")
    out = run_dir / "data"
    if not main:  # several processes: the main one built it (main_process_first)
        return out
    from speechstudio.finetune.build import build_dataset

    def progress(done: int, total: int, message: str) -> None:
        if sys.stderr.isatty():
            print(f"\rpreparing clips {done}/{total} {message[:50]:50s}", end="", file=sys.stderr, flush=True)

    manifest = build_dataset(src, out, 16000, max_s=max_clip_s, progress=progress, speaker=speaker)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    usable = manifest.usable()
    print(f"dataset: {len(usable)} usable clips ({manifest.total_s / 60:.1f} min) in {out}; "
          f"{len(manifest.clips) - len(usable)} flagged, {len(manifest.problems)} inputs refused")
    for problem in manifest.problems[:5]:
        print(f"  refused {problem.source}: {problem.reason}")
    return out


def run(args) -> int:
    """Handler of ``speechstudio finetune asr``; returns the exit status (0 done, 130 stopped).

    Raises ``UsageError`` (bad options, name taken, nothing to resume) and other
    ``SpeechStudioError``s (dataset, model, training failures) for the main CLI to print."""
    from speechstudio.finetune.ctc import events as E
    from speechstudio.finetune.ctc import register_model, train_ctc
    from speechstudio.finetune.voice_run import check_resume_data, run_lock, runs_dir
    from speechstudio.hub import defaults
    from speechstudio.hub.store import imported_dir, validate_name

    name = validate_name(args.out)
    if imported_dir(name) is not None and not args.overwrite:
        raise UsageError(f"a model named {name!r} already exists; choose another --out or pass --overwrite")
    run_dir = Path(args.run_dir).expanduser() if args.run_dir else runs_dir() / name
    # the options named as CTCConfig's fields, and the two that are flags here
    config = CTCConfig(**{f.name: getattr(args, f.name) for f in fields(CTCConfig) if hasattr(args, f.name)},
                       uncovered="drop" if args.drop_uncovered else "error", vocab="data" if args.new_vocab else "auto")
    main = int(os.environ.get("RANK", "0") or 0) == 0
    launched = (launcher_world() or 1) > 1
    if not launched:
        resolve_device(args.device)  # a missing GPU is said before the dataset is built, not after
    # the main process holds the run folder's lock (a second training — the app, another shell —
    # would overwrite its dataset and checkpoints); released by the OS if this process dies
    with (run_lock(run_dir) if main else contextlib.nullcontext()):
        if args.resume:
            dataset_dir = RunFolder(run_dir).ctc_dataset()
            base = None
            if args.data:
                check_resume_data(Path(args.data).expanduser(), dataset_dir, run_dir)
        else:
            if not args.base or not args.data:
                raise UsageError("--base and --data are needed to start a run (or --resume to continue one)")
            base = args.base
            if launched:  # the main process builds the dataset while the others wait
                from accelerate import PartialState
            with PartialState(cpu=args.device == "cpu").main_process_first() if launched else contextlib.nullcontext():
                dataset_dir = _dataset_dir(args.data, run_dir, args.max_clip_s, main, args.speaker)

        control = E.TrainControl()
        restore = stop_on_signals(control, launched)
        say = print if main else (lambda *a, **k: None)
        last_print, done, best_eval = 0.0, None, None  # best_eval: the adapted model's best evaluation (its examples)
        try:
            for ev in train_ctc(run_dir, dataset_dir, base, config, resume=args.resume, control=control):
                if isinstance(ev, E.StepEvent):
                    now = time.monotonic()
                    if not args.quiet and (now - last_print >= 10 or ev.step == ev.total or ev.step == 1):
                        last_print = now
                        say(f"step {ev.step}/{ev.total} loss {ev.loss:.3f} lr {ev.lr:.2e} "
                            f"{ev.steps_per_s:.2f} steps/s ETA {clock(ev.eta_s)}")
                elif isinstance(ev, E.EvalEvent):
                    if ev.best and not ev.base:
                        best_eval = ev
                    who = "base model" if ev.base else f"step {ev.step}"
                    say(f"{who}: WER {ev.wer:.3f} CER {ev.cer:.3f} on {ev.n_clips} {ev.split} clips"
                        + (" (best)" if ev.best else ""))
                    if ev.examples and not args.quiet:
                        ref, hyp = ev.examples[0]
                        say(f"  e.g. {ref!r} -> {hyp!r}")
                    if ev.note:
                        say(f"  note: {ev.note}")
                elif isinstance(ev, E.SanityEvent):
                    say("sanity check: " + ("ok" if ev.ok else "FAILED"))
                    for line in ev.messages:
                        say(f"  {line}")
                elif isinstance(ev, E.InfoEvent):
                    say(ev.message)
                elif isinstance(ev, E.DoneEvent):
                    done = ev
        except SpeechStudioError as e:
            if base is None or e.value != base:
                raise
            raise type(e)(f"--base {e}", kind=e.kind, value=e.value) from e  # the library names the model alone
        finally:
            restore()
    if done is None or not main:
        return EXIT_OK
    figures = f"WER {done.best_wer:.3f}" if done.best_wer is not None else "no evaluation yet"
    if done.base_wer is not None and done.best_wer is not None:
        figures = f"WER {done.base_wer:.3f} (base) -> {done.best_wer:.3f}"
    if done.reason == "stopped":
        say(f"stopped at step {done.step} ({figures}); continue with: "
            f"speechstudio finetune asr --out {name} --resume" + (f" --run-dir {run_dir}" if args.run_dir else ""))
        return EXIT_INTERRUPTED if control.stop.is_set() else EXIT_OK
    if done.best_dir is None:
        raise UsageError("training ended before any evaluation; nothing to register")
    model = register_model(done.best_dir, name, replace=args.overwrite)
    say(f"done ({done.reason.replace('_', ' ')}) at step {done.step}: {figures}")
    say(f"model {model.model_id} saved in {model.path}; use it with: speechstudio transcribe --model {model.model_id} FILE")
    if getattr(args, "use_for_dictation", False):
        defaults.choose("dictation", model.model_id)
        say(f"dictation now uses {model.model_id} when no model is chosen")
    if best_eval is not None and best_eval.examples and not any(h.strip() for _r, h in best_eval.examples):
        say(f"warning: {model.model_id} writes nothing on the held-out clips: it does not recognise speech yet "
            "(train longer, or with more recordings)")
    if done.base_wer is not None and done.best_wer is not None and done.best_wer >= done.base_wer:
        say(f"note: {model.model_id} is not better than its base on the held-out clips")
    return EXIT_OK
