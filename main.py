"""Entry point for `python main.py` and PyInstaller: same as the `speechstudio` command."""
from speechstudio.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
