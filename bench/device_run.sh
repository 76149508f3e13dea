#!/usr/bin/env bash
# Every GPU figure in one run on a lent CUDA machine (the `device` tool's `run`), logs under $OUT.
#
# That machine has torch + transformers but none of our audio packages and no network. Before the
# call, here (Python 3.12 wheels for it, both folders ignored via .git/info/exclude):
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform any -d .whl \
#     soundfile cffi pycparser soxr jiwer rapidfuzz platformdirs
#   python -c "import sys; sys.path.insert(0,'bench'); import _common, numpy as np; np.save('.devdata/speech16k.npy', _common.speech_16k())"
# then: run(command="bash bench/device_run.sh", carry=[".whl", ".devdata"], timeout_s=480).
# Parts are bounded by `timeout` so one failure or hang leaves time for the others (~7 min in all).
set -u
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 SPEECHSTUDIO_SPEECH_NPY="$PWD/.devdata/speech16k.npy"
OUT="${OUT:-/tmp/device_out}"; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH="/tmp/site:$PWD:$PWD/tests"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)"
echo "== VITS fine-tuning steps, Piper-medium-sized voice, batch 16 x 4 s clips"
timeout 120 python3 bench/bench_vits_train.py --model piper-medium --device cuda --batch 16 \
    --precision fp32 bf16 fp16 --checkpointing both --steps 5 --warm 2 2>&1 | tee "$OUT/vits_train.txt"
echo "== CTC fine-tuning steps, wav2vec2-base-sized, batch 8 x 10 s"
timeout 60 python3 -c "import gpu_train_check as g; g.ctc_train_check()" 2>&1 | tee "$OUT/ctc_train.txt"
echo "== transcription FP32/FP16, CUDA Graph streaming, TTS FP16"
timeout 120 python3 bench/gpu_check.py --seconds 60 2>&1 | tee "$OUT/gpu_check.txt"
echo "== CTC trainer on CUDA: precisions, FP16 resume, real OOM"
timeout 100 python3 bench/gpu_ctc_finetune_check.py "$OUT/ctcft" 2>&1 | tee "$OUT/ctc_finetune.txt"
