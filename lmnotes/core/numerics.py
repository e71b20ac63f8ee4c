"""Reproducible arithmetic: the same bits on any x86 CPU and thread count. Every chapter.

The book's notebooks are compared output by output (nbval) on whatever machine re-executes
them, and a trained model's weights feed every later number, so one flipped bit in training
changes a chapter. Measured on the project's machine by training the `cpu`-size Transformer
for six steps and comparing the weights bit for bit:

- 1 and 2 threads give different weights: LayerNorm's weight and bias gradients are sums
  over rows that PyTorch splits between threads (every other gradient and the forward pass
  agree);
- ``ATEN_CPU_CAPABILITY=default`` and ``avx2`` give different logits already in the forward
  pass: each of PyTorch's vectorised kernels (softmax, layer norm, GELU) sums in the order of
  its vector width, and an AVX-512 CPU uses wider vectors than an AVX2 one;
- MKL and oneDNN choose their matrix kernels by CPU too, and bf16 mixed precision runs on
  native bf16 instructions where a CPU has them and on a slow emulation elsewhere (12x slower
  than fp32 on an AVX2 CPU), with other rounding.

:func:`pin_environment` (run when :mod:`lmnotes` is imported, before PyTorch or NumPy load)
makes every library take the code path that every x86-64 CPU of the last decade has: AVX2
for PyTorch's kernels (``ATEN_CPU_CAPABILITY``), MKL's conditional numerical reproducibility
on its AVX2 branch, strict mode, which also makes its results independent of the thread
count (``MKL_CBWR``), oneDNN limited to AVX2 (``ONEDNN_MAX_CPU_ISA``), NumPy's AVX-512
dispatch off (``NPY_DISABLE_CPU_FEATURES``; its exp and log differ there) and OpenBLAS's
Haswell kernels (``OPENBLAS_CORETYPE``). :func:`configure_torch` (run when
:mod:`lmnotes.models` imports torch) fixes the thread count at :data:`THREADS` and asks for
deterministic algorithms. Models train in float32.

These settings win over the same variables in the environment: that is what makes a machine
with other defaults compute the book's bits. ``LMNOTES_NATIVE_CPU=1`` turns the pinning off
(every library then uses the whole machine its own way: faster on large or AVX-512 machines,
different in the last bits); ``LMNOTES_THREADS=N`` changes the thread count (and so the last
bits of training). Import :mod:`lmnotes` before NumPy or PyTorch, or run notebooks through
``python -m lmnotes.book``, whose kernels inherit the settings.
"""

from __future__ import annotations

import os
import warnings

#: Threads for PyTorch, MKL and OpenBLAS: the project's machine has 2 cores.
THREADS = int(os.environ.get("LMNOTES_THREADS", "2"))

PINNED = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_CBWR": "AVX2,STRICT",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR",
    "OPENBLAS_CORETYPE": "Haswell",
    "OMP_NUM_THREADS": str(THREADS),
    "MKL_NUM_THREADS": str(THREADS),
    "OPENBLAS_NUM_THREADS": str(THREADS),
    # deterministic cuBLAS, for torch.use_deterministic_algorithms on a GPU
    "CUBLAS_WORKSPACE_CONFIG": ":4096:8",
}
X86_ONLY = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA", "NPY_DISABLE_CPU_FEATURES", "OPENBLAS_CORETYPE")


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


def pin_environment() -> None:
    """Set :data:`PINNED` in ``os.environ`` (unless :func:`native`; the x86 settings only on
    an x86 CPU with AVX2). Child processes (notebook kernels) inherit it; in this process it
    takes effect for the libraries not yet loaded."""
    if native():
        return
    x86 = _has_avx2()
    os.environ.update({k: v for k, v in PINNED.items() if x86 or k not in X86_ONLY})


def configure_torch() -> None:
    """Fix PyTorch's thread count and ask for deterministic algorithms (unless :func:`native`);
    warn if PyTorch chose its CPU kernels before the pinning could reach it."""
    import torch

    if native():
        return
    torch.set_num_threads(THREADS)
    torch.use_deterministic_algorithms(True, warn_only=True)
    if torch.backends.cpu.get_cpu_capability() not in ("AVX2", "DEFAULT"):
        warnings.warn(f"PyTorch runs its {torch.backends.cpu.get_cpu_capability()} kernels: it was used "
                      f"before lmnotes was imported, so results may differ from the book's in the last "
                      f"bits; import lmnotes first", stacklevel=2)
