"""Command line ``speechstudio transcribe|models|speak|voices|dictate|gui ...``: parse, call what the GUI
calls, print. User errors print one line (``--debug``: the traceback). Exit: 0, 1 some inputs failed, 2
usage, 130 interrupted."""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import threading

from speechstudio import __version__
from speechstudio.cli_args import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE
from speechstudio.errors import ERROR_KIND_ENV, ERROR_KIND_LINE, SpeechStudioError, UsageError
from speechstudio.runtime import configure_openmp, restart_with_huge_pages

# Subcommands by module, each with ``register(subparsers)`` for the commands named here (``transcribe``
# first); a command line naming one loads only its module (a cold ``transcribe`` imports no other layer).
_PLUGINS = {"speechstudio.batch.cli": ("transcribe",), "speechstudio.hub.cli": ("models",),
            "speechstudio.tts.cli": ("speak", "voices", "lexicon", "audiobook"), "speechstudio.dictation.cli": ("dictate",),
            "speechstudio.gui.cli": ("gui",), "speechstudio.finetune.cli": ("finetune",),
            "speechstudio.doctor.cli": ("doctor",), "speechstudio.diarize.cli": ("speakers",)}


class _Formatter(argparse.HelpFormatter):
    """argparse's help, but a description or epilog keeps its line breaks (each line wrapped on its own), so
    the examples stay one per line; a line that starts with two spaces stays indented."""

    def _fill_text(self, text, width, indent):
        import textwrap

        lines = []
        for line in text.splitlines():
            pad = indent + "  " if line.startswith("  ") else indent
            lines.append(textwrap.fill(" ".join(line.split()), width, initial_indent=pad,
                                       subsequent_indent=pad + "    " if pad != indent else pad))
        return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # usage errors: exit 2 with one line, like argparse
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``command`` one of the subcommands, only that one's module
    is imported and registered (any other word, or None: all of them, for help and file paths)."""
    parser = _Parser(prog="speechstudio", description="Offline speech: transcribe, dictate, speak.")
    parser.add_argument("--version", action="version", version=f"speechstudio {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    unavailable = []
    for name in [m for m, commands in _PLUGINS.items() if command in commands] or list(_PLUGINS):
        try:
            mod = importlib.import_module(name)
        except ImportError as e:
            missing = getattr(e, "name", None) or ""
            if not missing or missing.split(".")[0] == "speechstudio":
                raise          # our own code broken: never let a subcommand vanish silently
            logging.getLogger(__name__).debug("subcommands of %s unavailable: %s", name, e)
            unavailable.append(f"{name.split('.')[1]} (needs the {missing.split('.')[0]} package)")
            continue
        mod.register(sub)
    if unavailable:
        parser.epilog = "unavailable here: " + ", ".join(unavailable)
    return parser


def _interrupt(signum, frame):
    """SIGTERM as Ctrl+C: the running command's cleanup (temporary ``.part`` files, the batch's state) runs."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); returns the exit status. Ctrl+C (or SIGTERM) at
    any moment, the imports of the start included, ends it with one line and status 130, never a traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _main(argv: list[str] | None) -> int:
    # Before torch loads: OpenMP workers spin briefly, then sleep (see speechstudio/runtime.py).
    configure_openmp()
    if argv is None and sys.argv[1:2] == ["transcribe"]:     # this process is the command: malloc in huge pages
        restart_with_huge_pages()
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(next((a for a in argv if not a.startswith("-")), None))
    commands = {c for names in _PLUGINS.values() for c in names}
    if argv and not argv[0].startswith("-") and argv[0] not in commands and os.path.exists(argv[0]):
        argv = ["gui"] + argv        # `speechstudio talk.mp3` (a file manager's "Open with"): the app, file queued
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        if args.command is None:
            try:
                gui = getattr(importlib.import_module("speechstudio.gui.cli"), "run_gui", None)
            except ImportError:
                gui = None
            if gui is not None:
                return gui(args)
        parser.print_help()
        return EXIT_USAGE
    catch_term = args.command != "gui" and threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, _interrupt) if catch_term else None   # `kill`: cleaned up as Ctrl+C
    try:
        return int(args.func(args) or 0)
    except UsageError as e:
        print(f"speechstudio: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except SpeechStudioError as e:
        if args.debug:
            raise
        print(f"speechstudio: error: {e}", file=sys.stderr)
        if os.environ.get(ERROR_KIND_ENV):  # a parent process (the app's download job) reads the kind
            print(f"{ERROR_KIND_LINE}{e.kind}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as e:
        if args.debug:
            raise
        print(f"speechstudio: unexpected error: {type(e).__name__}: {e} (rerun with --debug for details)",
              file=sys.stderr)
        return EXIT_FAILED
    finally:
        if catch_term:
            signal.signal(signal.SIGTERM, before if before is not None else signal.SIG_DFL)


if __name__ == "__main__":
    raise SystemExit(main())
