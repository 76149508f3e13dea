"""``speechstudio doctor [--json] [--offline]``: print the setup checks; exit 1 when one fails."""
from __future__ import annotations

from speechstudio import __version__
from speechstudio.doctor import run_checks
from speechstudio.doctor.report import failed, to_json, to_text


def register(subparsers) -> None:
    p = subparsers.add_parser("doctor", help="check this computer's setup and say how to fix problems",
                              description="Check Python, PyTorch vs the NVIDIA driver, sound, the window's "
                                          "libraries, models, voices, folders and the network. Exit 0 when "
                                          "nothing fails, 1 otherwise.")
    p.add_argument("--json", action="store_true", help="print the report as JSON (schema 1)")
    p.add_argument("--offline", action="store_true", help="skip the network check (also when HF_HUB_OFFLINE=1)")
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args) -> int:
    checks = run_checks(network=not args.offline)
    print(to_json(checks, __version__) if args.json else to_text(checks, __version__))
    return 1 if failed(checks) else 0
