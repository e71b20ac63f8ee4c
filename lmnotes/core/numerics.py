"""Reproducible arithmetic: the same bits on every x86-64 CPU with AVX2 and FMA, Intel or AMD,
with or without AVX-512, and any core count. Every chapter.

The book's notebooks are compared output by output (nbval) on whatever machine re-executes
them, and a trained model's weights feed every later number, so one flipped bit in training
changes a chapter. What makes the bits depend on the machine, each measured by hashing every
stage of a training step natively and under qemu-user emulating other CPUs
(``tests/test_same_bits.py``):

- PyTorch's vectorised kernels (softmax, layer norm, GELU, the reductions) sum in the order
  of their vector width: an AVX-512 CPU would run other kernels than an AVX2 one;
- reductions split between threads differ with the thread count (LayerNorm's weight
  gradients, for one);
- MKL, PyTorch's BLAS, picks its kernels by vendor: its reproducible branches other than
  ``COMPATIBLE`` hold on Intel CPUs only, so an AMD CPU computes other products, and its
  vector math (``exp``, ``log``, ``erf``) other values; its ``COMPATIBLE`` branch is the same
  everywhere but its products are slower (``bench/README.md``);
- MKL's square root is not correctly rounded, and differs between CPUs with and without
  AVX-512 even in ``COMPATIBLE`` mode;
- oneDNN's LSTM kernels differ between CPUs whatever ISA it is limited to;
- NumPy's AVX-512 loops (its exp and log) differ from its AVX2 ones; bf16 arithmetic runs on
  native instructions where a CPU has them and is emulated elsewhere, with other rounding.

:func:`pin_environment` (run when :mod:`lmnotes` is imported, before PyTorch or NumPy load)
makes every library take a path that every such CPU computes alike: PyTorch's kernels at AVX2
(``ATEN_CPU_CAPABILITY``), MKL on its ``COMPATIBLE`` branch in strict mode for what still
reaches it (LAPACK, the fused CPU attention), NumPy's AVX-512 loops off
(``NPY_DISABLE_CPU_FEATURES``), OpenBLAS's Haswell kernels (``OPENBLAS_CORETYPE``), and
:data:`THREADS` threads everywhere. Idle threads sleep rather than spin
(``OMP_WAIT_POLICY``, ``OPENBLAS_THREAD_TIMEOUT``): PyTorch's OpenMP threads and OpenBLAS's
own threads take turns on the same cores, and a spinning one slowed a training step by up
to 15 times (how threads wait never changes what they compute). :func:`configure_torch` (run
when :mod:`lmnotes.models` imports torch) fixes PyTorch's thread count, asks for
deterministic algorithms, turns oneDNN off and installs :mod:`lmnotes.core.kernels`: the
matrix products on NumPy's OpenBLAS and the elementwise functions MKL's vector math would
compute on NumPy. Models train in
float32. :data:`ARITHMETIC` names this arithmetic; each executed notebook records it
(:func:`describe`).

These settings win over the same variables in the environment: that is what makes a machine
with other defaults compute the book's bits. ``LMNOTES_NATIVE_CPU=1`` turns the pinning off
(every library then uses the whole machine its own way: faster on large or AVX-512 machines,
different in the last bits); ``LMNOTES_THREADS=N`` changes the thread count (and so the last
bits of training). Import :mod:`lmnotes` before NumPy or PyTorch, or run notebooks through
``python -m lmnotes.book``, whose kernels inherit the settings. Outside the pinned family (no
AVX2 and FMA, or not x86-64) the libraries keep their own defaults, and the book's outputs
cannot be expected bit for bit (:func:`in_family`).
"""

from __future__ import annotations

import os
import platform
import warnings

#: Threads for PyTorch, MKL and OpenBLAS: the project's machine has 2 cores.
THREADS = int(os.environ.get("LMNOTES_THREADS", "2"))

#: The arithmetic the book is computed with; a notebook executed with another one cannot be
#: expected to match bit for bit. Change it with any change to :data:`PINNED` or
#: :mod:`lmnotes.core.kernels` that changes bits.
ARITHMETIC = "x86-64-v3/openblas-haswell/mkl-compatible/1"

