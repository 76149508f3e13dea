"""``speechstudio finetune voice|save|asr|clean``: argparse wiring for the two fine-tuning tracks.

``voice`` builds and checks the dataset (``finetune.build``), fine-tunes the base VITS voice
(``finetune.vits.trainer``) and saves the best checkpoint as a store voice (``finetune.clone_store``);
``save`` another checkpoint; ``asr`` adapts a CTC recogniser (``finetune.ctc.cli``); ``clean`` frees old
runs (``finetune.leftovers``). Ctrl+C saves a checkpoint that ``--resume`` continues from."""
from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import sys
import time
from pathlib import Path

from speechstudio.cli_args import positive_int, positive_number
from speechstudio.disk import format_size
from speechstudio.errors import UsageError
from speechstudio.finetune.events import TrainControl, stop_on_signals
from speechstudio.progress import clock
from speechstudio.finetune.parallel import Parallel, launch_command, launcher_world
from speechstudio.finetune.run import RunError


def register(subparsers) -> None:
    """Add ``finetune`` (with ``voice`` and ``asr``) to an ``argparse`` subparsers object."""

    fp = subparsers.add_parser("finetune", help="clone a voice or adapt recognition to your speech",
                               description="Fine-tune a VITS voice (voice) or a CTC recogniser (asr).")
    fsub = fp.add_subparsers(dest="finetune_command", metavar="{voice,save,asr,clean}")
    fsub.required = True
    vp = fsub.add_parser(
        "voice", help="clone a voice: fine-tune a VITS / Piper voice on your recordings",
        description="Build and check a dataset, fine-tune the base voice on it, save the result as a voice.",
        epilog="examples:\n"
               "  speechstudio finetune voice --base en_US-joe-medium --data my_recordings/ --out my-voice\n"
               "  speechstudio finetune voice --base en_US-joe-medium --out my-voice --resume   (after a stop)\n"
               "Several GPUs: accelerate launch --multi_gpu --num_processes N -m speechstudio finetune voice ... "
               "--multi-gpu",
    )
    vp.add_argument("--base", required=True, metavar="VOICE",
                    help="base voice: an installed VITS voice name (e.g. en_US-joe-medium), folder or .onnx; or a "
                         "Piper training checkpoint (fine-tunes its posterior encoder and discriminator too): a .ckpt with "
                         "its config.json beside it, or lessac-medium, lessac-high, ryan-medium, amy-medium, ... "
                         "(downloaded from rhasspy/piper-checkpoints)")
    vp.add_argument("--data", metavar="DIR|FILE",
                    help="dataset: LJSpeech folder, wav+txt folder, long recording(s), or a prepared dataset "
                         "(manifest.json); not needed with --resume")
    vp.add_argument("--out", required=True, metavar="NAME", help="name of the new voice")
    vp.add_argument("--speaker", metavar="NAME",
                    help="the speaker to clone from a multi-speaker metadata.csv (Piper's ID|SPEAKER|TEXT lines)")
    vp.add_argument("--preset", choices=("quick", "standard", "best"),
                    help="steps and checkpoint interval (default: standard; with --resume: the run's own settings)")
    vp.add_argument("--steps", type=positive_int, help="optimizer steps (default: the preset's)")
    vp.add_argument("--batch-size", type=positive_int, help="clips per step (default: the preset's)")
    vp.add_argument("--grad-accum", type=positive_int, help="batches per optimizer step (default 1)")
    vp.add_argument("--lr", type=positive_number(), metavar="RATE",
                    help="learning rate of the voice's generator after the warm-up (default 2e-5: the base is "
                         "fine-tuned; VITS trains from scratch at 2e-4, which makes clones buzz)")
    vp.add_argument("--precision", default="auto", choices=("auto", "fp32", "fp16", "bf16"))
    vp.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    vp.add_argument("--gradient-checkpointing", action="store_true", help="less GPU memory, ~30%% slower")
    vp.add_argument("--train-prosody", action="store_true",
                    help="also learn timing and intonation (flow + duration predictor); for 30+ minutes of "
                         "speech and long runs; by default the clone keeps the base voice's and learns the timbre")
    vp.add_argument("--checkpoint-every", type=positive_int, metavar="N",
                    help="save a resumable checkpoint (and samples) every N steps (default: the preset's, "
                         "or steps/5 for short runs)")
    vp.add_argument("--resume", action="store_true", help="continue the run from its last checkpoint")
    vp.add_argument("--run-dir", metavar="DIR", help="run folder (default: <data dir>/finetune/runs/NAME)")
    vp.add_argument("--no-asr-check", action="store_true", help="skip the Whisper cross-check of the texts")
    vp.add_argument("--keep-mismatched", action="store_true",
                    help="train on clips whose text Whisper hears differently too (by default they are left out)")
    vp.add_argument("--split-long", action="store_true",
                    help="cut clips over 20 s at sentence ends with Whisper word times (their texts then come "
                         "from the recogniser) instead of leaving them out")
    vp.add_argument("--overwrite", action="store_true", help="replace an existing voice NAME at the end")
    vp.add_argument("--keep-base-pitch", action="store_true",
                    help="train at the base voice's sample rate: the clone keeps the base's pitch (by default a "
                         "Piper base is trained at the rate that puts its pitch on your recordings')")
    vp.add_argument("--match-pitch", action="store_true",
                    help="shift the voice's output to your recordings' median pitch when SpeechStudio speaks even "
                         "when it is under 1 semitone off (PSOLA; by default only from 1 semitone, e.g. when the "
                         "base voice is kept; Piper ignores the shift)")
    vp.add_argument("--multi-gpu", action="store_true",
                    help="one process per GPU (DDP), started with `accelerate launch --multi_gpu --num_processes N "
                         "-m speechstudio finetune voice ... --multi-gpu`")
    vp.add_argument("--quiet", "-q", action="store_true", help="only stage and checkpoint lines")
    vp.set_defaults(func=voice_command)

    sp = fsub.add_parser("save", help="save another checkpoint of a voice run (or a blend with the base) as a voice",
                         description="Show a run's checkpoints (similarity, naturalness, pitch; the recommended one "
                                     "marked) and save the one you pick as a voice.")
    sp.add_argument("--run", required=True, metavar="NAME|DIR",
                    help="the run: the voice name it was started with (--out) or its run folder")
    sp.add_argument("--out", metavar="NAME", help="name of the voice to save (without it: only show the table)")
    sp.add_argument("--checkpoint", default="recommended", metavar="step_N|recommended|latest",
                    help="which checkpoint (a step from the table; default: the recommended one)")
    sp.add_argument("--blend", type=float, metavar="A",
                    help="save the checkpoint blended with the base voice, A of the way from the base (0-1; WiSE-FT: "
                         "e.g. 0.3 keeps most of the base's naturalness)")
    sp.add_argument("--overwrite", action="store_true", help="replace an existing voice NAME")
    sp.add_argument("--match-pitch", action="store_true", help="as for finetune voice")
    sp.set_defaults(func=save_command)

    ap = fsub.add_parser("asr", help="adapt a CTC recogniser (Wav2Vec2, HuBERT, ...) to your speech",
                         description="Fine-tune a CTC model on your recordings; the result is a model NAME.")
    from speechstudio.finetune.ctc import cli as ctc_cli

    ctc_cli.add_arguments(ap)
    ap.set_defaults(func=ctc_cli.run)
    cp = fsub.add_parser("clean", help="list training runs and remove old ones (saved voices and models stay)",
                         description="List the run folders under <data dir>/finetune/runs with their size, and remove "
                                     "those last changed more than DAYS days ago (all with --older-than 0).")
    cp.add_argument("--older-than", type=float, default=0.0, metavar="DAYS",
                    help="remove only runs last changed more than DAYS days ago (default 0: every run not in use)")
    cp.add_argument("--dry-run", action="store_true", help="only list what would be removed")
    cp.set_defaults(func=clean_command)


