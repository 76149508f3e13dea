"""``speechstudio finetune clean [--older-than DAYS] [--dry-run]``: list the run folders and remove
the old ones (:mod:`speechstudio.finetune.leftovers`). Saved voices and models are copies in their
own stores and stay; a run another process is training in is skipped."""
from __future__ import annotations

import time

from speechstudio.errors import UsageError

__all__ = ["add_parser", "clean_command"]


def add_parser(fsub) -> None:
    """Add ``clean`` to the ``finetune`` subparsers object."""
    cp = fsub.add_parser("clean", help="list training runs and remove old ones (saved voices and models stay)",
                         description="List the run folders under <data dir>/finetune/runs with their size, and remove "
                                     "those last changed more than DAYS days ago (all with --older-than 0).")
    cp.add_argument("--older-than", type=float, default=0.0, metavar="DAYS",
                    help="remove only runs last changed more than DAYS days ago (default 0: every run not in use)")
    cp.add_argument("--dry-run", action="store_true", help="only list what would be removed")
    cp.set_defaults(func=clean_command)


def clean_command(args) -> int:
    """Handler of ``finetune clean``. Returns 0."""
    from speechstudio.finetune.leftovers import format_size, list_runs, remove_run
    from speechstudio.finetune.voice_run import runs_dir

    if args.older_than < 0:
        raise UsageError(f"--older-than {args.older_than:g}: must be 0 or more days")
    runs = list_runs()
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
        if args.dry_run:
            print(f"  would go {line}")
            freed += run.size_bytes
            removed += 1
            continue
        freed += remove_run(run.path)
        removed += 1
        print(f"  removed  {line}")
    verb = "would free" if args.dry_run else "freed"
    print(f"{removed} of {len(runs)} run(s) {'would be ' if args.dry_run else ''}removed; {verb} {format_size(freed)} "
          f"in {runs_dir()}")
    return 0
