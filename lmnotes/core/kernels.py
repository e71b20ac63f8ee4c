"""PyTorch's CPU matrix products and MKL-computed elementwise functions, computed the same on
every x86-64 CPU with AVX2 and FMA. Every chapter (installed by
:func:`lmnotes.core.numerics.configure_torch`).

PyTorch's CPU build computes with MKL, which picks its kernels by CPU: its reproducible
branches other than ``COMPATIBLE`` hold on Intel CPUs only, so an AMD CPU computes other
matrix products, and ``COMPATIBLE`` makes them about 2.5 times slower. Its vector math
(``sqrt``, ``log``, ``log2``, ``log10``, ``tan``, ``asin``, ``acos``, ``atan`` measured) takes
other code on CPUs with AVX-512 even in ``COMPATIBLE`` mode, and its square root is not
correctly rounded. :func:`install` replaces PyTorch's CPU kernels of those operators, for
the whole process, with NumPy's (the tests hash them natively and under emulated CPUs:
``tests/test_same_bits.py``):

- the matrix products (:data:`PRODUCTS`: ``linear``, ``matmul`` and ``einsum`` are built on
  them) run on NumPy's OpenBLAS with its Haswell kernels pinned (``OPENBLAS_CORETYPE``, one
  OpenBLAS thread): AVX2 and FMA only, the same IEEE operations in the same order on any such
  CPU, Intel or AMD, and as fast as MKL's AVX2 branch. OpenBLAS's own threading changes the
  bits with the thread count, and it uses fewer threads on a machine with fewer cores; so a
  large product is cut here into as many blocks of rows as the book has threads
  (:data:`lmnotes.core.numerics.THREADS`), by its shape alone, each computed by one OpenBLAS
  call on its own thread. A dot product is NumPy's
  pairwise sum of the elementwise products;
- the elementwise functions MKL's vector math computes for PyTorch (:data:`FUNCTIONS`) are
  NumPy's (SciPy's for the error functions): IEEE's correctly rounded square root, NumPy's
  AVX2 loops, or the C library's functions, none of which depends on the CPU's vendor;
  ``pow`` with exponent 0.5 (which PyTorch computes with MKL's square root) takes that square
  root too.

The replacements compute the same quantities from the same inputs; results differ from MKL's
in the last bits only. Autograd, the key–value cache and every model above see ordinary
tensors. The kernels are registered for the CPU dispatch key only: CUDA keeps its own.

Written by hand because no library routes PyTorch's CPU BLAS and vector-math calls elsewhere
at run time (the CPU wheel links MKL statically); ``torch.library`` is PyTorch's own mechanism
for replacing an operator's kernel.
"""

from __future__ import annotations

import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.special
import torch

#: dtypes NumPy computes natively; others (bfloat16, float16) are computed in float32 and
#: rounded back, so that no CPU-dependent reduced-precision instruction runs.
_NATIVE = {torch.float32, torch.float64, torch.complex64, torch.complex128, torch.int64, torch.int32,
           torch.int16, torch.int8, torch.uint8, torch.bool}

#: Multiply-adds below which one thread computes a product (splitting costs about 20 µs).
SPLIT_WORK = 1 << 23
#: Rows of a block of a split product: a multiple of OpenBLAS's Haswell micro-kernel.
BLOCK_ROWS = 16

_LIBRARY: torch.library.Library | None = None
_THREADS = 1  # the blocks a large product is cut into: numerics.THREADS, set by install()
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _reset_pool() -> None:  # a forked child inherits no threads
    global _POOL
    _POOL = None


os.register_at_fork(after_in_child=_reset_pool)


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=max(1, _THREADS - 1), thread_name_prefix="lmnotes-blas")
        return _POOL


def _np(t: torch.Tensor) -> np.ndarray:
    t = t.detach()
    return (t if t.dtype in _NATIVE else t.float()).resolve_conj().resolve_neg().numpy()


