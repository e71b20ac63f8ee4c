"""The same bits on every x86-64 CPU with AVX2 and FMA (lmnotes.core.numerics, lmnotes.core.kernels):
every kind of computation the book makes (tests/same_bits.py: a Transformer and an LSTM trained,
scored and sampled, a Kneser-Ney trigram, word2vec, MiniLM, SmolLM2's scores and samples, the
elementwise functions and products) gives the same bits natively, on one core and under settings
that would pick other kernels; and under qemu-user emulating a CPU of the other vendor (an AMD
EPYC-Rome on an Intel machine, an Intel Skylake-Client on an AMD one: its own vendor and features,
IEEE-exact arithmetic), every stage with SmolLM2 and MiniLM at a tiny size, and the functions and
the Transformer emulating the other CPU. The control: with MKL's own reproducibility setting alone
(its AVX2 branch, which holds on Intel CPUs only), oneDNN and MKL's vector math, the emulated CPU
of the other vendor trains other weights than this machine.
"""

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from lmnotes.core import numerics
from lmnotes.core.io import ROOT

SCRIPT = str(ROOT / "tests" / "same_bits.py")
STAGES = ["functions", "transformer", "lstm", "ngram", "word2vec", "minilm", "smollm2", "llama", "bert"]
#: What the emulated CPU of the other vendor runs: every stage, SmolLM2 and MiniLM at a tiny size
#: (llama, bert: the same code; the real ones take many minutes under emulation); the emulated CPU
#: of this machine's own vendor runs the first two.
EMULATED = ["functions", "transformer", "lstm", "ngram", "word2vec", "llama", "bert"]
#: What every emulated CPU must agree on with this one; qemu-user 7.2 emulates AVX2 and FMA, not AVX-512.
CPUS = ["EPYC-Rome", "Skylake-Client"]
#: The control: MKL's AVX2 branch (reproducible on Intel CPUs only), oneDNN, MKL's vector math.
MKL_PINNING = {
    "LMNOTES_NATIVE_CPU": "1",
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_CBWR": "AVX2,STRICT",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "OPENBLAS_CORETYPE": "Haswell",
    "OMP_NUM_THREADS": "2",
    "MKL_NUM_THREADS": "2",
    "OPENBLAS_NUM_THREADS": "2",
}
QEMU = shutil.which("qemu-x86_64")

pytestmark = [
    pytest.mark.skipif(not numerics.in_family(), reason=numerics.outside_family_reason() or ""),
    pytest.mark.shared_cache,  # reads the corpus and SmolLM2's weights from the shared cache
]


def run(stages, cpu=None, taskset=False, **env):
    """tests/same_bits.py's hashes, natively or under ``qemu-x86_64 -cpu CPU``."""
    full = {k: v for k, v in os.environ.items() if k not in numerics.PINNED and k != "LMNOTES_NATIVE_CPU"}
    full.update(env)
    command = [sys.executable, SCRIPT, *stages]
    if cpu:
        command = [QEMU, "-cpu", cpu, *command]
    if taskset:
        command = ["taskset", "-c", "0", *command]
    out = subprocess.run(command, env=full, cwd=ROOT, capture_output=True, text=True, timeout=1500)
    errors = "\n".join(line for line in out.stderr.splitlines() if "TCG doesn't support" not in line)
    assert out.returncode == 0, f"{' '.join(command[:4])} failed:\n{errors[-3000:]}"
    return json.loads(out.stdout.strip().splitlines()[-1])


def vendor() -> str:
    with open("/proc/cpuinfo") as fh:
        return next((line.split(":", 1)[1].strip() for line in fh if line.startswith("vendor_id")), "")


def differing(a: dict, b: dict) -> list[str]:
    """The stages of ``b`` whose hashes differ from ``a``'s."""
    return [k for k in b if a.get(k) != b[k]]


@pytest.fixture(scope="module")
def here():
    run(["prepare"])  # the corpus and SmolLM2's dequantised weights, into the cache, natively
    return run(STAGES)


def test_another_core_count_and_settings_give_the_same_bits(here):
    assert (here["capability"], here["threads"]) == ("AVX2", numerics.THREADS)
    assert {k.split("/")[0] for k in here if "/" in k} == set(STAGES)  # every stage hashed
    # one core (OpenBLAS then runs one thread) and settings that would pick other kernels
    assert differing(here, run(STAGES, taskset=shutil.which("taskset") is not None)) == []
    assert (
        differing(
            here,
            run(
                ["functions", "transformer"],
                ATEN_CPU_CAPABILITY="default",
                OMP_NUM_THREADS="1",
                MKL_NUM_THREADS="1",
                MKL_CBWR="AUTO",
                OPENBLAS_NUM_THREADS="3",
            ),
        )
        == []
    )


@pytest.mark.skipif(
    QEMU is None,
    reason="qemu-user is not installed: apt-get install qemu-user (make setup installs it when run as root)",
)
def test_emulated_amd_and_intel_cpus_give_the_same_bits(here):
    other = "EPYC-Rome" if vendor() == "GenuineIntel" else "Skylake-Client"
    same = next(cpu for cpu in CPUS if cpu != other)
    # the control: under MKL's own pinning an emulated CPU of the other vendor trains other weights than
    # this one (the LSTM, in oneDNN's kernel, does not run under emulation at all)
    with ThreadPoolExecutor(3) as pool:
        emulated = {
            other: pool.submit(run, EMULATED, cpu=other),
            same: pool.submit(run, EMULATED[:2], cpu=same),
        }
        mkl_there = pool.submit(run, ["transformer"], cpu=other, **MKL_PINNING)
        mkl_here = run(["transformer"], **MKL_PINNING)
        emulated = {cpu: job.result() for cpu, job in emulated.items()}
        mkl_there = mkl_there.result()
    for cpu, hashes in emulated.items():
        assert differing(here, hashes) == [], f"{cpu} computes other bits in these stages"
    assert {k.split("/")[0] for k in emulated[other] if "/" in k} == set(EMULATED)
    assert "transformer/weights" in differing(mkl_here, mkl_there)
