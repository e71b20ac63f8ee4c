"""The same bits on any machine (lmnotes.core.numerics): a model trained, scored and sampled under
another thread count and CPU capability, settings that mimic another CPU, gives exactly the
same weights, scores and samples; with the pinning turned off the same settings change them."""

import json
import os
import subprocess
import sys

import pytest

from lmnotes.core import numerics
from lmnotes.core.io import ROOT

pytestmark = pytest.mark.skipif(not numerics._has_avx2(), reason="the pinning applies to x86 CPUs with AVX2")

SCRIPT = r"""
import hashlib, json, sys
import lmnotes.models, torch
from lmnotes.text import corpus
from lmnotes.models import trained
from lmnotes.models.train import TrainConfig
trained.SIZES["tiny"] = {"transformer": dict(d_model=64, n_layers=2, n_heads=2, context=64, dropout=0.0),
                         "train": TrainConfig(block=64, batch_size=16, lr=3e-3, max_steps=8, eval_every=4)}
d = corpus.load()
lm = trained.build(trained.Recipe("transformer", "bpe", 600), d["train"].sentences[:1500],
                   d["valid"].sentences[:100], name="numerics-test", size="tiny", cache=False)
h = hashlib.sha256()
for k, v in sorted(lm.net.state_dict().items()):
    h.update(v.numpy().tobytes())
scores = lm.score(d["test"].sentences[:50]).logprob
samples = lm.sample(16, "nucleus", top_p=0.9, max_tokens=30, seed=1)
print(json.dumps({"capability": torch.backends.cpu.get_cpu_capability(), "threads": torch.get_num_threads(),
                  "weights": h.hexdigest(), "scores": hashlib.sha256(scores.tobytes()).hexdigest(),
                  "samples": samples.texts}))
"""


def run(**env):
    full = {k: v for k, v in os.environ.items() if k not in numerics.PINNED and k != "LMNOTES_NATIVE_CPU"}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=full, cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_another_thread_count_and_capability_give_the_same_bits():
    here = run()
    foreign = run(ATEN_CPU_CAPABILITY="default", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MKL_CBWR="AUTO")
    assert (here["capability"], here["threads"]) == (foreign["capability"], foreign["threads"]) == ("AVX2", 2)
    assert here == foreign
    # the control: without the pinning the same settings change the weights, scores and samples
    native = run(LMNOTES_NATIVE_CPU="1", ATEN_CPU_CAPABILITY="avx2")
    native_foreign = run(LMNOTES_NATIVE_CPU="1", ATEN_CPU_CAPABILITY="default", OMP_NUM_THREADS="1")
    assert native_foreign["capability"] == "DEFAULT" and native_foreign["threads"] == 1
    assert native["weights"] != native_foreign["weights"] and native["scores"] != native_foreign["scores"]