def _tensor(a, dtype: torch.dtype) -> torch.Tensor:
    out = torch.from_numpy(np.ascontiguousarray(a))
    return out if out.dtype == dtype else out.to(dtype)


def _row_blocks(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` blocks of the rows 0 … n − 1, each but the last a multiple of BLOCK_ROWS."""
    size = -(-n // parts)
    size = -(-size // BLOCK_ROWS) * BLOCK_ROWS
    return [(a, min(a + size, n)) for a in range(0, n, size)]


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` (NumPy's broadcasting rules) on OpenBLAS, cut into blocks of rows of ``a`` by
    the shapes alone when large, so that the bits never depend on the machine's cores."""
    if a.ndim < 2 or _THREADS < 2:
        return np.matmul(a, b)
    n, p = a.shape[-2], (b.shape[-1] if b.ndim > 1 else 1)
    work = n * a.shape[-1] * p * int(np.prod(np.broadcast_shapes(a.shape[:-2], b.shape[:-2] if b.ndim > 2 else ())))
    if work < SPLIT_WORK or n < 2 * BLOCK_ROWS:
        return np.matmul(a, b)
    if b.ndim == 1:
        shape = a.shape[:-1]
    else:
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (n, p)
    out = np.empty(shape, dtype=np.result_type(a, b))

    def block(r0: int, r1: int) -> None:
        np.matmul(a[..., r0:r1, :], b, out=out[..., r0:r1] if b.ndim == 1 else out[..., r0:r1, :])

    (first, *rest) = _row_blocks(n, _THREADS)
    jobs = [_pool().submit(block, *rows) for rows in rest]
    block(*first)
    for job in jobs:
        job.result()
    return out


def _scaled(prod: np.ndarray, self: torch.Tensor | None, beta, alpha) -> np.ndarray:
    """``beta · self + alpha · prod`` in place of ``prod``; ``self`` ignored when beta is 0
    (BLAS's rule: a NaN in it does not propagate)."""
    if alpha != 1:
        prod *= alpha
    if self is not None and beta != 0:
        s = _np(self)
        prod += s if beta == 1 else beta * s
    return prod


def mm(self, mat2):
    """``self @ mat2`` [n, m] @ [m, p]; also ``bmm`` [b, n, m] @ [b, m, p]."""
    return _tensor(matmul(_np(self), _np(mat2)), self.dtype)


def addmm(self, mat1, mat2, *, beta=1, alpha=1):
    """``beta · self + alpha · mat1 @ mat2`` (``self`` broadcast: a bias [p] or [n, p]); also
    ``baddbmm`` and ``addmv``."""
    return _tensor(_scaled(matmul(_np(mat1), _np(mat2)), self, beta, alpha), mat1.dtype)


def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    """``beta · self + alpha · Σ_b batch1[b] @ batch2[b]`` (summed over the batch in order)."""
    prod = matmul(_np(batch1), _np(batch2))
    total = np.zeros((batch1.shape[1], batch2.shape[2]), prod.dtype)
    for p in prod:
        total += p
    return _tensor(_scaled(total, self, beta, alpha), batch1.dtype)


def dot(self, tensor):
    """Σ self · tensor, NumPy's pairwise sum (one thread, so the same on any core count)."""
    return _tensor(np.asarray(np.add.reduce(_np(self) * _np(tensor))), self.dtype)


def vdot(self, other):
    return _tensor(np.asarray(np.add.reduce(np.conj(_np(self)) * _np(other))), self.dtype)


def addmm_activation(self, mat1, mat2, *, beta=1, alpha=1, use_gelu=False):
    out = addmm(self, mat1, mat2, beta=beta, alpha=alpha)
    return torch.nn.functional.gelu(out, approximate="tanh") if use_gelu else torch.relu(out)


def _forms(name: str, fn, inplace: bool = True) -> dict:
    """The functional kernel ``name``, its in-place ``name_`` and its ``name.out`` form."""
    def in_place(self, *args, **kwargs):
        return self.copy_(fn(self, *args, **kwargs))

    def out_form(*args, out, **kwargs):
        value = fn(*args, **kwargs)
        out.resize_(value.shape)
        return out.copy_(value)

    return {name: fn, f"{name}.out": out_form, **({f"{name}_": in_place} if inplace else {})}


#: The matrix products, by ATen operator.
PRODUCTS = {
    **_forms("mm", mm, inplace=False), **_forms("bmm", mm, inplace=False),
    **_forms("addmm", addmm), **_forms("baddbmm", addmm), **_forms("addmv", addmm),
    **_forms("addbmm", addbmm),
    "dot": dot, "vdot": vdot, "_addmm_activation": addmm_activation,
}

#: The elementwise functions PyTorch's CPU build leaves to MKL's vector math
#: (``aten/src/ATen/cpu/vml.h``), with the NumPy or SciPy function that replaces each
#: (``trunc`` is exact everywhere and stays).
FUNCTIONS = {
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "erf": scipy.special.erf, "erfc": scipy.special.erfc, "erfinv": scipy.special.erfinv,
}


def _unary(fn):
    def kernel(self):
        if not (self.is_floating_point() or self.is_complex()):
            self = self.to(torch.get_default_dtype())  # PyTorch's promotion of an integer input
        with np.errstate(all="ignore"):  # PyTorch returns NaN and ±inf silently
            return _tensor(fn(_np(self)), self.dtype)
    kernel.__name__ = fn.__name__
    return kernel


def pow_scalar(self, exponent):
    """``self ** exponent`` as PyTorch computes it on the CPU, but for 0.5, which PyTorch's CPU
    build sends to MKL's square root: the correctly rounded one here. Every other exponent
    takes PyTorch's own rules (1 copies, 0 gives ones, 2 and 3 multiply, −0.5 and −1 and −2
    divide) or, otherwise, its vectorised ``pow`` (the same as for a tensor exponent)."""
    e = exponent.item() if isinstance(exponent, torch.Tensor) else exponent
    x = self
    if e == 0:
        return torch.ones_like(x)
    if e == 1:
        return x.clone()
    if not (x.is_floating_point() or x.is_complex()):
        return torch.pow(x, torch.tensor(e, dtype=x.dtype if isinstance(e, int) else torch.get_default_dtype()))
    if e == 0.5 and not x.is_complex():
        return _UNARY["sqrt"](x)
    special = {2: lambda: x * x, 3: lambda: x * x * x, -0.5: lambda: torch.rsqrt(x),
               -1: lambda: torch.reciprocal(x), -2: lambda: torch.reciprocal(x * x)}
    if e in special and not x.is_complex():
        return special[e]()
    return torch.pow(x, torch.tensor(e, dtype=x.dtype))


_UNARY = {name: _unary(fn) for name, fn in FUNCTIONS.items()}

KERNELS = {
    **PRODUCTS,
    **{k: v for name, fn in _UNARY.items() for k, v in _forms(name, fn).items()},
    "pow.Tensor_Scalar": pow_scalar,
    "pow.Tensor_Scalar_out": _forms("pow", pow_scalar)["pow.out"],
    "pow_.Scalar": _forms("pow", pow_scalar)["pow_"],
}


def install(threads: int) -> None:
    """Register :data:`KERNELS` as PyTorch's CPU kernels of those operators (once a process),
    large products cut into ``threads`` blocks."""
    global _LIBRARY, _THREADS
    if _LIBRARY is not None:
        return
    _THREADS = threads
    lib = torch.library.Library("aten", "IMPL")
    with warnings.catch_warnings():
        # PyTorch warns that each registration overrides its own CPU kernel: that is the point
        warnings.simplefilter("ignore")
        for name, fn in KERNELS.items():
            lib.impl(name, fn, "CPU")
    _LIBRARY = lib


def installed() -> bool:
    return _LIBRARY is not None
