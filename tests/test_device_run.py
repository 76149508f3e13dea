"""The GPU scripts fail when a check fails: ``bench/device_run.sh`` (pass / fail per check, exit 1
when one fails), ``bench/gpu_check.py`` (exit 1) and ``bench_streaming.graph_failures`` (what breaks
"CUDA Graph replay = eager FP16").

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


# ------------------------------------------------------------------ bench/gpu_check.py, bench_streaming
def _bench(name: str):
    """Import ``bench/<name>.py``; the OpenMP variable its ``_common`` sets is put back as it was."""
    import importlib
    import os

    before = os.environ.get("GOMP_SPINCOUNT")
    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    try:
        return importlib.import_module(name)
    finally:
        if before is None:
            os.environ.pop("GOMP_SPINCOUNT", None)
        else:
            os.environ["GOMP_SPINCOUNT"] = before


def test_gpu_check_exits_1_when_a_check_fails(monkeypatch, capsys):
    """Without CUDA, ``--quick`` runs the CPU smoke checks; one that raises makes the exit status 1."""
    gpu_check = _bench("gpu_check")

    def broken(*args, **kwargs):
        raise AssertionError("graph differs from eager")

    monkeypatch.setattr(gpu_check, "transcription_check", broken)
    monkeypatch.setattr(_bench("gpu_train_check"), "ctc_train_check", lambda **kw: {})
    assert gpu_check.main(["--quick"]) == 1
    out = capsys.readouterr().out
    assert "FAILED (1):\n  asr: AssertionError: graph differs from eager" in out
    monkeypatch.setattr(gpu_check, "transcription_check", lambda *a, **kw: [])
    assert gpu_check.main(["--quick"]) == 0
    assert capsys.readouterr().out.endswith("all checks passed\n")


_OK = {"p50_ms": 1.0}
GRAPH_CASES = [  # (gpu_streaming_check results, failures)
    ({"base": {"eager-fp32": _OK, "eager-fp16": _OK, "graph-fp16": _OK, "max_abs_diff": 0.0}}, []),
    ({"base": {"eager-fp32": _OK, "eager-fp16": _OK, "graph-fp16": _OK, "max_abs_diff": 0.00049}},
     ["base: graph vs eager FP16 max |logit diff| 0.00049 (must be 0)"]),
    ({"large": {"eager-fp32": _OK, "eager-fp16": _OK, "graph-fp16": None}}, ["large: graph-fp16 did not run"]),
    ({"end_to_end": {"max_abs_diff": 0.0, "same_text": False, "graph_runner": "cuda-graph"}},
     ["end to end: max |logit diff| 0, same text False"]),
    ({"end_to_end": {"max_abs_diff": 0.0, "same_text": True, "graph_runner": "eager"}},
     ["end to end: the stream ran on the eager runner, not the CUDA Graph"]),
]


@pytest.mark.parametrize("results, failures", GRAPH_CASES, ids=["equal", "logits-differ", "no-capture", "text-differs",
                                                                "fell-back-to-eager"])
def test_graph_failures_name_every_broken_promise(results, failures):
    assert _bench("bench_streaming").graph_failures(results) == failures
