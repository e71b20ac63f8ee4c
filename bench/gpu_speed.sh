#!/usr/bin/env bash
# The speed benchmarks of sampling and scoring on the accelerator machine (bench/README.md),
# run there in a copy of the working tree; logs and JSON go to $OUT, the folder that comes back.
#   WHEELS=.whl bench/gpu_speed.sh random            # random-weight models, sampler in bfloat16: no files needed
#   WHEELS=.whl bench/gpu_speed.sh float32           # the sampler's layers in float32 (the chapters' default)
#   WHEELS=.whl bench/gpu_speed.sh FILE.gguf         # a GGUF model (SmolLM2), e.g. joined from pieces
#   WHEELS=.whl bench/gpu_speed.sh buckets           # the CUDA unit tests, then the random models' speeds
#   WHEELS=.whl bench/gpu_speed.sh step              # the CUDA unit tests, a profile of one decoding step,
#                                                    # and the step fused by torch.compile (an experiment)
# WHEELS holds the wheels the machine's image lacks for these scripts: pysbd and sacremoses
# (imported by lmnotes.text), and gguf for a .gguf model. Each script runs under a time limit,
# so that one that hangs (torch.compile) leaves the others' results.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder whose files come back}"
if [ ! -f /tmp/site/.lmnotes-bench ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "${WHEELS:-.whl}"/*.whl &&
    touch /tmp/site/.lmnotes-bench
fi
export PYTHONPATH="$PWD:/tmp/site" PYTHONUNBUFFERED=1 LMNOTES_CACHE="${LMNOTES_CACHE:-/tmp/lmnotes-cache}"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv | tee -a "$OUT/card.txt"
run() {  # run LOG SECONDS SCRIPT ARGS...
  local log=$1 limit=$2
  shift 2
  timeout "$limit" python3 "$@" 2>&1 | tee -a "$OUT/$log.log"
}
what=${1:-random}
if [ "$what" = random ]; then
  run sample 240 bench/sample_speed.py --device cuda --model random-gpu random --batch 256 1024 --compile 256 \
    --layers bfloat16 --json "$OUT/sample_random.json"
  run sample 150 bench/sample_speed.py --device cuda --model random-smollm2 --batch 64 256 --max-tokens 64 --compile 256 --layers bfloat16 \
    --json "$OUT/sample_random_smollm2.json"
  run score 90 bench/score_speed.py --device cuda --model random-gpu random-smollm2 --json "$OUT/score_random.json"
elif [ "$what" = buckets ]; then  # the CUDA unit tests, then random-weight models with bucketed attention
  timeout 120 python3 -m pytest -q --noconftest -o addopts="" -p no:cacheprovider tests/test_graphsample.py 2>&1 |
    tee -a "$OUT/tests.log"
  run sample 200 bench/sample_speed.py --device cuda --model random-gpu --batch 256 1024 --compile 256 \
    --layers bfloat16 --json "$OUT/sample_random_gpu.json"
  run sample 100 bench/sample_speed.py --device cuda --model random --batch 256 1024 --layers bfloat16 \
    --json "$OUT/sample_random.json"
  run sample 110 bench/sample_speed.py --device cuda --model random-smollm2 --batch 256 --max-tokens 64 \
    --layers bfloat16 --json "$OUT/sample_random_smollm2.json"
elif [ "$what" = step ]; then
  timeout 150 python3 -m pytest -q --noconftest -o addopts="" -p no:cacheprovider tests/test_graphsample.py 2>&1 |
    tee -a "$OUT/tests.log"
  run profile 220 bench/step_profile.py --model random-gpu --batch 256 1024 --layers bfloat16 \
    --json "$OUT/step_profile.json"
  run sample 220 bench/sample_speed.py --device cuda --model random-gpu --batch 256 1024 --layers bfloat16 \
    --compile-step --json "$OUT/sample_compiled_step.json"
elif [ "$what" = float32 ]; then  # the sampler's layers in float32 (the chapters' default) beside bfloat16
  run sample 150 bench/sample_speed.py --device cuda --model random-gpu --batch 256 1024 --json "$OUT/sample_f32.json"
  run sample 90 bench/sample_speed.py --device cuda --model random-smollm2 --batch 256 --max-tokens 64 \
    --json "$OUT/sample_f32_smollm2.json"
  run sample 90 bench/sample_speed.py --device cuda --model random-gpu --batch 256 --layers bfloat16 \
    --json "$OUT/sample_bf16.json"
else
  run sample 180 bench/sample_speed.py --device cuda --model "$what" --batch 64 256 --max-tokens 64 --layers bfloat16 \
    --json "$OUT/sample_gguf.json"
  run score 90 bench/score_speed.py --device cuda --model "$what" --n 2048 --json "$OUT/score_gguf.json"
fi
