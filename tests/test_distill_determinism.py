"""The same bits on any machine for the distillation control (lmnotes.core.numerics, chapter 06): a
toy teacher L trained, sampled, read as soft targets (lmnotes.studies.distortion.language.teacher_targets: the
padded batched forward pass, log_softmax at T, exp, float16) and a learner trained on those
targets through the real path (language.learn(distill=True) -> trained.on_ids -> train with
soft_targets) give exactly the same teacher weights, samples, float16 targets and learner
weights under another thread count and CPU capability, settings that the pinning overrides;
the learner trained on the sampled tokens is the control of the ordinary path. With the
pinning turned off the same settings change the targets and the distilled weights."""

import json
import os
import subprocess
import sys

import pytest

from lmnotes.core import numerics
from lmnotes.core.io import ROOT

pytestmark = pytest.mark.skipif(not numerics._has_avx2(), reason="the pinning applies to x86 CPUs with AVX2")

SCRIPT = r"""
import hashlib, json, random
import lmnotes.models, torch
from lmnotes.studies.distortion import language as LG
from lmnotes.text import segment as seglib
from lmnotes.models.neural import NeuralLM
from lmnotes.models.train import TrainConfig, train

def digest(t):
    return hashlib.sha256(t.contiguous().view(-1).numpy().tobytes()).hexdigest()

def weights(lm):
    return digest(torch.cat([v.reshape(-1) for _, v in sorted(lm.net.state_dict().items())]))

rnd = random.Random(0)
words = "the a cat dog sat on mat ran to house of big small red green and with under over".split()
sentence = lambda: " ".join(rnd.choice(words) for _ in range(rnd.randint(2, 7))) + "."
texts, valid = [sentence() for _ in range(400)], [sentence() for _ in range(40)]
seg = seglib.train("bpe", texts, vocab_size=300)
torch.manual_seed(0)
L = NeuralLM(seg, "transformer", "toy-L", d_model=32, n_layers=2, n_heads=2, context=64, dropout=0.0)
train(L, texts, valid, TrainConfig(block=32, batch_size=8, lr=3e-3, warmup=5, max_steps=40, eval_every=0,
                                   max_epochs=10), progress=False)
L.cache_key = "toy-L"
lang = LG.Language(L, 0.85, max_tokens=32)
s = lang.sample(120, seed=0)
tr, va = s.take(0, len(s) - 10), s.take(len(s) - 10, len(s))
q = LG.teacher_targets(lang, tr.ids)
config = TrainConfig(block=32, batch_size=4, lr=3e-3, warmup=5, precision="float32")
soft = LG.learn(lang, "tf-tiny", tr, va, 2, config, distill=True, progress=False)
hard = LG.learn(lang, "tf-tiny", tr, va, 2, config, progress=False)
print(json.dumps({"capability": torch.backends.cpu.get_cpu_capability(), "threads": torch.get_num_threads(),
                  "teacher": weights(L), "samples": [list(x) for x in s.ids], "targets": digest(q.view(torch.int16)),
                  "n_targets": list(q.shape), "distilled": weights(soft), "sampled": weights(hard)}))
"""


def run(cache, **env):
    full = {
        k: v
        for k, v in os.environ.items()
        if k not in numerics.PINNED and k not in ("LMNOTES_NATIVE_CPU", "LMNOTES_THREADS")
    }
    # a cache of its own: nothing is loaded from another run. Idle OpenMP threads sleep instead of
    # spinning (how they wait, never what they compute; the same bits were checked both ways): on a
    # busy 2-core machine a spinning thread made a run take 44 s instead of 6 s.
    full.update(env, LMNOTES_CACHE=str(cache), OMP_WAIT_POLICY="PASSIVE")
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=full, cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_distillation_gives_the_same_bits_under_another_thread_count_and_capability(tmp_path):
    here = run(tmp_path / "here")
    assert (here["capability"], here["threads"]) == ("AVX2", 2)
    assert here["n_targets"][0] > 500 and len(here["samples"]) > 50  # the toy is not degenerate
    foreign = [
        run(
            tmp_path / "foreign-default",
            ATEN_CPU_CAPABILITY="default",
            OMP_NUM_THREADS="1",
            MKL_NUM_THREADS="1",
            OPENBLAS_NUM_THREADS="1",
            MKL_CBWR="AUTO",
        ),
        run(
            tmp_path / "foreign-avx512",
            ATEN_CPU_CAPABILITY="avx512",
            OMP_NUM_THREADS="3",
            MKL_NUM_THREADS="3",
            MKL_CBWR="AVX512",
            ONEDNN_MAX_CPU_ISA="AVX512_CORE",
        ),
    ]
    for other in foreign:
        for key in ("capability", "threads", "teacher", "samples", "targets", "distilled", "sampled"):
            assert other[key] == here[key], key  # the first key that differs names the stage
    # the control: without the pinning the same kind of settings change the targets and the distilled
    # weights (the sampled ids, and so the inputs of the ordinary learner, usually survive)
    native = run(
        tmp_path / "native", LMNOTES_NATIVE_CPU="1", ATEN_CPU_CAPABILITY="default", OMP_NUM_THREADS="1"
    )
    assert (native["capability"], native["threads"]) == ("DEFAULT", 1)
    assert native["teacher"] != here["teacher"]
    assert native["targets"] != here["targets"] and native["distilled"] != here["distilled"]
