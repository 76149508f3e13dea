"""OpenMP waiting policy set before torch loads (speechstudio/runtime.py)."""
import os
import subprocess
import sys

from speechstudio.runtime import GOMP_SPIN_COUNT, configure_openmp


def test_sets_a_short_spin_count():
    env = {}
    assert configure_openmp(env) == f"GOMP_SPINCOUNT={GOMP_SPIN_COUNT}"
    assert env == {"GOMP_SPINCOUNT": "10000"}


def test_user_policy_wins():
    env = {"OMP_WAIT_POLICY": "PASSIVE"}
    assert configure_openmp(env) == "OMP_WAIT_POLICY=PASSIVE (user)"
    assert env == {"OMP_WAIT_POLICY": "PASSIVE"}
    env = {"GOMP_SPINCOUNT": "0"}
    assert configure_openmp(env) == "GOMP_SPINCOUNT=0 (user)" and env == {"GOMP_SPINCOUNT": "0"}


def test_cli_sets_it_before_torch_loads():
    """`speechstudio --help` path: main() runs configure_openmp before any torch import."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    code = ("import os, sys; from speechstudio.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('torch' in sys.modules, os.environ.get('GOMP_SPINCOUNT'), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.stderr.strip().splitlines()[-1] == "False 10000"