def clean_command(args) -> int:
    """Handler of ``finetune clean [--older-than DAYS] [--dry-run]``: list the run folders and remove the old
    ones (``finetune.leftovers``); a run another process is training in is kept. Returns 0."""
    from speechstudio.finetune.leftovers import list_runs, remove_run
    from speechstudio.finetune.voice_run import runs_dir

    if args.older_than < 0:
        raise UsageError(f"--older-than {args.older_than:g}: must be 0 or more days")
    runs = list_runs(unstarted=True)
    if not runs:
        print(f"no training runs in {runs_dir()}")
        return 0
    now = time.time()
    freed, removed = 0, 0
    for run in runs:
        age = run.age_days(now)
        line = f"{run.name:32s} {format_size(run.size_bytes):>8s}  {age:5.1f} days  {run.state}"
        if run.state == "in use" or age < args.older_than:
            print(f"  kept     {line}")
            continue
        if run.state == "failed start":
            if not args.dry_run and not _remove_unstarted(run.path):
                print(f"  kept     {line}")
                continue
            freed += run.size_bytes
        else:
            freed += run.size_bytes if args.dry_run else remove_run(run.path)
        removed += 1
        print(f"  {'would go' if args.dry_run else 'removed '} {line}")
    verb = "would free" if args.dry_run else "freed"
    print(f"{removed} of {len(runs)} run(s) {'would be ' if args.dry_run else ''}removed; {verb} {format_size(freed)} "
          f"in {runs_dir()}")
    return 0


