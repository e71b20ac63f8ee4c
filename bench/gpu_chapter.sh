#!/usr/bin/env bash
# One step of the GPU edition, run on the accelerator machine in a copy of the working tree
# (bench/gpu_edition.py explains the plan): install the carried wheels (.whl/) once per machine,
# execute the named chapters at the gpu profile into book/gpu/, and copy each page and its
# claims to $OUT, the folder that comes back. LMNOTES_COMMIT names the commit the tree is
# (the copy has no git folder); the shared cache stays on the machine's disk while it is warm.
#   LMNOTES_COMMIT=$(git rev-parse --short=12 HEAD) bench/gpu_chapter.sh 00_corpus
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder whose files come back}"
if [ ! -f /tmp/site/.lmnotes-wheels ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  touch /tmp/site/.lmnotes-wheels
fi
export PYTHONPATH="$PWD:/tmp/site" PYTHONUNBUFFERED=1 LMNOTES_CACHE="${LMNOTES_CACHE:-/root/lmnotes-cache}"
python3 -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"; print("device:", torch.cuda.get_device_name(0))'
status=0
mkdir -p "$OUT/claims"
for name in "$@"; do  # one run per chapter: a run writes all of its pages or none (lmnotes.book.staging)
  python3 -m lmnotes.book run "$name" --profile gpu || { status=$?; break; }
  cp "book/gpu/$name.ipynb" "$OUT/"
  cp book/gpu/claims/"$name".*csv "$OUT/claims/" 2>/dev/null || true
done
python3 -m lmnotes.book timings > "$OUT/timings.txt" 2>&1 || true
exit $status
