"""What the vendor-independent arithmetic costs (lmnotes.core.numerics, lmnotes.core.kernels): one
training step of each `cpu`-size model and SmolLM2-135M's scoring, under the book's arithmetic and
under MKL's own pinning (MKL's AVX2 branch, which holds on Intel CPUs only, oneDNN, MKL's vector
math), in alternating processes within one run, so that the ratios compare like with like.

    .venv/bin/python bench/arithmetic_speed.py [--rounds 3] [--steps 6]

A process measures one setting: it imports lmnotes with that setting's environment, builds the
model (random weights; a training step's cost does not depend on them), runs two warm-up steps and
times ``--steps`` more. It prints each setting's median milliseconds per step over the rounds and
the ratio new / old. SmolLM2's weights come from the shared cache (``make book`` converts them).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: MKL's own pinning, as the environment of a process with the pinning off.
OLD = {
    "LMNOTES_NATIVE_CPU": "1",
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_CBWR": "AVX2,STRICT",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "OPENBLAS_CORETYPE": "Haswell",
    "OMP_NUM_THREADS": "2",
    "MKL_NUM_THREADS": "2",
    "OPENBLAS_NUM_THREADS": "2",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR",
}

#: The `cpu`-size models of the book (lmnotes.models.trained.SIZES) by segmentation: the vocabulary
#: sizes of the embedded corpus's segmenters (BPE targets, bytes, the closed word vocabulary).
MODELS = {
    "transformer-bpe8k": ("transformer", 8000),
    "transformer-bpe1k": ("transformer", 1000),
    "transformer-byte": ("transformer", 259),
    "transformer-word": ("transformer", 15650),
    "lstm-bpe8k": ("lstm", 8000),
}

CHILD = r"""
import json, sys, time
import lmnotes, torch
import lmnotes.models
from lmnotes.models import trained
from lmnotes.models.train import cross_entropy
from lmnotes.models.neural import ARCHITECTURES
what, steps = sys.argv[1], int(sys.argv[2])
if what == "smollm2-scoring":
    from lmnotes.models import load
    from lmnotes.text import corpus
    if lmnotes.core.numerics.native():
        torch.use_deterministic_algorithms(True, warn_only=True)
    lm = load("smollm2-135m")
    texts = corpus.load()["test"].sentences[:32]
    lm.score(texts[:4])
    t = time.perf_counter()
    for _ in range(max(1, steps // 3)):
        lm.score(texts)
    print(json.dumps({"ms": (time.perf_counter() - t) / max(1, steps // 3) * 1e3}))
    sys.exit()
arch, vocab = json.loads(sys.argv[3])
size = trained.SIZES["cpu"]
cfg = size["train"]
torch.manual_seed(0)
net = ARCHITECTURES[arch](vocab, **size[arch])
opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
x = torch.randint(0, vocab, (cfg.batch_size, cfg.block + 1), generator=torch.Generator().manual_seed(0))
def step():
    net.train()
    h, _ = net.hidden(x[:, :-1])
    loss = cross_entropy(net.head(h), x[:, 1:])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.clip)
    opt.step()
step(); step()
t = time.perf_counter()
for _ in range(steps):
    step()
print(json.dumps({"ms": (time.perf_counter() - t) / steps * 1e3}))
"""


def measure(what: str, setting: str, steps: int) -> float:
    env = {k: v for k, v in os.environ.items() if k != "LMNOTES_NATIVE_CPU"}
    if setting == "old":
        env.update(OLD)
    spec = json.dumps(MODELS.get(what, ["", 0]))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, what, str(steps), spec],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])["ms"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--only", nargs="*", default=None, help="a subset of the measurements")
    args = ap.parse_args()
    whats = args.only or [*MODELS, "smollm2-scoring"]
    times = {(w, s): [] for w in whats for s in ("old", "new")}
    for r in range(args.rounds):
        for w in whats:
            for s in ("old", "new") if r % 2 == 0 else ("new", "old"):  # alternate which goes first
                times[w, s].append(measure(w, s, args.steps))
    cpu = next(
        (line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
        platform.processor(),
    )
    print(f"{cpu}, {os.cpu_count()} cores; median of {args.rounds} rounds, old and new alternating")
    print("| measurement | MKL's pinning (ms) | book's arithmetic (ms) | ratio new / old |")
    print("| --- | --- | --- | --- |")
    for w in whats:
        old, new = statistics.median(times[w, "old"]), statistics.median(times[w, "new"])
        label = f"one training step, `cpu` {w}" if w in MODELS else "SmolLM2-135M, scoring 32 test sentences"
        print(f"| {label} | {old:,.0f} | {new:,.0f} | {new / old:.2f} |")


if __name__ == "__main__":
    main()