def _voice_argv(args) -> list[str]:
    """``finetune voice`` options of ``args`` as a command line (for the ``accelerate launch`` hint)."""
    argv = ["finetune", "voice"]
    for flag, default in (("--base", None), ("--data", None), ("--out", None), ("--preset", None),
                          ("--steps", None), ("--batch-size", None), ("--grad-accum", None), ("--lr", None),
                          ("--precision", "auto"), ("--device", "auto"), ("--checkpoint-every", None),
                          ("--run-dir", None), ("--speaker", None)):
        value = getattr(args, flag[2:].replace("-", "_"), None)
        if value is not None and value != default:
            argv += [flag, str(value)]
    for flag in ("gradient_checkpointing", "train_prosody", "keep_base_pitch", "match_pitch", "resume", "no_asr_check",
                 "split_long", "keep_mismatched", "overwrite", "quiet"):
        if getattr(args, flag, False):
            argv.append("--" + flag.replace("_", "-"))
    return argv + ["--multi-gpu"]


def voice_command(args) -> int:
    """Handler of ``speechstudio finetune voice``. Returns the exit status (0 done, 130 stopped).

    Under ``accelerate launch`` (``WORLD_SIZE`` set; ``--multi-gpu``) every process runs this:
    process 0 holds the run folder's lock, builds the dataset, prints and saves the voice; the
    others print nothing but errors."""
    from speechstudio.finetune import voice_run

    run_dir = Path(args.run_dir) if args.run_dir else voice_run.runs_dir() / args.out
    if args.multi_gpu and launcher_world() is None:
        raise UsageError("--multi-gpu runs one training process per GPU, started by accelerate's launcher "
                         "(WORLD_SIZE is not set: no launcher); start it as: " + launch_command(_voice_argv(args)))
    launched = (launcher_world() or 1) > 1
    main = int(os.environ.get("RANK", "0") or 0) == 0
    plan = voice_run.plan(base=args.base, data=args.data, name=args.out, run_dir=run_dir, preset=args.preset,
                          steps=args.steps, batch_size=args.batch_size, grad_accum=args.grad_accum,
                          precision=args.precision, device=args.device, resume=args.resume,
                          gradient_checkpointing=args.gradient_checkpointing, overwrite=args.overwrite,
                          checkpoint_every=args.checkpoint_every, train_prosody=args.train_prosody,
                          keep_base_pitch=args.keep_base_pitch, lr=args.lr)
    if not main:  # the other processes of a launched run: process 0 speaks for all
        args.quiet = True
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            return _prepare_train_save(args, plan, run_dir, launched)
    print(plan.describe() + (f"\nprocesses: {launcher_world()} (DDP)" if launched else ""))
    for line in plan.base_notes:
        print(f"note: {line}")

    fresh = not args.resume and not plan.run_dir.exists()  # a start that fails or stops early leaves no folder
    code = 1
    try:
        with voice_run.run_lock(plan.run_dir):
            code = _prepare_train_save(args, plan, run_dir, launched)
    finally:
        if code != 0 and fresh:
            _remove_unstarted(plan.run_dir)
    return code


