import sys

try:
    from speechstudio.cli import main
except KeyboardInterrupt:          # Ctrl+C while the command line's own modules load
    print("interrupted", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
