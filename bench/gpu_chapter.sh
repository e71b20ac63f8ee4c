#!/usr/bin/env bash
# One step of the GPU edition, run on the accelerator machine in a copy of the working tree
# (bench/gpu_edition.py explains the plan). With --receive CALL, first take that call's pieces
# (bench/gpu_edition.py prepare laid them out) into the store under /tmp and join the files
# they complete, checked by SHA-256 (bench/gpu_transfer.py); with no chapter named it stops
# there. Then install what the store holds (its wheels; WordNet), execute the named chapters at
# the gpu profile into book/gpu/, and copy each page and its claims to $OUT, the folder that
# comes back. LMNOTES_COMMIT names the commit the tree is (the copy has no git folder); the
# store and the shared cache stay on the machine's disk while it is warm.
#   bench/gpu_chapter.sh --receive .gpu/calls/06_distortion/1
#   LMNOTES_COMMIT=$(git rev-parse --short=12 HEAD) bench/gpu_chapter.sh --receive .gpu/calls/06_distortion/3 06_distortion
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder whose files come back}"
STORE=${LMNOTES_TRANSFER:-/tmp/lmnotes-transfer}
SITE=${LMNOTES_SITE:-/tmp/site}
if [ "${1:-}" = "--receive" ]; then
  rc=0; python3 bench/gpu_transfer.py join "$2" --store "$STORE" || rc=$?
  shift 2
  # 0: every file whole; 3: pieces still to come (fine before the last call); else damaged
  if [ "$rc" != 0 ] && { [ "$rc" != 3 ] || [ $# -gt 0 ]; }; then
    echo "the transfer is incomplete or damaged: carry the calls in order, back to back" >&2; exit 1
  fi
fi
[ $# -gt 0 ] || exit 0
mkdir -p "$SITE"
new=()
for whl in "$STORE"/files/*.whl; do  # each wheel once per machine: a later chapter may bring more
  [ -e "$whl" ] || continue
  grep -qxF "$(basename "$whl")" "$SITE/.lmnotes-installed" 2>/dev/null || new+=("$whl")
done
if [ ${#new[@]} -gt 0 ]; then  # in one call: pip --target skips folders (bin/, share/) that exist
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" "${new[@]}"
  for whl in "${new[@]}"; do basename "$whl" >> "$SITE/.lmnotes-installed"; done
fi
if [ -f "$STORE/files/wordnet.tar.gz" ] && [ ! -f /tmp/wordnet/data.noun ]; then
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall("/tmp", filter="data")' "$STORE/files/wordnet.tar.gz"
fi
export LMNOTES_WORDNET=/tmp/wordnet
export PYTHONPATH="$PWD:$SITE" PYTHONUNBUFFERED=1 LMNOTES_CACHE="${LMNOTES_CACHE:-/root/lmnotes-cache}"
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