def _remove_unstarted(run_dir: Path) -> bool:
    """Remove a run folder that holds no checkpoint (a start that failed or was stopped before its first
    one: its dataset is built again on the next start), unless another training holds it. True if removed."""
    from speechstudio.finetune import voice_run
    from speechstudio.finetune.leftovers import has_checkpoint

    if not run_dir.is_dir() or has_checkpoint(run_dir):
        return False
    try:
        with voice_run.run_lock(run_dir):
            if has_checkpoint(run_dir):
                return False
            shutil.rmtree(run_dir)
    except (RunError, OSError):
        return False
    return True


def _prepare_train_save(args, plan, run_dir: Path, launched: bool = False) -> int:
    from speechstudio.finetune import voice_run
    from speechstudio.finetune.clone_store import pitch_note
    from speechstudio.finetune.leftovers import trim_finished

    def progress(done: int, total: int, message: str) -> None:
        if not args.quiet and sys.stderr.isatty():
            print(f"\rchecking clips {done}/{total} {message[:50]:50s}", end="", file=sys.stderr, flush=True)

    def prepare() -> str:
        return voice_run.prepare_dataset(plan, asr_check=not args.no_asr_check, split_long=args.split_long,
                                         progress=progress, speaker=args.speaker, keep_mismatched=args.keep_mismatched)

    par = Parallel(plan.config.device) if launched else None  # process 0 builds the dataset, the others wait for it
    report = prepare() if par is None else par.on_main(prepare, "building the dataset")
    if not args.quiet and sys.stderr.isatty():
        print(file=sys.stderr)
    if report:
        print(report)

    control = TrainControl()
    restore = stop_on_signals(control, launched)
    tty = sys.stderr.isatty()
    last_print, done_event = 0.0, None
    try:
        for ev in voice_run.train(plan, control):
            kind = type(ev).__name__
            if kind == "StepEvent":
                now = time.monotonic()
                if args.quiet or (not tty and now - last_print < 10 and ev.step != ev.total_steps):
                    continue
                last_print = now
                losses = " ".join(f"{k} {v:.3g}" for k, v in ev.losses.items())
                line = (f"step {ev.step}/{ev.total_steps}  {losses}  {ev.steps_per_s:.2f} steps/s  "
                        f"ETA {clock(ev.eta_s)}")
                print(("\r" + line[:150].ljust(150)) if tty else line, end="" if tty else "\n",
                      file=sys.stderr, flush=True)
            else:
                if tty and not args.quiet:
                    print(file=sys.stderr)
                if kind == "StageEvent":
                    print(f"[{ev.stage}] {ev.message}")
                elif kind == "EvalEvent":
                    mark = " (best)" if ev.best else ""
                    print(f"eval at step {ev.step}: validation mel loss {ev.val_mel_loss:.4f}{mark}")
                    if getattr(ev, "closeness_text", ""):
                        print(f"  how close: {ev.closeness_text}")
                    if ev.overtraining:
                        print(f"warning: {ev.overtraining}", file=sys.stderr)
                elif kind == "SampleEvent":
                    print("samples: " + ", ".join(str(p) for p in ev.paths))
                elif kind == "CheckpointEvent":
                    print(f"checkpoint ({ev.kind}) at step {ev.step}: {ev.path}")
                elif kind == "DoneEvent":
                    done_event = ev
    except KeyboardInterrupt:  # second Ctrl+C: the trainer saved latest.pt when its generator closed
        done_event = None
    finally:
        restore()
    if done_event is None or done_event.reason != "finished":
        if not (run_dir / "checkpoints" / "latest.pt").is_file():  # stopped while preparing or in the first steps
            if par is None or par.main:
                print("\nstopped before the first checkpoint; nothing to resume: run the same command again "
                      "(without --resume)", file=sys.stderr)
            return 130
        step = getattr(done_event, "step", None)
        q = shlex.quote
        again = (f"finetune voice --base {q(args.base)} --out {q(args.out)} --resume"
                 + (f" --run-dir {q(str(run_dir))}" if args.run_dir else ""))
        again = launch_command(shlex.split(again) + ["--multi-gpu"], par.world) if launched else "speechstudio " + again
        if par is None or par.main:
            where = f"at step {step} (checkpoint saved)" if step is not None else "(the last checkpoint is kept)"
            print(f"\nstopped {where}; continue with: {again}", file=sys.stderr)
        return 130
    if par is not None and not par.main:
        return 0  # process 0 saves the voice
    ref = voice_run.save_trained_voice(plan.run_dir, plan.name, plan.base, "best", plan.overwrite,
                                       match_pitch=True if getattr(args, "match_pitch", False) else None)
    freed = trim_finished(run_dir)  # the voice is saved: the run keeps its best checkpoint only
    if freed:
        print(f"run folder {run_dir}: kept the best checkpoint, freed {format_size(freed)} (the resume state and "
              "the feature cache)")
    note = pitch_note(ref)
    if note:
        print(note)
    print(f"voice {ref.name} saved ({ref.reason}); try: speechstudio speak \"Hello.\" --voice {ref.name} --out hello.wav")
    _print_trade(run_dir, "best", f"speechstudio finetune save --run {shlex.quote(str(run_dir))} --out NAME")
    return 0