PINNED = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_CBWR": "COMPATIBLE,STRICT",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR",
    "OPENBLAS_CORETYPE": "Haswell",
    "OPENBLAS_THREAD_TIMEOUT": "4",  # 2^4 cycles of spinning before an idle thread sleeps
    "OMP_WAIT_POLICY": "PASSIVE",
    "OMP_NUM_THREADS": str(THREADS),
    "MKL_NUM_THREADS": str(THREADS),
    "OPENBLAS_NUM_THREADS": "1",  # lmnotes.core.kernels splits large products by their shape
    # deterministic cuBLAS, for torch.use_deterministic_algorithms on a GPU
    "CUBLAS_WORKSPACE_CONFIG": ":4096:8",
}
X86_ONLY = (
    "ATEN_CPU_CAPABILITY",
    "MKL_CBWR",
    "ONEDNN_MAX_CPU_ISA",
    "NPY_DISABLE_CPU_FEATURES",
    "OPENBLAS_CORETYPE",
)


def native() -> bool:
    """True when ``LMNOTES_NATIVE_CPU=1`` turned the pinning off."""
    return os.environ.get("LMNOTES_NATIVE_CPU", "") not in ("", "0")


def _has_avx2() -> bool:
    """Whether this is an x86 CPU with AVX2 and FMA (the pinned code path); read from Linux's
    /proc/cpuinfo, so False elsewhere (another OS or architecture keeps its own defaults)."""
    try:
        with open("/proc/cpuinfo") as fh:
            flags = next((line.split(":", 1)[1].split() for line in fh if line.startswith("flags")), [])
    except OSError:
        return False
    return {"avx2", "fma"} <= set(flags)


def in_family() -> bool:
    """Whether this machine computes the book's bits: an x86-64 CPU with AVX2 and FMA, and the
    pinning on."""
    return platform.machine().lower() in ("x86_64", "amd64") and _has_avx2() and not native()


def describe() -> dict:
    """What a notebook's outputs were computed with (its metadata ``lmnotes.arithmetic``): the
    same on every machine of the family, so that a re-executed notebook is byte for byte the
    committed one. ``"native"`` when the pinning is off or the machine is outside the family."""
    return {"name": ARITHMETIC if in_family() else "native", "threads": THREADS}


def outside_family_reason() -> str | None:
    """One line saying why this machine cannot reproduce the book's bits, or None."""
    if native():
        return "LMNOTES_NATIVE_CPU is set: the arithmetic is not pinned"
    machine = platform.machine() or "an unknown architecture"
    if machine.lower() not in ("x86_64", "amd64"):
        return f"this is {machine}, not x86-64: the book's bits are those of x86-64 CPUs with AVX2 and FMA"
    if not _has_avx2():
        return "this x86-64 CPU lacks AVX2 or FMA (or /proc/cpuinfo is unreadable): the book's bits are those of CPUs with both"
    return None


def pin_environment() -> None:
    """Set :data:`PINNED` in ``os.environ`` (unless :func:`native`; the x86 settings only on
    an x86 CPU with AVX2). Child processes (notebook kernels) inherit it; in this process it
    takes effect for the libraries not yet loaded."""
    if native():
        return
    x86 = _has_avx2()
    os.environ.update({k: v for k, v in PINNED.items() if x86 or k not in X86_ONLY})


def configure_torch() -> None:
    """Fix PyTorch's thread count, ask for deterministic algorithms, turn oneDNN off and install
    :mod:`lmnotes.core.kernels` (unless :func:`native`); warn if PyTorch chose its CPU kernels
    before the pinning could reach it."""
    import torch

    if native():
        return
    torch.set_num_threads(THREADS)
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.mkldnn.enabled = False
    from lmnotes.core import kernels

    kernels.install(THREADS)
    if _has_avx2() and torch.backends.cpu.get_cpu_capability() != "AVX2":
        warnings.warn(
            f"PyTorch runs its {torch.backends.cpu.get_cpu_capability()} kernels: it was used "
            f"before lmnotes was imported, so results may differ from the book's in the last "
            f"bits; import lmnotes first",
            stacklevel=2,
        )
