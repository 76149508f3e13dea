"""``bench/device_run.sh`` says pass / fail per check and fails as a whole when one check fails.

Run on the CPU with ``--skip-install`` (no venv is built) and ``--only-check CMD`` (the single check
is ``bash -c CMD``), so the script's own bookkeeping is what is tested: a failing check of each
kind (non-zero exit, a failed Python ``assert``, a failed pytest test) makes it exit 1 and print
``FAIL  only-check (exit N)``; a passing one exits 0 with ``PASS``. Logs go to ``$OUT``.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "device_run.sh"
PY = sys.executable

CASES = [  # (check command, script exit status, summary line)
    ("exit 3", 1, "FAIL  only-check (exit 3)"),
    (f"{PY} -c 'assert 1 + 1 == 3, \"a broken promise\"'", 1, "FAIL  only-check (exit 1)"),
    (f"{PY} -m pytest -q -p no:cacheprovider {{failing}}", 1, "FAIL  only-check (exit 1)"),
    (f"{PY} -c 'print(2 + 2)'", 0, "PASS  only-check"),
]


@pytest.mark.parametrize("command, status, line", CASES, ids=["exit-3", "python-assert", "pytest-failure", "passing"])
def test_device_run_fails_when_a_check_fails(command, status, line, tmp_path):
    failing = tmp_path / "test_fake_gpu_promise.py"
    failing.write_text("def test_graph_equals_eager():\n    assert 0.5 == 0.0\n")
    out = tmp_path / "out"
    proc = subprocess.run(["bash", str(SCRIPT), "--skip-install", "--only-check", command.format(failing=failing)],
                          capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "OUT": str(out),
                                                                            "HOME": str(tmp_path)})
    assert proc.returncode == status, proc.stdout + proc.stderr
    summary = proc.stdout.split("== summary\n", 1)[1].splitlines()
    assert summary == [line]
    assert (out / "only-check.log").is_file()


def test_device_run_refuses_an_unknown_option(tmp_path):
    proc = subprocess.run(["bash", str(SCRIPT), "--skip-install", "--fast"], capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "OUT": str(tmp_path)})
    assert proc.returncode == 2
    assert proc.stderr.strip() == "device_run.sh: unknown option --fast (see --help)"