def _print_trade(run_dir: Path, chosen: str | None, command: str) -> None:
    """The run's checkpoint table (``finetune.trade``) and how to save another; nothing for a run
    without the clone judge."""
    from speechstudio.finetune.trade import format_table, load_trade
    from speechstudio.finetune.vits.trained import load_checkpoint_state

    try:
        trade = load_trade(run_dir)
    except RunError:
        return
    if chosen == "best":
        state = load_checkpoint_state(run_dir, "best")
        chosen = state.get("checkpoint") or f"step_{int(state.get('step', 0))}"
    print("\nhow natural and how close each checkpoint is (your own recordings score about 0.9 similarity):")
    print(format_table(trade, chosen))
    print(f"another checkpoint or a blend with the base voice: {command} --checkpoint step_N [--blend 0.3]")


def save_command(args) -> int:
    """Handler of ``speechstudio finetune save``: the run's table; with ``--out`` the chosen checkpoint
    (or blend) saved as a voice. Returns 0."""
    from speechstudio.finetune import voice_run
    from speechstudio.finetune.blend import blend_name
    from speechstudio.finetune.trade import load_trade

    run_dir = Path(args.run).expanduser()
    if not (run_dir / "config.json").is_file():
        run_dir = voice_run.runs_dir() / args.run
    if not (run_dir / "checkpoints").is_dir():
        raise UsageError(f"--run {args.run}: no voice training run there (nor in {voice_run.runs_dir()})")
    which = args.checkpoint
    if which == "recommended":
        try:
            trade = load_trade(run_dir)
            rec = trade.recommended
        except RunError:
            rec = None
        which = "best" if rec is None else trade.rows[rec].checkpoint
    command = f"speechstudio finetune save --run {shlex.quote(args.run)} --out NAME"
    if not args.out:
        _print_trade(run_dir, None, command)
        return 0
    with voice_run.run_lock(run_dir):
        ref = voice_run.save_trained_voice(run_dir, args.out, voice_run.base_of_run(run_dir), which,
                                           overwrite=args.overwrite, match_pitch=True if args.match_pitch else None, blend=args.blend)
    label = which if args.blend is None else blend_name(args.blend, which)
    _print_trade(run_dir, label, command)
    print(f"voice {ref.name} saved from {label} ({ref.reason}); try: speechstudio speak \"Hello.\" --voice {ref.name}"
          " --out hello.wav")
    return 0

